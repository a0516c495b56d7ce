"""Moves the engine resolves itself, at zero model calls (seed 001 "Una llamada por acción" step
1: "ir, salir, coger, soltar, esperar, clic en el tablero"; GAME_MASTER.md §2, decisions 1, 4, 9,
10).

``classify`` reads the player's text with the verb tables of ``engine/gm/lexicon`` (en, es, zh)
and returns an ``EngineMove``, or None to hand the action to the master. ``resolve`` applies it
to the state and narrates it from the language's templates. A move that cannot happen ("go
north" with no north exit, "take the moon") is ``refused`` with what is possible; one with
consequences but no target ("take") is ``ask``; both cost nothing and change nothing. Every
resolved move logs an event seen by whoever is there, except the private reads of one's own
inventory, sheet and journal (``engine.gm.readmoves``, ``engine.gm.sheet``), which change nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from engine.gm import handover, sheet, space, things, trade
from engine.gm.locks import read_unlock
from engine.gm.readmoves import read_ask
from engine.gm.scene import MOVE_KINDS, EngineMove, MoveKind, MoveResult, Scene
from engine.gm.trade_read import read_deal
from engine.gm.words import (
    LANGUAGES,
    Lexicon,
    lexicon,
    lookup,
    match_phrase,
    normalize,
    strip_fillers,
    without_subject,
)

__all__ = ["EngineMove", "MoveResult", "classify", "click_move", "resolve"]


def languages_from(language: str | None) -> list[str]:
    """The languages to read a text in: the preferred one first, then the others."""
    first = lexicon(language or "en").language
    return [first, *(code for code in LANGUAGES if code != first)]


def classify(
    text: str, language: str | None = None, scene: Scene | None = None
) -> EngineMove | None:
    """Read ``text`` as an engine move, trying ``language`` first, then en, es and zh.

    With the ``scene``, trade and hand-over moves are read first (``engine.gm.trade_read``:
    they name the world's things). Returns None when it is anything else (talk, a risky act, a
    free action): the master's.
    """
    deal = read_deal(text, scene, languages_from(language)) if scene is not None else None
    if deal is not None:
        return deal
    opened = read_unlock(text, scene, languages_from(language)) if scene is not None else None
    if opened is not None:  # the key carried: no roll (engine.gm.locks)
        return opened
    for code in languages_from(language):
        move = classify_in(lexicon(code), text)
        if move is not None:
            return move
    return None


def classify_in(lex: Lexicon, text: str) -> EngineMove | None:
    """Read ``text`` as an engine move of one language; None if it is not one."""
    norm = normalize(text)
    if not norm:
        return None
    read = read_ask(text, lex.language)  # inventory, sheet, journal, a notice (issue 33 §1)
    if read is not None:
        return _move(read.kind, read.target, lex, text)
    command = lex.commands.get(norm.split()[0] if lex.spaced else norm)
    if command is not None:
        return _move(command, _rest_after_command(lex, norm), lex, text)
    for candidate in without_subject(lex, norm):
        if lookup(lex, candidate, lex.directions) is not None:  # "进去" is a way, not 进 + 去
            return EngineMove("go", candidate, lex.language, text)
        kind, rest, length = match_phrase(lex, candidate, lex.verbs)
        risky = {verb.key: verb.words for verb in lex.risky.values()}
        _, _, risky_length = match_phrase(lex, candidate, risky)
        if kind and length > risky_length:
            return _move(kind, strip_fillers(lex, rest), lex, text)
        if risky_length:
            return None
    return None


def _move(kind: str, target: str, lex: Lexicon, text: str) -> EngineMove | None:
    if kind not in MOVE_KINDS:
        return None
    return EngineMove(cast(MoveKind, kind), target, lex.language, text)


def _rest_after_command(lex: Lexicon, norm: str) -> str:
    parts = norm.split(maxsplit=1) if lex.spaced else [norm]
    return strip_fillers(lex, parts[1]) if len(parts) > 1 else ""


def click_move(click: Mapping[str, Any], language: str | None = None) -> EngineMove | None:
    """A click on the map or board UI (decision 4): a place is a go, a point a look."""
    kind = next((k for k in ("location", "point") if isinstance(click.get(k), str)), None)
    if kind is None:
        return None
    code = lexicon(language or "en").language
    return EngineMove("click", "", code, "", {kind: str(click[kind])})


def resolve(move: EngineMove, scene: Scene) -> MoveResult:
    """Apply ``move`` for the scene's character and narrate it; never calls a model.

    A refused or asked move leaves the state untouched.
    """
    handlers = {
        "go": space.go,
        "back": space.back,
        "leave": space.leave,
        "look": space.look,
        "click": _click,
        "take": things.take,
        "drop": things.drop,
        "wait": things.wait,
        "board": things.read_board,
        "inventory": sheet.inventory,
        "sheet": sheet.sheet,
        "journal": sheet.journal,
        "notice": sheet.notice,
        "buy": trade.buy,
        "sell": trade.sell,
        "give": handover.give,
        "equip": handover.equip,
        "unequip": handover.unequip,
        "unlock": space.unlock,
    }
    return handlers[move.kind](move, scene)


def _click(move: EngineMove, scene: Scene) -> MoveResult:
    point = (move.click or {}).get("point")
    if point is not None and any(b.point == point for b in scene.boards()):
        return things.read_board(EngineMove("board", "", move.language), scene)
    return space.click(move, scene)
