"""engine.gm.localize: a world's nouns in the session's language (issue 33 §3), with the world's
own words where a translation is missing, the player's words in that language understood, and
the event log kept in the world's language."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from engine.gm import localize
from engine.world import export_world, load_world
from tests.engine.gm.worlds import demo_data, demo_world, new_state, play, play_all


def demo_without(*paths: tuple[str, str, str]) -> Any:
    """The demo world with the translations named (section, id, language) taken away."""
    data = copy.deepcopy(demo_data())
    for section, ident, language in paths:
        rows = data["gameMaster"][section]
        row = next(r for r in rows if r["id"] == ident)
        del row["translations"][language]
    return load_world(data)


# --- resolving -----------------------------------------------------------------------------


def test_an_entity_is_named_in_the_language_it_is_translated_into():
    gm = localize.block(demo_world().game_master, "es")
    assert gm.items_by_id["rope"].name == "rollo de cuerda"
    assert gm.locations_by_id["square"].points[0].name == "el pozo viejo"
    assert gm.npcs_by_id["hilda"].trade == "posadera"
    assert gm.quests_by_id["find-chalice"].title == "El cáliz desaparecido"
    assert gm.boards[0].notices[0].title == "Recompensa: el cáliz de la capilla"
    assert localize.block(gm, "zh-Hans").items_by_id["rope"].name == "麻绳"  # from any block


def test_an_entity_without_a_translation_falls_back_to_the_worlds_words():
    world = demo_without(("items", "rope", "es"), ("npcs", "greta", "es"))
    gm = localize.block(world.game_master, "es")
    assert gm.items_by_id["rope"].name == "coil of rope"
    assert gm.items_by_id["tankard"].name == "jarra de peltre"  # the others keep theirs
    assert gm.npcs_by_id["greta"].trade == "moneylender"
    hilda = gm.npcs_by_id["hilda"]  # its es words give no name: the world's stays
    assert (hilda.name, hilda.trade) == ("Hilda Brant", "posadera")
    result = play(world, new_state(world), "miro", "ren", language="es")
    assert "Ves: coil of rope, jarra de peltre." in result.narration


def test_a_language_the_world_does_not_speak_keeps_the_block_as_it_is():
    gm = demo_world().game_master
    assert localize.block(gm, "fr") is gm and localize.block(gm, None) is gm
    assert localize.languages(gm) == {"es", "zh"}
    assert localize.speaks(gm, "en", "es-ES") and localize.speaks(gm, "en", "en")
    assert not localize.speaks(gm, "en", "fr")


def test_disclosures_are_translated_level_by_level_and_the_secret_never():
    data = copy.deepcopy(demo_data())
    hilda = next(n for n in data["gameMaster"]["npcs"] if n["id"] == "hilda")
    del hilda["translations"]["es"]["disclosures"]["friend"]
    npc = localize.block(load_world(data).game_master, "es").npcs_by_id["hilda"]
    assert npc.disclosures["stranger"].startswith("El camino del este no es seguro")
    assert npc.disclosures["friend"] == hilda["disclosures"]["friend"]  # the world's
    assert npc.secret is not None and npc.secret.text == hilda["secret"]["text"]


def test_a_block_is_resolved_once_per_language_and_resolving_it_again_changes_nothing():
    gm = demo_world().game_master
    es = localize.block(gm, "es")
    assert localize.block(gm, "es") is es and localize.block(es, "es") is es
    assert localize.origin(es) is gm and localize.block(es, "zh") is localize.block(gm, "zh")
    assert es.items_by_id["rope"] is es.items[0]  # its lookups are its own, not the world's


def without_translations(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: without_translations(v) for k, v in value.items() if k != "translations"}
    return [without_translations(v) for v in value] if isinstance(value, list) else value


def test_a_world_without_translations_exports_as_before():
    data = without_translations(demo_data())
    assert "translations" not in json.dumps(export_world(load_world(data)))  # nor its hash
    assert "translations" in json.dumps(export_world(demo_world())["gameMaster"]["items"])


# --- the player's words ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "actions", "where", "moved"),
    [
        ("es", ["cojo el pichel"], "the-wayfarer", ("item", "tankard")),
        ("es", ["cojo la jarra de peltre"], "the-wayfarer", ("item", "tankard")),
        ("es", ["cojo el tankard"], "the-wayfarer", ("item", "tankard")),  # the world's alias
        ("es", ["voy al sur", "voy al mesón"], "the-wayfarer", None),
        ("es", ["voy al sur", "voy a los tenderetes"], "square", ("point", "stalls")),
        ("zh", ["拿杯子"], "the-wayfarer", ("item", "tankard")),
        ("zh", ["拿白镴酒杯"], "the-wayfarer", ("item", "tankard")),
        ("zh", ["往南走", "去旅店"], "the-wayfarer", None),
        ("zh", ["往南走", "走到摊子"], "square", ("point", "stalls")),
    ],
)
def test_the_translations_aliases_are_understood(language, actions, where, moved):
    world = demo_world()
    results = play_all(world, actions, "ren", language=language)
    last = results[-1]
    assert (last.kind, last.model_calls, last.location) == ("engine", 0, where)
    if moved == ("item", "tankard"):
        assert last.changes["items"]["tankard"]["to"] == {"character": "ren"}
    elif moved is not None:
        assert last.changes["point"]["to"] == moved[1]


def test_the_event_log_keeps_the_worlds_words():
    world = demo_world()
    taken = play_all(world, ["voy a la chimenea", "cojo la cuerda"], "ren", language="es")[-1]
    assert taken.narration == "Coges el rollo de cuerda."
    assert [e.text for e in taken.events] == ["Ren Ashby takes coil of rope."]
    went = play(world, new_state(world), "往南走", "ren", language="zh")
    assert went.narration.startswith("你往南走，来到集市广场。")
    assert went.events[0].text == "Ren Ashby goes south to Market Square."


def test_a_hook_is_told_in_the_narrations_language_and_logged_in_the_worlds():
    world = demo_world()
    walk = ["voy al sur", "voy al este", "voy al este"]
    mill = play_all(world, walk, "ren", language="es")[-1]
    assert mill.location == "old-mill"
    assert mill.narration.endswith(
        "La campana del molino tañe una vez con el viento, aunque nadie tira de ella."
    )
    [bell] = [e for e in mill.events if e.kind == "hook"]
    assert bell.text == "The mill's bell clangs once in the wind, though nobody pulls it."


def test_the_demo_world_names_everything_a_player_reads_in_spanish_and_chinese():
    gm = demo_world().game_master
    assert gm is not None
    readable: list[Any] = [*gm.locations, *gm.items, *gm.npcs, *gm.clues, *gm.quests]
    readable += [p for place in gm.locations for p in [*place.points, *place.hidden_points]]
    readable += [*gm.boards, *(n for b in gm.boards for n in b.notices), *gm.hooks, *gm.rumours]
    readable += [c.public for c in gm.characters]
    for entity in readable:
        assert set(entity.translations) == {"es", "zh"}, entity
    for language in ("es", "zh"):
        local = localize.block(gm, language)
        names = [i.name for i in local.items] + [n.trade for n in local.npcs]
        names += [q.title for q in local.quests] + [c.name for c in local.clues]
        assert all(localize.translated(local, name) for name in names), language


def test_the_character_sheet_reads_class_traits_and_background_in_the_players_language():
    gm = demo_world().game_master
    assert gm is not None
    for language, word in (("es", "codicioso"), ("zh", "贪心")):
        ren = next(c for c in localize.block(gm, language).characters if c.id == "ren")
        assert word in ren.full.traits and "greedy" not in ren.full.traits
        assert ren.full.secrets == next(c for c in gm.characters if c.id == "ren").full.secrets
