"""A world UI's ``storage`` on the server (seed 004 "存储（世界级别，持久化）"; issue 15).

The seed keeps a UI's storage per world, not in the browser: here it is per world *and player*
(one player's notes are not another's), in two scopes. ``world`` is what ``storage.*`` and the
``localStorage`` shim use: every session of that player in that world sees it. ``session`` is
the ``sessionStorage`` shim's: one session's own. Values are JSON (the seed's strings are JSON
too); keys are short text. Every player has FABULA_UI_STORAGE_QUOTA bytes per world (256 KiB by
default), counted as the UTF-8 JSON of both scopes; a write past it is refused by name.

A guest is a cookie, and cookies are free (issue 32 §8: 40 of them stored 9.6 MB in 18 s), so
guests also share FABULA_UI_GUEST_STORAGE_PER_ADDRESS bytes (1 MiB by default) per client
address, across every world, the address read by the guest quota's rule (``play.quota``:
``X-Forwarded-For`` only through trusted proxies; an IPv6 client by its /64). A guest's rows
carry the address they were first written from in ``player`` (``guest:<key>@<address>``). They
go with the guest: ``purge`` (the guest purge task) deletes the rows of a guest who has no
session left, and every row whose session is gone; deleting a session deletes its own row.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q, Sum
from django.utils.translation import gettext

from engine.jsonguard import JsonInputError, loads
from play.errors import PlayError
from play.models import Session, UiStorage
from play.quota import address_subject

DEFAULT_QUOTA = 256 * 1024
DEFAULT_GUEST_ADDRESS_QUOTA = 1024 * 1024
GUEST = "guest:"
_BATCH = 500
MAX_KEY = 200
SCOPES = ("world", "session")


def quota() -> int:
    return int(getattr(settings, "FABULA_UI_STORAGE_QUOTA", DEFAULT_QUOTA))


def guest_address_quota() -> int:
    """What all guests from one address may store together (0: no bound)."""
    return int(
        getattr(settings, "FABULA_UI_GUEST_STORAGE_PER_ADDRESS", DEFAULT_GUEST_ADDRESS_QUOTA)
    )


def _scope_key(session: Session, scope: str) -> str:
    if scope not in SCOPES:
        raise PlayError(gettext("Unknown storage scope."), field="scope")
    return "world" if scope == "world" else str(session.pk)


def _player(session: Session) -> str:
    return f"user:{session.owner_id}" if session.owner_id else f"guest:{session.guest_key}"


def _rows(session: Session) -> Any:
    if session.world_id is None:
        raise PlayError(gettext("This session's world is gone."), field="scope")
    rows = UiStorage.objects.filter(world_id=session.world_id)
    player = _player(session)
    if session.owner_id:
        return rows.filter(player=player)
    return rows.filter(Q(player=player) | Q(player__startswith=f"{player}@"))


def read_storage(session: Session) -> dict[str, dict[str, Any]]:
    """Both scopes of the session's player: ``{"world": {...}, "session": {...}}``."""
    if session.world_id is None:
        return {"world": {}, "session": {}}
    found = dict(
        _rows(session).filter(scope__in=["world", str(session.pk)]).values_list("scope", "data")
    )
    return {"world": found.get("world") or {}, "session": found.get(str(session.pk)) or {}}


def _encoded_size(data: dict[str, Any]) -> int:
    return len(json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode())


def _checked_value(raw: str) -> Any:
    """The JSON text a UI sent, decoded with the engine's guard (depth, numbers, NUL)."""
    try:
        return loads(raw)
    except JsonInputError as exc:
        raise PlayError(f"value: {exc.message}", field="value") from None


