"""What the offline master reads as risky and which check it asks for (seed 001 "El máster sí:
Elige qué prueba pide cada acción", "Intención antes de efecto y el dado"; GAME_MASTER.md GM-R-1…
R-7; issue 33 §2 "Only the master decides what needs a check").

The engine never decides a check: in live mode a risky act goes to the master like any other,
and the master asks for a roll through ``request_skill_check``/``request_attack``. Offline,
the offline master is this reading: a small lexicon per language (``risky`` in
``engine/gm/lexicon/*.json``: attack, climb, sneak, persuade, steal, search…, and the theft
idioms of ``offline.<lang>.json``: "pick Greta's pocket", "le robo la bolsa a Greta",
"我偷格蕾塔的钱包") says what is risky and which check it takes. The act is read as players write
it: after a subject, an attempt ("I try to", "intento", "试着") or, in Spanish, an object
pronoun ("le robo", "robarle"); the one it is done to is found by a name the character knows
anywhere in the rest (possessives included). An act with consequences and no target, while
several could be meant ("attack" with three people about), asks first. A risky act ends the
turn with a pending check: the play page shows the Roll button, and ``{"roll": true}``
resolves it (``engine.gm.outcomes``). A search is a hidden roll: rolled at once, no button and
no breakdown for the player. ``engine.gm.moves.classify`` reads the same verbs only to leave
such acts to the master, and ``deed`` tells the talk flow that an act is no speech.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from engine.gm.mentions import mentioned, mentions
from engine.gm.phrasebook import Phrasebook, load_book
from engine.gm.scene import Scene
from engine.gm.state import PendingCheck, items_held
from engine.gm.trust import trust_level
from engine.gm.words import (
    LANGUAGES,
    Lexicon,
    RiskyVerb,
    lexicon,
    match_names,
    match_phrase,
    normalize,
    starts_with,
    strip_fillers,
    without_subject,
)
from engine.gm.world import Npc, TrustLevel

# A social check is harder the less the NPC trusts the character.
SOCIAL_DC: dict[TrustLevel, int] = {
    "hostile": 25,
    "wary": 20,
    "stranger": 15,
    "acquaintance": 15,
    "friend": 10,
    "ally": 5,
}
SOCIAL = ("persuade", "intimidate", "deceive")
MAX_READINGS = 24  # ways of reading one sentence (subject, attempt, pronoun taken off)


@dataclass(frozen=True)
class RiskyAction:
    verb: RiskyVerb
    target: str  # the normalised rest of the sentence
    language: str
    text: str


@dataclass
class RiskPlan:
    """What a risky action leads to before any die: ask, refuse, wait for the roll, or roll
    hidden now (``pending`` then holds the check to resolve at once)."""

    kind: Literal["ask", "refused", "pending", "hidden"]
    narration: str = ""
    pending: PendingCheck | None = None
    suggestions: list[str] = field(default_factory=list)


def offline_book(language: str | None) -> Phrasebook:
    """The offline master's words (``engine/gm/lexicon/offline.<lang>.json``)."""
    return load_book("offline", language)


def classify_risky(text: str, languages: list[str]) -> RiskyAction | None:
    """The risky act ``text`` is, read in the first language that has one (the offline
    master's reading; see the module)."""
    for code in languages:
        lex = lexicon(code)
        table = {verb.key: verb.words for verb in lex.risky.values()}
        for candidate in readings(lex, normalize(text)):
            pocket = _pocket(lex, candidate)
            if pocket is not None and "steal" in lex.risky:
                return RiskyAction(lex.risky["steal"], pocket, code, text)
            key, rest, length = match_phrase(lex, candidate, table)
            if length:
                return RiskyAction(lex.risky[key], strip_fillers(lex, rest), code, text)
    return None


def deed(text: str, language: str | None) -> bool:
    """A risky act that is no speech (a theft, a climb, a blow…): it talks to nobody, even
    when it names someone. Persuading, threatening or lying are words, and stay talk."""
    first = lexicon(language or "en").language  # engine.gm.moves imports the tools: no cycle
    order = [first, *(code for code in LANGUAGES if code != first)]
    found = classify_risky(text, order)
    return found is not None and found.verb.key not in SOCIAL


def readings(lex: Lexicon, text: str) -> list[str]:
    """``text`` as typed, then with its subject, an attempt ("try to", "intento", "试着") or a
    Spanish object pronoun ("le robo", "robarle") taken off, in every order, as typed first."""
    book = offline_book(lex.language)
    out, at = [text], 0
    while at < len(out) and len(out) < MAX_READINGS:
        candidate, at = out[at], at + 1
        found = [
            *without_subject(lex, candidate)[1:],
            *_after_any(lex, candidate, book.list("attempt")),
            *_after_any(lex, candidate, book.list("clitics")),
            *_enclitic(lex, candidate, book.list("enclitics")),
        ]
        out.extend(rest for rest in found if rest and rest not in out)
    return out


def _after_any(lex: Lexicon, text: str, phrases: tuple[str, ...]) -> list[str]:
    found = (starts_with(lex, text, normalize(phrase)) for phrase in phrases)
    return [rest for rest in found if rest]


def _enclitic(lex: Lexicon, text: str, endings: tuple[str, ...]) -> list[str]:
    """The first word without a pronoun fused to it ("robarle la bolsa" → "robar la bolsa")."""
    if not lex.spaced or not text:
        return []
    first, _, rest = text.partition(" ")
    return [
        f"{first[: -len(end)]} {rest}".strip()
        for end in endings
        if first.endswith(end) and len(first) > len(end) + 2
    ]


