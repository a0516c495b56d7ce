"""World nouns in the session's language (issue 33 §3: "No English fragment in a Spanish or
Chinese session: world nouns come from the world in its language, engine words from the
catalogue").

A world's entities may carry ``translations`` (``engine.gm.translations``). ``local(entity,
language)`` is the one function that resolves an entity's words in a language: each word the
translation gives, the entity's own (the world's language) for each it leaves out, its parts
(a place's points, a board's notices, a character's public sheet) the same way. Its aliases are
the language's, then its own name and aliases: a player is understood in the session's language
("cojo la cuerda", "拿绳子") and with the world's words ("take the coil of rope").

``block(gm, language)`` is the whole ``gameMaster`` block so resolved, made once per block and
language and shared; ``engine.gm.scene.Scene`` narrates and matches from it, so every move,
look, chip and template names things in the narration's language without knowing of
translations. ``language`` None, or one the world has no words in, keeps the block as it is.
The event log stays in the world's language: ``own_word`` turns a resolved name back into the
world's.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel

from engine.gm.world import GameMaster

M = TypeVar("M", bound=BaseModel)

_INFO = "_fabula_localized"  # where a resolved block keeps what it was made from
_MADE = "_fabula_localizations"  # where a world's block keeps its resolved blocks
_NAMES = ("name", "title", "trade")  # the words a template names an entity by
_MERGED = ("aliases", "disclosures")  # not replaced wholesale


@dataclass
class _Info:
    """What a resolved block was made from: the world's block, the language, and each resolved
    name with the world's word for it."""

    origin: GameMaster
    language: str | None
    back: dict[str, str] = field(default_factory=dict)


def code(language: str | None) -> str | None:
    """ "es-ES" → "es", "zh-Hans" → "zh"; None stays None (the world's own words)."""
    if not language:
        return None
    return language.strip().lower().replace("_", "-").split("-")[0] or None


def local(entity: M, language: str | None) -> M:
    """``entity`` with its words in ``language``, its own where the translation has none (the
    same object when nothing changes)."""
    return _walk(entity, code(language), {})


def block(gm: GameMaster, language: str | None) -> GameMaster:
    """The block with every entity resolved in ``language`` (see the module); made once."""
    info = _info(gm)
    if info is not None:
        if info.language == code(language):
            return gm
        gm = info.origin
    lang = code(language)
    made: dict[str | None, GameMaster] = gm.__dict__.setdefault(_MADE, {})
    found = made.get(lang)
    if found is not None and getattr(_info(found), "origin", None) is gm:
        return found
    back: dict[str, str] = {}
    resolved = _walk(gm, lang, back)
    if resolved is gm:
        return gm
    resolved.__dict__[_INFO] = _Info(gm, lang, back)
    made[lang] = resolved
    return resolved


def origin(gm: GameMaster) -> GameMaster:
    """The world's own block of a resolved one (the block itself otherwise)."""
    info = _info(gm)
    return info.origin if info is not None else gm


def own_word(gm: GameMaster, text: str) -> str:
    """The world's word for a name, title, trade or alias ``block`` took from a translation
    (``text`` otherwise)."""
    info = _info(gm)
    return info.back.get(text, text) if info is not None else text


def either(gm: GameMaster, text: str) -> list[str]:
    """A resolved name and the world's own for it: what the master (who reads the world's words)
    or the player may call a clue or an errand, which have no aliases."""
    return list(dict.fromkeys([text, own_word(gm, text)]))


def translated(gm: GameMaster, text: str) -> bool:
    """Whether ``text`` is a name, title, trade or alias this resolved block took from a
    translation (so it is a word of the block's language, not of the world's)."""
    info = _info(gm)
    return info is not None and text in info.back


def languages(gm: GameMaster) -> frozenset[str]:
    """The languages some entity of the block has a translation in."""
    found: set[str] = set()
    _collect(origin(gm), found)
    return frozenset(found)


def speaks(gm: GameMaster, world_language: str | None, language: str | None) -> bool:
    """Whether the world can name its things in ``language``: its own, or one it translates."""
    lang = code(language)
    return lang is not None and (lang == code(world_language) or lang in languages(gm))


# --- the walk ---------------------------------------------------------------------------------


def _info(gm: BaseModel) -> _Info | None:
    info = gm.__dict__.get(_INFO)
    return info if isinstance(info, _Info) else None


def _walk(model: M, lang: str | None, back: dict[str, str]) -> M:
    """``model`` resolved, its parts first; the same object when nothing changed."""
    update: dict[str, Any] = {}
    for name in type(model).model_fields:
        if name == "translations":
            continue
        value = getattr(model, name)
        new = _walk_value(value, lang, back)
        if new is not value:
            update[name] = new
    update.update(_own_words(model, lang, back))
    if not update:
        return model
    copy = model.model_copy(update=update)
    for key in [k for k in copy.__dict__ if k not in type(copy).model_fields]:
        del copy.__dict__[key]  # cached lookups (``locations_by_id``…) of the old one
    return copy


def _walk_value(value: Any, lang: str | None, back: dict[str, str]) -> Any:
    if isinstance(value, BaseModel):
        return _walk(value, lang, back)
    if isinstance(value, list) and value and isinstance(value[0], BaseModel):
        new = [_walk(v, lang, back) if isinstance(v, BaseModel) else v for v in value]
        return value if all(a is b for a, b in zip(new, value, strict=True)) else new
    return value


def _own_words(model: Any, lang: str | None, back: dict[str, str]) -> dict[str, Any]:
    """The fields ``model``'s translation into ``lang`` changes, its aliases widened."""
    table = getattr(model, "translations", None)
    words = None
    if isinstance(table, dict) and lang is not None:
        words = next((w for k, w in table.items() if code(k) == lang), None)
    if not isinstance(words, BaseModel):
        return {}
    update: dict[str, Any] = {}
    fields = set(type(words).model_fields) - set(_MERGED)  # never an unknown key
    for name, value in words.model_dump(exclude_none=True, include=fields).items():
        if name in type(model).model_fields and value != getattr(model, name):
            update[name] = value
            if name in _NAMES and isinstance(value, str):
                back.setdefault(value, str(getattr(model, name)))
    told = dict(getattr(words, "disclosures", None) or {})
    if told and "disclosures" in type(model).model_fields:
        update["disclosures"] = {**model.disclosures, **told}
    if "aliases" in type(model).model_fields:
        update["aliases"] = _aliases(model, words)
        for alias in getattr(words, "aliases", None) or []:
            back.setdefault(alias, str(getattr(model, "name", "") or ""))  # "cuerda" too
    return update


def _aliases(model: Any, words: Any) -> list[str]:
    """Its names in the language first, then its own (the world's). Not the other languages':
    a word of one language is too often a misspelling of another's ("sorda", "sword")."""
    own = [str(getattr(model, "name", "") or ""), *model.aliases]
    first = list(getattr(words, "aliases", None) or [])
    return _unique([*first, *own], skip=getattr(words, "name", None) or own[0])


def _unique(words: Iterable[str], skip: str | None) -> list[str]:
    seen = {skip.casefold()} if skip else set()
    out = []
    for word in words:
        key = word.strip().casefold()
        if key and key not in seen:
            seen.add(key)
            out.append(word.strip())
    return out


def _collect(model: BaseModel, found: set[str]) -> None:
    table = getattr(model, "translations", None)
    if isinstance(table, dict):
        found.update(c for c in (code(k) for k in table) if c)
    for name in type(model).model_fields:
        value = getattr(model, name)
        for part in value if isinstance(value, list) else [value]:
            if isinstance(part, BaseModel):
                _collect(part, found)
