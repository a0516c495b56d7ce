"""Item tools (seed 001 "Objetos: transferir, comprar, vender, recolectar"; "lo que lleva en la
mano"; GAME_MASTER.md GM-W-9…W-12).

Each item is in exactly one place, so a transfer checks that the giver holds it and the receiver
is present; a purchase that a shop here sells it and the buyer can pay its price; a sale that
the seller carries it (a pawned item is the pawnbroker's until redeemed). Prices are the
engine's: the shop's, and half of it (or half the value) when selling, as in the SRD. Gathering
fills a character resource from what the place yields, so many per game day. Prices, stock
and the exchange itself are ``engine.gm.market``'s, shared with the engine's trade moves.
"""

from __future__ import annotations

from engine.gm import handin, market
from engine.gm.market import move_item as move_item
from engine.gm.scene import Scene
from engine.gm.tools import refs
from engine.gm.tools.base import (
    Args,
    Tool,
    ToolOutcome,
    book,
    can_act,
    fail,
    label,
    number,
    opt,
    params,
    record,
    text,
)
from engine.gm.words import match_names
from engine.gm.world import Holder, Item, Npc, Resource


def _holder(scene: Scene, kind: refs.PartyKind, ident: str) -> Holder:
    if kind == "character":
        return Holder(character=ident)
    if kind == "npc":
        return Holder(npc=ident)
    return Holder(location=scene.me.location, point=scene.me.point)


def _giver(scene: Scene, item: Item) -> tuple[refs.PartyKind, str]:
    at = scene.state.items.get(item.id)
    if at is None or at.location is not None:
        return "here", scene.me.location
    return ("npc", at.npc) if at.npc else ("character", str(at.character))


def _who(scene: Scene, kind: refs.PartyKind, ident: str) -> Npc | str:
    """A party as ``record`` names it (an NPC by its label for the witnesses)."""
    return scene.gm.npcs_by_id[ident] if kind == "npc" else refs.party_name(scene, kind, ident)


def transfer_item(scene: Scene, args: Args) -> ToolOutcome:
    can_act(scene)
    item = refs.item_among(scene, str(args["item"]), refs.within_reach(scene))
    giver = _giver(scene, item)
    named = opt(args, "from")
    if named is not None and refs.party(scene, named, here=True) != giver:
        holder = refs.party_name(scene, *refs.party(scene, named, here=True))
        raise fail(scene, "not_held", "not-held", holder=holder, item=item.name)
    kind, ident = refs.party(scene, str(args["to"]), here=True)
    if kind == "character" and scene.state.characters[ident].location != scene.me.location:
        raise fail(scene, "not_here", "absent", name=refs.party_name(scene, kind, ident))
    if (kind, ident) == giver:
        raise fail(scene, "give_self", "no-change", item=item.name)
    if giver[0] == "npc" and any(p.item == item.id for p in scene.state.pawns):
        raise fail(scene, "pawned", "pawned", item=item.name)
    change = move_item(scene, item, _holder(scene, kind, ident))
    key = "ev_pick" if giver[0] == "here" else "ev_put" if kind == "here" else "ev_give"
    outcome = record(
        scene,
        "give",
        key,
        data={"item": item.id},
        giver=_who(scene, *giver),
        receiver=_who(scene, kind, ident),
        item=item.name,
    )
    outcome.changes["items"] = change
    mine = giver == ("character", scene.character_id)
    done = handin.hand_in(scene, item.id, ident) if mine and kind == "npc" else None
    if done is not None:  # an errand's world rule: the master's hand-over completes it too
        outcome.events += done.events
        outcome.result["done"] = " ".join([outcome.result["done"], *done.lines])
        outcome.changes.update({k: v for k, v in done.changes.items() if k != "items"})
        outcome.changes["items"] = {**change, **done.changes.get("items", {})}
    return outcome


def buy_item(scene: Scene, args: Args) -> ToolOutcome:
    can_act(scene)
    shops = market.shops_here(scene)
    if opt(args, "shop") is not None:
        seller = refs.npc_here(scene, str(args["shop"]))
        shops = [s for s in shops if s.npc == seller.id]
    if not shops:
        raise fail(scene, "no_shop", "no-shop")
    shop = shops[0]
    wares = [scene.gm.items_by_id[s.item] for s in shop.stock]
    item = refs.item_among(scene, str(args["item"]), wares, "not_for_sale")
    if not market.in_stock(scene, shop, item):
        raise fail(scene, "sold_out", "sold-out", item=item.name)
    price, before = market.price(scene.gm, item, shop), scene.me.money
    if before < price:
        raise fail(scene, "too_poor", "too-poor", item=item.name, price=price, money=before)
    changes = market.buy(scene, shop, item, price)
    seller_npc = scene.gm.npcs_by_id[shop.npc]
    outcome = record(
        scene,
        "buy",
        "ev_buy",
        data={"item": item.id},
        item=item.name,
        seller=seller_npc,
        price=price,
    )
    outcome.changes.update(changes)
    return outcome


