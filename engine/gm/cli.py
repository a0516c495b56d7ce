"""``python -m engine gm``: play a game-master script offline or with scripted model turns (issues
"Game master I" §6 and "Game master II" §7; keep the contract exactly).

``python -m engine gm --world W.json --script S.json [--seed N] [--character ID]
[--replies R.json] [--trace]`` prints one JSON object per line, one per action::

    {"character", "input", "kind": "engine"|"master"|"ask"|"refused", "model_calls",
     "location", "events": [...], "rolls": [{"die", "modifier", "total", "dc", "outcome",
     "hidden"}], "changes": {...}, "narration", "suggestions": [...], "context": "...",
     "delivered_to": {character: text}}

S.json is ``{"character": ID, "actions": ["go north", {"roll": true}, {"click": {...}}, ...]}``;
``--character`` overrides the script's, and without either the world's first character plays.
An optional ``"language": "es"`` is the session's language (the world's by default): the
actions are read in it first, and what is not read as a move in another language is told in
it, the world's nouns in it where the world translates them (issue 33 §3).
Multiplayer (issue 12 §6): an action may also be ``{"character": ID, "input": ACTION}``, ACTION
any of the forms above, played by that character in the same session. ``character`` is who
played the line; ``delivered_to`` maps each character who perceived something of the action
to what his player receives (``engine.gm.delivery``: the actor gets the narration; a character
who perceived nothing is absent; a question or refusal reaches the actor alone).
This is the creator's view: hidden rolls are listed, with ``"hidden": true``. Without ``--seed``
the dice are seeded at random. Every problem exits 1 naming it on stderr: a missing file,
invalid JSON, an invalid world (with field paths), a world without ``gameMaster``, an unknown
character, a bad script.

``--replies R.json`` feeds scripted model turns instead of a model, so the tool-calling master
(``engine.gm.loop``) plays: R.json is a list, one entry per model call, each ``{"text": "...",
"tool_calls": [{"name", "arguments"}]}``. Each printed action then also has ``"tool_calls":
[{"name", "arguments", "ok", "error"}]``, ``"closure": {"ok", "violations": [...]}`` and
``"attempts"``. A bad R.json, or replies exhausted before the script ends, exits 1 saying so.
``--trace`` prints every model request (messages, tools, tool choice) to stderr as JSON lines,
each labelled with its ``director``: game, story, scene, ooc (``engine.gm.directors``), actor
(``engine.gm.actor``, when the world sets ``actorModel``) or master.

``--replay REC.json`` (issue 33 §6) replays a recording exported by the site (``engine.gm.replay``):
its steps are the actions (``--script`` may give them instead, and must for a bare recording),
its character plays unless ``--character`` says otherwise, each step with its recorded dice seed
when the export kept one (else ``--seed``'s). A step the recording does not answer is played by
the offline master. It prints the same JSON lines as ``--script``, each with one more field,
``"replayed"``: true when the recording played the step, false when the offline master did.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeGuard

from engine.gm.play import GMAction, GMError, play_gm_action
from engine.gm.replay import Demo, ReplayError, Step, read_demo, replay_step
from engine.llm.base import Provider, ProviderError
from engine.llm.offline import OfflineProvider
from engine.llm.scripted import RepliesExhausted, ScriptedProvider, TracingProvider, parse_replies
from engine.session import SessionState
from engine.world import WorldDefinition, WorldValidationError, load_world

SUMMARY = "play a game-master script offline, one JSON line per action"
ACTION_SHAPE = (
    'a string, {"roll": true}, {"click": {"location"|"point": ID}} '
    'or {"character": ID, "input": one of those}'
)


class ScriptError(Exception):
    """A problem to report on stderr before exiting with status 1."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The gm command's options (``--world`` is added by ``engine.cli``)."""
    parser.add_argument("--script", default=None, metavar="S.json", help="{character, actions}")
    parser.add_argument("--seed", type=int, default=None, help="dice seed, for a replay")
    parser.add_argument("--character", default=None, metavar="ID", help="who plays")
    parser.add_argument(
        "--replies", default=None, metavar="R.json", help="scripted model turns, one per call"
    )
    parser.add_argument(
        "--trace", action="store_true", help="print every model request to stderr (JSON lines)"
    )
    parser.add_argument(
        "--replay", default=None, metavar="REC.json", help="a recording export to play again"
    )


def cmd_gm(args: argparse.Namespace) -> int:
    """Run the gm command; 0 when every action was played, 1 naming the problem otherwise."""
    try:
        if args.replay is not None:
            return _cmd_replay(args)
        if args.script is None:
            raise ScriptError("give --script S.json (or --replay REC.json)")
        world = _world(args.world)
        character, actions = _script(args.script)
        character = args.character or character
        language = _language(args.script)
        seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
        provider = _provider(world, args.replies, args.trace)
        asyncio.run(_play(world, character, actions, seed, provider, args.replies, language))
    except ScriptError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 1
    return 0


