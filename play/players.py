"""Who asks for a play action (play.sessions, play.quota): a user, or a guest by cookie.

Apart from play.sessions (which re-exports both) so that play.quota can name a player without
importing the sessions, which build on the quota through play.ui_storage: the dependency runs
one way.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class Player:
    """Who is asking: a user, or a guest known by the browser's Django session key."""

    user_id: int | None
    guest_key: str = ""
    name: str = ""
    address: str = ""  # the client's IP (play.quota): a guest's quota counts it with the cookie
    time_zone: str = "UTC"  # the browser's (play.gm_quota): a character's day ends at its midnight
    joined: datetime | None = None  # the account's sign-up: a first day has a smaller share

    @property
    def subject(self) -> str:
        return f"user:{self.user_id}" if self.user_id else f"guest:{self.guest_key}"


def player_for(user: Any, guest_key: str | None, address: str = "") -> Player:
    if user is not None and getattr(user, "is_authenticated", False):
        joined = getattr(user, "date_joined", None)
        return Player(user.pk, "", user.get_username(), address, joined=joined)
    return Player(None, guest_key or "", "", address)
