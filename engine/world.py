"""The world format: `WorldDefinition`, schema 20.0.0 (seed 004 "世界 Schema", seed 002 "变量").

Python attributes are snake_case; JSON keys are the camelCase of the seed (``behaviorRules``,
``secondaryKeywordLogic``). Unknown keys are kept (so a 21.x world survives a round trip) and
reported in ``WorldDefinition.warnings``; a variable's ``category`` is accepted and stripped, as
seed 002 says. Validation collects every problem with its JSON path instead of stopping at the
first, because a creator fixing an import wants the whole list at once.

This module is the format's one public address: the models live in `engine.world_types` (shared
vocabulary), `engine.world_entries`, `engine.world_rules`, `engine.world_presentation` and
`engine.world_definition`; loading and validation in `engine.world_load`. Import from here.
"""

from engine.world_definition import Settings as Settings
from engine.world_definition import WorldDefinition as WorldDefinition
from engine.world_definition import export_world as export_world
from engine.world_entries import Entry as Entry
from engine.world_entries import Variable as Variable
from engine.world_load import INTEROP_FIELDS as INTEROP_FIELDS
from engine.world_load import WorldSource as WorldSource
from engine.world_load import WorldValidationError as WorldValidationError
from engine.world_load import load_world as load_world
from engine.world_load import reference_errors as reference_errors
from engine.world_load import unknown_condition_variables as unknown_condition_variables
from engine.world_load import validate_part as validate_part
from engine.world_presentation import AudioTrack as AudioTrack
from engine.world_presentation import BGMPlaylist as BGMPlaylist
from engine.world_presentation import ConditionalBGM as ConditionalBGM
from engine.world_presentation import EntryFolder as EntryFolder
from engine.world_presentation import GameComponent as GameComponent
from engine.world_presentation import RootComponent as RootComponent
from engine.world_rules import ACTION_TYPES as ACTION_TYPES
from engine.world_rules import TRIGGER_TYPES as TRIGGER_TYPES
from engine.world_rules import Action as Action
from engine.world_rules import ActionTrigger as ActionTrigger
from engine.world_rules import AiKeywordTrigger as AiKeywordTrigger
from engine.world_rules import DirectivePosition as DirectivePosition
from engine.world_rules import EmitEffect as EmitEffect
from engine.world_rules import EveryTurnTrigger as EveryTurnTrigger
from engine.world_rules import InjectDirectiveAction as InjectDirectiveAction
from engine.world_rules import KeywordTrigger as KeywordTrigger
from engine.world_rules import ManualTrigger as ManualTrigger
from engine.world_rules import ModifyVariableAction as ModifyVariableAction
from engine.world_rules import NotifyPlayerAction as NotifyPlayerAction
from engine.world_rules import PlayAudioAction as PlayAudioAction
from engine.world_rules import Reaction as Reaction
from engine.world_rules import ReactionEffect as ReactionEffect
from engine.world_rules import ReactionWhen as ReactionWhen
from engine.world_rules import RemoveDirectiveAction as RemoveDirectiveAction
from engine.world_rules import Rule as Rule
from engine.world_rules import SendContextAction as SendContextAction
from engine.world_rules import SessionStartTrigger as SessionStartTrigger
from engine.world_rules import SetEffect as SetEffect
from engine.world_rules import StateChangeTrigger as StateChangeTrigger
from engine.world_rules import ToggleEntryAction as ToggleEntryAction
from engine.world_rules import ToggleRuleAction as ToggleRuleAction
from engine.world_rules import Trigger as Trigger
from engine.world_rules import TurnCountTrigger as TurnCountTrigger
from engine.world_rules import VariableCrossedTrigger as VariableCrossedTrigger
from engine.world_types import API_ROLES as API_ROLES
from engine.world_types import ENTRY_ROLES as ENTRY_ROLES
from engine.world_types import MAX_ENTRY_CONTENT as MAX_ENTRY_CONTENT
from engine.world_types import MAX_INT as MAX_INT
from engine.world_types import OPERATIONS as OPERATIONS
from engine.world_types import OPERATORS as OPERATORS
from engine.world_types import RESERVED_VARIABLE_IDS as RESERVED_VARIABLE_IDS
from engine.world_types import SCHEMA_VERSION as SCHEMA_VERSION
from engine.world_types import SECTIONS as SECTIONS
from engine.world_types import SUPPORTED_MAJORS as SUPPORTED_MAJORS
from engine.world_types import ApiRole as ApiRole
from engine.world_types import Condition as Condition
from engine.world_types import EntryRole as EntryRole
from engine.world_types import FieldError as FieldError
from engine.world_types import KebabId as KebabId
from engine.world_types import Logic as Logic
from engine.world_types import Operation as Operation
from engine.world_types import Operator as Operator
from engine.world_types import Schema as Schema
from engine.world_types import SecondaryLogic as SecondaryLogic
from engine.world_types import Section as Section
from engine.world_types import VariableId as VariableId