def _read(path: str) -> Any:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ScriptError(f"{path}: cannot read file: {reason}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}"
        raise ScriptError(f"{path}: invalid JSON: {exc.msg} at {where}") from None


def _world(path: str) -> WorldDefinition:
    data = _read(path)
    try:
        world = load_world(data if isinstance(data, dict) else json.dumps(data))
    except WorldValidationError as exc:
        lines = "\n".join(f"  {error}" for error in exc.errors)
        raise ScriptError(f"{path}: invalid world ({len(exc.errors)} errors):\n{lines}") from None
    if world.game_master is None:
        raise ScriptError(f"{path}: the world has no gameMaster block")
    if not world.game_master.characters:
        raise ScriptError(f"{path}: gameMaster.characters is empty: nobody can play")
    return world


def _script(path: str) -> tuple[str | None, list[GMAction]]:
    data = _read(path)
    if not isinstance(data, dict) or not isinstance(data.get("actions"), list):
        raise ScriptError(f'{path}: a script is {{"character": ID, "actions": [...]}}')
    character = data.get("character")
    if character is not None and not isinstance(character, str):
        raise ScriptError(f"{path}: character must be a string (a character id)")
    actions: list[GMAction] = []
    for index, action in enumerate(data["actions"]):
        if not _valid_action(action):
            raise ScriptError(f"{path}: actions[{index}] must be {ACTION_SHAPE}")
        actions.append(action)
    return character, actions


def _language(path: str) -> str | None:
    """The script's ``language`` (None: the world's)."""
    language = _read(path).get("language")
    if language is not None and not (isinstance(language, str) and language.strip()):
        raise ScriptError(f"{path}: language must be a language code such as es or zh")
    return language


def _provider(world: WorldDefinition, replies: str | None, trace: bool) -> Provider:
    provider: Provider = OfflineProvider(world.language or "en")
    if replies is not None:
        try:
            provider = ScriptedProvider(parse_replies(_read(replies)))
        except ValueError as exc:
            raise ScriptError(f"{replies}: {exc}") from None
    if trace:
        provider = TracingProvider(provider, sys.stderr.write)
    return provider


def _valid_action(action: Any) -> bool:
    if _by(action):
        played = action["input"]
        return isinstance(action.get("character"), str) and not _by(played) and _valid(played)
    return _valid(action)


def _by(action: Any) -> TypeGuard[Mapping[str, Any]]:
    """A multiplayer action ``{"character", "input"}`` (never nested)."""
    return isinstance(action, Mapping) and "input" in action


def _valid(action: Any) -> bool:
    if isinstance(action, str):
        return bool(action.strip())
    if not isinstance(action, Mapping):
        return False
    if action.get("roll") is True:
        return True
    click = action.get("click")
    return isinstance(click, Mapping) and any(
        isinstance(click.get(k), str) for k in ("location", "point")
    )


async def _play(
    world: WorldDefinition,
    character: str | None,
    actions: list[GMAction],
    seed: int,
    provider: Provider,
    replies: str | None,
    language: str | None = None,
) -> None:
    assert world.game_master is not None
    default = character or world.game_master.characters[0].id
    turns = [(str(a["character"]), a["input"]) if _by(a) else (default, a) for a in actions]
    for who in dict.fromkeys(who for who, _ in turns):
        if who not in world.game_master.characters_by_id:
            known = ", ".join(world.game_master.characters_by_id)
            raise ScriptError(f"unknown character '{who}' (the world has: {known})")
    state = SessionState.initial(world)
    for index, (who, action) in enumerate(turns):
        try:
            result = await play_gm_action(
                world, state, who, action, provider=provider, rng_seed=seed, language=language
            )
        except GMError as exc:
            raise ScriptError(str(exc)) from None
        except RepliesExhausted as exc:
            raise ScriptError(f"{replies}: {exc} (at actions[{index}])") from None
        except ProviderError as exc:
            raise ScriptError(f"actions[{index}]: {exc.message}") from None
        state = result.state
        line = {"character": who, **result.to_dict(master=replies is not None)}
        sys.stdout.write(json.dumps(line, ensure_ascii=False) + "\n")
        sys.stdout.flush()


def _cmd_replay(args: argparse.Namespace) -> int:
    """``--replay``: the recording's steps (or the script's actions), one JSON line each."""
    world = _world(args.world)
    try:
        demo = read_demo(_read(args.replay))
    except ReplayError as exc:
        raise ScriptError(f"{args.replay}: {exc}") from None
    steps, character = list(demo.steps), demo.character
    if args.script is not None:
        character, actions = _script(args.script)
        steps = [Step(action) for action in actions]
    if not steps:
        raise ScriptError(f"{args.replay}: no steps to replay (give --script S.json)")
    assert world.game_master is not None  # _world checked it
    who = args.character or character or world.game_master.characters[0].id
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    language = _language(args.script) if args.script is not None else None
    wrap = _tracer if args.trace else None
    asyncio.run(_replay(world, who, steps, demo, seed, language, wrap))
    return 0


def _tracer(provider: Provider) -> Provider:
    return TracingProvider(provider, sys.stderr.write)


async def _replay(
    world: WorldDefinition,
    who: str,
    steps: list[Step],
    demo: Demo,
    seed: int,
    language: str | None,
    wrap: Callable[[Provider], Provider] | None,
) -> None:
    assert world.game_master is not None
    if who not in world.game_master.characters_by_id:
        known = ", ".join(world.game_master.characters_by_id)
        raise ScriptError(f"unknown character '{who}' (the world has: {known})")
    state = SessionState.initial(world)
    for index, step in enumerate(steps):
        options: dict[str, Any] = {"seed": seed, "language": language}
        if wrap is not None:
            options["wrap"] = wrap
        try:
            result, replayed = await replay_step(world, state, who, step, demo.recording, **options)
        except GMError as exc:
            raise ScriptError(f"steps[{index}]: {exc}") from None
        state = result.state
        line = {"character": who, **result.to_dict(), "replayed": replayed}
        sys.stdout.write(json.dumps(line, ensure_ascii=False) + "\n")
        sys.stdout.flush()
