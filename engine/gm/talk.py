"""The five-layer talk flow (seed 001 "NPC que conversan": "Antes de llamar a la IA, el motor se
hace cinco preguntas, siempre en el mismo orden, y con las respuestas monta un guion de cinco
huecos en el orden en que habla una persona"; GAME_MASTER.md §9.1 and decision 20).

``build_script`` asks, in order: (1) is anything urgent (slot A: the site's alarm, it is being
attacked, it knows he has killed, it saw him rob it, a gift, a debt of his that is due; danger
cuts the turn: it reacts to that alone); (2) what does it know of him (slot B: ongoing talk,
reunion, acquaintance, hearsay, nothing); (3) how does it treat him (trust level and the
escalation ladder: the tone of every slot); (4) errands (slot D: only in a talk that has come to
it, else ``too_soon``); (5) what did he say (slot C). Slot E closes: a question or a topic of its
own, or cutting it short. The script is spoken A, B, C, D, E. ``engine.gm.talk_voice`` turns it
into the master's instructions or, offline, into words; ``engine.gm.talk_checks`` checks a reply.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.gm import conversation as talks
from engine.gm.memory import memories
from engine.gm.mentions import mentioned, mentions
from engine.gm.moves import languages_from
from engine.gm.phrasebook import Phrasebook
from engine.gm.risk import deed
from engine.gm.scene import Scene
from engine.gm.talk_read import Slot, errand_slot, first_kind, read_said, urgent
from engine.gm.talk_topic import answer, echo, gossip, topic_of
from engine.gm.talkbook import says_any, spaced, talkbook
from engine.gm.trust import rank, trust_level
from engine.gm.trust_rules import word_moves
from engine.gm.world import Npc, TrustLevel

ORDER = ("A", "B", "C", "D", "E")  # the order a person speaks (decision 20)
DANGER = ("alarm", "attacked", "killer")  # urgent kinds that cut the turn
KNOWN = ("ongoing", "reunion", "acquaintance")  # slot B kinds where it knows him
QUOTES = '"“”«»「」'
SPOKEN = ("speech", "greeting", "farewell", "thanks", "apology", "insult", "yes", "introduce")
ABOUT = ("question", "request", "news", "smalltalk", "open")  # kinds whose topic is read
__all__ = ["Slot", "TalkScript", "build_script", "talk_target"]


@dataclass
class TalkScript:
    npc: Npc
    character_id: str
    pc_name: str
    language: str
    level: TrustLevel
    escalation: int
    said: list[str]
    slots: dict[str, Slot]
    knows_name: bool = False
    cut: bool = False
    moves: list[str] = field(default_factory=list)  # trust moves his words make (applied later)
    text: str = ""  # what he said

    @property
    def knows_him(self) -> bool:
        return self.slots["B"].kind in KNOWN if "B" in self.slots else False

    @property
    def closing(self) -> bool:
        """The talk ends this turn: time for the NPC's memory sentence (decision 18)."""
        return self.cut or "farewell" in self.said or self.kind("E") in ("leave", "farewell")

    def kind(self, slot: str) -> str:
        return self.slots[slot].kind if slot in self.slots else ""

    def spoken(self) -> list[tuple[str, Slot]]:
        return [(name, self.slots[name]) for name in ORDER if name in self.slots]


def speech_like(text: str, language: str | None) -> bool:
    """Words said aloud rather than a deed: quotes, a question or an exclamation, or a word of
    talk (a greeting, "ask", "tell", an insult…) in any of the languages."""
    if any(mark in text for mark in '"“”«»「」?？!！'):
        return True
    for code in languages_from(language):
        book = talkbook(code)
        for words in (*SPOKEN, "smalltalk", "news", "request"):
            if says_any(book, text, words):
                return True
        if _asks_about(book, text):
            return True
        if any(says_any(book, text, words) for words in ("threat", "flattery", "ask_who")):
            return True
    return False


def _asks_about(book: Phrasebook, text: str) -> bool:
    """ "ask about", "tell me about"; not a bare "about"/"sobre", which in a deed is a place
    ("bailo sobre la mesa": on the table) and only names a topic once talk is under way."""
    gap = spaced(book)
    phrases = [p for p in book.list("ask_about") if not gap or " " in p.strip()]
    return any(mentions(text, phrase, gap) for phrase in phrases)


def talk_target(scene: Scene, text: str, current: int) -> Npc | None:
    """The NPC this input talks to: one present that it names as the character knows it (a
    name he never learnt names nobody); else, when it sounds like talk, the one he is talking
    with, or the only one here. Animals and the fallen do not talk, and a deed done to someone
    ("I pick the moneylender's pocket") is not words to him unless it quotes some."""
    if deed(text, scene.lex.language) and not any(mark in text for mark in QUOTES):
        return None
    present = [
        n for n in scene.npcs() if n.kind != "animal" and scene.state.npc_hp.get(n.id, n.hp) > 0
    ]
    people = [(n.id, scene.npc_names_known(n)) for n in present]
    named = mentioned(text, people, scene.lex.spaced)
    if len(named) == 1:
        return scene.gm.npcs_by_id[named[0]]
    if named or not speech_like(text, scene.lex.language):
        return None
    others = [(c, scene.pc_names(c)) for c in scene.others()]
    if mentioned(text, others, scene.lex.spaced):  # words to another character (issue 33 §5)
        return None
    last = talks.talked_to(talks.previous_action(scene.state, scene.character_id, current))
    going = [
        n
        for n in present
        if n.id == last and talks.ongoing(scene.state, scene.character_id, n.id, current)
    ]
    if going:
        return going[0]
    return present[0] if len(present) == 1 else None


