"""The studio's forms, one module per noun; the engine's models stay the only validator."""

from studio.forms.accounts import SignupForm, TokenForm
from studio.forms.base import EngineForm
from studio.forms.entries import EntryFilterForm, EntryForm, FolderForm, TagForm
from studio.forms.logic import VariableForm
from studio.forms.media import (
    AssetUploadForm,
    AudioTrackForm,
    ComponentForm,
    ConditionalBGMForm,
    PlaylistForm,
    RootComponentForm,
    RootFileForm,
)
from studio.forms.preview import PreviewForm, TesterForm, parse_sample_chat
from studio.forms.reactions import ReactionForm
from studio.forms.rules import RuleForm
from studio.forms.worlds import ImportForm, NewWorldForm, PublishForm, SettingsForm, WorldForm

__all__ = [
    "AssetUploadForm",
    "AudioTrackForm",
    "ComponentForm",
    "ConditionalBGMForm",
    "EngineForm",
    "EntryFilterForm",
    "EntryForm",
    "FolderForm",
    "ImportForm",
    "NewWorldForm",
    "PlaylistForm",
    "PreviewForm",
    "PublishForm",
    "ReactionForm",
    "RootComponentForm",
    "RootFileForm",
    "RuleForm",
    "SettingsForm",
    "SignupForm",
    "TagForm",
    "TesterForm",
    "TokenForm",
    "VariableForm",
    "WorldForm",
    "parse_sample_chat",
]
