"""A world UI's ``storage`` on the server (seed 004 "存储（世界级别，持久化）"; issue 15).

The seed keeps a UI's storage per world, not in the browser: here it is per world *and player*
(one player's notes are not another's), in two scopes. ``world`` is what ``storage.*`` and the
``localStorage`` shim use: every session of that player in that world sees it. ``session`` is
the ``sessionStorage`` shim's: one session's own. Values are JSON (the seed's strings are JSON
too); keys are short text. Every player has FABULA_UI_STORAGE_QUOTA bytes per world (256 KiB by
default), counted as the UTF-8 JSON of both scopes; a write past it is refused by name.
"""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Sum
from django.utils.translation import gettext

from engine.jsonguard import JsonInputError, loads
from play.errors import PlayError
from play.models import Session, UiStorage

DEFAULT_QUOTA = 256 * 1024
MAX_KEY = 200
SCOPES = ("world", "session")


def quota() -> int:
    return int(getattr(settings, "FABULA_UI_STORAGE_QUOTA", DEFAULT_QUOTA))


def _scope_key(session: Session, scope: str) -> str:
    if scope not in SCOPES:
        raise PlayError(gettext("Unknown storage scope."), field="scope")
    return "world" if scope == "world" else str(session.pk)


def _player(session: Session) -> str:
    return f"user:{session.owner_id}" if session.owner_id else f"guest:{session.guest_key}"


def _rows(session: Session) -> Any:
    if session.world_id is None:
        raise PlayError(gettext("This session's world is gone."), field="scope")
    return UiStorage.objects.filter(world_id=session.world_id, player=_player(session))


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


def write_storage(session: Session, scope: str, key: Any, raw: str | None) -> dict[str, Any]:
    """Set ``key`` to the JSON ``raw`` (None removes it); returns that scope's new data."""
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
        if row is None:
            assert session.world_id is not None
            row = UiStorage(world_id=session.world_id, player=_player(session), scope=scope_key)
        row.data, row.size = data, size
        row.save()
    return data
