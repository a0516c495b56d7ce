"""How SillyTavern reads World Info, written out independently of ``engine.interop`` for tests.

``read_native`` is what SillyTavern sees in a native World Info entry (it fills every missing
field from its new-entry template at load); ``read_book_entry`` is its ``convertCharacterBook``
for one ``character_book`` entry and ``book_entry`` its ``convertWorldInfoToCharacterBook``. The
editor's own state (uid, display order, memo toggle) is left out. Compare what they return for a
file before and after a trip through Fabula to know whether SillyTavern reads the same thing,
field by field.
"""

from __future__ import annotations

from typing import Any

# public/scripts/world-info.js, newWorldInfoEntryDefinition (1.12.x), minus excluded fields.
TEMPLATE: dict[str, Any] = {
    "key": [],
    "keysecondary": [],
    "comment": "",
    "content": "",
    "constant": False,
    "vectorized": False,
    "selective": True,
    "selectiveLogic": 0,
    "order": 100,
    "position": 0,
    "disable": False,
    "ignoreBudget": False,
    "excludeRecursion": False,
    "preventRecursion": False,
    "matchPersonaDescription": False,
    "matchCharacterDescription": False,
    "matchCharacterPersonality": False,
    "matchCharacterDepthPrompt": False,
    "matchScenario": False,
    "matchCreatorNotes": False,
    "delayUntilRecursion": False,
    "probability": 100,
    "useProbability": True,
    "depth": 4,
    "outletName": "",
    "group": "",
    "groupOverride": False,
    "groupWeight": 100,
    "scanDepth": None,
    "caseSensitive": None,
    "matchWholeWords": None,
    "useGroupScoring": None,
    "automationId": "",
    "role": 0,
    "sticky": None,
    "cooldown": None,
    "delay": None,
    "triggers": [],
}


def read_native(entry: dict[str, Any]) -> dict[str, Any]:
    """The fields SillyTavern reads from a native World Info entry, template-filled."""
    seen = {key: entry.get(key, default) for key, default in TEMPLATE.items()}
    if "characterFilter" in entry:
        seen["characterFilter"] = entry["characterFilter"]
    # <USER>/<BOT> and {{user}}/{{char}} are the same macros to SillyTavern; so are line ends.
    text = str(seen["content"]).replace("\r\n", "\n")
    seen["content"] = text.replace("<USER>", "{{user}}").replace("<BOT>", "{{char}}")
    return seen


def read_book_entry(entry: dict[str, Any], index: int) -> dict[str, Any]:
    """SillyTavern's convertCharacterBook for one ``character_book`` entry, then read_native."""
    ext = entry.get("extensions") or {}

    def get(name: str, default: Any) -> Any:
        value = ext.get(name)
        return default if value is None else value

    native = {
        "key": entry.get("keys"),
        "keysecondary": entry.get("secondary_keys") or [],
        "comment": entry.get("comment") or "",
        "content": entry.get("content"),
        "constant": entry.get("constant") or False,
        "selective": entry.get("selective") or False,
        "order": entry.get("insertion_order"),
        "position": get("position", 0 if entry.get("position") == "before_char" else 1),
        "excludeRecursion": get("exclude_recursion", False),
        "preventRecursion": get("prevent_recursion", False),
        "delayUntilRecursion": get("delay_until_recursion", False),
        "disable": not entry.get("enabled"),
        "probability": get("probability", 100),
        "useProbability": get("useProbability", True),
        "depth": get("depth", 4),
        "selectiveLogic": get("selectiveLogic", 0),
        "outletName": get("outlet_name", ""),
        "group": get("group", ""),
        "groupOverride": get("group_override", False),
        "groupWeight": get("group_weight", 100),
        "scanDepth": ext.get("scan_depth"),
        "caseSensitive": ext.get("case_sensitive"),
        "matchWholeWords": ext.get("match_whole_words"),
        "useGroupScoring": ext.get("use_group_scoring"),
        "automationId": get("automation_id", ""),
        "role": get("role", 0),
        "vectorized": get("vectorized", False),
        "sticky": ext.get("sticky"),
        "cooldown": ext.get("cooldown"),
        "delay": ext.get("delay"),
        "matchPersonaDescription": get("match_persona_description", False),
        "matchCharacterDescription": get("match_character_description", False),
        "matchCharacterPersonality": get("match_character_personality", False),
        "matchCharacterDepthPrompt": get("match_character_depth_prompt", False),
        "matchScenario": get("match_scenario", False),
        "matchCreatorNotes": get("match_creator_notes", False),
        "triggers": ext.get("triggers") or [],
        "ignoreBudget": get("ignore_budget", False),
    }
    return read_native(native)


def read_world_info(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Every entry of a World Info file as SillyTavern reads it, in file order."""
    return [read_native(entry) for entry in data["entries"].values()]


def read_book(book: dict[str, Any]) -> list[dict[str, Any]]:
    """Every entry of a card's ``character_book`` as SillyTavern reads it."""
    return [read_book_entry(entry, index) for index, entry in enumerate(book["entries"])]


def book_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """SillyTavern's convertWorldInfoToCharacterBook for one native entry (what its card export
    embeds)."""

    def value(key: str, default: Any) -> Any:
        found = entry.get(key)
        return default if found is None else found

    return {
        "id": entry.get("uid"),
        "keys": entry.get("key"),
        "secondary_keys": entry.get("keysecondary"),
        "comment": entry.get("comment"),
        "content": entry.get("content"),
        "constant": entry.get("constant"),
        "selective": entry.get("selective"),
        "insertion_order": entry.get("order"),
        "enabled": not entry.get("disable"),
        "position": "before_char" if entry.get("position") == 0 else "after_char",
        "use_regex": True,
        "extensions": {
            "position": entry.get("position"),
            "exclude_recursion": entry.get("excludeRecursion"),
            "display_index": entry.get("displayIndex"),
            "probability": entry.get("probability"),
            "useProbability": value("useProbability", False),
            "depth": value("depth", 4),
            "selectiveLogic": value("selectiveLogic", 0),
            "outlet_name": value("outletName", ""),
            "group": value("group", ""),
            "group_override": value("groupOverride", False),
            "group_weight": entry.get("groupWeight"),
            "prevent_recursion": value("preventRecursion", False),
            "delay_until_recursion": value("delayUntilRecursion", False),
            "scan_depth": entry.get("scanDepth"),
            "match_whole_words": entry.get("matchWholeWords"),
            "use_group_scoring": value("useGroupScoring", False),
            "case_sensitive": entry.get("caseSensitive"),
            "automation_id": value("automationId", ""),
            "role": value("role", 0),
            "vectorized": value("vectorized", False),
            "sticky": entry.get("sticky"),
            "cooldown": entry.get("cooldown"),
            "delay": entry.get("delay"),
            "match_persona_description": value("matchPersonaDescription", False),
            "match_character_description": value("matchCharacterDescription", False),
            "match_character_personality": value("matchCharacterPersonality", False),
            "match_character_depth_prompt": value("matchCharacterDepthPrompt", False),
            "match_scenario": value("matchScenario", False),
            "match_creator_notes": value("matchCreatorNotes", False),
            "triggers": value("triggers", []),
            "ignore_budget": value("ignoreBudget", False),
        },
    }
