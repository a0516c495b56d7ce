"""Rules: WHEN/IF/THEN automation between turns (seed 004 "规则与响应")."""

from __future__ import annotations

from django.utils.translation import gettext, gettext_lazy, ngettext

from studio.forms import RuleForm
from studio.models import Rule
from studio.views.kinds import Kind


def describe_rule(rule: Rule) -> str:
    trigger = str(rule.trigger.get("type", "?")) if isinstance(rule.trigger, dict) else "?"
    count = len(rule.actions)
    actions = ngettext("%(n)d action", "%(n)d actions", count) % {"n": count}
    state = "" if rule.enabled else " · " + gettext("off")
    return f"{trigger} → {actions}{state}"


RULES = Kind(
    slug="rules",
    model=Rule,
    form_class=RuleForm,
    title=gettext_lazy("Rules"),
    singular=gettext_lazy("rule"),
    needs_world=True,  # the pickers offer the world's variables, entries, rules and tracks
    form_template="studio/forms/rule_fields.html",
    describe=describe_rule,
)
