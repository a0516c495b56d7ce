"""Buying and selling as engine moves (issue 33 §1: "buy and sell with a trader present and a
price list in the world … money is a number the engine owns"; seed 001 "Objetos: comprar,
vender"; "Una llamada por acción": no model call).

``buy`` takes one unit of a good a trader here sells, at its price (``engine.gm.market``), when
the character can pay; ``sell`` gives one unit of what he carries to a trader here who buys it,
for the trader's share of its price. Each is refused with the sentence that says why ("You have
2 coins; the hooded lantern costs 5 coins", "Nobody here sells that", "Hilda doesn't buy the
coil of rope") and changes nothing then; done, it logs an event everyone present perceives
(buying is seen). The shared pieces of the hand-over moves live here too: who the words name,
how the event is written, the refusal and the question.
"""

from __future__ import annotations

from typing import Any

from engine.gm import market
from engine.gm.mentions import fold, folded_spans
from engine.gm.phrasebook import Phrasebook, phrasebook
from engine.gm.scene import EngineMove, MoveResult, ResultKind, Scene
from engine.gm.space import suggest
from engine.gm.state import GMEvent, log_event
from engine.gm.tools.base import label
from engine.gm.tradewords import coins, item_text, tradebook
from engine.gm.world import Item, Npc, Shop

Party = tuple[str, str]  # ("npc" | "character", id)
DOWN = ("dying", "unconscious", "stable")


# --- shared with engine.gm.handover -------------------------------------------------------------


def book_of(scene: Scene) -> Phrasebook:
    return tradebook(scene.lex.language)


def say(scene: Scene, kind: ResultKind, key: str, **values: Any) -> MoveResult:
    """A refusal or a question in the player's language; nothing changes."""
    book = book_of(scene)
    return MoveResult(kind, book.tidy(book.t(key, **values)))


def down(scene: Scene) -> bool:
    return scene.me.hp <= 0 or any(c in DOWN for c in scene.me.conditions)


def party_label(scene: Scene, party: Party) -> str:
    kind, ident = party
    if kind == "npc":
        return label(scene, scene.gm.npcs_by_id[ident])
    return scene.pc_label(ident)


def present(scene: Scene) -> list[Party]:
    """Who is here besides the character: the NPCs on their feet, then the characters."""
    npcs = [("npc", n.id) for n in scene.npcs() if scene.state.npc_hp.get(n.id, n.hp) > 0]
    return [*npcs, *(("character", c) for c in scene.others())]


def _names(scene: Scene, party: Party, book: Phrasebook) -> list[str]:
    kind, ident = party
    if kind == "character":
        return scene.pc_names(ident)
    npc = scene.gm.npcs_by_id[ident]
    same = book.table("trades").get(fold(npc.trade), []) if npc.trade else []
    return [*scene.npc_names_known(npc), *same]


def named_party(scene: Scene, move: EngineMove) -> tuple[Party | None, bool]:
    """The person the words name (first in the sentence; present ones win a tie), and whether
    he is here."""
    book, text = tradebook(move.language), fold(move.text)
    spaced = move.language != "zh"
    items = [
        s
        for i in scene.gm.items
        for n in [i.name, *i.aliases]
        for s in folded_spans(text, n, spaced)
    ]
    here = present(scene)
    everyone = [("npc", n.id) for n in scene.gm.npcs]
    everyone += [("character", c) for c in scene.state.characters if c != scene.character_id]
    hits: list[tuple[int, bool, Party]] = []
    for party in everyone:
        for name in _names(scene, party, book):
            for start, end in folded_spans(text, name, spaced):
                if not any(s <= start and end <= e for s, e in items):
                    hits.append((start, party not in here, party))
    if not hits:
        return None, False
    _, away, party = min(hits)
    return party, not away


