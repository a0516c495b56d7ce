"""The game-master editor's forms, one module per noun group; the engine stays the validator."""

from studio.forms.gamemaster.base import Catalog, GMForm
from studio.forms.gamemaster.people import CharacterForm, NpcForm
from studio.forms.gamemaster.progress import (
    BoardForm,
    ClueForm,
    DebtForm,
    HookForm,
    PawnForm,
    QuestForm,
    RumourForm,
    ShopForm,
)
from studio.forms.gamemaster.settings import RawBlockForm, SettingsForm
from studio.forms.gamemaster.space import ItemForm, LocationForm

__all__ = [
    "BoardForm",
    "Catalog",
    "CharacterForm",
    "ClueForm",
    "DebtForm",
    "GMForm",
    "HookForm",
    "ItemForm",
    "LocationForm",
    "NpcForm",
    "PawnForm",
    "QuestForm",
    "RawBlockForm",
    "RumourForm",
    "SettingsForm",
    "ShopForm",
]
