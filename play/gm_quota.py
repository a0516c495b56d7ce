"""A game-master character's daily quota (seed 001 "cada personaje tiene un cupo diario (200
acciones por defecto)… Al agotarlo sigue en offline hasta medianoche"; issue 10 §5; GAME_MASTER.md
GM-X-2, GM-P-12 and decision 10).

"Per character" is per (player, world, character): one player's Ada spends one quota in every
session of Brackenford, his Ren has his own, and another player's Ada is another character. The
world's ``gameMaster.settings.dailyQuota`` bounds it (200 by default; 0 counts without a limit).
Only a turn that would reach a live model reserves an action, beside the player's own quota
(play.quota); a failed turn gives both back (``play.providers.release_action``), and so does a
saved turn the engine resolved alone (an engine move, a question, a refusal: play.gm).

The day is the player's: it ends at midnight in the browser's time zone, which the page sends as
``?tz=<IANA name>`` on the socket URL (an unknown or missing zone is UTC). Past the quota the
character plays on the offline master until then, and the notice says when that is.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Mapping
from dataclasses import replace
from datetime import date, datetime, time, timedelta
from typing import Any
from urllib.parse import parse_qs
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.utils.translation import gettext as _

from engine.world import WorldDefinition
from play import quota
from play.models import DailyActionCount
from play.providers import ProviderConfig, release_action
from play.sessions import Player

DEFAULT_ZONE = "UTC"
_ZONE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_+-]{0,30}(/[A-Za-z0-9_+-]{1,30}){0,2}")


# --- the player's day ----------------------------------------------------------------------------


@functools.lru_cache(maxsize=512)
def _known_zone(name: str) -> bool:
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return False
    return True


def player_zone(name: str | None) -> str:
    """``name`` when the zone database knows it, else UTC (a browser may send anything)."""
    name = (name or "").strip()
    return name if _ZONE_NAME.fullmatch(name) and _known_zone(name) else DEFAULT_ZONE


def zone_from_scope(scope: Mapping[str, Any]) -> str:
    """The time zone a play socket's URL names (``?tz=Europe/Madrid``)."""
    raw = scope.get("query_string") or b""
    query = parse_qs(raw.decode("latin-1") if isinstance(raw, bytes) else str(raw))
    return player_zone((query.get("tz") or [""])[0])


def local_day(now: datetime, zone: str) -> date:
    return now.astimezone(ZoneInfo(player_zone(zone))).date()


def resets_at(now: datetime, zone: str) -> datetime:
    """The player's next midnight, when the character's actions come back."""
    tz = ZoneInfo(player_zone(zone))
    return datetime.combine(local_day(now, zone) + timedelta(days=1), time(0), tzinfo=tz)


# --- counting ------------------------------------------------------------------------------------


def character_subject(player: Player, world: WorldDefinition, character_id: str) -> str:
    """The quota subject of (player, world, character): a digest, so it fits its column (100
    characters) whatever the ids, and names nobody in the table."""
    key = f"{player.subject}|{world.id}|{character_id}"
    return "character:" + hashlib.sha256(key.encode()).hexdigest()[:40]


def daily_limit(world: WorldDefinition) -> int:
    gm = world.game_master
    return gm.settings.daily_quota if gm is not None else 0


def charge_character(
    config: ProviderConfig,
    world: WorldDefinition,
    player: Player,
    character_id: str | None,
    now: datetime,
) -> ProviderConfig:
    """Count the action against the character too, when the turn would reach a live model.

    Past the character's quota the turn plays on the offline master: the player's own
    reservation is given back, and the config carries the notice with the reset time.
    """
    if world.game_master is None or character_id is None or not config.charged:
        return config
    subject, day = character_subject(player, world, character_id), local_day(now, player.time_zone)
    if quota.reserve({subject: daily_limit(world)}, now, day=day) is None:
        release_action(config)
        notice = used_up_notice(world, character_id, now, player.time_zone)
        return ProviderConfig(
            "offline", "offline", "", "", config.language, "offline", {}, True, notice=notice
        )
    return replace(config, extra_charges=(*config.extra_charges, (subject, day)))


def used_up(world: WorldDefinition, player: Player, character_id: str, now: datetime) -> bool:
    """Whether the character's next live action would go to the offline master (read only)."""
    limit = daily_limit(world)
    if not limit:
        return False
    row = DailyActionCount.objects.filter(
        subject=character_subject(player, world, character_id),
        day=local_day(now, player.time_zone),
    ).first()
    return row is not None and row.count >= limit


def used_up_notice(world: WorldDefinition, character_id: str, now: datetime, zone: str) -> str:
    """What the page says past the quota: whose actions, and when, in the player's zone."""
    gm = world.game_master
    sheet = gm.characters_by_id.get(character_id) if gm is not None else None
    when = resets_at(now, zone)
    return _(
        "%(name)s has used up today's %(count)s live actions, so the offline master answers "
        "until midnight. They come back at %(time)s on %(date)s (%(zone)s)."
    ) % {
        "name": sheet.name if sheet is not None else character_id,
        "count": daily_limit(world),
        "time": when.strftime("%H:%M"),
        "date": when.date().isoformat(),
        "zone": player_zone(zone),
    }
