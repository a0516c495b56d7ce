"""Worlds stored as rows (seed 004 "世界 Schema"), so an edit touches one small row.

Every sub-item keeps its schema id in ``key`` (the row's own ``id`` is Django's primary key), its
list order in ``position``, and any field the schema does not know in ``extra``, so
``export(import(x)) == x``. The columns are named after the engine's snake_case attributes;
``studio.worlds`` converts rows to and from ``engine.world.WorldDefinition``, which is the only
validator. ``Entry.section_position`` is the schema's ``position`` (order inside a section).

The models live in modules by noun: ``studio.world_models`` (``World``, ``WorldItem``),
``studio.item_models`` (entries, variables, rules, reactions, components, UI files),
``studio.media_models`` (assets, portraits, audio), ``studio.version_models`` (``WorldVersion``)
and ``studio.account_models`` (tokens, login failures). Importing them here is what registers them
with Django, and every name stays importable from ``studio.models``.
"""

from __future__ import annotations

from studio.account_models import ApiToken as ApiToken
from studio.account_models import LoginFailure as LoginFailure

# Evaluations live in their own package (studio.evaluations); importing them here registers them.
from studio.evaluations.models import (  # noqa: F401
    Evaluation,
    EvaluationAction,
    EvaluationGame,
)
from studio.item_models import Component as Component
from studio.item_models import Entry as Entry
from studio.item_models import EntryFolder as EntryFolder
from studio.item_models import Reaction as Reaction
from studio.item_models import RootComponentFile as RootComponentFile
from studio.item_models import Rule as Rule
from studio.item_models import Variable as Variable
from studio.media_models import AUDIO_EXTENSIONS as AUDIO_EXTENSIONS
from studio.media_models import Asset as Asset
from studio.media_models import AudioTrack as AudioTrack
from studio.media_models import BGMPlaylist as BGMPlaylist
from studio.media_models import CharacterPortrait as CharacterPortrait
from studio.media_models import ConditionalBGM as ConditionalBGM
from studio.media_models import asset_upload_to as asset_upload_to
from studio.version_models import ImmutableError as ImmutableError
from studio.version_models import WorldVersion as WorldVersion
from studio.version_models import WorldVersionQuerySet as WorldVersionQuerySet
from studio.world_models import LOGIC_CHOICES as LOGIC_CHOICES
from studio.world_models import World as World
from studio.world_models import WorldItem as WorldItem
from studio.world_models import default_settings as default_settings
from studio.world_models import new_uid as new_uid

# World tests too (studio.worldtests).
from studio.worldtests.models import WorldTest, WorldTestRun  # noqa: F401
