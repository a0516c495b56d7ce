"""The custom UI's files as one script for the sandbox (seed 004 "自定义 UI (rootComponent)").

Each file of ``rootComponent.files`` becomes a module function of a tiny CommonJS-style loader
that ``static/js/sandbox.js`` runs inside the sandboxed iframe. JSX is compiled to
``React.createElement`` by esbuild (the ``esbuild-py`` binding) when it is installed; TypeScript
type annotations are not supported (no type stripper), so a file using them is reported by path.
``import``/``export`` statements are rewritten to the loader's ``require``/``exports``; imports of
``react`` and of the built-ins (``yumina/...``) resolve to the globals the runtime provides.

The output is only ever run inside ``<iframe sandbox="allow-scripts">`` under a CSP without
``unsafe-eval`` or ``connect-src``: a mistake here breaks the creator's UI, never the page.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from engine.world import RootComponent

CODE_EXTENSIONS = (".tsx", ".ts", ".jsx", ".js", ".mjs")
MAX_FILES = 100
MAX_FILE_CHARS = 200_000
_CACHE_SIZE = 32
_cache: OrderedDict[str, CompiledUI] = OrderedDict()

_IMPORT = re.compile(
    r"""^[ \t]*import\s+(?P<clause>[^"';]*?)\s*(?:\bfrom\s*)?"""
    r"""(?P<q>["'])(?P<spec>[^"'\n]+)(?P=q)[ \t]*;?""",
    re.M,
)
_EXPORT_DEFAULT_FUNCTION = re.compile(
    r"^([ \t]*)export\s+default\s+((?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*))", re.M
)
_EXPORT_DEFAULT_CLASS = re.compile(
    r"^([ \t]*)export\s+default\s+(class\s+([A-Za-z_$][\w$]*))", re.M
)
_EXPORT_DEFAULT = re.compile(r"^([ \t]*)export\s+default\s+", re.M)
_EXPORT_FUNCTION = re.compile(
    r"^([ \t]*)export\s+((?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*))", re.M
)
_EXPORT_DECLARATION = re.compile(
    r"^([ \t]*)export\s+((?:const|let|var|class)\s+([A-Za-z_$][\w$]*))", re.M
)
_EXPORT_LIST = re.compile(
    r"""^[ \t]*export\s*\{(?P<names>[^}]*)\}\s*"""
    r"""(?:from\s*(?P<q>["'])(?P<spec>[^"']+)(?P=q))?[ \t]*;?""",
    re.M,
)
_SCRIPT_BREAKERS = re.compile(r"<(?=/?script|!--)", re.I)
_STYLE_BREAKERS = re.compile(r"<(?=/?style)", re.I)


@dataclass
class CompiledUI:
    """The loader script, the files' CSS, and what could not be compiled (``path: reason``)."""

    script: str
    css: str
    entry: str
    errors: list[str] = field(default_factory=list)


def compile_root_component(root: RootComponent) -> CompiledUI:
    """Compile every file of ``root`` (cached by content); problems are listed, never raised."""
    key = hashlib.sha256(
        json.dumps([root.entry_file, root.files], sort_keys=True).encode()
    ).hexdigest()
    cached = _cache.get(key)
    if cached is not None:
        _cache.move_to_end(key)
        return cached
    compiled = _compile(root)
    _cache[key] = compiled
    if len(_cache) > _CACHE_SIZE:
        _cache.popitem(last=False)
    return compiled


def _compile(root: RootComponent) -> CompiledUI:
    errors: list[str] = []
    modules: list[str] = []
    css: list[str] = []
    for index, (raw_path, source) in enumerate(root.files.items()):
        path = normalize_path(raw_path)
        if index >= MAX_FILES:
            errors.append(f"{path}: more than {MAX_FILES} files; the rest are left out")
            break
        if len(source) > MAX_FILE_CHARS:
            errors.append(f"{path}: larger than {MAX_FILE_CHARS} characters; left out")
            continue
        if path.endswith(".css"):
            css.append(f"/* {path} */\n{source}")
            modules.append(_module(path, ""))
        elif path.endswith(".json"):
            modules.append(_module(path, _json_module(path, source, errors)))
        elif path.endswith(CODE_EXTENSIONS):
            code = transform_jsx(source)
            if code is None:
                errors.append(
                    f"{path}: could not be compiled (a syntax error, or TypeScript type "
                    "annotations, which the sandbox does not support)"
                )
                continue
            modules.append(_module(path, rewrite_modules(code)))
    entry = normalize_path(root.entry_file)
    script = (
        "(function (define) {\n" + "\n".join(modules) + "\n})(window.FabulaSandbox.define);\n"
        f"window.FabulaSandbox.entry = {json.dumps(entry)};\n"
        f"window.FabulaSandbox.compileErrors = {json.dumps(errors)};\n"
    )
    return CompiledUI(
        script=escape_inline_script(script),
        css=_STYLE_BREAKERS.sub("\\\\3C ", "\n".join(css)),
        entry=entry,
        errors=errors,
    )


def normalize_path(path: str) -> str:
    """``./parts/bubble.tsx`` → ``parts/bubble.tsx``; ``..`` segments are resolved away."""
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


def transform_jsx(source: str) -> str | None:
    """JSX → ``React.createElement`` with esbuild; None when it does not compile.

    Without esbuild installed the source passes through as it is (plain JavaScript works).
    """
    if not source.strip():
        return ""
    try:
        from esbuild_py import transform
    except Exception:  # not installed, or its native library failed to load
        return source
    result = transform(source)
    return result or None


def rewrite_modules(code: str) -> str:
    """Turn ``import``/``export`` statements into the loader's ``require``/``exports``."""
    counter = [0]
    tail: list[str] = []

    def imports(match: re.Match[str]) -> str:
        counter[0] += 1
        return _import_statement(match["clause"], match["spec"], f"__import{counter[0]}")

    def export_list(match: re.Match[str]) -> str:
        counter[0] += 1
        source = f"require({json.dumps(match['spec'])})" if match["spec"] else None
        return _export_list(match["names"], source, f"__reexport{counter[0]}")

    def default_class(match: re.Match[str]) -> str:
        tail.append(f"exports.default = {match[3]};")
        return match[1] + match[2]

    def declaration(match: re.Match[str]) -> str:
        tail.append(f"exports.{match[3]} = {match[3]};")
        return match[1] + match[2]

    code = _IMPORT.sub(imports, code)
    code = _EXPORT_LIST.sub(export_list, code)
    code = _EXPORT_DEFAULT_FUNCTION.sub(
        lambda m: f"{m[1]}exports.default = {m[3]};\n{m[1]}{m[2]}", code
    )
    code = _EXPORT_DEFAULT_CLASS.sub(default_class, code)
    code = _EXPORT_DEFAULT.sub(lambda m: f"{m[1]}exports.default = ", code)
    code = _EXPORT_FUNCTION.sub(lambda m: f"{m[1]}exports.{m[3]} = {m[3]};\n{m[1]}{m[2]}", code)
    code = _EXPORT_DECLARATION.sub(declaration, code)
    return code + ("\n" + "\n".join(tail) if tail else "")


def _import_statement(clause: str, spec: str, temp: str) -> str:
    clause = clause.strip()
    if clause.startswith("type ") or not clause:
        return f"require({json.dumps(spec)});" if clause == "" else ""
    lines = [f"var {temp} = require({json.dumps(spec)});"]
    default, _, rest = (
        clause.partition(",") if not clause.startswith(("{", "*")) else ("", "", clause)
    )
    default = default.strip()
    if default:
        lines.append(f"var {default} = {temp}.default;")
    rest = rest.strip()
    if rest.startswith("*"):
        name = rest.split("as", 1)[1].strip()
        lines.append(f"var {name} = {temp};")
    elif rest.startswith("{"):
        for item in rest.strip("{} \n").split(","):
            item = item.strip()
            if not item or item.startswith("type "):
                continue
            original, _, alias = (part.strip() for part in item.partition(" as "))
            lines.append(f"var {alias or original} = {temp}[{json.dumps(original)}];")
    return " ".join(lines)


def _export_list(names: str, source: str | None, temp: str) -> str:
    lines = [f"var {temp} = {source};"] if source else []
    for item in names.split(","):
        item = item.strip()
        if not item or item.startswith("type "):
            continue
        local, _, exported = (part.strip() for part in item.partition(" as "))
        value = f"{temp}[{json.dumps(local)}]" if source else local
        lines.append(f"exports[{json.dumps(exported or local)}] = {value};")
    return " ".join(lines)


def _json_module(path: str, source: str, errors: list[str]) -> str:
    try:
        data: Any = json.loads(source)
    except json.JSONDecodeError as exc:
        errors.append(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno})")
        data = None
    return f"exports.default = {json.dumps(data)};"


def _module(path: str, body: str) -> str:
    # The shadowing parameters keep the seed's sandbox limits for plain identifiers; the CSP
    # and the iframe sandbox enforce them for everything else.
    return (
        f"define({json.dumps(path)}, function (require, module, exports, fetch, XMLHttpRequest, "
        "WebSocket, EventSource, localStorage, sessionStorage, parent, top, opener, location) {\n"
        f"{body}\n}});"
    )


def escape_inline_script(script: str) -> str:
    """Make ``script`` safe inside a ``<script>``: no ``</script``, ``<script`` or ``<!--``."""
    return _SCRIPT_BREAKERS.sub("\\\\x3C", script)
