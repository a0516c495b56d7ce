"""The talk script in words (seed 001 "NPC que conversan": "La estructura es la misma con cualquier
modelo; en offline hay plantillas"; "De 1 a 4 frases por réplica"; decision 20).

``script_prompt`` is what the master reads beside the scene: each slot in the spoken order A, B,
C, D, E, what it holds and an example line, with the tone of the trust level and the ladder,
and the rules the free checks will hold the reply to. ``offline_line`` is the NPC's reply with
no model: each slot's template from ``engine/gm/lexicon/talk.<lang>.json`` (a per-level variant
first), joined in order and held to four sentences by dropping slot B, then E.
"""

from __future__ import annotations

import re

from engine.gm.phrasebook import Phrasebook
from engine.gm.talk import TalkScript
from engine.gm.talk_read import Slot
from engine.gm.talkbook import pick, spaced, talkbook

MAX_SENTENCES = 4
_SENTENCE = re.compile(r"[^.!?。！？…]*[^\s.!?。！？…][^.!?。！？]*(?:[.!?。！？…]+[\"'”’»」]*|$)")


def sentences(text: str) -> list[str]:
    """The sentences of a reply (an ellipsis inside one does not end it when lowercase follows)."""
    found = [s.strip() for s in _SENTENCE.findall(" ".join(text.split()))]
    out: list[str] = []
    for part in found:
        if not part:
            continue
        if out and out[-1].endswith("…") and part[:1].islower():
            out[-1] = f"{out[-1]} {part}"
        else:
            out.append(part)
    return out


def slot_line(book: Phrasebook, script: TalkScript, name: str, slot: Slot) -> str:
    """The offline words of one slot ("" when it says nothing)."""
    level, values = script.level, dict(slot.values)
    key = _key(book, script, name, slot)
    if not key:
        return ""
    line = book.t(pick(book, key, level), **values)
    if name == "C" and slot.kind == "question" and values.get("more"):
        more = f"c_more_{level}"
        line = f"{line}{_gap(book)}{book.t(more)}" if book.has(more) else line
    return book.tidy(line.strip()) if line.strip() else ""


def _key(book: Phrasebook, script: TalkScript, name: str, slot: Slot) -> str:
    kind = slot.kind
    if name == "A":
        return f"a_{kind}"
    if name == "B":
        if kind in ("reunion", "acquaintance"):
            return f"b_{kind}_named" if script.knows_name else f"b_{kind}"
        if kind == "hearsay":
            about = slot.values.get("about", "")
            return f"b_hearsay_{about}" if book.has(f"b_hearsay_{about}") else "b_hearsay"
        return ""
    if name == "C":
        return _said_key(script, kind, slot)
    if name == "D":
        return f"d_{kind}" if kind in ("deliver", "offer", "progress", "hint", "accepted") else ""
    return f"e_{kind}" if kind not in ("none", "") else ""


def _said_key(script: TalkScript, kind: str, slot: Slot) -> str:
    if kind == "question" and not slot.values.get("tell"):
        return "c_question_unknown" if slot.values.get("topic") else "c_question_none"
    if kind == "news" and not slot.values.get("tell"):
        return "c_news_none"
    if kind == "other" and script.kind("D") == "accepted":
        return ""  # his yes is answered by the errand's thanks
    if kind == "ask_work":
        return "c_ask_work_none" if script.kind("D") == "none_to_give" else ""
    return f"c_{kind}" if kind != "farewell" else ""


def _gap(book: Phrasebook) -> str:
    return " " if spaced(book) else ""


def _values(book: Phrasebook, script: TalkScript, slot: Slot) -> Slot:
    """The slot with the words its templates name (the NPC's trade phrase, the character)."""
    values = {"pc": script.pc_name, "npc": script.npc.name, **slot.values}
    trade = script.npc.trade
    values["trade_phrase"] = (
        book.t("trade_phrase", trade=trade) if trade else book.t("trade_phrase_none")
    )
    if "name" not in values and script.knows_name:
        values["name"] = script.pc_name
    if "quest" in values:
        values["quest"] = inside(values["quest"], book)
    return Slot(slot.kind, values)


def inside(title: str, book: Phrasebook) -> str:
    """A title inside a sentence: its leading article lowercase ("How goes it with the missing
    chalice?", "¿Cómo va lo de el cáliz…" → "del cáliz" by the language's contractions)."""
    first, _, rest = title.partition(" ")
    if rest and first.casefold() in book.list("title_articles"):
        return f"{first.casefold()} {rest}"
    return title


def offline_line(script: TalkScript) -> str:
    """The NPC's reply without a model: every slot's template, in the spoken order."""
    book = talkbook(script.language)
    lines = {
        name: slot_line(book, script, name, _values(book, script, slot))
        for name, slot in script.spoken()
    }
    if lines.get("E") and lines["E"] in lines.get("C", ""):
        lines["E"] = ""  # its concern was the answer: not said twice
    for drop in ("B", "E", "D"):
        if _count(book, lines) <= MAX_SENTENCES:
            break
        lines[drop] = ""
    said = _gap(book).join(line for line in lines.values() if line)
    return said or book.t(pick(book, "c_other", script.level))


def _count(book: Phrasebook, lines: dict[str, str]) -> int:
    return len(sentences(_gap(book).join(line for line in lines.values() if line)))


def reply_narration(script: TalkScript, speaker: str, text: str) -> str:
    """The reply as the player reads it: the speaker, then the words."""
    who = speaker[:1].upper() + speaker[1:]
    return talkbook(script.language).t("reply_line", speaker=who, text=text)


# --- the master's script ---------------------------------------------------------------------


def script_prompt(script: TalkScript, speaker: str) -> str:
    """The talk script the master reads after the scene (never a secret: what it would tell
    comes from its disclosures at this level, like the scene's "would tell him")."""
    book = talkbook(script.language)
    escalation = book.t(f"escalation_{script.escalation}")
    head = book.t(
        "script_head",
        npc=speaker,
        pc=script.pc_name,
        level=book.t(f"level_{script.level}"),
        tone=book.t(f"tone_{script.level}"),
        escalation=escalation,
    )
    lines = [head]
    for name, slot in script.spoken():
        full = _values(book, script, slot)
        what = book.t(f"k_{name}_{slot.kind}", **full.values)
        example = slot_line(book, script, name, full)
        lines.append(book.t(f"slot_{name}", what=f"{what} (“{example}”)" if example else what))
    lines += _rules(book, script, speaker)
    return "\n".join(lines)


def _rules(book: Phrasebook, script: TalkScript, speaker: str) -> list[str]:
    values = {"npc": speaker, "pc": script.pc_name}
    out = []
    if script.cut:
        out.append(book.t("script_cut", **values))
    if script.knows_him or script.knows_name:
        out.append(book.t("script_known", **values))
    if not script.knows_name:
        out.append(book.t("script_name_unknown", **values))
    if script.kind("D") not in ("offer", "hint", "progress", "deliver"):
        out.append(book.t("script_no_errand", reason=script.kind("D") or "none", **values))
    if script.closing:
        out.append(book.t("script_closing", **values))
    return out
