"""Rule and condition variable boxes pick from the world's variables (issue 35 §3)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from studio.models import Variable
from studio.worlds import create_item
from tests.studio.view_helpers import login

pytestmark = pytest.mark.django_db


def box(html: str, name: str) -> str:
    """The form control named ``name``: a whole select, or an input's tag."""
    select = re.search(rf'<select[^>]*name="{re.escape(name)}".*?</select>', html, re.S)
    found = select or re.search(rf'<input[^>]*name="{re.escape(name)}"[^>]*>', html)
    assert found, name
    return found.group(0)


def test_the_rule_form_offers_the_worlds_variables(client, alice, world):
    create_item(world, Variable, {"id": "gold", "name": "Gold", "type": "number"})
    html = login(client, alice).get(reverse("studio:rules_new", args=[world.pk])).content.decode()
    for name in ("trigger_variable_id", "cond-0-variable_id"):
        select = box(html, name)
        assert select.startswith("<select")
        assert '<option value="gold">Gold (gold)</option>' in select
    action = box(html, "act-0-variable_id")
    assert 'list="fabula-variables"' in action  # a picker that still takes a path
    datalist = re.search(r'<datalist id="fabula-variables">(.*?)</datalist>', html, re.S)
    assert datalist and '<option value="gold">Gold</option>' in datalist.group(1)


def test_the_entry_conditions_offer_the_worlds_variables(client, alice, world):
    url = reverse("studio:entries_new", args=[world.pk])
    html = login(client, alice).get(url).content.decode()
    select = box(html, "cond-0-variable_id")
    assert select.startswith("<select") and '<option value="health">' in select