def log(scene: Scene, kind: str, key: str, data: dict[str, Any], **values: Any) -> GMEvent:
    """The move's event in the world's language, seen by everyone here; each NPC named as all
    of them know it, each item by the world's name."""
    words, names = tradebook(scene.world_lex.language), phrasebook(scene.world_lex.language)
    witnesses = scene.witnesses()
    readers = list(dict.fromkeys([scene.character_id, *witnesses]))
    world = scene.world_gm  # the world's own words, whatever the narration's (engine.gm.localize)
    shown = {
        k: label(scene, world.npcs_by_id.get(v.id, v), readers, names)
        if isinstance(v, Npc)
        else item_text(scene, words, world.items_by_id.get(v.id, v))
        if isinstance(v, Item)
        else v
        for k, v in values.items()
    }
    text = words.tidy(words.t(key, actor=scene.name, **shown))
    return log_event(
        scene.state,
        kind,
        scene.character_id,
        scene.me.location,
        text,
        seen_by=witnesses,
        data=data,
        at=scene.at,
    )


def pick(scene: Scene, move: EngineMove, pool: list[Item]) -> tuple[Item | None, list[Item]]:
    """The item the move names among ``pool``: the one its words named (a world noun, exactly:
    a guess by spelling would sell a "sword" as a "linterna sorda")."""
    wanted = (move.slots or {}).get("item")
    found = [i for i in pool if i.id == wanted]
    return (found[0] if found else None), found


# --- buying ------------------------------------------------------------------------------------


def _wares(scene: Scene, shops: list[Shop]) -> str:
    book = book_of(scene)
    lines = []
    for shop in shops:
        for stock in shop.stock:
            item = scene.gm.items_by_id[stock.item]
            if market.in_stock(scene, shop, item):
                cost = coins(book, market.price(scene.gm, item, shop))
                lines.append(book.t("ware", item=item.name, price=cost))
    return scene.lex.join(dict.fromkeys(lines)) or "-"


def _sellers(scene: Scene, move: EngineMove) -> list[Shop] | MoveResult:
    """The shops the buyer can buy from here: the one he names, else every one here."""
    shops = market.shops_here(scene)
    party, here = named_party(scene, move)
    if party is None or party[0] != "npc":
        return shops or say(scene, "refused", "no_trader")
    npc = scene.gm.npcs_by_id[party[1]]
    if not here:
        return say(scene, "refused", "trader_absent", seller=label(scene, npc))
    mine = [s for s in shops if s.npc == npc.id]
    return mine or say(scene, "refused", "no_trader")


def buy(move: EngineMove, scene: Scene) -> MoveResult:
    """Buy one unit of a good a trader here sells; refused when impossible, asked when vague."""
    if down(scene):
        return say(scene, "refused", "cannot_act")
    shops = _sellers(scene, move)
    if isinstance(shops, MoveResult):
        return shops
    seller = label(scene, scene.gm.npcs_by_id[shops[0].npc])
    stocked = dict.fromkeys(s.item for shop in shops for s in shop.stock)
    item, found = pick(scene, move, [scene.gm.items_by_id[i] for i in stocked])
    if item is None:
        return _not_sold(scene, move, shops, seller, found)
    shop = next((s for s in shops if market.in_stock(scene, s, item)), None)
    if shop is None:
        return say(scene, "refused", "sold_out", seller=seller, item=_name(scene, item))
    seller = label(scene, scene.gm.npcs_by_id[shop.npc])
    cost = market.price(scene.gm, item, shop)
    book = book_of(scene)
    if scene.me.money < cost:
        have, price = coins(book, scene.me.money), coins(book, cost)
        return say(scene, "refused", "too_poor", money=have, item=_name(scene, item), price=price)
    changes = market.buy(scene, shop, item, cost)
    npc = scene.gm.npcs_by_id[shop.npc]
    event = log(
        scene,
        "buy",
        "ev_buy",
        {"item": item.id, "npc": npc.id, "price": cost},
        item=item,
        seller=npc,
    )
    text = book.t(
        "buy",
        item=_name(scene, item),
        seller=seller,
        price=coins(book, cost),
        money=coins(book, scene.me.money),
    )
    return MoveResult("engine", book.tidy(text), [event], changes, suggest(scene))