def write_storage(
    session: Session, scope: str, key: Any, raw: str | None, *, address: str = ""
) -> dict[str, Any]:
    """Set ``key`` to the JSON ``raw`` (None removes it); returns that scope's new data.

    ``address`` is the client's (``play.quota.request_address``): a guest's writes count
    against what every guest from it stores."""
    if not isinstance(key, str) or not 0 < len(key) <= MAX_KEY:
        raise PlayError(gettext("A storage key is 1 to 200 characters."), field="key")
    scope_key = _scope_key(session, scope)
    value = None if raw is None else _checked_value(raw)
    with transaction.atomic():
        rows = _rows(session).select_for_update()
        row = rows.filter(scope=scope_key).first()
        data = dict(row.data) if row is not None else {}
        if raw is None:
            data.pop(key, None)
        else:
            data[key] = value
        size = _encoded_size(data)
        others = rows.exclude(scope=scope_key).aggregate(total=Sum("size"))["total"] or 0
        if raw is not None and others + size > quota():
            message = gettext("The world's storage is full (%(quota)s bytes).")
            raise PlayError(message % {"quota": quota()}, field="value")
        tag = address_subject(address)
        if raw is not None and session.owner_id is None:
            _check_guest_address(row, tag, size)
        if row is None:
            assert session.world_id is not None
            player = _player(session) + ("" if session.owner_id else f"@{tag}")
            row = UiStorage(world_id=session.world_id, player=player, scope=scope_key)
        row.data, row.size = data, size
        row.save()
    return data


def _check_guest_address(row: UiStorage | None, tag: str, size: int) -> None:
    """Refuse a guest's write that grows what the guests of the row's address (``tag``, for a
    new row) store past the bound; shrinking is always allowed, so a lowered bound traps no one."""
    limit = guest_address_quota()
    if row is not None and "@" in row.player:
        tag = row.player.partition("@")[2]
    old = row.size if row is not None else 0
    if not limit or not tag or size <= old:
        return
    stored = UiStorage.objects.filter(player__startswith=GUEST, player__endswith=f"@{tag}")
    total = stored.aggregate(total=Sum("size"))["total"] or 0
    if total - old + size > limit:
        message = gettext(
            "Guests from this address have filled their storage (%(quota)s bytes): "
            "sign in to keep more."
        )
        raise PlayError(message % {"quota": limit}, field="value")


# --- going with the guest and the session ------------------------------------------------------


def forget_session(session_id: Any) -> int:
    """Delete the ``session`` scope of a session being deleted; returns the rows deleted."""
    deleted, _ = UiStorage.objects.filter(scope=str(session_id)).delete()
    return deleted


def purge() -> int:
    """Delete the storage of guests who have no session left and of sessions that are gone
    (the guest purge, ``play.periodic``); returns the rows deleted."""
    return _purge_guests() + _purge_sessions()


def _guest_key(player: str) -> str:
    return player.removeprefix(GUEST).partition("@")[0]


def _purge_guests() -> int:
    rows = UiStorage.objects.filter(player__startswith=GUEST).values_list("pk", "player")
    return _delete_unless(rows, _guest_key, _live_guests)


def _purge_sessions() -> int:
    rows = UiStorage.objects.exclude(scope="world").values_list("pk", "scope")
    return _delete_unless(rows, str, _live_sessions)


def _live_guests(keys: set[str]) -> set[str]:
    found = Session.objects.filter(owner__isnull=True, guest_key__in=keys)
    return set(found.values_list("guest_key", flat=True))


def _live_sessions(scopes: set[str]) -> set[str]:
    ids = set()
    for scope in scopes:
        try:
            ids.add(uuid.UUID(scope))
        except ValueError:
            continue  # no session's id: nothing keeps it
    return {str(pk) for pk in Session.objects.filter(pk__in=ids).values_list("pk", flat=True)}


def _delete_unless(
    rows: Any, owner_of: Callable[[str], str], live: Callable[[set[str]], set[str]]
) -> int:
    """Delete the rows (pk, text) whose owner, ``owner_of(text)``, ``live`` does not find."""
    pairs = [(pk, owner_of(text)) for pk, text in rows]
    deleted = 0
    for start in range(0, len(pairs), _BATCH):
        batch = pairs[start : start + _BATCH]
        kept = live({owner for _pk, owner in batch})
        gone = [pk for pk, owner in batch if owner not in kept]
        if gone:
            deleted += UiStorage.objects.filter(pk__in=gone).delete()[0]
    return deleted
