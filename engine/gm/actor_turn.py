"""The actor's call in a live talk turn (seed 001 "Director y actor (apagado)": "Queda en el
código, apagado en producción (ACTOR_MODEL=off)"; "las líneas del actor pasan el mismo control
que el cierre: no repetir frases, no cerrar tratos ni prometer ir a ningún sitio sin que lo haya
decidido el máster, no soltar el secreto ni nombres que el jugador no sabe. Si fallan dos veces,
se queda lo del máster"; "en offline no hay actor").

Only when the world sets ``gameMaster.settings.actorModel`` and a model plays (never offline):
after the master's lines for the NPC have passed its own checks (``engine.gm.talk_turn``), a
second request, built from ``engine.gm.actor``'s secret-free view, plays them again. Its lines
pass the talk checks (``engine.gm.talk_checks``) and the actor's own: no sentence the NPC
already said to him (``repeated``), no deal closed nor promise to go somewhere that the master's
lines do not make (``promise``), no secret (``secret``, the leak detector of
``engine.gm.directors.leaks``). A failure asks once more, saying why; a second failure keeps the
master's lines.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.gm.actor import ActorView, actor_request, actor_view
from engine.gm.directors.calls import complete
from engine.gm.directors.leaks import fingerprint, leaks
from engine.gm.mentions import fold
from engine.gm.scene import Scene
from engine.gm.secrets import revealed_to
from engine.gm.state import GMEvent
from engine.gm.talk import TalkScript
from engine.gm.talk_checks import CHECKS, check_reply, reasons
from engine.gm.talk_voice import sentences
from engine.llm.base import ChatRequest, Provider, Usage

ATTEMPTS = 2  # "Si fallan dos veces, se queda lo del máster"
ACTOR_CHECKS = ("repeated", "promise", "secret")
WHY = {
    "repeated": "it repeats a line it already said to him",
    "promise": "it closes a deal or promises to go somewhere the master's lines did not",
    "secret": "it gives away something it keeps secret",
}
PROMISES: dict[str, tuple[str, ...]] = {  # folded phrases; any language may appear in a reply
    "en": (
        "it's a deal",
        "we have a deal",
        "deal done",
        "agreed",
        "i'll go",
        "i will go",
        "i'll meet you",
        "i will meet you",
        "i'll come with you",
        "i'll be there",
    ),
    "es": ("trato hecho", "de acuerdo", "ire contigo", "ire a", "nos vemos en", "alli estare"),
    "zh": ("成交", "一言为定", "我会去", "我跟你去", "不见不散"),
}


@dataclass
class Acted:
    """The actor's part of a turn: ``text`` its lines that passed (None: the master's stay),
    ``failed`` the checks each rejected attempt failed."""

    text: str | None = None
    failed: list[list[str]] = field(default_factory=list)
    model_calls: int = 0
    usage: Usage = field(default_factory=Usage)


def actor_checks(scene: Scene, script: TalkScript, view: ActorView, reply: str) -> list[str]:
    """The checks ``reply`` fails: the talk checks, then the actor's own (empty: it passes)."""
    failed = check_reply(scene, script, reply)
    said = {fold(s) for x in view.exchanges if x.speaker == view.npc for s in sentences(x.text)}
    if any(fold(s) in said for s in sentences(reply)):
        failed.append("repeated")
    if _promises(reply) - _promises(view.lines):
        failed.append("promise")
    if _tells_secret(scene, script, reply):
        failed.append("secret")
    return failed


def _promises(text: str) -> set[str]:
    folded = fold(text).replace("’", "'")
    return {p for phrases in PROMISES.values() for p in phrases if p in folded}


def _tells_secret(scene: Scene, script: TalkScript, reply: str) -> bool:
    npc = script.npc
    if npc.secret is None or revealed_to(scene.state, npc, script.character_id):
        return False
    return leaks(reply, fingerprint(npc.id, npc.secret.text))


def why(scene: Scene, script: TalkScript, reply: str, failed: list[str]) -> str:
    """The failed checks, said so the actor can fix them."""
    talk = [code for code in failed if code in CHECKS]
    parts = [reasons(scene, script, reply, talk)] if talk else []
    return "; ".join([*parts, *(WHY[code] for code in failed if code in WHY)])


async def play_actor(
    scene: Scene,
    script: TalkScript,
    event: GMEvent,
    lines: str,
    provider: Provider,
    base: ChatRequest | None,
) -> Acted | None:
    """The actor plays the NPC's ``lines`` (the master's); None when it may not (its secret
    is in them). ``event`` is his action's event."""
    view = actor_view(scene, script, event, lines)
    if view is None:
        return None
    acted, failed_why = Acted(), ""
    for _ in range(ATTEMPTS):
        answer = await complete(provider, actor_request(view, base, failed_why))
        acted.model_calls += 1
        acted.usage = acted.usage.plus(answer.usage)
        text = unquoted(answer.text)
        failed = actor_checks(scene, script, view, text) if text else ["answers"]
        if not failed:
            acted.text = text
            return acted
        acted.failed.append(failed)
        failed_why = why(scene, script, text, failed)
    return acted


def unquoted(text: str) -> str:
    """The lines without the quotes a model may put around them."""
    text = " ".join(text.split())
    if len(text) > 1 and text[0] in '"“«「' and text[-1] in '"”»」':
        return text[1:-1].strip()
    return text
