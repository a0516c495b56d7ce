"""The share of a player's actions the engine resolves at zero cost on the demo (issue 33: "Seed
001's principle is that everything deterministic costs nothing: widen it").

A route of the Brackenford demo as a player writes it, in English, Spanish and Chinese: looking,
moving, taking, the inventory and the journal, buying and selling, talking, a risky act and the
chalice's hand-in. Each action is played through ``python -m engine gm --script`` (offline, no
model), so the same file measures any version of the engine: an action "costs nothing" when its
JSON line says ``model_calls: 0`` (an engine move, a read, a refusal or a question back).
Run: ``.venv/bin/python bench/gm_route.py`` (also printed by ``bench/gm.py``).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORLD = ROOT / "studio" / "fixtures" / "gm_demo_world.json"

ROUTES: dict[str, list[str]] = {
    "en": [
        "look",
        "take the coil of rope",
        "what am I carrying",
        "talk to the innkeeper",
        "buy a pint of ale",
        "I hum an old song",
        "go south",
        "read the notice board",
        "check my journal",
        "go in",
        "buy a loaf of bread",
        "sell the coil of rope",
        "I try to persuade the shopkeeper to lower his prices",
        "go out",
        "go west",
        "talk to the priest",
        "give the bread to the priest",
        "show me my character sheet",
        "wait",
    ],
    "es": [
        "mirar",
        "cojo el rollo de cuerda",
        "¿qué llevo?",
        "hablo con la posadera",
        "compro una pinta de cerveza",
        "silbo una vieja canción",
        "voy al sur",
        "leo el tablón",
        "mira mi diario",
        "entro",
        "compro una hogaza de pan",
        "vendo la cuerda",
        "intento convencer al tendero de que baje los precios",
        "salgo",
        "voy al oeste",
        "hablo con el cura",
        "le doy el pan al cura",
        "mi hoja de personaje",
        "espero",
    ],
    "zh": [
        "看看四周",
        "拿起那卷绳子",
        "我身上有什么",
        "和老板娘说话",
        "买一品脱麦酒",
        "我哼一首老歌",
        "往南走",
        "看告示板",
        "看看我的日志",
        "进去",
        "买一个面包",
        "卖掉绳子",
        "我试着说服店主降价",
        "出去",
        "往西走",
        "和神父说话",
        "把面包给神父",
        "看我的角色卡",
        "等待",
    ],
}


def played(actions: list[str], language: str) -> list[dict[str, object]]:
    """Each action's JSON line, played by Ren offline."""
    script = {"character": "ren", "actions": actions, "language": language}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(script, handle, ensure_ascii=False)
    command = [sys.executable, "-m", "engine", "gm", "--world", str(WORLD)]
    command += ["--script", handle.name, "--seed", "3"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    Path(handle.name).unlink()
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    if not lines:  # an engine from before the script's "language" key
        script.pop("language")
        Path(handle.name).write_text(json.dumps(script, ensure_ascii=False), encoding="utf-8")
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
        lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
        Path(handle.name).unlink()
    return lines


def report() -> None:
    for language, route in ROUTES.items():
        lines = played(route, language)
        free = sum(1 for line in lines if line.get("model_calls") == 0)
        share = free / len(route) if route else 0.0
        paid = [a for a, line in zip(route, lines, strict=False) if line.get("model_calls")]
        print(
            f"zero-cost actions on the demo route ({language}): {free}/{len(route)} ({share:.0%})"
        )
        if paid:
            print(f"  to the master: {'; '.join(paid)}")


if __name__ == "__main__":
    report()
