"""One small village written in English, Spanish and Chinese, for the offline talk tables (issue
33 §3): an inn whose keeper knows the player character, a square with a moneylender who is wary
of him, a chapel whose priest has never met him, a mill, and a cellar behind a hidden way."""

from __future__ import annotations

from typing import Any

from engine.world import WorldDefinition, load_world

# The words of each language: places, people, things, what they tell and keep secret.
WORDS: dict[str, dict[str, str]] = {
    "en": {
        "inn": "The Drowsy Goose",
        "inn_alias": "inn",
        "square": "Market Square",
        "square_alias": "square",
        "chapel": "Chapel of the Lantern",
        "chapel_alias": "chapel",
        "mill": "The Old Mill",
        "mill_alias": "mill",
        "cellar": "The Cellar",
        "cellar_alias": "cellar",
        "marta": "Marta Hollis",
        "marta_alias": "Marta",
        "marta_trade": "innkeeper",
        "marta_look": "A stout woman with flour on her sleeves.",
        "marta_stranger": "The road to the mill turns to mud after the rains.",
        "marta_acquaintance": "The moneylender buys up every debt in the village.",
        "marta_friend": "A boat goes out by the mill every night.",
        "marta_concern": "The beer barrels are late this week.",
        "marta_secret": "She hides smuggled silver under the cellar floor.",
        "tomas": "Father Tomas",
        "tomas_alias": "Tomas",
        "tomas_trade": "priest",
        "tomas_look": "An old priest in a threadbare cassock.",
        "tomas_stranger": "The chalice vanished from the altar a week ago.",
        "tomas_acquaintance": "A lantern was seen near the mill at midnight.",
        "tomas_secret": "He sold the chalice himself to pay his gambling debts.",
        "greta": "Greta Vell",
        "greta_alias": "Greta",
        "greta_trade": "moneylender",
        "greta_look": "A thin woman in black wool, a ledger under her arm.",
        "greta_stranger": "Loans at fair interest, paid back on time.",
        "greta_secret": "She forged the deed of the mill.",
        "rope": "coil of rope",
        "rope_alias": "rope",
        "lantern": "hooded lantern",
        "lantern_alias": "lantern",
        "bread": "loaf of bread",
        "bread_alias": "bread",
        "chalice": "silver chalice",
        "chalice_alias": "chalice",
        "quest": "The missing chalice",
        "quest_summary": "Father Tomas pays ten silver for the chalice.",
        "ren": "Ren Ashby",
        "ada": "Ada Thorne",
        "ada_reputation": "A travelling priestess.",
    },
    "es": {
        "inn": "La Oca Dormida",
        "inn_alias": "posada",
        "square": "Plaza del Mercado",
        "square_alias": "plaza",
        "chapel": "Capilla del Farol",
        "chapel_alias": "capilla",
        "mill": "El Viejo Molino",
        "mill_alias": "molino",
        "cellar": "La Bodega",
        "cellar_alias": "bodega",
        "marta": "Marta Hollis",
        "marta_alias": "Marta",
        "marta_trade": "posadera",
        "marta_look": "Una mujer robusta con harina en las mangas.",
        "marta_stranger": "El camino del molino se vuelve barro cuando llueve.",
        "marta_acquaintance": "La prestamista compra todas las deudas del pueblo.",
        "marta_friend": "Una barca sale junto al molino cada noche.",
        "marta_concern": "Los barriles de cerveza llegan tarde esta semana.",
        "marta_secret": "Esconde plata de contrabando bajo el suelo de la bodega.",
        "tomas": "Padre Tomás",
        "tomas_alias": "Tomás",
        "tomas_trade": "cura",
        "tomas_look": "Un cura viejo con la sotana raída.",
        "tomas_stranger": "El cáliz desapareció del altar hace una semana.",
        "tomas_acquaintance": "Vieron un farol cerca del molino a medianoche.",
        "tomas_secret": "Vendió él mismo el cáliz para pagar sus deudas de juego.",
        "greta": "Greta Vell",
        "greta_alias": "Greta",
        "greta_trade": "prestamista",
        "greta_look": "Una mujer delgada vestida de lana negra, con un libro de cuentas.",
        "greta_stranger": "Préstamos a un interés justo, devueltos a tiempo.",
        "greta_secret": "Falsificó la escritura del molino.",
        "rope": "cuerda",
        "rope_alias": "soga",
        "lantern": "farol",
        "lantern_alias": "linterna",
        "bread": "hogaza de pan",
        "bread_alias": "pan",
        "chalice": "cáliz de plata",
        "chalice_alias": "cáliz",
        "quest": "El cáliz perdido",
        "quest_summary": "El padre Tomás paga diez monedas de plata por el cáliz.",
        "ren": "Ren Ashby",
        "ada": "Ada Thorne",
        "ada_reputation": "Una sacerdotisa viajera.",
    },
    "zh": {
        "inn": "瞌睡鹅客栈",
        "inn_alias": "客栈",
        "square": "集市广场",
        "square_alias": "广场",
        "chapel": "灯笼礼拜堂",
        "chapel_alias": "礼拜堂",
        "mill": "老磨坊",
        "mill_alias": "磨坊",
        "cellar": "地窖",
        "cellar_alias": "酒窖",
        "marta": "玛尔塔",
        "marta_alias": "玛尔塔",
        "marta_trade": "客栈老板娘",
        "marta_look": "一个袖子上沾着面粉的结实女人。",
        "marta_stranger": "一下雨，去磨坊的路就全是烂泥。",
        "marta_acquaintance": "放债人把村里的债都收走了。",
        "marta_friend": "每天夜里都有一条船从磨坊边出发。",
        "marta_concern": "这周的啤酒桶又晚到了。",
        "marta_secret": "她把走私的银器藏在地窖的地板下面。",
        "tomas": "托马斯神父",
        "tomas_alias": "托马斯",
        "tomas_trade": "神父",
        "tomas_look": "一个穿着破旧长袍的老神父。",
        "tomas_stranger": "圣杯一周前从祭坛上不见了。",
        "tomas_acquaintance": "半夜有人看见磨坊附近有灯笼。",
        "tomas_secret": "他自己把圣杯卖了去还赌债。",
        "greta": "格蕾塔",
        "greta_alias": "格蕾塔",
        "greta_trade": "放债人",
        "greta_look": "一个穿黑羊毛衣、腋下夹着账本的瘦女人。",
        "greta_stranger": "利息公道，按时还钱。",
        "greta_secret": "她伪造了磨坊的地契。",
        "rope": "绳子",
        "rope_alias": "绳",
        "lantern": "提灯",
        "lantern_alias": "灯",
        "bread": "面包",
        "bread_alias": "馒头",
        "chalice": "圣杯",
        "chalice_alias": "银杯",
        "quest": "失踪的圣杯",
        "quest_summary": "托马斯神父出十枚银币找回圣杯。",
        "ren": "任远",
        "ada": "艾达",
        "ada_reputation": "一位四处云游的女祭司。",
    },
}


