"""The baseline of `bench/directives.py`: directives parsed the way a quick implementation would.

One regex per directive kind, each re-scanning and re-substituting the whole text, then applied
in place with no checks. It is what the bench's ratios compare against; keep it naive.
"""

from __future__ import annotations

import json
import re
from typing import Any

from engine.world import WorldDefinition

_NAIVE_THINK = re.compile(r"<think(?:ing)?>.*?(?:</think(?:ing)?>|$)", re.S | re.I)
_NAIVE_PATCH = re.compile(
    r'<UpdateVariable(?:\s+target="([^"]*)")?>\s*<JSONPatch>(.*?)</JSONPatch>\s*</UpdateVariable>',
    re.S,
)
_NAIVE_AUDIO = re.compile(
    r"\[audio:\s*([\w-]+)\s+(play|stop|crossfade|volume)(?:\s+([\d.]+))?(?:\s+chain:([\w-]+))?\]"
)
_NAIVE_JSON = re.compile(r"\[([\w .-]+?):\s*(?:(merge|push|set)\s+)?(\{.*?\}|\[.*?\])\]")
_NAIVE_STD = re.compile(
    r"\[([\w .-]+?):\s*(?:(set|add|subtract|multiply|toggle|append|delete)\b\s*)?"
    r'([+\-*]?)\s*("[^"]*"|[^\]]*)\]'
)


def naive_parse(world: WorldDefinition, text: str, state: dict[str, Any]) -> tuple[str, int]:
    names = {v.id: v.id for v in world.variables}
    names.update({v.name.lower(): v.id for v in world.variables if v.name})
    effects: list[tuple[str, list[str], str, Any]] = []
    audio: list[tuple[str, ...]] = []

    def target(head: str) -> tuple[str, list[str]] | None:
        parts = head.strip().split(".")
        vid = names.get(parts[0]) or names.get(parts[0].lower())
        return (vid, parts[1:]) if vid else None

    text = _NAIVE_THINK.sub("", text)
    for m in _NAIVE_PATCH.finditer(text):
        try:
            ops = json.loads(m.group(2))
        except ValueError:
            continue
        for op in ops:
            segs = op["path"].strip("/").split("/") if op["path"] else []
            vid = m.group(1) or segs.pop(0)
            kind = {"replace": "set", "delta": "add", "insert": "set", "remove": "delete"}
            effects.append((vid, segs, kind[op["op"]], op.get("value")))
    text = _NAIVE_PATCH.sub("", text)

    def on_audio(m: re.Match[str]) -> str:
        audio.append(m.groups())
        return ""

    text = _NAIVE_AUDIO.sub(on_audio, text)

    def on_json(m: re.Match[str]) -> str:
        found = target(m.group(1))
        if not found:
            return m.group(0)
        try:
            value = json.loads(m.group(3))
        except ValueError:
            return m.group(0)
        effects.append((found[0], found[1], m.group(2) or "set", value))
        return ""

    text = _NAIVE_JSON.sub(on_json, text)

    def on_std(m: re.Match[str]) -> str:
        found = target(m.group(1))
        if not found:
            return m.group(0)
        op, sign, raw = m.group(2), m.group(3), m.group(4).strip()
        if not op:
            op = {"+": "add", "-": "subtract", "*": "multiply"}.get(sign, "set")
        elif sign == "-":
            raw = "-" + raw
        if raw.startswith('"'):
            value: Any = raw.strip('"')
        elif raw in ("true", "false"):
            value = raw == "true"
        else:
            try:
                value = float(raw) if "." in raw else int(raw)
            except ValueError:
                value = raw
        effects.append((found[0], found[1], op, value))
        return ""

    text = _NAIVE_STD.sub(on_std, text)
    text = re.sub(r"\n{3,}", "\n\n", text).strip()
    for vid, path, op, value in effects:
        naive_apply(world, state, vid, path, op, value)
    return text, len(effects) + len(audio)


def naive_apply(
    world: WorldDefinition, state: dict[str, Any], vid: str, path: list[str], op: str, value: Any
) -> None:
    holder: Any = state
    key: Any = vid
    for seg in path:
        node = holder[key]
        key = int(seg) if isinstance(node, list) else seg
        if isinstance(node, dict) and key not in node:
            node[key] = {}
        holder = node
    cur = holder[key] if not isinstance(holder, dict) or key in holder else None
    var = world.variables_by_id[vid]
    try:
        if op == "set":
            holder[key] = value
        elif op in ("add", "subtract", "multiply"):
            cur = cur or 0
            new = cur + value if op == "add" else cur - value if op == "subtract" else cur * value
            if not path and var.min is not None:
                new = max(var.min, new)
            if not path and var.max is not None:
                new = min(var.max, new)
            holder[key] = new
        elif op == "toggle":
            holder[key] = not cur
        elif op == "append":
            holder[key] = (cur or "") + str(value)
        elif op == "merge":
            holder[key] = {**(cur or {}), **value}
        elif op == "push":
            if not isinstance(cur, list):
                holder[key] = cur = []
            cur.append(value)
        elif op == "delete":
            del cur[value]
    except (TypeError, KeyError, IndexError):
        pass
