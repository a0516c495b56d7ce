"""A real HTTP model server on 127.0.0.1 that speaks the OpenAI and Anthropic wire protocols.

Tests point the official SDKs at it so their real code paths run: HTTP/1.1 keep-alive,
chunked transfer, Server-Sent Events. It runs its own asyncio loop in a background thread,
so one server holds hundreds of concurrent streams (the provider benchmark uses ~500).

    with ModelServer() as server:
        server.script([Fault("429"), Reply(text="Hello there.", chunk_size=4)])
        provider = OpenAICompatProvider(api_key="test", base_url=server.openai_url, model="m")
        ...
        server.requests[0].body["temperature"]

Every model request takes the next scripted item, or the server's ``default`` reply when the
script is empty. Prompt caching is simulated per wire protocol: OpenAI reports the longest
previously seen message prefix as ``cached_tokens``; Anthropic reports the prefix up to the
last ``cache_control`` block as a cache write the first time and a cache read afterwards.
Token counts are ``ceil(characters / 4)`` of the text, so tests can compute them. A reply can
carry tool calls, streamed in pieces in each protocol's shape (``tests.support.model_tools``).
``GET /v1/models`` lists ``models`` in the shape of the protocol that asks (the Anthropic SDK
sends ``anthropic-version``), or answers with ``models_fault`` as an error status.

``quirk`` plays the servers that do not do all of tool calling (issue 37 §3): "reject_named"
answers a named ``tool_choice`` with 400 and llama.cpp's words; "ignore_named" logs them (in
``log``) and answers the reply's text without its tool calls, as llama.cpp does; "text_only"
never sends a tool call, whatever was asked (a model that only writes).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import hashlib
import itertools
import json
import math
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from tests.support.model_tools import (
    anthropic_tool_blocks,
    anthropic_tool_events,
    block_size,
    cache_split,
    openai_tool_deltas,
    openai_tool_message,
    output_tokens,
)

WRONG_TYPE = "Wrong type supplied for parameter 'tool_choice'"  # llama.cpp's log line
DEFAULT_TEXT = "The lantern flickers. Somewhere below, a door creaks open and the story goes on."

_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    404: "Not Found",
    408: "Request Timeout",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    529: "Overloaded",
}
_OPENAI_ERROR_TYPES = {429: "rate_limit_error", 401: "invalid_api_key", 400: "invalid_request"}
_ANTHROPIC_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    404: "not_found_error",
    429: "rate_limit_error",
    529: "overloaded_error",
}


def count_tokens(text: str) -> int:
    """The server's stand-in tokenizer: one token per four characters, rounded up."""
    return math.ceil(len(text) / 4)


@dataclass(frozen=True)
class Reply:
    """A successful answer: ``text`` streamed ``chunk_size`` characters at a time."""

    text: str | None = None  # None: the server's default text
    chunk_size: int = 8
    delay: float = 0.0  # seconds between chunks
    echo: bool = False  # answer with the last user message instead of ``text``
    finish_reason: str = "stop"
    # [{"name", "arguments"}], streamed after the text; "stop" then reads as a tool-call stop.
    tool_calls: tuple[dict[str, Any], ...] = ()

    @classmethod
    def generated(cls, tokens: int, tokens_per_second: float | None = None) -> Reply:
        """``tokens`` four-character tokens, one per chunk, at a fixed rate when given."""
        delay = 1 / tokens_per_second if tokens_per_second else 0.0
        return cls(text="tok " * tokens, chunk_size=4, delay=delay)


@dataclass(frozen=True)
class Fault:
    """A scripted failure.

    kind: an HTTP status ("429", "500", "503"…) answered with the protocol's error body;
    "drop_mid_stream" (close the socket after ``after_chunks`` text chunks);
    "drop_before_response" (close the socket without answering);
    "stall_before_first_token" (send the headers, wait ``seconds``, then answer ``reply``);
    "stall_mid_stream" (wait ``seconds`` after ``after_chunks`` chunks, then go on);
    "error_event" (after ``after_chunks`` chunks, an error inside the 200 stream: Anthropic's
    ``event: error`` overloaded_error, or OpenAI-style ``data: {"error": …}``).
    """

    kind: str
    after_chunks: int = 0
    seconds: float = 0.0
    retry_after: float | None = None
    reply: Reply | None = None


