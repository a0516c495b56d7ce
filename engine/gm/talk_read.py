"""What the talk flow reads before it speaks (seed 001 "NPC que conversan"): the kinds of thing the
player said (slot C), the urgent matter (slot A), the errands (slot D, "Las misiones salen de la
charla") and what the NPC would tell at its trust level (``disclosures``, never its secret).

Word lists come from ``engine/gm/lexicon/talk.<lang>.json``, read in the player's language
first and then the others, like the engine moves. They are the closed words of talk (greetings,
thanks, asking words, "can you", "how are you"); what a line is *about* is read from the world's
own names (``engine.gm.talk_topic``). A line that only approaches ("talk to the innkeeper",
"hablo con el posadero", "和店主说话") is ``open``: once its talk words and the NPC's names are
taken out, no word of content is left (``engine.gm.language``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from engine.gm import conversation as talks
from engine.gm.language import content
from engine.gm.mentions import spans
from engine.gm.moves import languages_from
from engine.gm.phrasebook import Phrasebook
from engine.gm.recall import keywords
from engine.gm.scene import Scene
from engine.gm.state import GMEvent
from engine.gm.talkbook import found, says_any, spaced, talkbook
from engine.gm.tools.base import turn_events
from engine.gm.tools.talk import asks_for_work, quest_ids, too_soon
from engine.gm.trust import rank
from engine.gm.world import TRUST_LEVELS, Npc, Quest, TrustLevel


@dataclass(frozen=True)
class Slot:
    """One slot of the talk script: its kind and the words it carries."""

    kind: str
    values: dict[str, str] = field(default_factory=dict)


# What he said, by precedence: the first of these his words hold is slot C's kind.
SAID = (
    "farewell",
    "apology",
    "threat",
    "insult",
    "flattery",
    "thanks",
    "ask_work",
    "trade",
    "ask_who",
    "introduce",
    "smalltalk",
    "news",
    "question",
    "request",
    "greeting",
    "open",
)
LISTS = (
    "farewell",
    "apology",
    "threat",
    "insult",
    "flattery",
    "thanks",
    "trade",
    "ask_who",
    "smalltalk",
    "news",
    "request",
)


def read_said(
    text: str, language: str | None, pc_name: str, names: Sequence[str] = ()
) -> list[str]:
    """Every kind of thing ``text`` says, in ``SAID`` order (empty: a plain statement);
    ``names``: what the NPC spoken to is called, for a bare approach (``open``)."""
    kinds: set[str] = set()
    if asks_for_work(text):
        kinds.add("ask_work")
    for code in languages_from(language):
        book = talkbook(code)
        kinds.update(words for words in LISTS if says_any(book, text, words))
        if says_any(book, text, "greeting"):
            kinds.add("greeting")
        if says_any(book, text, "yes"):
            kinds.add("yes")
        if _introduces(book, text, pc_name):
            kinds.add("introduce")
        asks = says_any(book, text, "question") or says_any(book, text, "ask_about")
        if "?" in text or "？" in text or asks:
            kinds.add("question")
    if "request" in kinds and "question" in kinds and not _wh(text, language):
        kinds.discard("question")  # "Could you help me?" asks a favour, not a question
    if not kinds and approach_only(text, language, names):
        kinds.add("open")
    return [k for k in (*SAID, "yes") if k in kinds]


def _wh(text: str, language: str | None) -> bool:
    """A question word or an "ask about" in the line (not only a question mark)."""
    return any(
        says_any(talkbook(code), text, words)
        for code in languages_from(language)
        for words in ("question_words", "ask_about")
    )


def approach_only(text: str, language: str | None, names: Sequence[str]) -> bool:
    """Nothing but talk words and the NPC's names: "talk to the innkeeper", "Hilda."."""
    spaced = talkbook(language).language != "zh"
    rest = " " + text + " "
    for code in languages_from(language):
        for phrase in sorted(talkbook(code).list("speech"), key=len, reverse=True):
            rest = _cut(rest, phrase, spaced)
    for name in sorted(names, key=len, reverse=True):
        rest = _cut(rest, name, spaced)
    return not content(rest, language)


def _cut(text: str, phrase: str, spaced: bool) -> str:
    for start, end in reversed(spans(text, phrase, spaced)):
        text = f"{text[:start]} {text[end:]}"
    return text


def _introduces(book: Phrasebook, text: str, pc_name: str) -> bool:
    if says_any(book, text, "introduce"):
        return True
    first = pc_name.split()[0] if pc_name.split() else pc_name
    gap = " " if spaced(book) else ""
    return any(
        found(book, text, "introduce_self") and f"{p}{gap}{first}".casefold() in text.casefold()
        for p in book.list("introduce_self")
    )


def first_kind(said: list[str]) -> str:
    """Slot C's kind: the first kind said ("open" for a bare approach), "other" for a plain
    statement."""
    for kind in SAID:
        if kind in said:
            return kind
    return "other"


# --- slot A -------------------------------------------------------------------------------------


def urgent(scene: Scene, npc: Npc, current: int) -> Slot | None:
    """Question 1: the urgent matter, in the seed's order, or None."""
    state, me = scene.state, scene.character_id
    alarm = state.alarms.get(scene.me.location)
    if alarm:
        return Slot("alarm", {"alarm": alarm})
    since = _since_last_turn(scene, current)
    if any(e.kind == "attack" and e.data.get("target") == npc.id for e in since):
        return Slot("attacked")
    if _knows_killer(scene, npc):
        return Slot("killer")
    if any(_robbed(e, npc.id) for e in since):
        return Slot("robbed")
    gift = _gift(scene, npc, since)
    if gift:
        return Slot("gift", {"item": gift})
    for debt in state.debts:
        due = debt.due_day
        owed = debt.debtor == me and debt.creditor == npc.id and debt.amount > 0
        if owed and due is not None and due < state.clock.day:
            return Slot("debt", {"amount": str(debt.amount), "due": str(due)})
    return None


