"""Benchmark one turn of engine work against a SillyTavern-style keyword scan.

Run: ``.venv/bin/python bench/prompt.py`` (``--quick`` for a smaller run, ``--sizes 500,5000``).

For N = 500, 5,000 and 50,000 keyword entries it generates a world (3 keywords per entry: a
name, an alias and "<title> <name>"; 10% with two secondary keywords, 5% with a condition, 30%
whole-word, 20% depth-injected, recursion depth 1), 300 variables, 100 rules and a 500-message
chat (Zipf-distributed filler words; user messages mention 0.6 names, AI messages 1.2, names
drawn Zipf-like, as a story keeps returning to its cast), then times a full turn:
``assemble_prompt`` and, when ``engine.directives`` and ``engine.rules`` are importable, parsing a
reply with 20 directives, applying them and running the rules. Each timed turn sees a chat whose
last two messages are new text (as in play), so the per-text memo only helps with the old ones.
The baseline scans like SillyTavern: for each entry, for each key, search the joined recent text.
Both run with the default scan depth (2) and over the whole 500-message history.

Compile time (world load, content hash, keyword matcher) is printed but not part of a turn.
Then ``bench/prompt_studio.py`` times the studio's live preview (unchanged, edit → preview,
typing) through the HTTP endpoint, for the sizes up to 5,000 (``--no-studio`` skips it).
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import re
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.lorebook import compile_lorebook, scan
from engine.macros import MacroContext
from engine.prompt import assemble_prompt
from engine.session import Message, Persona, SessionState
from engine.world import WorldDefinition, load_world

HISTORY = 500
VARIABLES = 300
RULES = 100
# Names are 3-4 syllables from this inventory (about 4 million possible), so that, as in real
# lorebooks, keywords rarely occur by accident inside ordinary words.
SYLLABLES = tuple(
    re.findall(
        r"\w+",
        """ka ri an el mor th va sel dra ven lo ish ar un bel cor gal ith mir nor pel quin ros
        tal ur wen yl zor fen hal bry cael dun esk fyr gorm hel ith jor kel lun myr nyx orn
        phar rhy syl tor umb vey wyn xan yor zeph""",
    )
)
TITLES = ("lord", "lady", "house", "old", "saint", "captain", "the black", "mount")
LOGICS = ("AND_ANY", "AND_ALL", "NOT_ANY", "NOT_ALL")


# --- generated data -----------------------------------------------------------------------


def make_vocabulary(rng: random.Random, size: int) -> list[str]:
    letters = "etaoinshrdlucmfwypvbgk"
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(letters) for _ in range(rng.randint(2, 8))))
    ordered = sorted(words)
    rng.shuffle(ordered)  # frequency rank (Zipf, by index) independent of spelling
    return ordered


def make_names(rng: random.Random, count: int) -> list[str]:
    names: set[str] = set()
    while len(names) < count:
        names.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(3, 4))).capitalize())
    ordered = sorted(names)
    rng.shuffle(ordered)
    return ordered


class Prose:
    """Zipf-distributed filler words with entity names mixed in.

    Names are Zipf-distributed too, as in a story: a few characters and places come up all the
    time, most lore entries rarely or never.
    """

    def __init__(self, rng: random.Random, vocabulary: list[str], names: list[str]):
        self.rng = rng
        self.vocabulary = vocabulary
        self.weights = list(itertools.accumulate(1 / (i + 1) for i in range(len(vocabulary))))
        self.names = names
        self.name_weights = list(itertools.accumulate(1 / (i + 1) for i in range(len(names))))

    def text(self, words: int, mentions: float) -> str:
        out = self.rng.choices(self.vocabulary, cum_weights=self.weights, k=words)
        for _ in range(int(mentions) + (self.rng.random() < mentions % 1)):
            name = self.rng.choices(self.names, cum_weights=self.name_weights)[0]
            out[self.rng.randrange(len(out))] = name
        for i in range(len(out)):
            if self.rng.random() < 0.08:
                out[i] += self.rng.choice(",.!?")
        return " ".join(out)

    def message(self, role: str) -> Message:
        if role == "user":
            return Message("user", self.text(self.rng.randint(8, 40), 0.6))
        return Message("assistant", self.text(self.rng.randint(50, 140), 1.2))


def make_world(n: int, scan_depth: int, seed: int = 7) -> tuple[dict[str, Any], list[str]]:
    rng = random.Random(seed)
    vocabulary = make_vocabulary(rng, 2000)
    names = make_names(rng, 2 * n)
    variables = [make_variable(i) for i in range(VARIABLES)]
    number_ids = [v["id"] for v in variables if v["type"] == "number"]
    entries: list[dict[str, Any]] = [
        {"id": f"preset-{i}", "section": "system-presets", "position": i, "content": text}
        for i, text in enumerate(
            ("You are the narrator of {{char}}'s story.", "Show, don't tell.", "Stay in scene.")
        )
    ]
    entries.append(
        {
            "id": "hero",
            "name": "Aria",
            "role": "character",
            "section": "system-presets",
            "position": 5,
            "content": "{{char}} is a wandering bard who owes {{user}} a favour.",
        }
    )
    entries.append(
        {
            "id": "examples",
            "section": "examples",
            "content": "<START>\n{{user}}: Hello.\n{{char}}: Well met, {{user}}.",
        }
    )
    entries.append(
        {"id": "format", "section": "post-history", "content": "Write two paragraphs at most."}
    )
    prose = Prose(rng, vocabulary, names[:n])
    for i in range(n):
        name, alias = names[i], names[n + i]
        entry: dict[str, Any] = {
            "id": f"lore-{i}",
            "name": name,
            "role": "lore",
            "section": "chat-history",
            "position": rng.randint(0, 10),
            "keywords": [name, alias, f"{rng.choice(TITLES)} {name}"],
            "content": prose.text(rng.randint(20, 60), 0.2),
            "matchWholeWords": rng.random() < 0.3,
        }
        if rng.random() < 0.2:
            entry["depth"] = rng.randint(0, 4)
        if rng.random() < 0.10:
            common = [w for w in vocabulary[50:1000] if len(w) >= 4]
            entry["secondaryKeywords"] = rng.sample(common, 2)
            entry["secondaryKeywordLogic"] = rng.choice(LOGICS)
        if rng.random() < 0.05:
            entry["conditions"] = [
                {"variableId": rng.choice(number_ids), "operator": "gt", "value": 40}
            ]
        entries.append(entry)
    world = {
        "name": "Bench World",
        "entries": entries,
        "variables": variables,
        "rules": [make_rule(i, rng, number_ids, vocabulary) for i in range(RULES)],
        "audioTracks": [
            {"id": f"track-{i}", "name": f"Track {i}", "type": "bgm"} for i in range(10)
        ],
        "settings": {"lorebookScanDepth": scan_depth, "lorebookRecursionDepth": 1},
    }
    return world, names[:n]


def make_variable(i: int) -> dict[str, Any]:
    kind = ("number", "number", "string", "boolean", "json")[i % 5]
    default: Any = {"number": 50, "string": "calm", "boolean": False, "json": {"items": []}}[kind]
    variable: dict[str, Any] = {
        "id": f"var-{i}",
        "name": f"Variable {i}",
        "type": kind,
        "defaultValue": default,
        "behaviorRules": f"Change var-{i} when the story calls for it; at most 10 per turn.",
    }
    if kind == "number":
        variable.update(min=0, max=100)
    return variable


def make_rule(i: int, rng: random.Random, number_ids: list[str], words: list[str]) -> dict:
    kind = i % 4
    trigger: dict[str, Any]
    if kind == 0:
        trigger = {
            "type": "variable-crossed",
            "variableId": rng.choice(number_ids),
            "direction": "drops-below",
            "threshold": 30,
        }
    elif kind == 1:
        trigger = {"type": "keyword", "keywords": rng.sample(words[:500], 3)}
    elif kind == 2:
        trigger = {"type": "every-turn"}
    else:
        trigger = {"type": "state-change", "variableId": rng.choice(number_ids)}
    return {
        "id": f"rule-{i}",
        "trigger": trigger,
        "conditions": [{"variableId": rng.choice(number_ids), "operator": "gte", "value": 0}],
        "actions": [
            {
                "type": "modify-variable",
                "variableId": rng.choice(number_ids),
                "operation": "add",
                "value": 1,
            },
            {
                "type": "inject-directive",
                "directiveId": f"d-{i % 10}",
                "content": f"Mood {i}.",
                "position": rng.choice(["top", "after_char", "auto", "bottom"]),
            },
        ],
        "cooldownTurns": 2,
    }


def make_reply(rng: random.Random, prose: Prose, number_ids: list[str]) -> str:
    lines = [prose.text(120, 1.0)]
    for _ in range(20):
        lines.append(f"[{rng.choice(number_ids)}: {rng.choice(['+', '-'])}{rng.randint(1, 9)}]")
    return "\n".join(lines)


# --- the SillyTavern-style baseline -------------------------------------------------------


class Baseline:
    """For each entry, for each key: search the joined recent text (whole-word keys by regex)."""

    def __init__(self, world: WorldDefinition):
        self.world = world
        self.entries = [e for e in world.entries if e.section == "chat-history" and e.enabled]
        self.word_regex: dict[str, re.Pattern[str]] = {}
        for entry in self.entries:
            if entry.match_whole_words:
                for key in [*entry.keywords, *entry.secondary_keywords]:
                    k = key.lower()
                    self.word_regex[k] = re.compile(rf"(?:^|\W){re.escape(k)}(?:$|\W)")

    def found(self, key: str, whole: bool, text: str) -> bool:
        k = key.lower()
        if k not in text:
            return False
        return not whole or self.word_regex[k].search(text) is not None

    def scan(self, messages: list[Message], depth: int) -> set[str]:
        text = "\n".join(m.content for m in messages[-depth:]).lower()
        fired: set[str] = set()
        buffer = text
        for _ in range(1 + self.world.settings.lorebook_recursion_depth):
            new = []
            for entry in self.entries:
                if entry.id in fired:
                    continue
                whole = entry.match_whole_words
                if not any(self.found(k, whole, buffer) for k in entry.keywords):
                    continue
                if entry.secondary_keywords:
                    hits = [self.found(k, whole, buffer) for k in entry.secondary_keywords]
                    logic = entry.secondary_keyword_logic
                    ok = {
                        "AND_ANY": any(hits),
                        "AND_ALL": all(hits),
                        "NOT_ANY": not any(hits),
                        "NOT_ALL": not all(hits),
                    }[logic]
                    if not ok:
                        continue
                new.append(entry)
            fired.update(e.id for e in new)
            if not new:
                break
            buffer = buffer + "\n" + "\n".join(e.content.lower() for e in new)
        return fired


# --- timing -------------------------------------------------------------------------------


def timed(fn: Callable[[int], object], reps: int) -> list[float]:
    """CPU milliseconds of each call (``process_time``), which a busy machine does not inflate;
    ``WALL`` collects the wall-clock times alongside."""
    out = []
    WALL.clear()
    for i in range(reps):
        start, wall = time.process_time(), time.perf_counter()
        fn(i)
        out.append((time.process_time() - start) * 1000)
        WALL.append((time.perf_counter() - wall) * 1000)
    return out


WALL: list[float] = []


Extra = Callable[[WorldDefinition, SessionState, str, str], None]


def turn_extras() -> tuple[Extra | None, str]:
    """Reply parsing + apply + rules, if the modules that do them exist yet."""
    try:
        from engine import directives, events, rules
    except ImportError as exc:
        return None, f"turn = assemble_prompt only (reply parsing/rules not importable: {exc})"
    parse = getattr(directives, "parse_reply", None)
    run_rules = getattr(rules, "run_rules", None)
    if parse is None or run_rules is None:
        return None, "turn = assemble_prompt only (parse_reply or run_rules missing)"

    def extra(world: WorldDefinition, session: SessionState, reply: str, user: str) -> None:
        work = session.clone()
        before = work.values
        parsed = parse(world, reply, work.values)  # applies to a copy
        work.values = parsed.state
        batch = [
            events.message_user(user),
            events.message_ai(parsed.text),
            events.turn_complete(work.turn),
            *events.state_changed_events(parsed.changes, before, work.values),
        ]
        run_rules(world, work, batch)

    return extra, (
        "turn = assemble_prompt + parse_reply (20 directives, applied to a copy of the state)"
        " + run_rules (100 rules)"
    )


@dataclass
class Row:
    n: int
    depth: str
    compile_s: float
    turn_ms: float
    turn_wall_ms: float
    scan_ms: float
    cold_ms: float
    fired: int
    base_ms: float
    base_reps: int


def measure(
    generated: tuple[dict[str, Any], list[str]], depth: int, quick: bool, extra: Extra | None
) -> Row:
    data, names = generated
    n = len(names)
    t0 = time.perf_counter()
    world = load_world({**data, "settings": {**data["settings"], "lorebookScanDepth": depth}})
    _ = world.content_hash
    lorebook = compile_lorebook(world)
    compile_s = time.perf_counter() - t0

    rng = random.Random(11)
    prose = Prose(rng, make_vocabulary(random.Random(7), 2000), names)
    base = [prose.message("user" if i % 2 == 0 else "assistant") for i in range(HISTORY)]
    reps = 8 if quick else (15 if n >= 50_000 else 31)
    # every timed turn ends with two messages nobody has scanned yet, as in play
    fresh = [(prose.message("assistant"), prose.message("user")) for _ in range(reps + 1)]
    histories = [[*base[2:], ai, user] for ai, user in fresh]
    number_ids = [v.id for v in world.variables if v.type == "number"]
    replies = [make_reply(rng, prose, number_ids) for _ in range(reps + 1)]
    session = SessionState.initial(world)
    session.turn = 12
    persona = Persona("Kai", "tall", "curious", "an orphan")
    now = datetime(2026, 5, 13, 14, 30, tzinfo=UTC)

    def turn(i: int) -> None:
        history = histories[i]
        context = MacroContext(turn=12, now=now, rng=random.Random(i), messages=history)
        assemble_prompt(world, history, session, persona=persona, context=context)
        if extra is not None:
            extra(world, session, replies[i], history[-1].content)

    def scan_only(i: int) -> None:
        scan(lorebook, histories[i], session.values)

    lorebook.clear_memo()
    cold = timed(lambda i: scan_only(reps), 1)[0]
    turn(reps)  # the warm-up turn
    lorebook.clear_memo()
    turn(reps)  # the old history is now seen text; the new messages of each rep are not
    turns = timed(turn, reps)
    turn_wall = statistics.median(WALL)
    lorebook.clear_memo()
    scan_only(reps)
    scans = timed(scan_only, reps)
    fired = len(scan(lorebook, histories[0], session.values))

    baseline = Baseline(world)
    base_reps = 1 if quick or (n >= 50_000 and depth > 2) else (3 if n >= 5_000 else 10)
    base_times = timed(lambda i: baseline.scan(histories[i], depth), base_reps)
    return Row(
        n=n,
        depth="2" if depth == 2 else "all",
        compile_s=compile_s,
        turn_ms=statistics.median(turns),
        turn_wall_ms=turn_wall,
        scan_ms=statistics.median(scans),
        cold_ms=cold,
        fired=fired,
        base_ms=statistics.median(base_times),
        base_reps=base_reps,
    )


def run(sizes: list[int], quick: bool) -> None:
    extra, note = turn_extras()
    print(note)
    print(f"history {HISTORY} messages, {VARIABLES} variables, {RULES} rules")
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}\n")
    print(
        f"{'N':>6} {'scan':>5} {'compile s':>9} {'turn ms':>8} {'(wall)':>7} {'scan ms':>8} "
        f"{'cold ms':>8} "
        f"{'fired':>6} {'base ms':>9} {'base/turn':>9} {'base/scan':>9}"
    )
    rows: dict[tuple[int, str], Row] = {}
    generated = {n: make_world(n, 2) for n in sizes}
    for depth in (2, HISTORY):
        for n in sizes:
            row = measure(generated[n], depth, quick, extra)
            rows[(n, row.depth)] = row
            print(
                f"{n:>6} {row.depth:>5} {row.compile_s:>9.2f} {row.turn_ms:>8.2f} "
                f"{row.turn_wall_ms:>7.2f} {row.scan_ms:>8.2f} {row.cold_ms:>8.1f} "
                f"{row.fired:>6} {row.base_ms:>9.1f} "
                f"{row.base_ms / row.turn_ms:>8.0f}x {row.base_ms / row.scan_ms:>8.0f}x",
                flush=True,
            )
    print()
    if 5_000 in sizes and 50_000 in sizes:
        for depth_name in ("2", "all"):
            small, large = rows[(5_000, depth_name)], rows[(50_000, depth_name)]
            print(
                f"growth 5,000 -> 50,000 entries, scan {depth_name}: turn "
                f"{large.turn_ms / small.turn_ms:.2f}x, scan {large.scan_ms / small.scan_ms:.2f}x"
            )
    if (5_000, "all") in rows:
        row = rows[(5_000, "all")]
        print(
            f"target N=5,000 whole history: turn {row.turn_ms:.2f} ms (< 10), "
            f"baseline/turn {row.base_ms / row.turn_ms:.0f}x (>= 100)"
        )
    print(
        "\ncompile s: load_world + content hash + compile_lorebook, once per world."
        "\nAll times are CPU time of this process (time.process_time), so that other work on a"
        " shared machine does not inflate them; (wall) is the wall-clock median of the turns."
        "\nturn, scan: medians over turns whose last two messages are new text (the older ones"
        " are memoised per text, as in play); cold: the first scan of the whole chat right after"
        " compiling; base: the SillyTavern-style scan alone (no prompt building), median of"
        " 1-10 runs, so base/turn understates the gap; fired: entries in the prompt."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", default="500,5000,50000")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--no-studio", action="store_true", help="skip the studio preview part")
    parser.add_argument("--studio-only", action="store_true", help="only the studio preview")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    if not args.studio_only:
        run(sizes, args.quick)
    if not args.no_studio:  # issue 14 §2: edit → preview through the HTTP endpoint
        import prompt_studio

        prompt_studio.run({n: make_world(n, 2)[0] for n in sizes if n <= 5_000}, args.quick)


if __name__ == "__main__":
    main()
