"""Brackenford played offline from the gallery to the main quest's end (issue 33 "Done when"),
in real Chromium against daphne, in English, Spanish and Chinese: the page's language is the
session's, so the narration, the chips, the scene bar and the Status panel speak it although
the world is English. Each step's Status panel is asserted (money, items with their quantities,
the chalice's quest in the journal) and no English world noun shows in a Spanish or Chinese
reply, chip or scene bar.

A search is the offline master's hidden roll (``engine.gm.risk``): the route searches until the
hidden point shows, as a player would. The key carried opens the cellar (``engine.gm.locks``).
The server is the one of test_gm_status.py (``migrate``, ``load_demo``,
tests/browser/seed_gm.py, Alice by her cookie); no model is configured.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.servers import AppServers
from tests.browser.test_gm_play import last_reply
from tests.browser.test_gm_status import SHEET, open_page, say, start

pytestmark = [pytest.mark.timeout(600)]

MAX_SEARCHES = 15  # a hidden roll against DC 12-14 at +3 fails 15 times once in ~10^5


@pytest.fixture(scope="module")
def server(app_servers: AppServers) -> dict[str, Any]:
    return app_servers.get("tests/browser/seed_gm.py", demo=True, share="demo")


# Per language: the search, what it says when it finds something, and the route: (action,
# money, items shown, the chalice's quest in the journal or None). Talk and searches are the
# offline master's: they answer in the page's language too.
EN = {
    "search": "search",
    "found": "You find:",
    "route": [
        ("talk to the innkeeper", "3", "dagger ×1 equipped", None),
        ("search", "3", "dagger ×1 equipped", None),
        ("take the iron key", "3", "dagger ×1 equipped iron key ×1", None),
        ("go down", "3", "dagger ×1 equipped iron key ×1", None),
        ("search", "3", "dagger ×1 equipped iron key ×1", None),
        ("take the silver chalice", "3", "dagger ×1 equipped iron key ×1 silver chalice ×1", None),
        ("go up", "3", "dagger ×1 equipped iron key ×1 silver chalice ×1", None),
        ("go south", "3", "dagger ×1 equipped iron key ×1 silver chalice ×1", None),
        (
            "read the notice board",
            "3",
            "dagger ×1 equipped iron key ×1 silver chalice ×1",
            "active Reward: the chapel's chalice",
        ),
        (
            "go west",
            "3",
            "dagger ×1 equipped iron key ×1 silver chalice ×1",
            "active Reward: the chapel's chalice",
        ),
        (
            "give the chalice to the priest",
            "23",
            "dagger ×1 equipped iron key ×1",
            "done Reward: the chapel's chalice",
        ),
    ],
}
ES = {
    "search": "busco",
    "found": "Encuentras:",
    "route": [
        ("hablo con la posadera", "3", "daga ×1 equipado", None),
        ("busco", "3", "daga ×1 equipado", None),
        ("cojo la llave de hierro", "3", "daga ×1 equipado llave de hierro ×1", None),
        ("bajo", "3", "daga ×1 equipado llave de hierro ×1", None),
        ("busco", "3", "daga ×1 equipado llave de hierro ×1", None),
        (
            "cojo el cáliz de plata",
            "3",
            "daga ×1 equipado llave de hierro ×1 cáliz de plata ×1",
            None,
        ),
        ("subo", "3", "daga ×1 equipado llave de hierro ×1 cáliz de plata ×1", None),
        ("voy al sur", "3", "daga ×1 equipado llave de hierro ×1 cáliz de plata ×1", None),
        (
            "leo el tablón",
            "3",
            "daga ×1 equipado llave de hierro ×1 cáliz de plata ×1",
            "en curso Recompensa: el cáliz de la capilla",
        ),
        (
            "voy al oeste",
            "3",
            "daga ×1 equipado llave de hierro ×1 cáliz de plata ×1",
            "en curso Recompensa: el cáliz de la capilla",
        ),
        (
            "le doy el cáliz al cura",
            "23",
            "daga ×1 equipado llave de hierro ×1",
            "cumplida Recompensa: el cáliz de la capilla",
        ),
    ],
}
ZH = {
    "search": "搜索",
    "found": "你找到了",
    "route": [
        ("和老板娘说话", "3", "匕首 ×1 已装备", None),
        ("搜索", "3", "匕首 ×1 已装备", None),
        ("拿起铁钥匙", "3", "匕首 ×1 已装备 铁钥匙 ×1", None),
        ("下去", "3", "匕首 ×1 已装备 铁钥匙 ×1", None),
        ("搜索", "3", "匕首 ×1 已装备 铁钥匙 ×1", None),
        ("拿起银圣杯", "3", "匕首 ×1 已装备 铁钥匙 ×1 银圣杯 ×1", None),
        ("上去", "3", "匕首 ×1 已装备 铁钥匙 ×1 银圣杯 ×1", None),
        ("往南走", "3", "匕首 ×1 已装备 铁钥匙 ×1 银圣杯 ×1", None),
        ("看告示板", "3", "匕首 ×1 已装备 铁钥匙 ×1 银圣杯 ×1", "进行中 悬赏：礼拜堂的圣杯"),
        ("往西走", "3", "匕首 ×1 已装备 铁钥匙 ×1 银圣杯 ×1", "进行中 悬赏：礼拜堂的圣杯"),
        ("把圣杯给神父", "23", "匕首 ×1 已装备 铁钥匙 ×1", "已完成 悬赏：礼拜堂的圣杯"),
    ],
}
LANGUAGES = {"en": EN, "es": ES, "zh": ZH}
# The world's English nouns and engine words, none of which a Spanish or Chinese page shows.
ENGLISH_NOUNS = [
    "Wayfarer", "Market Square", "Chapel", "Cellar", "Store", "iron key", "chalice", "trapdoor",
    "rug", "notice", "priest", "crates", "barrels", "coil of rope", "tankard", "dagger",
    "You ", "Ways on", " the ", "Is that", "What ",
]  # fmt: skip


def words(page: Any, selector: str) -> str:
    return " ".join(str(page.locator(selector).inner_text()).split())


def expect_sheet(page: Any, money: str, items: str, quest: str | None) -> None:
    """The Status panel once it has caught up with the turn (its frame follows the reply)."""
    expect(page.locator(f"{SHEET} [data-gm-money]")).to_have_text(money)
    expect(page.locator(f"{SHEET} [data-gm-items]")).to_have_text(
        re.compile(r"^\s*" + r"\s+".join(map(re.escape, items.split())) + r"\s*$"),
        use_inner_text=True,
    )
    quests = page.locator(f"{SHEET} [data-gm-quests]")
    if quest is None:
        expect(quests).to_have_count(0)
    else:
        expect(quests).to_contain_text(quest, use_inner_text=True)


def no_english(page: Any, language: str, reply: str) -> None:
    if language == "en":
        return
    shown = [reply, words(page, "[data-gm-scene]")]
    shown += [str(c) for c in page.locator(".choice").all_inner_texts()]
    for text in shown:
        for noun in ENGLISH_NOUNS:
            assert noun not in text, (noun, text)


def search_until_found(page: Any, action: str, found: str) -> str:
    for _ in range(MAX_SEARCHES):
        say(page, action)
        reply = last_reply(page)
        if found in reply:
            return reply
    raise AssertionError(f"{MAX_SEARCHES} searches found nothing")


@pytest.mark.parametrize("language", ["en", "es", "zh"])
def test_brackenford_is_played_to_the_main_quests_end(
    browser: Any, server: dict[str, Any], language: str
):
    page = open_page(browser, server, language)
    start(page, "Brackenford", "ren")
    page.wait_for_selector(f"{SHEET}:has-text('Ren Ashby')")
    table = LANGUAGES[language]
    first = table["route"][0]
    expect_sheet(page, first[1], first[2], None)
    for action, money, items, quest in table["route"]:
        if action == table["search"]:  # a search: a hidden roll, tried again until it finds
            reply = search_until_found(page, action, table["found"])
        else:
            say(page, action)
            reply = last_reply(page)
        expect_sheet(page, money, items, quest)
        no_english(page, language, reply)
    assert "20" in last_reply(page)
    page.locator("[data-side]").screenshot(path=f"/tmp/gm-quest-{language}.png")
    assert page.errors == []