def _not_sold(
    scene: Scene, move: EngineMove, shops: list[Shop], seller: str, found: list[Item]
) -> MoveResult:
    wares, one = _wares(scene, shops), len({s.npc for s in shops}) == 1
    if len(found) > 1:
        return say(scene, "ask", "ambiguous", options=scene.lex.join(i.name for i in found))
    wanted = scene.gm.items_by_id.get((move.slots or {}).get("item", ""))
    if wanted is not None:
        key = "not_sold_item" if one else "no_trader_item"
        return say(scene, "refused", key, seller=seller, item=_name(scene, wanted), wares=wares)
    if not move.target:
        return say(scene, "ask", "buy_ask" if one else "buy_ask_many", seller=seller, wares=wares)
    key = "not_sold" if one else "not_sold_many"
    return say(scene, "refused", key, seller=seller, ref=move.target, wares=wares)


def _name(scene: Scene, item: Item, count: bool = False) -> str:
    return item_text(scene, book_of(scene), item, count=count)


# --- selling -----------------------------------------------------------------------------------


def _buyers(scene: Scene, move: EngineMove, item: Item) -> tuple[Shop, int] | MoveResult:
    """The shop here that buys ``item`` (the one named, else the first), and what it pays."""
    shops = market.shops_here(scene)
    party, here = named_party(scene, move)
    if party is not None and party[0] == "npc":
        npc = scene.gm.npcs_by_id[party[1]]
        if not here:
            return say(scene, "refused", "buyer_absent", buyer=label(scene, npc))
        shops = [s for s in shops if s.npc == npc.id]
        if not shops:
            return say(
                scene, "refused", "not_bought", buyer=label(scene, npc), item=_name(scene, item)
            )
    if not shops:
        return say(scene, "refused", "no_buyer")
    willing = [s for s in shops if market.share_paid(s, item) is not None]
    if not willing:
        if len({s.npc for s in shops}) == 1:
            buyer = label(scene, scene.gm.npcs_by_id[shops[0].npc])
            return say(scene, "refused", "not_bought", buyer=buyer, item=_name(scene, item))
        return say(scene, "refused", "nobody_buys", item=_name(scene, item))
    shop = max(willing, key=lambda s: market.sale_price(scene.gm, s, item) or 0)
    return shop, market.sale_price(scene.gm, shop, item) or 0


def sell(move: EngineMove, scene: Scene) -> MoveResult:
    """Sell one unit of a carried item to a trader here who buys it, at his share of its price."""
    if down(scene):
        return say(scene, "refused", "cannot_act")
    carried = scene.carried()
    if not carried:
        return say(scene, "refused", "carry_nothing")
    item = carried_item(scene, move, carried, "sell_ask")
    if isinstance(item, MoveResult):
        return item
    deal = _buyers(scene, move, item)
    if isinstance(deal, MoveResult):
        return deal
    shop, paid = deal
    npc = scene.gm.npcs_by_id[shop.npc]
    if paid < 1:
        return say(scene, "refused", "worthless", buyer=label(scene, npc), item=_name(scene, item))
    changes = market.sell(scene, npc, item, paid)
    event = log(
        scene,
        "sell",
        "ev_sell",
        {"item": item.id, "npc": npc.id, "price": paid},
        item=item,
        buyer=npc,
    )
    book = book_of(scene)
    text = book.t(
        "sell",
        item=_name(scene, item),
        buyer=label(scene, npc),
        price=coins(book, paid),
        money=coins(book, scene.me.money),
    )
    return MoveResult("engine", book.tidy(text), [event], changes, suggest(scene))


def carried_item(
    scene: Scene, move: EngineMove, carried: list[Item], ask: str
) -> Item | MoveResult:
    """The carried item the move is about, or the refusal or question that says which."""
    item, found = pick(scene, move, carried)
    if item is not None:
        return item
    options = scene.lex.join(i.name for i in carried)
    wanted = scene.gm.items_by_id.get((move.slots or {}).get("item", ""))
    if wanted is not None:
        return say(scene, "refused", "not_carried_item", item=_name(scene, wanted))
    if len(found) > 1:
        return say(scene, "ask", "ambiguous", options=scene.lex.join(i.name for i in found))
    if not move.target:
        return say(scene, "ask", ask, options=options)
    return say(scene, "refused", "not_carried", ref=move.target, options=options)
