"""The engine's closed vocabularies in the creator's language (issue 16 §6).

The engine and the world JSON keep their ids (``before_char``, ``system-presets``, ``north``);
the studio shows each id through ``label_of``, so a select, a list line or a badge reads in the
page's language while the value posted back stays the id. The msgids are the ids themselves, in
the context "enum", so English shows exactly what the JSON says. The lorebook's reasons for
firing an entry (engine.lorebook, English by design) are read back here the same way.
"""

from __future__ import annotations

import re

from django.utils.functional import Promise
from django.utils.translation import get_language, gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

LABELS: dict[str, Promise] = {
    # entry sections, roles and API roles (engine.world)
    "system-presets": pgettext_lazy("enum", "system-presets"),
    "examples": pgettext_lazy("enum", "examples"),
    "chat-history": pgettext_lazy("enum", "chat-history"),
    "post-history": pgettext_lazy("enum", "post-history"),
    "system": pgettext_lazy("enum", "system"),
    "character": pgettext_lazy("enum", "character"),
    "personality": pgettext_lazy("enum", "personality"),
    "scenario": pgettext_lazy("enum", "scenario"),
    "lore": pgettext_lazy("enum", "lore"),
    "plot": pgettext_lazy("enum", "plot"),
    "style": pgettext_lazy("enum", "style"),
    "example": pgettext_lazy("enum", "example"),
    "greeting": pgettext_lazy("enum", "greeting"),
    "custom": pgettext_lazy("enum", "custom"),
    "user": pgettext_lazy("enum", "user"),
    "assistant": pgettext_lazy("enum", "assistant"),
    # the narrator's providers (play.providers)
    "offline": pgettext_lazy("enum", "offline"),
    "openai": pgettext_lazy("enum", "openai"),
    "anthropic": pgettext_lazy("enum", "anthropic"),
    # variable types, condition logic, editor modes
    "number": pgettext_lazy("enum", "number"),
    "string": pgettext_lazy("enum", "string"),
    "boolean": pgettext_lazy("enum", "boolean"),
    "json": pgettext_lazy("enum", "json"),
    "all": pgettext_lazy("enum", "all"),
    "any": pgettext_lazy("enum", "any"),
    "advanced": pgettext_lazy("enum", "advanced"),
    "simple": pgettext_lazy("enum", "simple"),
    # operations of a change, and the operators of a condition (as in studio.forms.rows)
    "set": pgettext_lazy("enum", "set"),
    "add": pgettext_lazy("enum", "add"),
    "subtract": pgettext_lazy("enum", "subtract"),
    "multiply": pgettext_lazy("enum", "multiply"),
    "toggle": pgettext_lazy("enum", "toggle"),
    "append": pgettext_lazy("enum", "append"),
    "merge": pgettext_lazy("enum", "merge"),
    "push": pgettext_lazy("enum", "push"),
    "delete": pgettext_lazy("enum", "delete"),
    "eq": _("= equals"),
    "neq": _("≠ differs from"),
    "gt": _("> above"),
    "lt": _("< below"),
    "gte": _("≥ at least"),
    "lte": _("≤ at most"),
    "contains": _("contains"),
    # directive positions and notification styles
    "top": pgettext_lazy("enum", "top"),
    "before_char": pgettext_lazy("enum", "before_char"),
    "after_char": pgettext_lazy("enum", "after_char"),
    "auto": pgettext_lazy("enum", "auto"),
    "depth": pgettext_lazy("enum", "depth"),
    "bottom": pgettext_lazy("enum", "bottom"),
    "info": pgettext_lazy("enum", "info"),
    "achievement": pgettext_lazy("enum", "achievement"),
    "warning": pgettext_lazy("enum", "warning"),
    "danger": pgettext_lazy("enum", "danger"),
    # audio: track types, what a rule does to a track, conditional BGM triggers, playlist modes
    "bgm": pgettext_lazy("enum", "bgm"),
    "sfx": pgettext_lazy("enum", "sfx"),
    "ambient": pgettext_lazy("enum", "ambient"),
    "play": pgettext_lazy("enum", "play"),
    "stop": pgettext_lazy("enum", "stop"),
    "crossfade": pgettext_lazy("enum", "crossfade"),
    "volume": pgettext_lazy("enum", "volume"),
    "variable": pgettext_lazy("enum", "variable"),
    "keyword": pgettext_lazy("enum", "keyword"),
    "ai-keyword": pgettext_lazy("enum", "ai-keyword"),
    "turn-count": pgettext_lazy("enum", "turn-count"),
    "session-start": pgettext_lazy("enum", "session-start"),
    "loop": pgettext_lazy("enum", "loop"),
    "shuffle": pgettext_lazy("enum", "shuffle"),
    "sequential": pgettext_lazy("enum", "sequential"),
    # tag colours
    "gray": pgettext_lazy("enum", "gray"),
    "red": pgettext_lazy("enum", "red"),
    "orange": pgettext_lazy("enum", "orange"),
    "amber": pgettext_lazy("enum", "amber"),
    "yellow": pgettext_lazy("enum", "yellow"),
    "green": pgettext_lazy("enum", "green"),
    "teal": pgettext_lazy("enum", "teal"),
    "cyan": pgettext_lazy("enum", "cyan"),
    "blue": pgettext_lazy("enum", "blue"),
    "indigo": pgettext_lazy("enum", "indigo"),
    "violet": pgettext_lazy("enum", "violet"),
    "pink": pgettext_lazy("enum", "pink"),
    # the game master (engine.gm.vocab): trust, times of day, directions, abilities, skills
    "hostile": pgettext_lazy("enum", "hostile"),
    "wary": pgettext_lazy("enum", "wary"),
    "stranger": pgettext_lazy("enum", "stranger"),
    "acquaintance": pgettext_lazy("enum", "acquaintance"),
    "friend": pgettext_lazy("enum", "friend"),
    "ally": pgettext_lazy("enum", "ally"),
    "morning": pgettext_lazy("enum", "morning"),
    "afternoon": pgettext_lazy("enum", "afternoon"),
    "evening": pgettext_lazy("enum", "evening"),
    "night": pgettext_lazy("enum", "night"),
    "north": pgettext_lazy("enum", "north"),
    "south": pgettext_lazy("enum", "south"),
    "east": pgettext_lazy("enum", "east"),
    "west": pgettext_lazy("enum", "west"),
    "northeast": pgettext_lazy("enum", "northeast"),
    "northwest": pgettext_lazy("enum", "northwest"),
    "southeast": pgettext_lazy("enum", "southeast"),
    "southwest": pgettext_lazy("enum", "southwest"),
    "up": pgettext_lazy("enum", "up"),
    "down": pgettext_lazy("enum", "down"),
    "in": pgettext_lazy("enum", "in"),
    "out": pgettext_lazy("enum", "out"),
    "strength": pgettext_lazy("enum", "strength"),
    "dexterity": pgettext_lazy("enum", "dexterity"),
    "constitution": pgettext_lazy("enum", "constitution"),
    "intelligence": pgettext_lazy("enum", "intelligence"),
    "wisdom": pgettext_lazy("enum", "wisdom"),
    "charisma": pgettext_lazy("enum", "charisma"),
    "acrobatics": pgettext_lazy("enum", "acrobatics"),
    "animal-handling": pgettext_lazy("enum", "animal-handling"),
    "arcana": pgettext_lazy("enum", "arcana"),
    "athletics": pgettext_lazy("enum", "athletics"),
    "deception": pgettext_lazy("enum", "deception"),
    "history": pgettext_lazy("enum", "history"),
    "insight": pgettext_lazy("enum", "insight"),
    "intimidation": pgettext_lazy("enum", "intimidation"),
    "investigation": pgettext_lazy("enum", "investigation"),
    "medicine": pgettext_lazy("enum", "medicine"),
    "nature": pgettext_lazy("enum", "nature"),
    "perception": pgettext_lazy("enum", "perception"),
    "performance": pgettext_lazy("enum", "performance"),
    "persuasion": pgettext_lazy("enum", "persuasion"),
    "religion": pgettext_lazy("enum", "religion"),
    "sleight-of-hand": pgettext_lazy("enum", "sleight-of-hand"),
    "stealth": pgettext_lazy("enum", "stealth"),
    "survival": pgettext_lazy("enum", "survival"),
    # the game master's kinds of NPC, clue requirements, where things are, hook triggers
    "person": pgettext_lazy("enum", "person"),
    "animal": pgettext_lazy("enum", "animal"),
    "filler": pgettext_lazy("enum", "filler"),
    "trust": pgettext_lazy("enum", "trust"),
    "item": pgettext_lazy("enum", "item"),
    "check": pgettext_lazy("enum", "check"),
    "condition": pgettext_lazy("enum", "condition"),
    "clue": pgettext_lazy("enum", "clue"),
    "location": pgettext_lazy("enum", "location"),
    "npc": pgettext_lazy("enum", "npc"),
    "enter": pgettext_lazy("enum", "enter"),
    "time": pgettext_lazy("enum", "time"),
}