def knows_name(scene: Scene, npc: Npc, current: int, said: list[str]) -> bool:
    """Seed 001: "Sabe el nombre del PJ si su situación lo dice o si se le presentó"."""
    me = scene.character_id
    if me in npc.knows or "introduce" in said or talks.introduced(scene.state, me, npc.id, current):
        return True
    return bool(npc.situation) and mentions(npc.situation, scene.name, scene.lex.spaced)


def knowledge(scene: Scene, npc: Npc, current: int, named: bool) -> Slot:
    """Question 2 (slot B): what the NPC knows of him."""
    state, me = scene.state, scene.character_id
    values = {"name": scene.name.split()[0]} if named and scene.name.split() else {}
    if talks.ongoing(state, me, npc.id, current):
        return Slot("ongoing", values)
    if talks.talks_with(state, me, npc.id, current):
        return Slot("reunion", values)
    authored = npc.trust.get(me)
    if (
        me in npc.knows
        or memories(scene.gm, state, npc.id, about=me)
        or (authored is not None and rank(authored) >= rank("acquaintance"))
        or (npc.situation and mentions(npc.situation, scene.name, scene.lex.spaced))
    ):
        return Slot("acquaintance", values)
    heard = hearsay(scene, npc)
    return Slot("hearsay", {"about": heard}) if heard else Slot("nothing")


def hearsay(scene: Scene, npc: Npc) -> str:
    """What it has heard of him: "debt" (his, owed to it or its people), "crime" (it heard a
    crime of his without seeing it), "talk" (facts noted about him), or ""."""
    me, circle = scene.character_id, {npc.id, *npc.people}
    if any(d.debtor == me and d.creditor in circle for d in scene.state.debts):
        return "debt"
    for event in scene.state.events:
        if event.actor == me and event.kind == "attack" and npc.id in event.heard_by:
            return "crime"
    return "talk" if scene.me.facts else ""


def build_script(scene: Scene, npc: Npc, text: str, current: int) -> TalkScript:
    """The five questions, in order, for ``text`` said to ``npc`` (``current``: the id of the
    action event that carries it)."""
    state, me = scene.state, scene.character_id
    said = read_said(text, scene.lex.language, scene.name, scene.npc_names_known(npc))
    level = trust_level(state, npc, me)
    script = TalkScript(npc, me, scene.name, scene.lex.language, level, 0, said, {}, text=text)
    alarm = urgent(scene, npc, current)
    if alarm is not None:
        script.slots["A"] = alarm
        if alarm.kind in DANGER:
            script.cut = True
            script.slots["E"] = Slot("cut")
            return script
    script.knows_name = knows_name(scene, npc, current, said)
    script.slots["B"] = knowledge(scene, npc, current, script.knows_name)
    before = talks.escalation_before(state, me, npc.id, current)
    gift = alarm is not None and alarm.kind == "gift"
    script.escalation = talks.escalate(before, said, gift=gift)
    script.moves = word_moves(said, before, script.escalation)
    if script.kind("B") == "reunion" and not talks.chatted_again_today(state, me, npc.id, current):
        script.moves.append("chat_again")
    calm = script.escalation == 0 and rank(level) > rank("wary")
    filler = npc.kind == "filler"
    known = script.knows_him or script.knows_name
    script.slots["D"] = errand_slot(
        scene, npc, said, current, filler=filler, calm=calm, known=known
    )
    script.slots["C"] = said_slot(scene, npc, script)
    script.slots["E"] = close_slot(script)
    return script


def said_slot(scene: Scene, npc: Npc, script: TalkScript) -> Slot:
    """Question 5 (slot C): what he said, with what the NPC has for it."""
    kind = first_kind(script.said)
    values: dict[str, str] = {"pc": script.pc_name, "npc": npc.name}
    if kind == "insult" and script.escalation >= talks.INSISTENCE:
        kind = "insist"
    if kind == "flattery" and npc.dislikes_flattery:
        kind = "flattery_disliked"
    topic = topic_of(scene, npc, script.text) if kind in ABOUT else None
    if topic is not None and kind in ("news", "smalltalk", "open"):
        kind = "question"  # "any news of the mill?" asks about the mill
    gap = "" if script.language == "zh" else " "
    said = f"{echo(topic, script.language)}{gap}" if topic else ""
    if kind == "request":
        values["echo"] = said
    if kind == "question":
        told = answer(scene, npc, script.level, script.text, topic)
        values["tell"] = f"{said}{told.text}" if told.text else ""
        values["topic"] = topic.label[:1].upper() + topic.label[1:] if topic else ""
        values["more"] = "yes" if told.more else ""
    if kind == "news":
        values["tell"] = gossip(npc, script.level)
    return Slot(kind, values)


def close_slot(script: TalkScript) -> Slot:
    """Slot E: a question of its own, a topic of its own, or cutting the talk short."""
    npc, level = script.npc, script.level
    if "farewell" in script.said:
        return Slot("farewell")
    if level == "hostile" or script.escalation >= talks.THREAT:
        return Slot("leave")
    if npc.kind == "filler":
        return Slot("none")
    unknown = script.kind("B") in ("nothing", "hearsay") and not script.knows_name
    if unknown and rank(level) <= rank("stranger") and "ask_who" not in script.said:
        return Slot("ask_who")
    if level == "wary" and script.kind("B") != "ongoing":  # asked once, not every line
        return Slot("ask_why")
    if script.kind("D") in ("offer", "hint", "progress"):
        return Slot("none")  # the errand is its question
    if level == "ally":
        return Slot("warn")
    if level == "friend":
        return Slot("ask_affairs")
    if npc.concerns and script.kind("B") != "ongoing":  # its own worry, once a talk
        return Slot("topic", {"concern": npc.concerns[0]})
    return Slot("none")
