"""The JSON the play client starts from (rendered with ``json_script``, never inline JS).

Only what the page needs of the world goes out: variable definitions for the status panel, the
built-in components with their scalar settings, the audio tracks with resolved URLs, the BGM
playlist and conditional BGM. Entries, rules and secrets stay on the server.
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from django.utils.translation import gettext as _

from engine.world import GameComponent, WorldDefinition
from play import demos, gm, tables
from play.faces import session_faces
from play.models import Session
from play.narrator import narrator
from studio.services import resolve_asset_url

_SAFE_URL_PREFIXES = ("/", "https://", "http://")
_MAX_PROP_LENGTH = 200


def client_config(session: Session, world: WorldDefinition) -> dict[str, Any]:
    has_custom_ui = bool(world.root_component and world.root_component.files)
    at_table = tables.is_seated(session.pk)
    player = _player_name(session, world, at_table)
    return {
        "sessionId": str(session.pk),
        "wsPath": f"/ws/play/{session.pk}/",
        "messagesPath": f"/play/{session.pk}/messages/",
        "worldName": world.name,
        "worldId": world.id,
        "isGuest": session.is_guest,
        "isPlaytest": session.is_playtest,
        "playerName": player,
        "faces": session_faces(session, world, player),
        "variables": [_variable(v) for v in world.variables],
        "components": [_component(c) for c in world.components],
        "audio": audio_config(world),
        "customUiUrl": reverse("play:sandbox", args=[session.pk]) if has_custom_ui else None,
        "sessionListUrl": reverse("play:session_list") if not session.is_guest else None,
        "narrator": narrator(session, world),
        "gameMaster": gm.client_config(session, world),
        "demo": demos.progress(session),
        "atTable": at_table,
        "strings": {**client_strings(), **gm.client_strings()},
    }


def _player_name(session: Session, world: WorldDefinition, at_table: bool) -> str:
    """Who "you" are on your own messages: at a table, your character, as every other page of
    the table names your seat (issue 33 §5); else your persona."""
    character = gm.character_of(session, world) if at_table else None
    if character is not None and world.game_master is not None:
        return world.game_master.characters_by_id[character].name
    name = (session.persona_data or {}).get("name")
    if isinstance(name, str) and name:
        return name
    return _("You")


def _variable(variable: Any) -> dict[str, Any]:
    return {
        "id": variable.id,
        "name": variable.display_name,
        "type": variable.type,
        "min": variable.min,
        "max": variable.max,
        "default": variable.default_value,
    }


def _component(component: GameComponent) -> dict[str, Any]:
    props = {
        key: value
        for key, value in (component.model_extra or {}).items()
        if isinstance(value, bool | int | float)
        or (isinstance(value, str) and len(value) <= _MAX_PROP_LENGTH)
    }
    return {
        "id": component.id,
        "type": component.type,
        "name": component.name,
        "variableId": component.variable_id,
        "props": props,
    }


def audio_config(world: WorldDefinition) -> dict[str, Any]:
    """Tracks with playable URLs (unknown assets and odd schemes dropped), playlist, rules."""
    tracks = []
    for track in world.audio_tracks:
        url = resolve_asset_url(track.url)
        if not url.startswith(_SAFE_URL_PREFIXES):
            continue
        data = track.model_dump(mode="json", by_alias=True, include=_TRACK_FIELDS)
        tracks.append({**data, "url": url})
    playlist = world.bgm_playlist
    return {
        "tracks": tracks,
        "playlist": playlist.model_dump(mode="json", by_alias=True) if playlist else None,
        "conditional": [
            rule.model_dump(mode="json", by_alias=True, include=_CONDITIONAL_FIELDS)
            for rule in world.conditional_bgm
        ],
    }


_TRACK_FIELDS = {"id", "name", "type", "loop", "volume", "fade_in", "fade_out", "max_duration"}
_CONDITIONAL_FIELDS = {
    "id",
    "target_track_id",
    "trigger_type",
    "conditions",
    "condition_logic",
    "keywords",
    "match_whole_words",
    "at_turn",
    "every_n_turns",
    "priority",
    "fade_in_duration",
    "fade_out_duration",
    "stop_previous_bgm",
    "fallback",
}


def client_strings() -> dict[str, str]:
    """The client's words, translated here so play.js needs no catalogue of its own."""
    return {
        "connecting": _("Connecting…"),
        "online": _("Connected"),
        "reconnecting": _("Reconnecting…"),
        "reconnectingIn": _("Reconnecting in {n}s…"),
        "gone": _("This session is not available."),
        "signedOut": _("You signed out. Log in again to keep playing."),
        "notConnected": _("Not connected yet; your text is kept. Try again in a moment."),
        "failed": _("The narrator failed."),
        "busy": _("A turn is already running."),
        "tableHost": _("host"),
        "tableOnline": _("online"),
        "tableAway": _("away"),
        "tableYou": _("(you)"),
        "removed": _("The host removed you from this table."),
        "error": _("Something went wrong."),
        "empty": _("The story has not begun. Say something."),
        "you": _("You"),
        "narrator": _("Narrator"),
        "system": _("System"),
        "writing": _("The narrator is writing…"),
        "stopped": _("(stopped)"),
        "prevGreeting": _("Previous greeting"),
        "nextGreeting": _("Next greeting"),
        "swipeLeft": _("Previous version"),
        "swipeRight": _("Next version (writes a new one at the end)"),
        "regenerate": _("Regenerate"),
        "continue": _("Continue"),
        "edit": _("Edit"),
        "delete": _("Delete"),
        "revert": _("Rewind to here"),
        "branch": _("Branch from here"),
        "confirmDelete": _("Delete this message?"),
        "confirmRevert": _("Rewind the story to this message? Every later message is deleted."),
        "editLabel": _("Edit the message"),
        "editNote": _("Editing changes only the words shown; the story's state stays as it is."),
        "offlineNarrator": _("Offline narrator — no model"),
        "sessionCost": _("Story: ${cost} · {cached} cached"),
        "setModel": _("Set a model"),
        "save": _("Save"),
        "cancel": _("Cancel"),
        "noCheckpoints": _("No checkpoints yet."),
        "restore": _("Restore"),
        "confirmRestore": _("Restore this checkpoint? Later messages are replaced."),
        "noVariables": _("This world tracks no variables."),
        "dismiss": _("Dismiss"),
        "classicChat": _("Classic chat"),
        "customUi": _("World UI"),
        "customUiBroken": _("The world's UI has an error; the classic chat is shown."),
        "customUiError": _("The world's UI reported an error:"),
        "older": _("Show earlier messages"),
        "loadingOlder": _("Loading earlier messages…"),
        "truncated": _("This message is long: only its beginning is shown."),
        "showAll": _("Show all of it"),
        "demoStep": _("Demo · step {n} of {total}"),
        "demoNext": _("Play the next step"),
        "demoOver": _("The demo is over. You can keep playing from here."),
        "demoRoll": _("Roll the dice"),
        "demoClick": _("A click on the board"),
    }
