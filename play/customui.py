"""What the sandbox page ships of a world's custom UI (seed 004 "自定义 UI (rootComponent)").

The files are compiled in the browser, not here: ``static/js/compile.js`` runs the vendored
sucrase (``static/vendor/sucrase/``) over them, inside the sandbox for play and playtest, and in
the studio editor as the creator types. One compiler for every place keeps the errors the
creator sees in the editor the same as the ones play reports, handles TypeScript (the old
server-side esbuild binding only had JSX), and needs no Node on the server. So this module only
decides *which* sources go out: normalized paths, at most ``MAX_FILES`` files of at most
``MAX_FILE_CHARS`` characters, of the kinds a module loader can use. What it leaves out is
listed as ``{path, line, column, message}`` notices (line 0: the file as a whole), the shape the
browser's compile errors have.

The page embeds the result as JSON data (``json_script``: ``<``, ``>`` and ``&`` escaped, never
run as script); only the inline boot line is executable, named by its hash in the page's CSP.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.world import RootComponent

CODE_EXTENSIONS = (".tsx", ".ts", ".jsx", ".js", ".mjs")
MODULE_EXTENSIONS = (*CODE_EXTENSIONS, ".json", ".css")
MAX_FILES = 100
MAX_FILE_CHARS = 200_000


@dataclass
class UISources:
    """The files the sandbox compiles, its entry file, and what was left out (with why)."""

    entry: str
    files: dict[str, str] = field(default_factory=dict)
    errors: list[dict[str, Any]] = field(default_factory=list)

    def as_data(self) -> dict[str, Any]:
        """The JSON the sandbox page embeds (read by ``static/js/sandbox/boot.js``)."""
        return {"entry": self.entry, "files": self.files, "errors": self.errors}


def ui_sources(root: RootComponent) -> UISources:
    """Pick the files of ``root`` the sandbox may compile; problems are listed, never raised."""
    sources = UISources(entry=normalize_path(root.entry_file))
    for index, (raw_path, source) in enumerate(root.files.items()):
        path = normalize_path(raw_path)
        if index >= MAX_FILES:
            sources.errors.append(
                notice(path, f"more than {MAX_FILES} files; the rest are left out")
            )
            break
        if not path or not path.endswith(MODULE_EXTENSIONS):
            continue  # assets and notes: nothing a module can import
        if len(source) > MAX_FILE_CHARS:
            sources.errors.append(
                notice(path, f"larger than {MAX_FILE_CHARS} characters; left out")
            )
            continue
        sources.files[path] = source
    return sources


def notice(path: str, message: str) -> dict[str, Any]:
    return {"path": path, "line": 0, "column": 0, "message": message}


def normalize_path(path: str) -> str:
    """``./parts/bubble.tsx`` → ``parts/bubble.tsx``; ``..`` segments are resolved away.

    The same rule as ``FabulaCompile.normalizePath`` in the browser.
    """
    parts: list[str] = []
    for part in path.replace("\\", "/").split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts:
                parts.pop()
            continue
        parts.append(part)
    return "/".join(parts)