def _pocket(lex: Lexicon, text: str) -> str | None:
    """The rest after a pocket-picking verb whose object is a pocket or purse ("pick the
    moneylender's pocket", "vacío los bolsillos de Greta", "扒格蕾塔的口袋"); None otherwise."""
    book = offline_book(lex.language)
    for verb in sorted(book.list("pocket_verbs"), key=len, reverse=True):
        rest = starts_with(lex, text, normalize(verb))
        if rest and any(mentions(rest, thing, lex.spaced) for thing in book.list("pocket_objects")):
            return strip_fillers(lex, rest)
    return None


def plan_risk(action: RiskyAction, scene: Scene) -> RiskPlan:
    """Decide the check of a risky action, or ask for its missing target; changes nothing."""
    verb, lex = action.verb, scene.lex
    verb_name = lex.name("verbs", verb.key)
    target: Npc | None = None
    item: str | None = None
    if verb.target is not None:
        found = _target(action, scene)
        if isinstance(found, RiskPlan):
            return found
        target, item = found
    if verb.kind == "attack":
        assert target is not None
        pending = _pending(action, "attack", None, target.ac, target.id, None)
        narration = lex.t("pending_attack", target=scene.npc_label(target))
        return RiskPlan("pending", narration, pending, [lex.t("suggest_roll")])
    dc = verb.dc
    if verb.key in SOCIAL and target is not None:
        dc = SOCIAL_DC[trust_level(scene.state, target, scene.character_id)]
    pending = _pending(action, "check", verb.check, dc, target.id if target else None, item)
    if verb.unlocks:
        way = _locked_way(action, scene)
        if isinstance(way, RiskPlan):
            return way
        pending.way = way
    if verb.hidden:
        pending.hidden = True
        return RiskPlan("hidden", "", pending)
    check = lex.name("checks", verb.check or "")
    narration = lex.t("pending", check=check, dc=dc, verb=verb_name)
    return RiskPlan("pending", narration, pending, [lex.t("suggest_roll")])


def _pending(
    action: RiskyAction,
    kind: Literal["check", "attack"],
    check: str | None,
    dc: int,
    target: str | None,
    item: str | None,
) -> PendingCheck:
    return PendingCheck.model_validate(
        {
            "verb": action.verb.key,
            "kind": kind,
            "check": check,
            "dc": dc,
            "target": target,
            "item": item,
            "text": action.text,
            "language": action.language,
        }
    )


def _target(action: RiskyAction, scene: Scene) -> tuple[Npc | None, str | None] | RiskPlan:
    """The NPC (and, for a theft, the item) meant; a plan to ask or refuse when unclear."""
    lex, verb = scene.lex, action.verb
    people = scene.npcs()
    verb_name = lex.name("verbs", verb.key)
    options = lex.join(scene.npc_label(n) for n in people)
    if not people:
        if verb.target == "npc-optional":
            return None, None
        return RiskPlan("refused", lex.t("nobody", verb=verb_name))
    if not action.target:
        if len(people) == 1:
            return people[0], None
        return RiskPlan("ask", lex.t("ask_target", verb=verb_name, options=options))
    known = [(n.id, scene.npc_names_known(n)) for n in people]
    named = match_names(lex, action.target, known) or mentioned(action.target, known, lex.spaced)
    if len(named) == 1:
        npc = scene.gm.npcs_by_id[named[0]]
        steal = verb.target == "npc-optional"
        theft = _stolen_item(action, scene, [npc], loose=False) if steal else None
        return npc, theft[1] if theft else None
    if verb.target == "npc-optional":
        theft = _stolen_item(action, scene, people)
        if theft is not None:
            return theft
    if named:
        return RiskPlan("refused", lex.t("ambiguous", verb=verb_name, options=options))
    if verb.key == "steal":
        asked = offline_book(lex.language).t("ask_target_steal", options=options)
        return RiskPlan("ask", asked)
    return RiskPlan("ask", lex.t("ask_target", verb=verb_name, options=options))


def _locked_way(action: RiskyAction, scene: Scene) -> str | RiskPlan | None:
    """The direction of the locked exit meant: named, else the only one; None when none is."""
    lex = scene.lex
    locked = [e for e in scene.exits() if e.locked]
    if len(locked) <= 1 or not action.target:
        if len(locked) > 1:
            options = scene.exit_options()
            verb = lex.name("verbs", action.verb.key)
            return RiskPlan("ask", lex.t("ask_target", verb=verb, options=options))
        return locked[0].direction if locked else None
    candidates = [
        (e.direction, [lex.name("directions", e.direction), *_place_names(scene, e.to)])
        for e in locked
    ]
    found = match_names(lex, action.target, candidates)
    return found[0] if len(found) == 1 else None


def _place_names(scene: Scene, location_id: str) -> list[str]:
    place = scene.gm.locations_by_id[location_id]
    return [place.name, *place.aliases]


def _stolen_item(
    action: RiskyAction, scene: Scene, people: list[Npc], *, loose: bool = True
) -> tuple[Npc, str] | None:
    """The one thing someone here holds that the words name (by a name or alias of it;
    ``loose``: or a name spelt nearly so, when they name nobody)."""
    for npc in people:
        held = [scene.gm.items_by_id[i] for i in items_held(scene.state, "npc", npc.id)]
        names = [(i.id, [i.name, *i.aliases]) for i in held]
        found = mentioned(action.target, names, scene.lex.spaced)
        if not found and loose:
            found = match_names(scene.lex, action.target, names)
        if len(found) == 1:
            return npc, found[0]
    return None
