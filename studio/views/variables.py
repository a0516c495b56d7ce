"""Variables: the world's game state (seed 004 "变量与指令")."""

from __future__ import annotations

import json

from django.utils.translation import gettext_lazy

from studio.forms import VariableForm
from studio.labels import label_of
from studio.models import Variable
from studio.views.kinds import Kind


def describe_variable(variable: Variable) -> str:
    default = json.dumps(variable.default_value, ensure_ascii=False)
    return f"{label_of(variable.type)} = {default[:40]}"


VARIABLES = Kind(
    slug="variables",
    model=Variable,
    form_class=VariableForm,
    title=gettext_lazy("Variables"),
    singular=gettext_lazy("variable"),
    form_template="studio/forms/variable_fields.html",
    describe=describe_variable,
)
