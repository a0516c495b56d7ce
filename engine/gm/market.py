"""Prices, shops and goods changing hands (seed 001 "Objetos: transferir, comprar, vender";
GAME_MASTER.md GM-W-9, W-12, W-16; issue 33 §1).

One place for what the master's item tools (``engine.gm.tools.items``) and the engine's trade
moves (``engine.gm.trade``, ``engine.gm.handover``) both do to the state, so that a loaf costs
the same whoever sells it. An item is one stack in one place: ``GMState.counts`` holds its units
(absent: one) and moves with it. A stocked good with a ``quantity`` is a supply the shop draws
from (``GMState.sold``); without one, the shop sells the item itself while it holds it. Holders
are replaced, never changed in place (state copies share them).
"""

from __future__ import annotations

from typing import Any

from engine.gm.scene import Scene
from engine.gm.state import GMState
from engine.gm.world import GameMaster, Holder, Item, Npc, Shop, Stock

Change = dict[str, Any]


def move_item(scene: Scene, item: Item, to: Holder) -> Change:
    """Give ``item`` a new holder (emptying the hand that held it); returns the change."""
    before = scene.state.items.get(item.id)
    scene.state.items[item.id] = to
    for who in scene.state.characters.values():
        if who.in_hand == item.id:
            who.in_hand = None
    dump = before.model_dump(mode="json", exclude_none=True) if before else None
    return {item.id: {"from": dump, "to": to.model_dump(mode="json", exclude_none=True)}}


# --- prices and shops ---------------------------------------------------------------------------


def offer(shop: Shop, item_id: str) -> Stock | None:
    """The shop's stock line for an item, if it sells it."""
    return next((s for s in shop.stock if s.item == item_id), None)


def price(gm: GameMaster, item: Item, shop: Shop | None = None) -> int:
    """The shop's price, else the world's price list (by item, then by kind), else the value."""
    stock = offer(shop, item.id) if shop is not None else None
    if stock is not None and stock.price is not None:
        return stock.price
    if item.id in gm.prices.items:
        return gm.prices.items[item.id]
    if item.kind and item.kind in gm.prices.kinds:
        return gm.prices.kinds[item.kind]
    return item.value


def shops_here(scene: Scene) -> list[Shop]:
    """The shops of this place whose keeper is here and on his feet."""
    present = {n.id for n in scene.npcs() if scene.state.npc_hp.get(n.id, n.hp) > 0}
    return [s for s in scene.gm.shops if s.location == scene.me.location and s.npc in present]


def share_paid(shop: Shop, item: Item) -> float | None:
    """The share of the price the shop pays for ``item``: what it buys by item, then by kind,
    then what it sells itself (at its ``buyShare``); None when it does not buy it."""
    for wanted in shop.buys:
        if wanted.item == item.id or (wanted.kind and wanted.kind == item.kind):
            return shop.buy_share if wanted.share is None else wanted.share
    return shop.buy_share if offer(shop, item.id) is not None else None


def sale_price(gm: GameMaster, shop: Shop, item: Item) -> int | None:
    """What the shop pays for ``item`` (rounded down), None when it does not buy it."""
    share = share_paid(shop, item)
    return None if share is None else int(price(gm, item, shop) * share)


def shop_of(gm: GameMaster, npc: Npc, location: str | None = None) -> Shop | None:
    """The NPC's shop (here, when a location is given)."""
    return next((s for s in gm.shops if s.npc == npc.id and location in (None, s.location)), None)


# --- units and supply ---------------------------------------------------------------------------


def units(state: GMState, item_id: str) -> int:
    """How many units the item's stack holds."""
    return state.counts.get(item_id, 1)


def _set_units(state: GMState, item_id: str, count: int) -> Change:
    before = units(state, item_id)
    if count == 1:
        state.counts.pop(item_id, None)
    else:
        state.counts[item_id] = count
    return {item_id: {"from": before, "to": count}}


def supply_left(state: GMState, shop: Shop, stock: Stock) -> int | None:
    """Units of a stocked good the shop can still sell (None: the item itself, no quantity)."""
    if stock.quantity is None:
        return None
    return stock.quantity - state.sold.get(f"{shop.id}:{stock.item}", 0)


def in_stock(scene: Scene, shop: Shop, item: Item) -> bool:
    """Whether the shop can sell the character one more unit of ``item``: from its supply, into
    the stack he holds or one still with the shop (an item is one stack: when someone else has
    it, the shop has none to sell)."""
    stock = offer(shop, item.id)
    if stock is None:
        return False
    at = scene.state.items.get(item.id)
    with_shop = at is None or at.npc == shop.npc
    left = supply_left(scene.state, shop, stock)
    if left is None:
        return with_shop
    return left > 0 and (with_shop or (at is not None and at.character == scene.character_id))


# --- exchanges ----------------------------------------------------------------------------------


def pay(scene: Scene, amount: int) -> Change:
    """Change the character's money by ``amount`` (negative: he pays)."""
    before = scene.me.money
    scene.me.money = max(0, before + amount)
    return {"money": {"from": before, "to": scene.me.money}}


def buy(scene: Scene, shop: Shop, item: Item, cost: int) -> Change:
    """The character pays ``cost`` and gets one unit of ``item`` from the shop's stock."""
    changes = pay(scene, -cost)
    at = scene.state.items.get(item.id)
    if at is not None and at.character == scene.character_id:
        changes["counts"] = _set_units(scene.state, item.id, units(scene.state, item.id) + 1)
    else:
        changes["items"] = move_item(scene, item, Holder(character=scene.character_id))
        if item.id in scene.state.counts:
            changes["counts"] = _set_units(scene.state, item.id, 1)
    stock = offer(shop, item.id)
    if stock is not None and stock.quantity is not None:
        key = f"{shop.id}:{item.id}"
        scene.state.sold[key] = scene.state.sold.get(key, 0) + 1
    return changes


def sell(scene: Scene, buyer: Npc, item: Item, paid: int) -> Change:
    """The character sells one unit of ``item`` to ``buyer`` for ``paid``: the last unit hands
    the item over; a shop that stocks the good has one more to sell."""
    changes = pay(scene, paid)
    count = units(scene.state, item.id)
    if count > 1:
        changes["counts"] = _set_units(scene.state, item.id, count - 1)
    else:
        changes["items"] = move_item(scene, item, Holder(npc=buyer.id))
    shop = shop_of(scene.gm, buyer)
    stock = offer(shop, item.id) if shop is not None else None
    if shop is not None and stock is not None and stock.quantity is not None:
        key = f"{shop.id}:{item.id}"
        scene.state.sold[key] = scene.state.sold.get(key, 0) - 1
    return changes
