"""SillyTavern interop (mission W10, issue 16 §3): character cards V1/V2/V3 and World Info in;
cards V2/V3 (JSON and PNG) and World Info out; the report of what an import did.

``import_file`` is the door for uploads; the functions below it are the pieces it routes to.
"""

from engine.interop.cardexport import (
    GATED_CHOICES,
    Gated,
    gated_entries,
    world_to_card,
    world_to_card_png,
)
from engine.interop.cards import card_to_world
from engine.interop.common import MAX_IMPORT_BYTES, CardError
from engine.interop.export import lorebook_entries, world_to_worldinfo
from engine.interop.files import classify_json, import_file, import_json
from engine.interop.png import read_png_card
from engine.interop.pngwrite import placeholder_png, write_card_png
from engine.interop.report import ReportLine, import_report
from engine.interop.worldinfo import worldinfo_to_entries, worldinfo_to_world

__all__ = [
    "GATED_CHOICES",
    "MAX_IMPORT_BYTES",
    "CardError",
    "Gated",
    "ReportLine",
    "card_to_world",
    "classify_json",
    "gated_entries",
    "import_file",
    "import_json",
    "import_report",
    "lorebook_entries",
    "placeholder_png",
    "read_png_card",
    "world_to_card",
    "world_to_card_png",
    "world_to_worldinfo",
    "worldinfo_to_entries",
    "worldinfo_to_world",
    "write_card_png",
]
