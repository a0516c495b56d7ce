"""Locks opened with their key (issue 33: "everything deterministic costs nothing: widen it").

An exit may name the item that opens it (``Exit.key``). A character who carries that key opens
the lock at no roll and no model call: by saying so ("unlock the trapdoor", "abro la trampilla
con la llave", "用钥匙打开活板门") or simply by going through ("go down"). Without the key the
lock stays the offline master's (a roll to pick or force it) or the live master's. The opened
way is the whole place's (``GMState.unlocked``), as when a lock is picked.
"""

from __future__ import annotations

from typing import Any

from engine.gm.nouns import definite
from engine.gm.phrasebook import load_book
from engine.gm.scene import EngineMove, Scene
from engine.gm.state import GMEvent
from engine.gm.words import lexicon, normalize, starts_with, strip_fillers, without_subject
from engine.gm.world import Exit, Item


def key_carried(scene: Scene, way: Exit) -> Item | None:
    """The key of ``way`` when the scene's character carries it."""
    if way.key is None:
        return None
    return next((item for item in scene.carried() if item.id == way.key), None)


def openable(scene: Scene) -> list[Exit]:
    """The locked ways here whose key the character carries."""
    return [way for way in scene.exits() if way.locked and key_carried(scene, way)]


def open_lock(scene: Scene, way: Exit) -> tuple[str, GMEvent, dict[str, Any]]:
    """Open ``way`` with its key: the narration's line, the event, the change."""
    item = key_carried(scene, way)
    assert item is not None
    key = f"{scene.location.id}>{way.direction}"
    if key not in scene.state.unlocked:
        scene.state.unlocked.append(key)
    place = scene.place_name(way.to)
    values = {"item": item.name, "place": place}
    direction = scene.lex.name("directions", way.direction)
    named = definite(item.name, scene.lex.language, scene.noun_language(item.name))
    line = scene.lex.t("unlock_key", direction=direction, item=named, place=place)
    world_direction = scene.world_lex.name("directions", way.direction)
    event = scene.log("unlock", "ev_unlock", direction=world_direction, data={"way": key}, **values)
    return line, event, {"unlocked": [key]}


def read_unlock(text: str, scene: Scene, languages: list[str]) -> EngineMove | None:
    """``text`` read as opening a lock whose key the character carries ("unlock the trapdoor",
    "uso la llave", "用钥匙打开"); None when he carries no key to a lock here, or says else."""
    if not openable(scene):
        return None
    for code in languages:
        lex = lexicon(code)
        verbs = sorted(load_book("offline", code).list("unlock_verbs"), key=len, reverse=True)
        for candidate in without_subject(lex, normalize(text)):
            for verb in verbs:
                rest = starts_with(lex, candidate, normalize(verb))
                if rest is not None:
                    target = strip_fillers(lex, rest) if rest else ""
                    return EngineMove("unlock", target, code, text)
    return None
