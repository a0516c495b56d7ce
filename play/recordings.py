"""Recordings as demos (seed 001 "Modos de ejecución"): export a session recorded in record mode
and import it as a replay session that plays the same story again at zero cost.

The export carries the exchanges, the dice seed, the persona and the pinned clock of each turn,
so the replayed prompts (and with them the exchange keys) are byte-identical. It never carries
an API key or the provider's settings.

A replay applies the recorded replies' directives as the narrator's, so a demo is signed by the
site that exported it (an HMAC over its canonical JSON) and an import checks the signature: a
hand-written or edited demo could otherwise put ``[gold: +999]`` in the narrator's mouth.
"""

from __future__ import annotations

import hmac
import json
from typing import Any

from django.utils.crypto import salted_hmac
from django.utils.translation import gettext

from engine.llm.recording import Recording
from play import demos
from play.errors import PlayError
from play.gm import set_character
from play.models import Session
from play.sessions import start_session
from studio.access import get_version_for_user
from studio.models import WorldVersion

DEMO_FORMAT = "fabula-demo"
DEMO_VERSION = 1
_SIGNING_SALT = "fabula.play.recordings.demo"


def demo_signature(demo: dict[str, Any]) -> str:
    """The site's HMAC over the demo's canonical JSON, its ``signature`` field left out."""
    body = {key: value for key, value in demo.items() if key != "signature"}
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return salted_hmac(_SIGNING_SALT, canonical, algorithm="sha256").hexdigest()


def export_recording(session: Session) -> dict[str, Any]:
    if session.world_version_id is None:
        raise PlayError(gettext("Playtests of drafts cannot be exported as demos."))
    recording = dict(session.recording or {})
    turns = recording.pop("turns", {})
    steps = recording.pop("inputs", [])
    recording.pop("steps", None)  # a replay's own script is not what it played
    version = session.world_version
    assert version is not None
    demo = {
        "format": DEMO_FORMAT,
        "version": DEMO_VERSION,
        "world": {"version_id": version.pk, "content_hash": version.content_hash},
        "dice_seed": session.dice_seed,
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
    seed = data.get("dice_seed")
    persona = data.get("persona")
    character = data.get("character")
    session = start_session(
        user,
        version,
        mode="replay",
        guest_key=guest_key,
        dice_seed=seed if isinstance(seed, int) else None,
        recording={**recording, "turns": data.get("turns") or {}, "steps": steps},
        persona_data=persona if isinstance(persona, dict) else {},
    )
    return set_character(session, character if isinstance(character, str) else None)
