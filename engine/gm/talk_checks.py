"""The free checks of an NPC's reply (seed 001 "NPC que conversan": "El cierre comprueba cada hueco
sin IA y pide reescribir una vez: que conteste, que no pregunte quién es a quien conoce, que no
use un nombre que no sabe, que no conteste a lo que el actor no ha dicho, que no ponga en su boca
lo que no escribió, que no suelte una misión sin que la pidan y la longitud"; "Si fallan dos
veces, se queda lo del máster").

Each check is engine code reading the script and the words (no model): ``answers`` (a question
of his gets at least one sentence that is not a question back), ``who_are_you`` (never to one it
knows), ``unknown_name`` (no NPC name he has not heard, unless he just said it), ``unasked_answer``
(no reaction to an insult, apology, flattery, thanks, threat or gift that did not happen),
``put_words`` (his character does not say, agree, nod or decide in its line), ``unasked_errand``
(no errand unless slot D offers, hints, asks after or receives one) and ``length`` (1 to 4
sentences). ``settle_reply`` asks for one rewrite when any fails and keeps the rewrite only if it
passes; otherwise the master's own text stays.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from engine.gm.mentions import fold, mentions
from engine.gm.moves import languages_from
from engine.gm.scene import Scene
from engine.gm.suggest import names_in
from engine.gm.talk import TalkScript
from engine.gm.talk_voice import MAX_SENTENCES, sentences
from engine.gm.talkbook import says_any, spaced, talkbook

CHECKS = (
    "answers",
    "who_are_you",
    "unknown_name",
    "unasked_answer",
    "put_words",
    "unasked_errand",
    "length",
)
ASKING = ("question", "ask_who", "ask_work", "trade", "request", "news")  # want an answer
REACTIONS = ("insult", "apology", "flattery", "thanks", "threat", "gift")
ERRANDS = ("offer", "hint", "progress", "deliver", "accepted")
Rewrite = Callable[[list[str]], Awaitable[str]]


def _any_language(script: TalkScript, text: str, words: str) -> bool:
    return any(says_any(talkbook(code), text, words) for code in languages_from(script.language))


def answers(scene: Scene, script: TalkScript, reply: str) -> bool:
    if script.cut or script.kind("C") not in ASKING:
        return bool(reply.strip())
    return any(not s.rstrip("\"'”’»」").endswith(("?", "？")) for s in sentences(reply))


def who_are_you(scene: Scene, script: TalkScript, reply: str) -> bool:
    known = script.knows_him or script.knows_name
    return not (known and _any_language(script, reply, "who_are_you"))


def unknown_names(scene: Scene, script: TalkScript, reply: str) -> list[str]:
    """The NPCs the reply names that he has not heard of (the speaker itself may say its own
    name; a name he just said is his)."""
    heard = set(scene.me.known_names) | {script.npc.id}
    out = []
    for ident in names_in(scene, reply):
        npc = scene.gm.npcs_by_id[ident]
        spaced = scene.world_lex.spaced and scene.lex.spaced  # a translated name (localize)
        if ident in heard or mentions(script.text, npc.name, spaced):
            continue
        out.append(npc.name)
    return out


def unknown_name(scene: Scene, script: TalkScript, reply: str) -> bool:
    return not unknown_names(scene, script, reply)


def unasked_answer(scene: Scene, script: TalkScript, reply: str) -> bool:
    happened = set(script.said) | ({"gift"} if script.kind("A") == "gift" else set())
    for kind in REACTIONS:
        if kind not in happened and _any_language(script, reply, f"reacts_{kind}"):
            return False
    return True


def put_words(scene: Scene, script: TalkScript, reply: str) -> bool:
    if _any_language(script, reply, "player_acts"):
        return False
    first = script.pc_name.split()[0] if script.pc_name.split() else script.pc_name
    for code in languages_from(script.language):
        book = talkbook(code)
        gap = " " if spaced(book) else ""
        if any(
            mentions(reply, f"{first}{gap}{verb}", spaced(book))
            for verb in book.list("speaker_acts")
        ):
            return False
    return True


def unasked_errand(scene: Scene, script: TalkScript, reply: str) -> bool:
    if script.kind("D") in ERRANDS:
        return True
    if _any_language(script, reply, "errand_offer"):
        return False
    npc = script.npc
    titles = [
        q.title
        for q in scene.gm.quests
        if npc.id in (q.owner, q.offered_by) or (q.owner is not None and q.owner in npc.people)
    ]
    folded = fold(reply)
    return not any(fold(title) in folded for title in titles)


def length(scene: Scene, script: TalkScript, reply: str) -> bool:
    return 1 <= len(sentences(reply)) <= MAX_SENTENCES


_RULES: dict[str, Callable[[Scene, TalkScript, str], bool]] = {
    "answers": answers,
    "who_are_you": who_are_you,
    "unknown_name": unknown_name,
    "unasked_answer": unasked_answer,
    "put_words": put_words,
    "unasked_errand": unasked_errand,
    "length": length,
}


def check_reply(scene: Scene, script: TalkScript, reply: str) -> list[str]:
    """The checks ``reply`` fails, in ``CHECKS`` order (empty: it passes)."""
    return [code for code in CHECKS if not _RULES[code](scene, script, reply)]


def reasons(scene: Scene, script: TalkScript, reply: str, failed: list[str]) -> str:
    """The failed checks, said so the model can fix them (in the script's language)."""
    book = talkbook(script.language)
    names = ", ".join(unknown_names(scene, script, reply))
    count = str(len(sentences(reply)))
    return "; ".join(book.t(f"check_{code}", names=names, count=count) for code in failed)


@dataclass
class Settled:
    """What stays of a reply: ``text``; ``failed`` the first reply's checks; ``rewritten`` when
    the rewrite passed and replaced it; ``kept_master`` when the rewrite failed too."""

    text: str
    failed: list[str] = field(default_factory=list)
    rewritten: bool = False
    kept_master: bool = False
    rewrite_failed: list[str] = field(default_factory=list)

    @property
    def attempts(self) -> int:
        return 2 if self.failed else 1


async def settle_reply(scene: Scene, script: TalkScript, reply: str, rewrite: Rewrite) -> Settled:
    """Check ``reply``; on a failure ask ``rewrite`` once (given the failed checks) and keep its
    text only if it passes every check, else keep the master's."""
    failed = check_reply(scene, script, reply)
    if not failed:
        return Settled(reply)
    again = (await rewrite(failed)).strip()
    still = check_reply(scene, script, again) if again else list(CHECKS)
    if not still:
        return Settled(again, failed, rewritten=True)
    return Settled(reply, failed, kept_master=True, rewrite_failed=still)