def label_of(value: object) -> str | Promise:
    """The label of an engine id, lazy (for choices built at import); unknown values as they are."""
    text = str(value)
    return LABELS.get(text, text)


_TEXTS: dict[tuple[str | None, str], str] = {}


def label_text(value: object) -> str:
    """``str(label_of(value))``, remembered per language: a list of 5,000 entries names the
    same few sections 5,000 times, and each lazy label costs a translation lookup."""
    text = str(value)
    key = (get_language(), text)
    known = _TEXTS.get(key)
    if known is None:
        known = str(LABELS.get(text, text))
        if len(_TEXTS) < 4096:  # engine ids are few; anything else is not worth keeping
            _TEXTS[key] = known
    return known


_REASONS: tuple[tuple[re.Pattern[str], Promise], ...] = (
    (re.compile(r"^always \((?P<section>[^)]*)\)$"), _("always (%(section)s)")),
    (
        re.compile(r'^keyword "(?P<keyword>.*)" in message (?P<at>-?\d+) \((?P<role>\w+)\)$'),
        _('keyword "%(keyword)s" in message %(at)s (%(role)s)'),
    ),
    (
        re.compile(r'^recursion from entry "(?P<source>.*)" \(keyword "(?P<keyword>.*)"\)$'),
        _('recursion from entry "%(source)s" (keyword "%(keyword)s")'),
    ),
)
_CONDITION_WORDS = re.compile(r" and | or | \(is | \(missing\)")


def reason_label(reason: str) -> str:
    """Why the lorebook fired an entry (``always (examples)``…), in the active language."""
    return "; ".join(_reason_part(part) for part in reason.split("; "))


def _reason_part(part: str) -> str:
    if part.startswith("condition "):
        words = {
            " and ": " " + gettext("and") + " ",
            " or ": " " + gettext("or") + " ",
            " (is ": " (" + gettext("is") + " ",
            " (missing)": " (" + gettext("missing") + ")",
        }
        described = _CONDITION_WORDS.sub(lambda m: words[m.group(0)], part[len("condition ") :])
        return gettext("condition %(conditions)s") % {"conditions": described}
    for pattern, template in _REASONS:
        match = pattern.match(part)
        if match:
            values = match.groupdict()
            if "section" in values:
                values["section"] = str(label_of(values["section"]))
            if "role" in values:
                values["role"] = str(label_of(values["role"]))
            return str(template) % values
    return part
