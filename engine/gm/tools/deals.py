"""Deal tools (seed 001 "Tratos: deudas y prendas como estado (set_debt, settle_debt,
pawn_item)"; the closure check rejects a deal narrated without one of them).

A debt is between the acting character and someone present; paying moves the money the engine
holds, and settling a pawn's debt in full gives the pawned item back. A pawnbroker lends at most
what an item is worth (half of it unless told), and the loan is a debt like any other.
"""

from __future__ import annotations

from typing import Any

from engine.gm.scene import Scene
from engine.gm.tools import refs
from engine.gm.tools.base import (
    Args,
    Tool,
    ToolOutcome,
    can_act,
    fail,
    flag,
    new_id,
    number,
    opt,
    params,
    record,
    text,
)
from engine.gm.tools.items import move_item
from engine.gm.world import Debt, Holder, Item, Npc, Pawn

Party = tuple[refs.PartyKind, str]


def _present(scene: Scene, party: Party) -> None:
    kind, ident = party
    if kind == "character" and scene.state.characters[ident].location != scene.me.location:
        raise fail(scene, "not_here", "absent", name=refs.party_name(scene, kind, ident))


def _who(scene: Scene, ident: str) -> Npc | str:
    npc = scene.gm.npcs_by_id.get(ident)
    if npc is not None:
        return npc
    return scene.gm.characters_by_id[ident].name


def _pay(scene: Scene, payer: str, payee: str, amount: int) -> dict[str, Any]:
    """Move money between characters (NPC purses are not kept); ToolError when short."""
    changes: dict[str, Any] = {}
    sheet = scene.state.characters.get(payer)
    if sheet is not None:
        if sheet.money < amount:
            name = scene.gm.characters_by_id[payer].name
            raise fail(scene, "pay_short", "too-poor", actor=name, money=sheet.money, amount=amount)
        changes[payer] = {"from": sheet.money, "to": sheet.money - amount}
        sheet.money -= amount
    receiver = scene.state.characters.get(payee)
    if receiver is not None:
        changes[payee] = {"from": receiver.money, "to": receiver.money + amount}
        receiver.money += amount
    return {"money": changes} if changes else {}


def set_debt(scene: Scene, args: Args) -> ToolOutcome:
    debtor, creditor = (
        refs.party(scene, str(args["debtor"])),
        refs.party(scene, str(args["creditor"])),
    )
    for party in (debtor, creditor):
        _present(scene, party)
    if debtor == creditor:
        raise fail(scene, "debt_self", "debt-parties")
    if ("character", scene.character_id) not in (debtor, creditor):
        raise fail(scene, "debt_party", "debt-parties", actor=scene.name)
    amount = int(args["amount"])
    days = args.get("due_in_days")
    debt = Debt(
        id=new_id("debt", {d.id for d in scene.state.debts}),
        debtor=debtor[1],
        creditor=creditor[1],
        amount=amount,
        due_day=scene.state.clock.day + days if isinstance(days, int) else None,
        note=opt(args, "note") or "",
    )
    paid = _pay(scene, creditor[1], debtor[1], amount) if args.get("cash") else {}
    scene.state.debts.append(debt)
    outcome = record(
        scene,
        "deal",
        "ev_debt",
        data={"debt": debt.id},
        debtor=_who(scene, debt.debtor),
        creditor=_who(scene, debt.creditor),
        amount=amount,
    )
    outcome.result["debt"] = debt.id
    outcome.changes = {"debts": [debt.model_dump(mode="json", by_alias=True)], **paid}
    return outcome


def _debt(scene: Scene, args: Args) -> Debt:
    me = scene.character_id
    mine = [d for d in scene.state.debts if me in (d.debtor, d.creditor)]
    if opt(args, "debt") is not None:
        mine = [d for d in mine if d.id == args["debt"]]
    if opt(args, "with") is not None:
        other = refs.party(scene, opt(args, "with"))[1]
        mine = [d for d in mine if other in (d.debtor, d.creditor)]
    if len(mine) == 1:
        return mine[0]
    if not mine:
        raise fail(scene, "debt_unknown", "unknown-debt", actor=scene.name)
    listed = [f"{d.id} ({d.amount})" for d in mine]
    raise fail(scene, "debt_which", "ambiguous", options=scene.lex.join(listed))


