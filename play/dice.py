"""Where a turn's dice come from (issue 32 §3): a secret of the server's, never the player's.

A session keeps a secret seed (``Session.dice_seed``, from ``secrets``) that leaves the server in
nothing: no payload, frame, page or export. With it a player would predict every roll and spend a
natural 20 where it pays. Each turn rolls from its own seed instead, an HMAC (keyed by the site's
``SECRET_KEY``) of that secret and the turn's fence (``play.recovery``: one more for every turn,
kept on the session row, never rewound), so:

* a revert, a deleted reply, another swipe, a retried failure or a restored checkpoint takes the
  story back, never the dice: the next turn has a new fence, so faces seen before do not return;
* a recording keeps each played turn's seed (``turns[key]["dice"]``: the rolls already made),
  never the session's: a replay rolls those again, and nothing in a demo says anything about a
  turn not yet played;
* the same secret and the same inputs still roll the same faces (the tests rely on it).

A branch copies the session row, fence included: it draws a secret of its own (``fresh_seed``).
"""

from __future__ import annotations

import secrets
from typing import Any

from django.utils.crypto import salted_hmac

_SALT = "fabula.play.dice.turn"
START = "start"  # the greetings' turn, run when the session starts (play.sessions)


def fresh_seed() -> int:
    """A new secret seed for a session, from the operating system's randomness."""
    return secrets.randbits(48)


def turn_seed(session_seed: int, turn: int | str) -> int:
    """The seed of one turn: ``turn`` is its fence, or ``START``. Knowing it tells nothing of
    the session's secret or of any other turn's seed (an HMAC under the site's key)."""
    digest = salted_hmac(_SALT, f"{session_seed}:{turn}", algorithm="sha256").digest()
    return int.from_bytes(digest[:8], "big") >> 1  # 63 bits: a JSON number, a signed bigint


def pinned_seed(recording: dict[str, Any] | None, key: str) -> int | None:
    """The seed a recording kept for the turn ``key`` (``turns[key]["dice"]``), if any."""
    pinned = ((recording or {}).get("turns") or {}).get(key)
    seed = pinned.get("dice") if isinstance(pinned, dict) else None
    return seed if isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0 else None


def start_seed(mode: str, session_seed: int, recording: dict[str, Any] | None) -> int:
    """The greetings' seed: a replay's recorded one, else the session's own."""
    pinned = pinned_seed(recording, START) if mode == "replay" else None
    return pinned if pinned is not None else turn_seed(session_seed, START)
