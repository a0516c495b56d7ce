"""The labelled set (issue 13 §2: "ship a small labelled set of transcripts (written for the
project)"): transcripts of the two demo worlds, written by hand for this project, each step
labelled with the error classes a careful reader finds in it.

``labelled/labelled.json`` holds ``{"transcripts": [{"id", "world", "note", "transcript",
"labels"}]}``: ``world`` names a demo world by key (``brackenford``: the game-master demo,
``lantern``: the plain one), ``transcript`` is an ``engine.evals.transcript.Transcript`` and
``labels`` one list of classes per step. Labels name known classes only: a typo fails loading.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.evals.classes import DESCRIPTIONS
from engine.evals.transcript import Transcript

LABELLED_PATH = Path(__file__).resolve().parent / "labelled" / "labelled.json"


@dataclass(frozen=True)
class Labelled:
    id: str
    world: str
    transcript: Transcript
    labels: list[list[str]]
    note: str = ""


def load_labelled(path: Path = LABELLED_PATH) -> list[Labelled]:
    """Read the set; ValueError naming the transcript for a label or step count that is off."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return [_item(entry) for entry in data["transcripts"]]


def _item(entry: dict[str, Any]) -> Labelled:
    ident = str(entry["id"])
    transcript = Transcript.from_dict(entry["transcript"])
    labels = [list(step) for step in entry["labels"]]
    if len(labels) != len(transcript.steps):
        raise ValueError(f"{ident}: {len(labels)} label lists for {len(transcript.steps)} steps")
    unknown = sorted({c for step in labels for c in step} - DESCRIPTIONS.keys())
    if unknown:
        raise ValueError(f"{ident}: unknown classes {', '.join(unknown)}")
    return Labelled(ident, str(entry["world"]), transcript, labels, str(entry.get("note", "")))
