"""Recordings as demos (seed 001 "Modos de ejecución"): export a session recorded in record mode
and import it as a replay session that plays the same story again at zero cost.

The export carries the exchanges, the persona and, for each turn played, its pinned clock and
the seed its dice rolled from (play.dice), so the replayed prompts (and with them the exchange
keys) and the dice are byte-identical. It never carries the session's own dice seed, from which
every roll still to come follows (issue 32 §3), nor an API key or the provider's settings; a
replay draws a secret of its own for anything the recording did not play.

A replay applies the recorded replies' directives as the narrator's, so a demo is signed by the
site that exported it (an HMAC over its canonical JSON) and an import checks the signature: a
hand-written or edited demo could otherwise put ``[gold: +999]`` in the narrator's mouth.

A game-master world's recording holds the master's and the directors' raw replies, written from a
context that holds the world's secrets (tool arguments, the Story Director's notes): like the
world's JSON, only its creator, or anyone when the version was published remixable with its
secrets, takes it out of the site (``studio.access.may_copy_version``, issue 32 §1, §6).
"""

from __future__ import annotations

import hmac
import json
from typing import Any

from django.core.exceptions import PermissionDenied
from django.utils.crypto import salted_hmac
from django.utils.translation import gettext

from engine.llm.recording import Recording
from play import demos
from play.errors import PlayError
from play.gm import set_character
from play.models import Session
from play.sessions import start_session
from studio.models import WorldVersion
from studio.services import get_version_for_user, may_copy_version

DEMO_FORMAT = "fabula-demo"
DEMO_VERSION = 1
_SIGNING_SALT = "fabula.play.recordings.demo"


def demo_signature(demo: dict[str, Any]) -> str:
    """The site's HMAC over the demo's canonical JSON, its ``signature`` field left out."""
    body = {key: value for key, value in demo.items() if key != "signature"}
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return salted_hmac(_SIGNING_SALT, canonical, algorithm="sha256").hexdigest()


RECORDING_KEPT = (
    "this game-master world's recordings hold its master's raw replies: only its creator "
    "downloads them, unless the version was published remixable with its secrets"
)


def export_recording(session: Session, user: Any) -> dict[str, Any]:
    """The session's signed demo; PermissionDenied (``RECORDING_KEPT``) when ``user`` may not
    copy its world's version (someone else's game-master world)."""
    version = session.world_version
    if version is None:
        raise PlayError(gettext("Playtests of drafts cannot be exported as demos."))
    if not may_copy_version(user, version):
        raise PermissionDenied(RECORDING_KEPT)
    recording = dict(session.recording or {})
    turns = recording.pop("turns", {})
    steps = recording.pop("inputs", [])
    recording.pop("steps", None)  # a replay's own script is not what it played
    demo = {
        "format": DEMO_FORMAT,
        "version": DEMO_VERSION,
        "world": {"version_id": version.pk, "content_hash": version.content_hash},
        "persona": session.persona_data,
        "actions": list(
            session.messages.filter(role="user")
            .order_by("position")
            .values_list("content", flat=True)
        ),
        "steps": steps,
        "character": session.character_id,
        "turns": turns,
        "recording": recording or Recording().to_dict(),
    }
    return demo | {"signature": demo_signature(demo)}


def verified_demo(user: Any, data: Any) -> WorldVersion:
    """The world version of a demo this site signed and ``user`` may play; PlayError naming the
    field otherwise."""
    if not isinstance(data, dict) or data.get("format") != DEMO_FORMAT:
        raise PlayError(gettext("This file is not a Fabula demo."), field="format")
    signature = data.get("signature")
    if not isinstance(signature, str) or not hmac.compare_digest(signature, demo_signature(data)):
        raise PlayError(
            gettext("This demo was not exported by this site, or was changed since."),
            field="signature",
        )
    world = data.get("world") or {}
    version_id = world.get("version_id") if isinstance(world, dict) else None
    if not isinstance(version_id, int):
        raise PlayError(
            gettext("The demo does not name a world version."), field="world.version_id"
        )
    version = get_version_for_user(user, version_id)
    if world.get("content_hash") not in (None, version.content_hash):
        raise PlayError(
            gettext("The demo was recorded on another world."), field="world.content_hash"
        )
    return version


def import_recording(user: Any, data: dict[str, Any], *, guest_key: str = "") -> Session:
    """Start a replay session from an exported demo; the world version must be readable."""
    version = verified_demo(user, data)
    try:
        recording = Recording.from_dict(data.get("recording") or {}).to_dict()
    except ValueError as exc:
        raise PlayError(str(exc), field="recording") from None
    steps = demos.clean_steps(data.get("steps"), data.get("actions"))
    persona = data.get("persona")
    character = data.get("character")
    session = start_session(
        user,
        version,
        mode="replay",
        guest_key=guest_key,
        recording={**recording, "turns": data.get("turns") or {}, "steps": steps},
        persona_data=persona if isinstance(persona, dict) else {},
    )
    return set_character(session, character if isinstance(character, str) else None)