def _place(w: dict[str, str], key: str, exits: list[dict[str, Any]]) -> dict[str, Any]:
    return {"id": key, "name": w[key], "aliases": [w[f"{key}_alias"]], "exits": exits}


def _npc(w: dict[str, str], key: str, **more: Any) -> dict[str, Any]:
    levels = ("stranger", "acquaintance", "friend")
    return {
        "id": key,
        "name": w[key],
        "aliases": [w[f"{key}_alias"]],
        "trade": w[f"{key}_trade"],
        "publicDescription": w[f"{key}_look"],
        "secret": {"text": w[f"{key}_secret"], "tellsTo": "nobody", "revealAtTrust": "ally"},
        "disclosures": {lv: w[f"{key}_{lv}"] for lv in levels if f"{key}_{lv}" in w},
        **more,
    }


def _item(w: dict[str, str], key: str, at: dict[str, str]) -> dict[str, Any]:
    return {"id": key, "name": w[key], "aliases": [w[f"{key}_alias"]], "at": at}


def village_data(language: str) -> dict[str, Any]:
    """The village in ``language`` as a world's JSON."""
    w = WORDS[language]
    hidden = {"direction": "down", "to": "cellar", "hidden": True}
    hidden["foundBy"] = {"check": "investigation", "dc": 15}  # type: ignore[assignment]
    locations = [
        _place(w, "inn", [{"direction": "south", "to": "square"}, hidden]),
        _place(w, "square", [{"direction": "north", "to": "inn"}, *_ways_from_square()]),
        _place(w, "chapel", [{"direction": "east", "to": "square"}]),
        _place(w, "mill", [{"direction": "west", "to": "square"}]),
        _place(w, "cellar", [{"direction": "up", "to": "inn"}]),
    ]
    npcs = [
        _npc(w, "marta", location="inn", knows=["ren"], trust={"ren": "acquaintance"}),
        _npc(w, "tomas", fixedPlace={"location": "chapel"}, needs=["bread"]),
        _npc(w, "greta", location="square", trust={"ren": "wary"}),
    ]
    npcs[0]["concerns"] = [w["marta_concern"]]
    items = [
        _item(w, "rope", {"location": "inn"}),
        _item(w, "lantern", {"npc": "marta"}),
        _item(w, "bread", {"location": "square"}),
        _item(w, "chalice", {"location": "cellar"}),
    ]
    characters = [
        {"id": "ren", "name": w["ren"], "location": "inn", "knownNames": ["marta", "greta"]},
        {
            "id": "ada",
            "name": w["ada"],
            "location": "square",
            "public": {"reputation": w["ada_reputation"]},
        },
    ]
    quest = {"id": "find-chalice", "title": w["quest"], "summary": w["quest_summary"]}
    return {
        "name": f"Village ({language})",
        "language": language,
        "gameMaster": {
            "locations": locations,
            "npcs": npcs,
            "items": items,
            "characters": characters,
            "quests": [{**quest, "owner": "tomas"}],
            "shops": [
                {
                    "id": "bar",
                    "npc": "marta",
                    "location": "inn",
                    "stock": [{"item": "lantern", "price": 5}],
                }
            ],
        },
    }


def _ways_from_square() -> list[dict[str, str]]:
    return [{"direction": "west", "to": "chapel"}, {"direction": "east", "to": "mill"}]


def village(language: str) -> WorldDefinition:
    return load_world(village_data(language))
