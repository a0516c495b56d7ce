"""Reactions: event-pattern rules with ``set`` and ``emit`` effects (seed 004 "Reactions")."""

from __future__ import annotations

from django.utils.translation import gettext_lazy, ngettext

from studio.forms import ReactionForm
from studio.models import Reaction
from studio.views.kinds import Kind


def describe_reaction(reaction: Reaction) -> str:
    when = reaction.when if isinstance(reaction.when, dict) else {}
    count = len(reaction.then)
    effects = ngettext("%(n)d effect", "%(n)d effects", count) % {"n": count}
    return f"{when.get('eventType', '?')} → {effects}"


REACTIONS = Kind(
    slug="reactions",
    model=Reaction,
    form_class=ReactionForm,
    title=gettext_lazy("Reactions"),
    singular=gettext_lazy("reaction"),
    needs_world=True,  # the pickers offer the world's variables, entries, rules and tracks
    form_template="studio/forms/reaction_fields.html",
    describe=describe_reaction,
)
