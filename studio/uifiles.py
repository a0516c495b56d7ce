"""The custom UI's files as the studio edits them (seed 004 "自定义 UI (rootComponent)").

The engine accepts any relative path in ``rootComponent.files`` (imported worlds keep theirs);
the studio's editor is stricter for what a creator types: code and style files only, no way out
of the file system, and the compiler's own limits, so a file it would leave out is refused at
the door instead of failing later in play. The preview runs on sample state built here.
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

from django.utils.translation import gettext

from engine.world import RootComponent, WorldValidationError
from play.services import MAX_FILE_CHARS, MAX_FILES, ui_sources
from studio.forms.preview import SAMPLE_CHAT, parse_sample_chat
from studio.live import default_values
from studio.models import RootComponentFile, World
from studio.worlds import save_root_file

ALLOWED_EXTENSIONS = (".tsx", ".ts", ".jsx", ".js", ".css")
MAX_PATH_CHARS = 300
__all__ = ["MAX_FILES", "MAX_FILE_CHARS"]  # the sandbox's limits, re-exported for the views


def _refuse(field: str, message: str) -> WorldValidationError:
    return WorldValidationError([f"{field}: {message}"])


def check_ui_path(path: str) -> str:
    """``path`` if the editor accepts it as a file name; WorldValidationError on ``path`` if not."""
    parts = path.split("/")
    if (
        not path
        or len(path) > MAX_PATH_CHARS
        or path.startswith("/")
        or "\\" in path
        or any(part in ("", ".", "..") or part != part.strip() for part in parts)
    ):
        message = gettext("'%(path)s' is not a relative file path")
        raise _refuse("path", message % {"path": path})
    if not path.lower().endswith(ALLOWED_EXTENSIONS):
        message = gettext("'%(path)s' must end in .tsx, .ts, .jsx, .js or .css")
        raise _refuse("path", message % {"path": path})
    return path


def check_ui_source(source: str) -> str:
    if len(source) > MAX_FILE_CHARS:
        message = gettext("A file may hold at most %(count)d characters.")
        raise _refuse("source", message % {"count": MAX_FILE_CHARS})
    return source


def check_room(world: World) -> None:
    """Refuse one more file when the world already has as many as the compiler takes."""
    if world.root_files.count() >= MAX_FILES:
        message = gettext("A custom UI may have at most %(count)d files.")
        raise _refuse("path", message % {"count": MAX_FILES})


# What a new, empty entry file starts as: a UI that runs at once (the world's name, its
# variables and the built-in chat), so the creator edits something that works instead of a
# blank page. docs/CUSTOM_UI.md lists everything the "yumina" module gives.
STARTER = """import { Chat, useYumina } from "yumina";

// The entry file's default export is the world's UI. Everything "yumina" gives
// (Chat, MessageList, MessageInput, useYumina, ...) is listed in docs/CUSTOM_UI.md.
export default function App() {
  const api = useYumina();
  const variables = Object.entries(api.variables);
  return (
    <div className="starter-ui">
      <header className="starter-header">
        <strong>{api.worldName}</strong>
        {variables.map(([id, value]) => (
          <span key={id} className="starter-stat">
            {id}: {String(value)}
          </span>
        ))}
      </header>
      <Chat />
    </div>
  );
}
"""


def starter_source(world: World, path: str, source: str) -> str:
    """The source a new file starts with: the starter for an empty entry file."""
    entry = world.root_component_entry_file or "index.tsx"
    if source.strip() or path != entry or not path.endswith((".tsx", ".jsx")):
        return source
    return STARTER


def create_ui_file(world: World, path: str, source: str) -> RootComponentFile:
    """A new file of the custom UI, if there is room for one more."""
    check_room(world)
    return save_root_file(world, path, starter_source(world, path, source))


def file_tree(files: list[RootComponentFile]) -> list[dict[str, Any]]:
    """Rows of the file tree: each folder once (``dir``), then its files, by path, with a depth."""
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    for file in sorted(files, key=lambda f: f.path.split("/")):
        *folders, name = file.path.split("/")
        for depth, folder in enumerate(folders):
            key = "/".join(folders[: depth + 1])
            if key not in seen:
                seen.add(key)
                rows.append({"dir": folder, "depth": min(depth, 6)})
        rows.append({"file": file, "name": name, "depth": min(len(folders), 6)})
    return rows


def unsaved_root(files_json: str, entry: str) -> dict[str, Any]:
    """The custom UI as the editor holds it, typed but not saved, for the live preview.

    Held to the same paths and limits as saved files; WorldValidationError when it is not.
    """
    try:
        files = json.loads(files_json)
    except ValueError:
        files = None
    if not isinstance(files, dict) or not all(isinstance(v, str) for v in files.values()):
        raise _refuse("files", gettext("The preview needs the files as a JSON object."))
    if len(files) > MAX_FILES:
        message = gettext("A custom UI may have at most %(count)d files.")
        raise _refuse("files", message % {"count": MAX_FILES})
    for path, source in files.items():
        check_ui_path(path)
        check_ui_source(source)
    return {"entryFile": entry, "files": files}


def sample_state(world: World) -> dict[str, Any]:
    """What the preview's ``useYumina()`` sees: the variables' defaults and a short sample chat."""
    messages = [
        {
            "id": str(index),
            "sessionId": "preview",
            "role": message.role,
            "content": message.content,
            "status": "complete",
            "createdAt": "",
        }
        for index, message in enumerate(parse_sample_chat(SAMPLE_CHAT), start=1)
    ]
    return {
        "variables": default_values(world),
        "worldName": world.name,
        "worldId": str(world.pk),
        "sessionId": "preview",
        "user": {"name": world.settings.get("playerName") or "User", "avatar": None},
        "messages": messages,
        "mode": "guest-preview",
        "readOnly": True,
        "capabilities": {
            "canSendMessage": False,
            "canPersistSession": False,
            "canUseSessionApis": False,
            "requiresAuth": False,
        },
    }


def server_problems(root: dict[str, Any] | None) -> dict[str, list[str]]:
    """What the sandbox would leave out of the draft (too many or too large files), by path.

    Syntax and type errors come from the in-browser compiler (static/js/compile.js), which
    the editor runs itself; these are the server's notices, shown even without JavaScript.
    """
    grouped: dict[str, list[str]] = defaultdict(list)
    if not root or not root["files"]:
        return {}
    try:
        errors = ui_sources(RootComponent.model_validate(root)).errors
    except ValueError:  # the entry file is missing: the meta form says so
        return {}
    for error in errors:
        grouped[error["path"]].append(error["message"])
    return dict(grouped)