def sale_price(scene: Scene, buyer: Npc, item: Item) -> int:
    """What the buyer's shop pays for it when it buys it, else half the item's value (the
    master may have anyone buy anything)."""
    shop = market.shop_of(scene.gm, buyer)
    paid = market.sale_price(scene.gm, shop, item) if shop is not None else None
    return item.value // 2 if paid is None else paid


def sell_item(scene: Scene, args: Args) -> ToolOutcome:
    can_act(scene)
    item = refs.item_among(scene, str(args["item"]), scene.carried(), "not_carried")
    if opt(args, "to") is not None:
        buyer = refs.npc_here(scene, str(args["to"]))
    else:
        shops = market.shops_here(scene)
        if not shops:
            raise fail(scene, "sell_to_whom", "no-buyer")
        buyer = scene.gm.npcs_by_id[shops[0].npc]
    price = sale_price(scene, buyer, item)
    if price < 1:
        raise fail(scene, "no_buyer", "no-buyer", buyer=label(scene, buyer), item=item.name)
    changes = market.sell(scene, buyer, item, price)
    outcome = record(
        scene, "sell", "ev_sell", data={"item": item.id}, item=item.name, buyer=buyer, price=price
    )
    outcome.changes.update(changes)
    return outcome


def gather(scene: Scene, args: Args) -> ToolOutcome:
    can_act(scene)
    here = scene.location
    if not here.gatherables:
        raise fail(scene, "nothing_to_gather", "nothing-to-gather")
    wanted = str(args["resource"])
    found = match_names(
        scene.lex, wanted, [(g.resource, [g.resource, g.name]) for g in here.gatherables]
    )
    source = next((g for g in here.gatherables if [g.resource] == found), None)
    if source is None:
        options = scene.lex.join(g.name or g.resource for g in here.gatherables)
        raise fail(scene, "no_gatherable", "nothing-to-gather", ref=wanted, options=options)
    key = f"{here.id}:{source.resource}:{scene.state.clock.day}"
    left = source.per_day - scene.state.gathered.get(key, 0)
    name = source.name or source.resource
    if left <= 0:
        raise fail(scene, "gathered_out", "gathered-out", resource=name)
    amount = min(int(args.get("amount") or 1), left)
    scene.state.gathered[key] = scene.state.gathered.get(key, 0) + amount
    pool = scene.me.resources.setdefault(source.resource, Resource())
    before = pool.current
    pool.current += amount
    outcome = record(
        scene,
        "gather",
        "ev_gather",
        data={"resource": source.resource},
        resource=name,
        amount=amount,
    )
    change = {source.resource: {"from": before, "to": pool.current}}
    outcome.changes["resources"] = change
    return outcome


def hold_item(scene: Scene, args: Args) -> ToolOutcome:
    ref, before = opt(args, "item"), scene.me.in_hand
    item = refs.item_among(scene, ref, scene.carried(), "not_carried") if ref else None
    scene.me.in_hand = item.id if item else None
    if item is not None:
        done = book(scene).t("hold", actor=scene.name, item=item.name)
    else:
        done = book(scene).t("hold_nothing", actor=scene.name)
    return ToolOutcome(
        True, {"done": done}, changes={"inHand": {"from": before, "to": scene.me.in_hand}}
    )


TOOLS = [
    Tool(
        "transfer_item",
        "Move an item from whoever holds it (the character, an NPC present, or the place) to "
        "someone present or to the place: giving, handing over, putting down, picking up.",
        params(
            ("item", "to"),
            item=text("The item (name or id).", 80),
            to=text("Who receives it: 'me', a character, an NPC present, or 'here'.", 80),
            **{"from": text("Who gives it, to check (default: whoever holds it).", 80)},
        ),
        transfer_item,
    ),
    Tool(
        "buy_item",
        "Buy an item from a shop here whose keeper is present, at the shop's price (the engine "
        "takes the money; the character must afford it).",
        params(
            ("item",),
            item=text("The item (name or id).", 80),
            shop=text("The shopkeeper, when several shops are here.", 80),
        ),
        buy_item,
    ),
    Tool(
        "sell_item",
        "Sell an item the character carries to an NPC present (the shopkeeper here by default) "
        "for half its price: the engine computes it.",
        params(
            ("item",),
            item=text("The item (name or id).", 80),
            to=text("The buyer (an NPC present).", 80),
        ),
        sell_item,
    ),
    Tool(
        "gather",
        "Gather what this place yields (herbs, firewood…) into the character's resources, so "
        "much per game day.",
        params(
            ("resource",),
            resource=text("What to gather.", 80),
            amount=number("How much (default 1).", 1, 10),
        ),
        gather,
    ),
    Tool(
        "hold_item",
        "Put a carried item in the character's hand (a weapon to fight with, a lantern), or "
        "empty the hand when no item is given.",
        params(item=text("The item (name or id); omit to empty the hand.", 80)),
        hold_item,
    ),
]
