"""The play websocket: authenticate, decode, one call into play.handlers, relay the frames.

No ORM and no rules here. Frames of this session's turns arrive two ways: from this process's
relay queue (every token, at once) and from the channel-layer group (other processes' turns,
coalesced); the subscription drops what it has already seen.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import replace
from typing import Any

from channels.generic.websocket import AsyncWebsocketConsumer
from django.utils import translation

from play import frames, framing, handlers
from play.errors import SessionForbidden, SessionNotFound
from play.gm_quota import zone_from_scope
from play.languages import language_from_scope
from play.quota import scope_address
from play.sessions import player_for
from play.signouts import groups_for
from play.socket_writer import writer_for
from play.table_relay import seat_group

log = logging.getLogger(__name__)

CLOSE_FORBIDDEN = 4403
CLOSE_NOT_FOUND = 4404
CLOSE_SIGNED_OUT = 4401  # the user logged out, or this socket's Django session ended
CLOSE_REMOVED = 4410  # the host removed this session's player from his table (play.table_host)


class PlayConsumer(AsyncWebsocketConsumer):  # type: ignore[misc]
    joined: handlers.Joined | None = None
    signout_groups: tuple[str, ...] = ()
    seat_group = ""
    language = "en"

    async def connect(self) -> None:
        # Accept first: a close before accept becomes an HTTP 403 and loses the code.
        await self.accept()
        self.language = language_from_scope(self.scope)  # for the messages a frame raises
        session = self.scope.get("session")
        player = player_for(
            self.scope.get("user"),
            getattr(session, "session_key", None),
            scope_address(self.scope),
        )
        player = replace(player, time_zone=zone_from_scope(self.scope))
        session_id = str(self.scope["url_route"]["kwargs"]["session_id"])
        try:
            with translation.override(self.language):  # the scene bar's words (play.gm)
                self.joined, history = await handlers.join(session_id, player, self.channel_name)
        except SessionNotFound:
            await self.close(code=CLOSE_NOT_FOUND)
            return
        except SessionForbidden:
            await self.close(code=CLOSE_FORBIDDEN)
            return
        for text in history:  # the history, then its state when that needed frames of its own
            await self.send(text_data=text)
        # From here on a frame with nothing queued ahead of it goes straight to the socket.
        self.joined.subscription.writer = writer_for(self.scope)
        self.joined.subscription.start(self._send_text)
        key = getattr(session, "session_key", None)
        self.signout_groups = tuple(groups_for(self.scope.get("user"), key))
        # The player and the groups are all the socket needs of them from here on: its User
        # and loaded session (~1.4 KiB) are not kept for the socket's whole life.
        self.scope.pop("user", None)
        self.scope.pop("session", None)
        for group in self.signout_groups:
            await self.channel_layer.group_add(group, self.channel_name)
        # A shared table last: the turn's frames already flow while these wait on the layer.
        await self._join_seat_group(session_id)
        await handlers.presence(session_id, +1)

    async def _send_text(self, text: str) -> None:
        await self.send(text_data=text)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.joined is None:
            return
        try:
            frame = frames.decode_frame(text_data if text_data is not None else bytes_data)
        except frames.FrameError as exc:
            reply = frames.error(f"{exc.field}: {exc.message}", exc.raw, exc.field)
            await self.send(text_data=frames.encode(reply))
            return
        with translation.override(self.language):
            replies = await handlers.handle(self.joined, frame)
        for reply in replies:
            await self.send(text_data=framing.encoded(reply)[1])

    async def play_relay(self, event: dict[str, Any]) -> None:
        """Frames of a turn running in another process, via the channel-layer group."""
        if self.joined is None:
            return
        for text in self.joined.subscription.remote_frames(event):
            await self.send(text_data=text)

    async def play_seat(self, event: dict[str, Any]) -> None:
        """Lines and scenes of another player's turn at this session's table (play.tables)."""
        if self.joined is None:
            return
        for frame in event.get("frames", []):
            for text in framing.texts(frame):
                await self.send(text_data=text)

    async def play_removed(self, event: dict[str, Any]) -> None:
        """The host removed this session's player from the table: this socket stops at once."""
        await self.disconnect(CLOSE_REMOVED)
        await self.close(code=CLOSE_REMOVED)

    async def _join_seat_group(self, session_id: str) -> None:
        """Where another player's turn at this session's table reaches this socket. A channel
        layer that is down right now (Redis restarting) costs only those lines until the next
        reconnect or sync, which reads them from the history: never the socket itself."""
        group = seat_group(session_id)
        try:
            await asyncio.wait_for(self.channel_layer.group_add(group, self.channel_name), 2.0)
        except Exception:
            log.warning("socket of session %s joined no seat group", session_id, exc_info=True)
            return
        self.seat_group = group

    async def _leave_seat_group(self) -> None:
        group, self.seat_group = self.seat_group, ""
        if group:
            with contextlib.suppress(Exception):
                await self.channel_layer.group_discard(group, self.channel_name)

    async def session_logout(self, event: dict[str, Any]) -> None:
        """The user logged out (or the session ended): this socket must stop acting for them."""
        if not self.signout_groups:
            return  # already closed by the other group's message
        await self.disconnect(CLOSE_SIGNED_OUT)  # stop relaying and acting for them first
        await self.close(code=CLOSE_SIGNED_OUT)

    async def _leave_signout_groups(self) -> None:
        groups, self.signout_groups = self.signout_groups, ()
        for group in groups:
            await self.channel_layer.group_discard(group, self.channel_name)

    async def disconnect(self, code: int) -> None:
        await self._leave_signout_groups()
        await self._leave_seat_group()
        if self.joined is not None:
            await self.joined.subscription.stop()
            await handlers.leave(self.joined)
            self.joined = None
