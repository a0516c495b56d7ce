"""``python -m engine``: validate, parse, expand, stream, prompt and play from the shell.

A thin shell over ``engine.api``; other tools rely on its input and output, so keep them stable:

- ``validate --world W.json`` → exit 0 and one summary line, or exit 1 and every error with its
  path, one per line (the file and the count go to stderr).
- ``parse --world W.json [--state S.json]`` reads a reply on stdin, prints JSON
  ``{"text", "state", "audio", "effects", "skipped"}``.
- ``expand --world W.json [--state S.json] [--context C.json]`` reads text on stdin, prints it
  with its macros expanded.
- ``stream --world W.json [--state S.json]`` reads a JSON array of chunks on stdin, prints
  ``{"deltas", "text"}``.
- ``prompt --world W.json --chat CHAT.json [--state S.json] [--context C.json]`` prints
  ``{"messages", "breakpoint", "fired"}``.
- ``play --world W.json [--seed N]`` plays in the terminal on the offline provider.
- ``gm --world W.json --script S.json [--seed N] [--character ID]`` plays a game-master script,
  one JSON line per action (``engine.gm.cli`` documents the contract); ``--replay REC.json``
  plays a recording exported by the site instead, its missing steps offline.
- ``lint --world W.json`` prints the world linter's findings, one JSON object per line, and exits
  1 when one is an error (``engine.lint_cli`` documents the contract).
- ``test --world W.json --tests T.json [--junit FILE]`` runs the world's tests and exits 1 when
  one fails, 2 on a usage error (``engine.worldtests_cli`` documents the contract).
- Every error exits 1 (a usage error too, with argparse's message on stderr); ``test``'s
  usage errors exit 2.

State JSON maps variable ids to values (missing ids take their default). Context JSON keys, all
optional: turn, char, user, persona {name, appearance, personality, backstory}, now (ISO
datetime; the current local time when absent), seed (without one, ``{{random}}`` and ``{{roll}}``
draw fresh each run), model, messages [{role, content}], idle_seconds. A file that cannot be read,
invalid JSON or an invalid world exit 1 with the file and the problem on stderr. UTF-8 in and out.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import random
import sys
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from engine.api import (
    AudioEvent,
    ChoicesEvent,
    Delta,
    Done,
    MacroContext,
    Message,
    NotificationEvent,
    PlayerAction,
    SessionState,
    StateChanged,
    StreamFilter,
    Turn,
    TurnFailed,
    WorldDefinition,
    WorldValidationError,
    assemble_prompt,
    expand_macros,
    load_world,
    parse_reply,
)
from engine.gm.cli import SUMMARY as GM_SUMMARY
from engine.gm.cli import add_arguments as add_gm_arguments
from engine.gm.cli import cmd_gm
from engine.lint_cli import SUMMARY as LINT_SUMMARY
from engine.lint_cli import cmd_lint
from engine.llm.offline import OfflineProvider
from engine.worldtests_cli import SUMMARY as TEST_SUMMARY
from engine.worldtests_cli import USAGE_ERROR as TEST_USAGE_ERROR
from engine.worldtests_cli import add_arguments as add_test_arguments
from engine.worldtests_cli import cmd_test


class CliError(Exception):
    """A problem to report on stderr before exiting with status 1."""


# --- reading input -----------------------------------------------------------------------


def read_json(path: str) -> Any:
    """Read a JSON file; CliError naming the file when it cannot be read or parsed."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise CliError(f"{path}: cannot read file: {reason}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise CliError(
            f"{path}: invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None


def read_world(path: str) -> WorldDefinition:
    try:
        return load_world(read_world_data(path))
    except WorldValidationError as exc:
        lines = "\n".join(f"  {error}" for error in exc.errors)
        raise CliError(f"{path}: invalid world ({len(exc.errors)} errors):\n{lines}") from None


def read_world_data(path: str) -> dict[str, Any]:
    data = read_json(path)
    if not isinstance(data, dict):
        raise WorldValidationError([f"$: must be a JSON object, got {type(data).__name__}"])
    return data


def read_state(path: str | None, world: WorldDefinition) -> dict[str, Any]:
    """Every variable id mapped to its value: the file's, else the default."""
    values = world.default_state()
    if path is None:
        return values
    data = read_json(path)
    if not isinstance(data, dict):
        raise CliError(f"{path}: state must be a JSON object mapping variable ids to values")
    values.update(data)
    return values


def read_context(path: str | None) -> MacroContext:
    if path is None:
        return MacroContext()
    data = read_json(path)
    if not isinstance(data, dict):
        raise CliError(f"{path}: context must be a JSON object")
    return MacroContext.from_dict(data)


def read_chat(path: str) -> list[Message]:
    data = read_json(path)
    problem = f"{path}: chat must be a JSON array of {{role: user|assistant, content: string}}"
    if not isinstance(data, list):
        raise CliError(problem)
    chat = []
    for index, item in enumerate(data):
        if (
            not isinstance(item, dict)
            or item.get("role") not in ("user", "assistant")
            or not isinstance(item.get("content"), str)
        ):
            raise CliError(f"{problem} (item {index})")
        chat.append(Message(item["role"], item["content"]))
    return chat


def read_stdin() -> str:
    return sys.stdin.buffer.read().decode("utf-8", errors="replace")


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


# --- commands ----------------------------------------------------------------------------


def cmd_validate(args: argparse.Namespace) -> int:
    try:
        world = load_world(read_world_data(args.world))
    except WorldValidationError as exc:
        sys.stderr.write(f"{args.world}: invalid world ({len(exc.errors)} errors)\n")
        sys.stdout.write("".join(f"{error}\n" for error in exc.errors))
        return 1
    for warning in world.warnings:
        sys.stderr.write(f"{args.world}: warning: {warning}\n")
    counts = [
        (len(world.entries), "entries"),
        (len(world.variables), "variables"),
        (len(world.rules), "rules"),
        (len(world.reactions or []), "reactions"),
        (len(world.audio_tracks), "audio tracks"),
    ]
    summary = ", ".join(f"{n} {label}" for n, label in counts)
    sys.stdout.write(f"{world.name}: {summary}\n")
    return 0


def cmd_parse(args: argparse.Namespace) -> int:
    world = read_world(args.world)
    values = read_state(args.state, world)
    result = parse_reply(world, read_stdin(), values)
    print_json(
        {
            "text": result.text,
            "state": result.state,
            "audio": [cue.to_dict() for cue in result.audio],
            "effects": [effect.to_dict() for effect in result.effects],
            "skipped": [skip.to_dict() for skip in result.skipped],
        }
    )
    return 0


def cmd_expand(args: argparse.Namespace) -> int:
    world = read_world(args.world)
    values = read_state(args.state, world)
    context = read_context(args.context)
    sys.stdout.write(expand_macros(world, read_stdin(), values, context))
    return 0


def cmd_stream(args: argparse.Namespace) -> int:
    world = read_world(args.world)
    values = read_state(args.state, world)
    try:
        chunks = json.loads(read_stdin())
    except json.JSONDecodeError as exc:
        raise CliError(f"stdin: invalid JSON: {exc.msg} at line {exc.lineno}") from None
    if not isinstance(chunks, list) or not all(isinstance(c, str) for c in chunks):
        raise CliError("stdin: expected a JSON array of strings (the chunks)")
    stream = StreamFilter(world, values)
    deltas = [out for out in (*map(stream.feed, chunks), stream.close()) if out]
    print_json({"deltas": deltas, "text": "".join(deltas)})
    return 0


def cmd_prompt(args: argparse.Namespace) -> int:
    world = read_world(args.world)
    chat = read_chat(args.chat)
    state = SessionState(values=read_state(args.state, world))
    context = read_context(args.context)
    result = assemble_prompt(world, chat, state, persona=context.persona, context=context)
    print_json(
        {
            "messages": [m.to_dict() for m in result.messages],
            "breakpoint": result.breakpoint,
            "fired": [f.to_dict() for f in result.fired],
        }
    )
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    world = read_world(args.world)
    state = SessionState.initial(world, read_state(args.state, world))
    rng = random.Random(args.seed)
    game = TerminalGame(world, state, rng, sys.stdout)
    return asyncio.run(game.play(sys.stdin))


# --- play --------------------------------------------------------------------------------


def local_now() -> datetime:
    return datetime.now(UTC).astimezone()


class TerminalGame:
    """The ``play`` command: a session on the offline provider, one line per player message."""

    def __init__(
        self,
        world: WorldDefinition,
        state: SessionState,
        rng: random.Random,
        out: TextIO,
        clock: Callable[[], datetime] = local_now,
    ) -> None:
        self.world, self.state, self.rng, self.out, self.clock = world, state, rng, out, clock
        self.provider = OfflineProvider(world.language or "en", rng)
        self.history: list[Message] = []
        self.midline = False

    async def play(self, lines: TextIO) -> int:
        self.out.write(f"— {self.world.name} — (type /quit to leave, /state to see the state)\n")
        await self.turn(PlayerAction("start"))
        interactive = lines.isatty()
        while True:
            if interactive:
                self.out.write("> ")
                self.out.flush()
            line = lines.readline()
            if not line or line.strip() == "/quit":
                return 0
            text = line.strip()
            if text == "/state":
                self.show_state()
            elif text:
                await self.turn(PlayerAction("message", text))

    async def turn(self, action: PlayerAction) -> None:
        turn = Turn(
            self.world,
            self.state,
            self.history,
            action,
            self.provider,
            clock=self.clock,
            rng=self.rng,
        )
        try:
            async for event in turn.events():
                self.show(event)
        except TurnFailed as exc:
            self.out.write(f"\n[error] {exc.message}\n")
            return
        assert turn.result is not None
        if action.kind == "message":
            self.history.append(Message("user", action.text))
        if turn.result.text:
            self.history.append(Message("assistant", turn.result.text))
        self.state = turn.result.state

    def show(self, event: object) -> None:
        if isinstance(event, Delta):
            self.out.write(event.text)
            self.midline = True
            self.out.flush()
            return
        if self.midline:
            self.out.write("\n")
            self.midline = False
        if isinstance(event, ChoicesEvent):
            self.out.write("".join(f"  > {choice}\n" for choice in event.choices))
        elif isinstance(event, StateChanged):
            change = event.change
            name = ".".join(str(p) for p in (change.variable_id, *change.path))
            self.out.write(f"  * {name}: {_show(change.old)} → {_show(change.new)}\n")
        elif isinstance(event, NotificationEvent):
            note = event.notification
            self.out.write(f"  [{note.style}] {note.message}\n")
        elif isinstance(event, AudioEvent):
            self.out.write(f"  ♪ {event.cue.action} {event.cue.track_id}\n")
        elif isinstance(event, Done):
            self.out.write("\n")
        self.out.flush()

    def show_state(self) -> None:
        for variable in self.world.variables:
            value = self.state.values.get(variable.id)
            self.out.write(f"  {variable.id} = {_show(value)}\n")
        self.out.write(f"  (turn {self.state.turn})\n")


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


# --- entry point -------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m engine", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, handler: Callable[[argparse.Namespace], int], summary: str) -> Any:
        sub = commands.add_parser(name, help=summary, description=summary)
        sub.add_argument("--world", required=True, metavar="W.json", help="the world file")
        sub.set_defaults(handler=handler)
        return sub

    command("validate", cmd_validate, "check a world file and summarise it")
    state_help = "variable values, {id: value}; missing ids take their default"
    context_help = "macro context: turn, char, user, persona, now, seed, model, messages…"
    parse = command("parse", cmd_parse, "parse an AI reply read on stdin")
    parse.add_argument("--state", metavar="S.json", help=state_help)
    expand = command("expand", cmd_expand, "expand the macros of the text read on stdin")
    expand.add_argument("--state", metavar="S.json", help=state_help)
    expand.add_argument("--context", metavar="C.json", help=context_help)
    stream = command("stream", cmd_stream, "filter a JSON array of chunks read on stdin")
    stream.add_argument("--state", metavar="S.json", help=state_help)
    prompt = command("prompt", cmd_prompt, "assemble the prompt for a chat")
    prompt.add_argument("--chat", required=True, metavar="CHAT.json", help="[{role, content}]")
    prompt.add_argument("--state", metavar="S.json", help=state_help)
    prompt.add_argument("--context", metavar="C.json", help=context_help)
    play = command("play", cmd_play, "play in the terminal on the offline provider")
    play.add_argument("--state", metavar="S.json", help=state_help)
    play.add_argument("--seed", type=int, default=None, help="seed for reproducible play")
    add_gm_arguments(command("gm", cmd_gm, GM_SUMMARY))
    command("lint", cmd_lint, LINT_SUMMARY)
    add_test_arguments(command("test", cmd_test, TEST_SUMMARY))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; return the exit status."""
    for stream in (sys.stdin, sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(encoding="utf-8")
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # argparse: --help exits 0; a usage error is an error like any other
        if exc.code in (0, None):
            return 0
        # ``test`` keeps exit 1 for failing tests: its usage errors exit 2, so a CI tells them apart
        return TEST_USAGE_ERROR if list(argv or sys.argv[1:])[:1] == ["test"] else 1
    try:
        status: int = args.handler(args)
    except CliError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 1
    return status