def settle_debt(scene: Scene, args: Args) -> ToolOutcome:
    debt = _debt(scene, args)
    other = debt.creditor if debt.debtor == scene.character_id else debt.debtor
    if other in scene.gm.npcs_by_id:
        refs.npc_here(scene, other)
    else:
        _present(scene, ("character", other))
    pay = int(args.get("amount") or debt.amount)
    if pay > debt.amount:
        raise fail(scene, "amount_over", "amount-over", remaining=debt.amount)
    changes = _pay(scene, debt.debtor, debt.creditor, pay)
    left = debt.amount - pay
    scene.state.debts = [
        d.model_copy(update={"amount": left}) if d.id == debt.id else d
        for d in scene.state.debts
        if d.id != debt.id or left > 0
    ]
    if left == 0:
        changes.update(_redeem(scene, debt))
    outcome = record(
        scene,
        "deal",
        "ev_settle",
        data={"debt": debt.id},
        debtor=_who(scene, debt.debtor),
        creditor=_who(scene, debt.creditor),
        amount=pay,
    )
    outcome.result["left"] = left
    outcome.changes = {"debts": {debt.id: left}, **changes}
    return outcome


def _redeem(scene: Scene, debt: Debt) -> dict[str, Any]:
    """A debt paid in full gives its pawned items back to their owners."""
    items: dict[str, Any] = {}
    for pawn in [p for p in scene.state.pawns if p.debt == debt.id]:
        if pawn.owner in scene.state.characters:
            items.update(
                move_item(scene, scene.gm.items_by_id[pawn.item], Holder(character=pawn.owner))
            )
    scene.state.pawns = [p for p in scene.state.pawns if p.debt != debt.id]
    return {"items": items} if items else {}


def _pawn(scene: Scene, item: Item, npc: Npc, amount: int) -> Debt:
    """Record the pawn and the loan it secures (a debt like any other)."""
    debt = Debt(
        id=new_id("debt", {d.id for d in scene.state.debts}),
        debtor=scene.character_id,
        creditor=npc.id,
        amount=amount,
        note=item.name,
    )
    scene.state.debts.append(debt)
    pawn = Pawn(
        item=item.id, owner=scene.character_id, held_by=npc.id, redeem_price=amount, debt=debt.id
    )
    scene.state.pawns.append(pawn)
    return debt


def pawn_item(scene: Scene, args: Args) -> ToolOutcome:
    can_act(scene)
    item = refs.item_among(scene, str(args["item"]), scene.carried(), "not_carried")
    npc = refs.npc_here(scene, str(args["to"]))
    if item.value < 1:
        raise fail(scene, "pawn_worthless", "pawn-worthless", item=item.name)
    amount = int(args.get("amount") or max(1, item.value // 2))
    if amount > item.value:
        raise fail(scene, "pawn_over", "pawn-over", item=item.name, max=item.value)
    debt = _pawn(scene, item, npc, amount)
    changes = move_item(scene, item, Holder(npc=npc.id))
    before = scene.me.money
    scene.me.money += amount
    outcome = record(
        scene,
        "deal",
        "ev_pawn",
        data={"item": item.id, "debt": debt.id},
        item=item.name,
        npc=npc,
        amount=amount,
    )
    outcome.result["debt"] = debt.id
    outcome.changes = {
        "items": changes,
        "money": {scene.character_id: {"from": before, "to": scene.me.money}},
        "debts": [debt.model_dump(mode="json", by_alias=True)],
    }
    return outcome


TOOLS = [
    Tool(
        "set_debt",
        "Record a debt agreed between the acting character and someone present (a loan, a bet, "
        "a promise to pay). With cash, the creditor hands the money over now.",
        params(
            ("debtor", "creditor", "amount"),
            debtor=text("Who owes: 'me', a character or an NPC present.", 80),
            creditor=text("Who is owed.", 80),
            amount=number("How much.", 1, 1_000_000),
            due_in_days=number("Due in this many game days.", 0, 365),
            note=text("What it is for.", 160),
            cash=flag("The money changes hands now (a loan)."),
        ),
        set_debt,
    ),
    Tool(
        "settle_debt",
        "Pay a debt of the acting character (or to him), all of it by default; paid in full, "
        "a pawned item comes back. The other party must be present.",
        params(
            debt=text("The debt's id, if known.", 40),
            amount=number("How much is paid (default: all).", 1, 1_000_000),
            **{"with": text("The other party (when the id is not known).", 80)},
        ),
        settle_debt,
    ),
    Tool(
        "pawn_item",
        "Pawn an item the character carries with an NPC present: he gets a loan (half its "
        "value by default, at most its value) and it is his again when the debt is paid.",
        params(
            ("item", "to"),
            item=text("The item (name or id).", 80),
            to=text("The NPC who takes it (id or name).", 80),
            amount=number("The loan, at most the item's value.", 1, 1_000_000),
        ),
        pawn_item,
    ),
]
