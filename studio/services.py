"""What the studio offers play (issue 36, "The house"): the one studio module play imports.

Play reads who may open a world or a version, a world's JSON, an asset's address and the
portrait tools through here. Everything else in studio is private to it (studio.models stays
importable for foreign keys and rows); tests/config/test_import_graph.py holds play to this.
Not the portrait form (studio.forms.portraits): importing it runs studio.forms, whose accounts
form reads play.services, which names modules built on this one.

Each name is imported from its module when first asked for, as in play.services: play's
personas load at start-up and need only the portraits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from config.lazy import lazy_exports

if TYPE_CHECKING:
    from studio.access import get_version_for_user as get_version_for_user
    from studio.access import get_world_for_user as get_world_for_user
    from studio.access import may_copy_version as may_copy_version
    from studio.assets import resolve_asset_url as resolve_asset_url
    from studio.portraits import CropBox as CropBox
    from studio.portraits import PortraitError as PortraitError
    from studio.portraits import discard_later as discard_later
    from studio.portraits import face_info as face_info
    from studio.portraits import make_portrait as make_portrait
    from studio.portraits import portrait_url as portrait_url
    from studio.portraits import swap_portrait as swap_portrait
    from studio.worlds import export_world_json as export_world_json

_HOME = {
    "get_version_for_user": "studio.access",
    "get_world_for_user": "studio.access",
    "may_copy_version": "studio.access",
    "resolve_asset_url": "studio.assets",
    "CropBox": "studio.portraits",
    "PortraitError": "studio.portraits",
    "discard_later": "studio.portraits",
    "face_info": "studio.portraits",
    "make_portrait": "studio.portraits",
    "portrait_url": "studio.portraits",
    "swap_portrait": "studio.portraits",
    "export_world_json": "studio.worlds",
}
__all__ = sorted(_HOME)

if not TYPE_CHECKING:  # mypy reads the imports above; an unknown name stays an error for it
    __getattr__ = lazy_exports(__name__, _HOME)
