"""Reactions: event patterns and their effects (seed 004 "Reactions", "系统效果路径").

A reaction matches an event when ``when.eventType`` equals the event type and every other field
of ``when`` equals the event's data field of the same name. Its ``then`` runs ``set`` on a
variable (with an optional ``operation``) or on an ``@`` system path, and ``emit`` queues an
event for the next generation. ``Effects`` is the one place where rules and reactions touch the
session, so a rule's ``play-audio`` and a reaction's ``@audio.bgm`` do exactly the same thing.

System paths and the values they take:

- ``@audio.bgm`` / ``@audio.sfx`` / ``@audio.ambient``: a track id (play it), or
  ``{trackId, action, value, chain}``; ``null``/``false`` stops what plays on that channel.
- ``@audio.stop``: a track id stops it; ``null``, ``true``, ``""`` or ``"all"`` stops everything
  (one cue with track id ``"*"``).
- ``@prompt.directive.<id>``: a string injects it at position ``auto``, persistent until
  removed; or ``{content, position, depth, persistent, duration}`` (``persistent`` defaults to
  true); ``null``/``false``/``""`` removes it.
- ``@prompt.entry.<id>``: a boolean shows or hides the entry (``operation: toggle`` flips it).
- ``@prompt.context`` / ``@ai.context``: a string, or ``{message, role}``: one-shot context
  for the next prompt.
- ``@rules.disabled.<id>``: ``true`` disables the rule (or reaction), ``false`` enables it.
- ``@ui.notification``: a string, or ``{message, style}``.
- ``@ai.request``: a truthy value asks the play layer for another AI generation
  (``RulesOutcome.requests_ai``).

Anything else starting with ``@`` is skipped with the reason.

This module matches and runs reactions; ``Effects`` lives in ``engine.effects`` and the ``@``
path handlers in ``engine.system_paths`` (both importable from here, as before).
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.conditions import check_conditions
from engine.effects import AUDIO_CHANNELS as AUDIO_CHANNELS
from engine.effects import DIRECTIVE_POSITIONS as DIRECTIVE_POSITIONS
from engine.effects import LASTING_CHANNELS as LASTING_CHANNELS
from engine.effects import STOP_ALL as STOP_ALL
from engine.effects import Effects as Effects
from engine.effects import reaction_enabled as reaction_enabled
from engine.effects import reaction_ids as reaction_ids
from engine.effects import record_audio as record_audio
from engine.effects import split_target as split_target
from engine.events import Event
from engine.state import same_value
from engine.system_paths import SYSTEM_PATHS as SYSTEM_PATHS
from engine.system_paths import Handler as Handler
from engine.system_paths import apply_set as apply_set
from engine.world import EmitEffect, Reaction


def matches(reaction: Reaction, event: Event) -> bool:
    """Whether ``event`` fits the reaction's ``when`` pattern (type and every extra field)."""
    if reaction.when.event_type != event.type:
        return False
    pattern = reaction.when.model_extra or {}
    return all(key in event.data and same_value(event.data[key], v) for key, v in pattern.items())


def run_reaction(effects: Effects, reaction: Reaction, event: Event) -> bool:
    """Run a reaction's effects for ``event`` if its conditions hold; tell whether it ran."""
    source = f"reaction:{reaction.id}"
    state = effects.state
    if not check_conditions(reaction.conditions, reaction.condition_logic, state.values):
        effects.outcome.log.append(f"{source}: conditions not met on {event.describe()}")
        return False
    effects.outcome.reactions.append(reaction.id)
    effects.outcome.log.append(f"{source}: fired on {event.describe()}")
    for effect in reaction.then:
        if isinstance(effect, EmitEffect):
            effects.emit(Event.from_dict(effect.event))
        else:
            apply_set(effects, effect, source)
    return True


def matching_reactions(reactions: Iterable[Reaction], event: Event) -> list[Reaction]:
    return [r for r in reactions if matches(r, event)]