def _since_last_turn(scene: Scene, current: int) -> list[GMEvent]:
    """His events since his previous action (what happened between two of his turns)."""
    last = talks.previous_action(scene.state, scene.character_id, current)
    start = last.id if last is not None else 0
    me = scene.character_id
    return [e for e in scene.state.events if e.id > start and e.actor == me]


def _knows_killer(scene: Scene, npc: Npc) -> bool:
    """It saw or heard him strike down someone who lies at 0 hit points."""
    hp = scene.state.npc_hp
    for event in scene.state.events:
        target = event.data.get("target")
        if event.actor != scene.character_id or event.kind != "attack" or not target:
            continue
        victim = scene.gm.npcs_by_id.get(str(target))
        if victim is None or hp.get(victim.id, victim.hp) > 0 or victim.id == npc.id:
            continue
        if npc.id in event.seen_by or npc.id in event.heard_by:
            return True
    return False


def _robbed(event: GMEvent, npc_id: str) -> bool:
    data = event.data
    if event.kind != "check" or data.get("verb") != "steal" or data.get("target") != npc_id:
        return False
    total, dc = data.get("total"), data.get("dc")
    return isinstance(total, int) and isinstance(dc, int) and total < dc


def _gift(scene: Scene, npc: Npc, since: list[GMEvent]) -> str:
    for event in [*since, *turn_events(scene)]:
        item = str(event.data.get("item") or "")
        holder = scene.state.items.get(item)
        if event.kind == "give" and holder is not None and holder.npc == npc.id:
            return scene.gm.items_by_id[item].name
    return ""


# --- slot D -------------------------------------------------------------------------------------


def errand_slot(
    scene: Scene,
    npc: Npc,
    said: list[str],
    current: int,
    *,
    filler: bool,
    calm: bool,
    known: bool = True,
) -> Slot:
    """Question 4: deliver, offer (asked, or a yes after its hint), ask how its errand goes
    (only of one it ``known``s: a stranger who read its notice is a stranger), drop a hint when
    the talk is ripe (and calm: no hint to one who insults or threatens it), or nothing; any
    offer the talk has not come to is ``too_soon``."""
    if filler:
        return Slot("none")
    mine = _errands_of(scene, npc)
    me, state = scene.me, scene.state
    done = _delivered(scene, npc, current, mine)
    if done is not None:
        return Slot("deliver", {"quest": done.title})
    taken = quest_ids(scene)
    going = [q for q in mine if q.id in taken and q.id not in me.completed]
    free = [q for q in mine if q.id not in taken and q.id not in me.completed]
    last = talks.ongoing(state, scene.character_id, npc.id, current)
    if going and "yes" in said and last is not None and last.data.get("errand") == "offer":
        return Slot("accepted", {"quest": going[-1].title})  # his yes to the errand just given
    hinted = talks.hinted(state, scene.character_id, npc.id, current)
    asked = "ask_work" in said or (hinted and "yes" in said)
    soon = too_soon(scene, npc)
    if asked and free:
        quest = free[0]
        offer = {"quest": quest.title, "summary": quest.summary, "id": quest.id}
        return Slot("too_soon") if soon else Slot("offer", offer)
    if going and known and last is None:
        return Slot("progress", {"quest": going[0].title})
    if asked:
        return Slot("none_to_give")
    if free and not hinted and calm:
        return Slot("too_soon") if soon else Slot("hint", {"id": free[0].id})
    return Slot("none")


def _delivered(scene: Scene, npc: Npc, current: int, mine: list[Quest]) -> Quest | None:
    """Its errand he has just done, not yet thanked for."""
    for event in [*_unthanked(scene, npc, current), *turn_events(scene)]:
        quest = scene.gm.quests_by_id.get(str(event.data.get("quest") or ""))
        if event.kind == "errand" and quest is not None and quest in mine:
            return quest
    return None


def _unthanked(scene: Scene, npc: Npc, current: int) -> list[GMEvent]:
    """His events since his previous action, unless that action talked to this NPC (then its
    master's turn already had the errand done before it)."""
    last = talks.previous_action(scene.state, scene.character_id, current)
    return [] if talks.talked_to(last) == npc.id else _since_last_turn(scene, current)


def _errands_of(scene: Scene, npc: Npc) -> list[Quest]:
    """Its errands, and its people's."""
    return [
        q
        for q in scene.gm.quests
        if npc.id in (q.owner, q.offered_by) or (q.owner is not None and q.owner in npc.people)
    ]


# --- what it tells ------------------------------------------------------------------------------


def tell_for(npc: Npc, level: TrustLevel, question: str) -> tuple[str, bool]:
    """What it would tell at ``level`` for ``question`` (the disclosure sharing most words with
    it, else the most trusted one it tells), and whether it keeps anything back."""
    told = [
        npc.disclosures[t] for t in TRUST_LEVELS if t in npc.disclosures and rank(t) <= rank(level)
    ]
    kept = npc.secret is not None or any(
        rank(t) > rank(level) for t in TRUST_LEVELS if t in npc.disclosures
    )
    if not told or level == "hostile":
        return "", kept
    asked = keywords(question)
    best = max(reversed(told), key=lambda text: len(asked & keywords(text)))
    return best, kept
