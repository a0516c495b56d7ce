"""SillyTavern interop (mission W10): character cards V1/V2/V3 and World Info in, World Info out.

``import_file`` is the door for uploads; the functions below it are the pieces it routes to.
"""

from engine.interop.cards import card_to_world
from engine.interop.common import MAX_IMPORT_BYTES, CardError
from engine.interop.export import lorebook_entries, world_to_worldinfo
from engine.interop.files import classify_json, import_file, import_json
from engine.interop.png import read_png_card
from engine.interop.worldinfo import worldinfo_to_entries, worldinfo_to_world

__all__ = [
    "MAX_IMPORT_BYTES",
    "CardError",
    "card_to_world",
    "classify_json",
    "import_file",
    "import_json",
    "lorebook_entries",
    "read_png_card",
    "world_to_worldinfo",
    "worldinfo_to_entries",
    "worldinfo_to_world",
]