@dataclass(frozen=True)
class Transcript:
    """A real server's answer replayed byte for byte (issue 37 §6, ``tests/fixtures/llama_cpp``):
    the status, the content type and the body as recorded (SSE events or one JSON object),
    each event sent as its own chunk."""

    status: int
    content_type: str
    events: tuple[bytes, ...]


@dataclass
class ReceivedRequest:
    """One request as the server saw it."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class _Plan:
    """What to send for one request, resolved from the script."""

    text: str
    chunk_size: int
    delay: float
    finish_reason: str
    drop_after: int | None = None
    stall_before_first: float = 0.0
    stall_after: int | None = None
    stall_seconds: float = 0.0
    error_after: int | None = None
    input_tokens: int = 0
    cache_read: int = 0
    cache_write: int = 0
    tool_calls: tuple[dict[str, Any], ...] = ()

    @property
    def output_tokens(self) -> int:
        return output_tokens(self.text, self.tool_calls)

    def stop(self, protocol: str) -> str:
        """The finish reason on the wire: a reply with tool calls stops to call them."""
        if self.finish_reason != "stop":
            return self.finish_reason
        if self.tool_calls:
            return "tool_calls" if protocol == "openai" else "tool_use"
        return "stop" if protocol == "openai" else "end_turn"

    def chunks(self) -> list[str]:
        size = max(1, self.chunk_size)
        return [self.text[i : i + size] for i in range(0, len(self.text), size)]


class _Drop(Exception):
    """Abort the connection without a clean end."""


@dataclass
class _Stats:
    active_streams: int = 0
    max_active_streams: int = 0


class ModelServer:
    """A scriptable loopback model server; ``start()``/``stop()`` or use it as a context manager."""

    def __init__(
        self, default: Reply | None = None, host: str = "127.0.0.1", port: int = 0
    ) -> None:
        self.default = default or Reply()
        self.host = host
        self.port = port  # 0: any free port, known once started
        self._script: collections.deque[Reply | Fault | Transcript] = collections.deque()
        # Answers chosen by the request itself (e.g. summaries apart from turns); None: the script.
        self.route: Callable[[ReceivedRequest], Reply | Fault | Transcript | None] | None = None
        self._requests: list[ReceivedRequest] = []
        self._lock = threading.Lock()
        self._seen_prefixes: set[str] = set()
        self._ids = itertools.count(1)
        self._stats = _Stats()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        # GET /v1/models (both protocols): the models listed, an error status to answer with
        # instead (None: list them), and every listing request received.
        self.models: list[str] = ["test-model", "test-model-mini"]
        self.models_fault: int | None = None
        self.list_requests: list[ReceivedRequest] = []
        self.quirk: str | None = None  # see the module: reject_named, ignore_named, text_only
        self.log: list[str] = []

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> ModelServer:
        if self._thread is not None:
            return self
        ready = threading.Event()
        failure: list[BaseException] = []

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            asyncio.set_event_loop(loop)
            try:
                self._server = loop.run_until_complete(
                    asyncio.start_server(self._on_connection, self.host, self.port, backlog=2048)
                )
                self.port = self._server.sockets[0].getsockname()[1]
            except BaseException as exc:
                failure.append(exc)
                ready.set()
                loop.close()
                return
            ready.set()
            try:
                loop.run_forever()
            finally:
                loop.close()

        self._thread = threading.Thread(target=run, name="model-server", daemon=True)
        self._thread.start()
        ready.wait(10)
        if failure:
            self._thread = None
            raise failure[0]
        return self

    def stop(self) -> None:
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(self._shutdown(), loop).result(timeout=5)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=5)
        self._thread = None
        self._loop = None

    async def _shutdown(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    def __enter__(self) -> ModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- what tests use ----------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def openai_url(self) -> str:
        """The base URL for ``openai.AsyncOpenAI`` (it appends ``/chat/completions``)."""
        return f"{self.url}/v1"

    @property
    def anthropic_url(self) -> str:
        """The base URL for ``anthropic.AsyncAnthropic`` (it appends ``/v1/messages``)."""
        return self.url

    def script(self, items: Iterable[Reply | Fault | Transcript]) -> None:
        """Queue replies and faults; each model request takes the next one."""
        with self._lock:
            self._script.extend(items)

    @property
    def requests(self) -> list[ReceivedRequest]:
        """Every model request received so far, oldest first."""
        with self._lock:
            return list(self._requests)

    @property
    def pending(self) -> int:
        """Scripted items not consumed yet."""
        with self._lock:
            return len(self._script)

    @property
    def max_active_streams(self) -> int:
        """The most streams that were open at the same time."""
        return self._stats.max_active_streams

    def reset(self) -> None:
        """Forget the script, the received requests and the simulated prompt cache."""
        with self._lock:
            self._script.clear()
            self._requests.clear()
            self._seen_prefixes.clear()

    # -- HTTP/1.1 ------------------------------------------------------------------------------

    async def _on_connection(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)  # type: ignore[arg-type]
        try:
            while True:
                request = await _read_request(reader)
                if request is None:
                    break
                keep_alive = await self._dispatch(request, writer)
                if not keep_alive:
                    break
        except (_Drop, ConnectionError, asyncio.IncompleteReadError, ValueError):
            writer.transport.abort()
        except asyncio.CancelledError:
            # Only ``_shutdown`` cancels these tasks; ending quietly keeps asyncio from logging
            # every idle keep-alive connection as an error.
            writer.transport.abort()
        finally:
            self._tasks.discard(task)  # type: ignore[arg-type]
            with contextlib.suppress(Exception):
                writer.close()

    async def _dispatch(self, request: ReceivedRequest, writer: asyncio.StreamWriter) -> bool:
        keep_alive = request.headers.get("connection", "").lower() != "close"
        if request.method == "GET" and request.path.endswith("/v1/models"):
            await self._list_models(request, writer)
            return keep_alive
        if request.method != "POST" or not request.path.endswith(
            ("/chat/completions", "/messages")
        ):
            await _send_json(writer, 404, {"error": {"message": f"no route {request.path}"}})
            return keep_alive
        protocol = "openai" if request.path.endswith("/chat/completions") else "anthropic"
        with self._lock:
            self._requests.append(request)
            routed = self.route(request) if self.route is not None else None
            item = routed or (self._script.popleft() if self._script else self.default)
        body = request.body if isinstance(request.body, dict) else {}
        if isinstance(item, Transcript):
            await _replay(writer, item)
            return keep_alive
        if self.quirk is not None:
            quirky = self._quirk(item, body)
            if quirky is None:
                await _send_json(writer, 400, {"error": {"code": 400, "message": WRONG_TYPE}})
                return keep_alive
            item = quirky
        if isinstance(item, Fault) and item.kind.isdigit():
            await self._send_error(writer, protocol, int(item.kind), item.retry_after)
            return keep_alive
        if isinstance(item, Fault) and item.kind == "drop_before_response":
            raise _Drop
        plan = self._plan(item, protocol, body)
        if not body.get("stream"):
            if plan.stall_before_first:
                await asyncio.sleep(plan.stall_before_first)
            if plan.drop_after is not None:
                raise _Drop
            n = next(self._ids)
            result = (
                _openai_message(plan, body, n)
                if protocol == "openai"
                else _anthropic_message(plan, body, n)
            )
            await _send_json(writer, 200, result)
            return keep_alive
        self._stats.active_streams += 1
        self._stats.max_active_streams = max(
            self._stats.max_active_streams, self._stats.active_streams
        )
        try:
            events = _openai_events if protocol == "openai" else _anthropic_events
            error = _ANTHROPIC_ERROR_EVENT if protocol == "anthropic" else _OPENAI_ERROR_EVENT
            await _stream(writer, plan, events(plan, body, next(self._ids)), error)
        finally:
            self._stats.active_streams -= 1
        return keep_alive

    def _quirk(self, item: Reply | Fault, body: dict[str, Any]) -> Reply | Fault | None:
        """The item as the quirky server answers it; None: refused with a 400."""
        named = isinstance(body.get("tool_choice"), dict)
        if named and self.quirk in ("reject_named", "ignore_named"):
            with self._lock:
                self.log.append(WRONG_TYPE)
            if self.quirk == "reject_named":
                return None
        if not isinstance(item, Reply) or not (named or self.quirk == "text_only"):
            return item
        return replace(item, tool_calls=()) if self.quirk != "reject_named" else item

    def _plan(self, item: Reply | Fault, protocol: str, body: dict[str, Any]) -> _Plan:
        reply = item if isinstance(item, Reply) else (item.reply or self.default)
        if reply.echo:
            text = _last_user_text(body)
        else:
            text = reply.text if reply.text is not None else DEFAULT_TEXT
        plan = _Plan(text, reply.chunk_size, reply.delay, reply.finish_reason)
        plan.tool_calls = reply.tool_calls
        if isinstance(item, Fault):
            if item.kind == "drop_mid_stream":
                plan.drop_after = item.after_chunks
            elif item.kind == "stall_before_first_token":
                plan.stall_before_first = item.seconds
            elif item.kind == "stall_mid_stream":
                plan.stall_after, plan.stall_seconds = item.after_chunks, item.seconds
            elif item.kind == "error_event":
                plan.error_after = item.after_chunks
            else:
                raise ValueError(f"unknown fault {item.kind!r}")
        if protocol == "openai":
            self._cache_openai(plan, body)
        else:
            self._cache_anthropic(plan, body)
        return plan

    def _cache_openai(self, plan: _Plan, body: dict[str, Any]) -> None:
        messages = list(body.get("messages") or [])
        if body.get("tools"):  # the tool schemas lead the cached prefix
            messages.insert(0, {"role": "tools", "content": json.dumps(body["tools"])})
        sizes = [count_tokens(_content_text(m.get("content"))) for m in messages]
        digest = hashlib.sha256(str(body.get("model")).encode())
        keys = []
        for message in messages:
            digest.update(json.dumps(message, sort_keys=True).encode())
            keys.append(digest.hexdigest())
        cached = 0
        with self._lock:
            # The whole prompt never counts: a real API always computes the last message.
            for i, key in enumerate(keys[:-1]):
                if key in self._seen_prefixes:
                    cached = sum(sizes[: i + 1])
            self._seen_prefixes.update(keys)
        plan.cache_read = cached
        plan.input_tokens = sum(sizes) - cached

    def _cache_anthropic(self, plan: _Plan, body: dict[str, Any]) -> None:
        blocks: list[Any] = list(body.get("tools") or [])  # tools come first in the cache order
        system = body.get("system")
        if isinstance(system, str):
            blocks.append({"type": "text", "text": system})
        elif isinstance(system, list):
            blocks.extend(system)
        for message in body.get("messages") or []:
            content = message.get("content")
            if isinstance(content, str):
                blocks.append({"type": "text", "text": content, "role": message.get("role")})
            else:
                blocks.extend({**b, "role": message.get("role")} for b in content or [])
        sizes = [block_size(b) for b in blocks]
        marked = [i for i, b in enumerate(blocks) if b.get("cache_control")]
        digest = hashlib.sha256(json.dumps(body.get("model")).encode())
        keys = []
        for block in blocks:  # a mark moved along the prompt does not change its prefix
            unmarked = {k: v for k, v in block.items() if k != "cache_control"}
            digest.update(json.dumps(unmarked, sort_keys=True).encode())
            keys.append(digest.hexdigest())
        with self._lock:
            plan.cache_read, plan.cache_write = cache_split(
                keys, sizes, marked, self._seen_prefixes
            )
        plan.input_tokens = sum(sizes) - plan.cache_read - plan.cache_write

    async def _list_models(self, request: ReceivedRequest, writer: asyncio.StreamWriter) -> None:
        """``GET /v1/models`` in the shape of the protocol the client speaks (one page)."""
        protocol = "anthropic" if "anthropic-version" in request.headers else "openai"
        with self._lock:
            self.list_requests.append(request)
            names, fault = list(self.models), self.models_fault
        if fault is not None:
            await self._send_error(writer, protocol, fault, None)
            return
        if protocol == "openai":
            data = [{"id": n, "object": "model", "created": 0, "owned_by": "test"} for n in names]
            await _send_json(writer, 200, {"object": "list", "data": data})
            return
        models = [
            {"type": "model", "id": n, "display_name": n, "created_at": "2025-01-01T00:00:00Z"}
            for n in names
        ]
        await _send_json(
            writer,
            200,
            {
                "data": models,
                "has_more": False,
                "first_id": names[0] if names else None,
                "last_id": names[-1] if names else None,
            },
        )

    async def _send_error(
        self, writer: asyncio.StreamWriter, protocol: str, status: int, retry_after: float | None
    ) -> None:
        message = f"Scripted error {status}"
        if protocol == "openai":
            kind = _OPENAI_ERROR_TYPES.get(status, "server_error")
            body: dict[str, Any] = {"error": {"message": message, "type": kind, "code": None}}
        else:
            kind = _ANTHROPIC_ERROR_TYPES.get(status, "api_error")
            body = {"type": "error", "error": {"type": kind, "message": message}}
        headers = {"retry-after": str(retry_after)} if retry_after is not None else {}
        await _send_json(writer, status, body, headers)


# -- wire formats ----------------------------------------------------------------------------


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return ""


def _last_user_text(body: dict[str, Any]) -> str:
    for message in reversed(body.get("messages") or []):
        if message.get("role") == "user":
            return _content_text(message.get("content"))
    return ""


def _openai_usage(plan: _Plan) -> dict[str, Any]:
    prompt = plan.input_tokens + plan.cache_read
    completion = plan.output_tokens
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": plan.cache_read},
    }


def _anthropic_usage(plan: _Plan, output_tokens: int) -> dict[str, Any]:
    return {
        "input_tokens": plan.input_tokens,
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": plan.cache_write,
        "cache_read_input_tokens": plan.cache_read,
    }


def _openai_message(plan: _Plan, body: dict[str, Any], n: int) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": plan.text}
    if plan.tool_calls:
        message["tool_calls"] = openai_tool_message(plan.tool_calls, n)
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", ""),
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": plan.stop("openai"),
            }
        ],
        "usage": _openai_usage(plan),
    }


def _anthropic_message(plan: _Plan, body: dict[str, Any], n: int) -> dict[str, Any]:
    content = [{"type": "text", "text": plan.text}] if plan.text or not plan.tool_calls else []
    return {
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", ""),
        "content": content + anthropic_tool_blocks(plan.tool_calls, n),
        "stop_reason": plan.stop("anthropic"),
        "stop_sequence": None,
        "usage": _anthropic_usage(plan, plan.output_tokens),
    }


# An event stream is a list of (is_text_chunk, sse bytes); the streamer counts text chunks to
# place drops and stalls.
_Events = list[tuple[bool, bytes]]


def _sse(data: Any, event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    payload = data if isinstance(data, str) else json.dumps(data)
    return f"{head}data: {payload}\n\n".encode()


_OPENAI_ERROR_EVENT = _sse({"error": {"message": "Upstream overloaded", "code": 502}})
_ANTHROPIC_ERROR_EVENT = _sse(
    {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}, "error"
)


def _openai_events(plan: _Plan, body: dict[str, Any], n: int) -> _Events:
    base = {"id": f"chatcmpl-{n}", "object": "chat.completion.chunk", "created": 0}
    base["model"] = body.get("model", "")

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return _sse({**base, "choices": [choice]})

    events: _Events = [(False, chunk({"role": "assistant", "content": ""}))]
    events += [(True, chunk({"content": text})) for text in plan.chunks()]
    events += [(True, chunk(d)) for d in openai_tool_deltas(plan.tool_calls, plan.chunk_size, n)]
    events.append((False, chunk({}, plan.stop("openai"))))
    if (body.get("stream_options") or {}).get("include_usage"):
        events.append((False, _sse({**base, "choices": [], "usage": _openai_usage(plan)})))
    events.append((False, _sse("[DONE]")))
    return events


def _anthropic_events(plan: _Plan, body: dict[str, Any], n: int) -> _Events:
    start = {
        "type": "message_start",
        "message": {
            "id": f"msg_{n}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", ""),
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": _anthropic_usage(plan, 1),
        },
    }
    events: _Events = [(False, _sse(start, "message_start"))]
    with_text = bool(plan.text) or not plan.tool_calls
    if with_text:
        block = {"type": "content_block_start", "index": 0}
        block["content_block"] = {"type": "text", "text": ""}
        events.append((False, _sse(block, "content_block_start")))
    events.append((False, _sse({"type": "ping"}, "ping")))
    for text in plan.chunks() if with_text else []:
        delta = {"type": "content_block_delta", "index": 0}
        delta["delta"] = {"type": "text_delta", "text": text}
        events.append((True, _sse(delta, "content_block_delta")))
    if with_text:
        events.append(
            (False, _sse({"type": "content_block_stop", "index": 0}, "content_block_stop"))
        )
    tools = anthropic_tool_events(plan.tool_calls, int(with_text), plan.chunk_size, n)
    events += [(piece, _sse(payload, name)) for piece, name, payload in tools]
    final = {
        "type": "message_delta",
        "delta": {"stop_reason": plan.stop("anthropic"), "stop_sequence": None},
        "usage": _anthropic_usage(plan, plan.output_tokens),
    }
    events.append((False, _sse(final, "message_delta")))
    events.append((False, _sse({"type": "message_stop"}, "message_stop")))
    return events


# -- HTTP plumbing ---------------------------------------------------------------------------


async def _read_request(reader: asyncio.StreamReader) -> ReceivedRequest | None:
    line = await reader.readline()
    if not line:
        return None
    method, path, _version = line.decode("latin-1").strip().split(" ", 2)
    headers: dict[str, str] = {}
    while True:
        raw = await reader.readline()
        if raw in (b"\r\n", b"\n", b""):
            break
        name, _, value = raw.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    if headers.get("transfer-encoding", "").lower() == "chunked":
        data = b""
        while True:
            size = int((await reader.readline()).split(b";")[0], 16)
            if size == 0:
                await reader.readline()
                break
            data += await reader.readexactly(size)
            await reader.readexactly(2)
    else:
        data = await reader.readexactly(int(headers.get("content-length", "0")))
    try:
        body: Any = json.loads(data) if data else None
    except json.JSONDecodeError:
        body = data.decode("utf-8", "replace")
    return ReceivedRequest(method, path.split("?", 1)[0], headers, body)


def _head(status: int, headers: dict[str, str]) -> bytes:
    lines = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Status')}"]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


async def _send_json(
    writer: asyncio.StreamWriter,
    status: int,
    body: Any,
    headers: dict[str, str] | None = None,
) -> None:
    data = json.dumps(body).encode()
    head = {"content-type": "application/json", "content-length": str(len(data))}
    writer.write(_head(status, {**head, **(headers or {})}) + data)
    await writer.drain()


async def _stream(
    writer: asyncio.StreamWriter, plan: _Plan, events: _Events, error_event: bytes
) -> None:
    head = {
        "content-type": "text/event-stream",
        "cache-control": "no-cache",
        "transfer-encoding": "chunked",
    }
    writer.write(_head(200, head))
    await writer.drain()
    sent = 0
    for is_text, data in events:
        if is_text:
            if sent == 0 and plan.stall_before_first:
                await asyncio.sleep(plan.stall_before_first)
            if plan.drop_after is not None and sent >= plan.drop_after:
                raise _Drop
            if plan.error_after is not None and sent >= plan.error_after:
                await _send_chunk(writer, error_event)
                break
            if plan.stall_after is not None and sent == plan.stall_after:
                await asyncio.sleep(plan.stall_seconds)
            if sent and plan.delay:
                await asyncio.sleep(plan.delay)
            sent += 1
        await _send_chunk(writer, data)
    writer.write(b"0\r\n\r\n")
    await writer.drain()


async def _replay(writer: asyncio.StreamWriter, item: Transcript) -> None:
    head = {"content-type": item.content_type, "transfer-encoding": "chunked"}
    writer.write(_head(item.status, head))
    for data in item.events:
        await _send_chunk(writer, data)
    writer.write(b"0\r\n\r\n")
    await writer.drain()


async def _send_chunk(writer: asyncio.StreamWriter, data: bytes) -> None:
    writer.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
    await writer.drain()


def main(argv: list[str] | None = None) -> None:
    """Run the server in the foreground, e.g. in its own process for a benchmark."""
    import argparse
    import time

    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--tokens", type=int, default=200, help="tokens per reply")
    parser.add_argument("--rate", type=float, default=0.0, help="tokens per second (0: no wait)")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: any free)")
    args = parser.parse_args(argv)
    default = Reply.generated(args.tokens, args.rate or None)
    server = ModelServer(default=default, port=args.port).start()
    print(f"OpenAI: {server.openai_url}  Anthropic: {server.anthropic_url}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
