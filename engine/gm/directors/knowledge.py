"""The secrets of a world and who knows them (seed 001 "El máster conoce los secretos, pero no
los desvela ni los insinúa: hace falta confianza, presión o una tirada alta"; seed 003 "cuando
un secreto se revela dentro del juego, se propaga de forma natural … Al final de las escenas,
esas escenas forman recuerdos para el PNJ"; decision 11; issue 12 §1).

Every secret has a ref: ``campaign:gm-notes``, ``campaign:session-plan``, ``npc:<id>`` (an
NPC's secret), ``disclosure:<npc>:<level>`` (what it tells only from that trust up),
``character:<id>:<n>`` and ``character:<id>:background`` (a player character's full sheet),
``hidden:<location>:<point>`` (a hidden point). A secret comes out in play through the
``reveal_secret`` tool, whose gate the engine checks (its ``confide`` event), or when the Story
Director decides that the NPCs present find out a player character's secret (``<reveal>``).
Its witnesses are the NPCs who perceived it; they know it at once within the scene (the Scene
Director keeps the scene), and when the scene ends it enters their sheet (``DirectorMemo.known``)
and their memories (importance 3, never forgotten). Nobody else ever learns it from the engine.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from engine.gm.directors.leaks import COMMON, Detector, content, stem
from engine.gm.directors.prompts import words
from engine.gm.directors.records import DirectorMemo, KnownSecret, Revelation, SceneTrack
from engine.gm.memory import remember
from engine.gm.mentions import fold
from engine.gm.recaps import SceneRecord, scene_heading
from engine.gm.secrets import revealed_to
from engine.gm.state import GMEvent, GMState
from engine.gm.trust import rank, trust_level
from engine.gm.world import TRUST_LEVELS, GameMaster

SecretKind = Literal[
    "gm-notes", "session-plan", "npc", "disclosure", "character", "background", "hidden-point"
]
REVEALED_IMPORTANCE = 3  # a secret learnt is never forgotten (seed 001's table)
DISTINCT = 5  # a word of a secret that no public text uses gives it away from this length on
_WORD = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class SecretRecord:
    ref: str
    kind: SecretKind
    text: str
    owner: str  # the NPC, the character or the location it belongs to ("" for the campaign)
    detail: str = ""  # the trust level of a disclosure, the point of a hidden point


def secret_inventory(gm: GameMaster) -> list[SecretRecord]:
    """Every secret of the block, with its ref (see the module docstring)."""
    out: list[SecretRecord] = []
    if gm.campaign.gm_notes.strip():
        out.append(SecretRecord("campaign:gm-notes", "gm-notes", gm.campaign.gm_notes, ""))
    if gm.campaign.session_plan.strip():
        plan = gm.campaign.session_plan
        out.append(SecretRecord("campaign:session-plan", "session-plan", plan, ""))
    for npc in gm.npcs:
        if npc.secret is not None:
            out.append(SecretRecord(f"npc:{npc.id}", "npc", npc.secret.text, npc.id))
        for level, text in npc.disclosures.items():
            ref = f"disclosure:{npc.id}:{level}"
            out.append(SecretRecord(ref, "disclosure", text, npc.id, level))
    for character in gm.characters:
        for n, text in enumerate(character.full.secrets, start=1):
            ref = f"character:{character.id}:{n}"
            out.append(SecretRecord(ref, "character", text, character.id))
        if character.full.background.strip():
            ref = f"character:{character.id}:background"
            out.append(SecretRecord(ref, "background", character.full.background, character.id))
    for place in gm.locations:
        for point in place.hidden_points:
            text = f"{point.name}. {point.description}".strip()
            ref = f"hidden:{place.id}:{point.id}"
            out.append(SecretRecord(ref, "hidden-point", text, place.id, point.id))
    return out


def public_texts(gm: GameMaster) -> list[str]:
    """What anyone may read of the world: names, public sheets and descriptions, items not
    carried by a character, errands, notices and rumours (never a secret, a disclosure, a
    clue's text or a hidden point)."""
    out = [gm.campaign.notes]
    for npc in gm.npcs:
        out += [npc.name, *npc.aliases, npc.trade, npc.description, npc.public_description]
        out += [npc.motivation, npc.situation, *npc.concerns]
    for place in gm.locations:
        out += [place.name, *place.aliases, place.description, *place.ambient]
        out += [f"{p.name} {p.description}" for p in place.points]
    out += [f"{i.name} {i.description}" for i in gm.items if not (i.at and i.at.character)]
    out += [f"{c.name} {c.public.appearance} {c.public.reputation}" for c in gm.characters]
    out += [f"{q.title} {q.summary}" for q in gm.quests]
    out += [f"{n.title} {n.summary}" for b in gm.boards for n in b.notices]
    out += [r.text for r in gm.rumours]
    return out


def distinctive_words(text: str, public: set[str]) -> list[str]:
    """The words of a secret that no public text uses (by their stem), long enough to mean
    something: one of them in a line gives the secret away."""
    out = []
    for word in dict.fromkeys(_WORD.findall(fold(text))):
        long_enough = len(word) >= DISTINCT if not word.isdigit() else len(word) >= 3
        common = word in COMMON or stem(word) in COMMON or _public(stem(word), public)
        if long_enough and content([stem(word)]) and not common:
            out.append(word)
    return out


def _public(word: str, public: set[str]) -> bool:
    """``word`` or a word it begins, or that begins it, is public ("docks" ~ "dockers")."""
    return word in public or any(
        (len(word) >= 4 and p.startswith(word)) or (len(p) >= 5 and word.startswith(p))
        for p in public
    )


def secret_detector(gm: GameMaster, *, plan_words: bool = True) -> Detector:
    """The detector of every secret of the block, each also given away by its distinctive
    words (``distinctive_words``, against the world's public texts). Without ``plan_words``
    the session plan is given away only by runs of its words: the synopsis, which carries the
    plan out, may well share a word with it."""
    public = {stem(w) for text in public_texts(gm) for w in _WORD.findall(fold(text))}
    records = secret_inventory(gm)
    keys = {
        r.ref: distinctive_words(r.text, public)
        for r in records
        if plan_words or r.kind != "session-plan"
    }
    return Detector.of({r.ref: r.text for r in records}, keys)


def _told_at_trust(gm: GameMaster, state: GMState, record: SecretRecord, character: str) -> bool:
    npc = gm.npcs_by_id.get(record.owner)
    if npc is None or record.detail not in TRUST_LEVELS:
        return False
    return rank(trust_level(state, npc, character)) >= TRUST_LEVELS.index(record.detail)


def npc_knows(memo: DirectorMemo, track: SceneTrack | None, npc_id: str) -> list[KnownSecret]:
    """What ``npc_id`` knows of the secrets: committed at the end of earlier scenes, and
    revealed in its presence in the scene in progress."""
    known = {k.ref: k for k in memo.known.get(npc_id, [])}
    for revelation in track.revelations if track is not None else []:
        if npc_id in revelation.witnesses and revelation.ref not in known:
            known[revelation.ref] = KnownSecret(
                ref=revelation.ref, text=revelation.text, about=revelation.about, via=revelation.via
            )
    return list(known.values())


def open_in_scene(
    gm: GameMaster,
    state: GMState,
    memo: DirectorMemo,
    track: SceneTrack | None,
    character_id: str,
    npc_ids: Iterable[str],
) -> set[str]:
    """The refs the Scene Director may carry for these NPCs with this character: what they
    witnessed, their own secret once told to him, their disclosures at his trust, and the
    hidden points he found (he stands there)."""
    npcs = set(npc_ids)
    found = set(state.characters[character_id].discovered)
    out = {k.ref for n in npcs for k in npc_knows(memo, track, n)}
    for record in secret_inventory(gm):
        if record.owner in npcs and record.kind == "npc":
            if revealed_to(state, gm.npcs_by_id[record.owner], character_id):
                out.add(record.ref)
        elif record.owner in npcs and record.kind == "disclosure":
            if _told_at_trust(gm, state, record, character_id):
                out.add(record.ref)
        elif record.kind == "hidden-point" and f"{record.owner}:{record.detail}" in found:
            out.add(record.ref)
    return out


def confided(gm: GameMaster, events: Sequence[GMEvent]) -> list[Revelation]:
    """The secrets ``reveal_secret`` let out in ``events`` (its ``confide`` events), each with
    the NPCs who perceived it."""
    out = []
    for event in events:
        npc = gm.npcs_by_id.get(str(event.data.get("npc", "")))
        if event.kind != "confide" or npc is None or npc.secret is None:
            continue
        seen = [*event.seen_by, *event.heard_by]
        witnesses = [w for w in dict.fromkeys([npc.id, *seen]) if w in gm.npcs_by_id]
        ref = f"npc:{npc.id}"
        out.append(Revelation(ref=ref, text=npc.secret.text, about=npc.id, witnesses=witnesses))
    return out


def add_revelations(track: SceneTrack, revelations: Iterable[Revelation]) -> None:
    """Record revelations in the scene, merging witnesses of a secret already out."""
    for new in revelations:
        same = next((r for r in track.revelations if r.ref == new.ref), None)
        if same is None:
            track.revelations.append(new)
        else:
            same.witnesses = list(dict.fromkeys([*same.witnesses, *new.witnesses]))


def close_scene(
    gm: GameMaster, state: GMState, memo: DirectorMemo, track: SceneTrack, language: str
) -> None:
    """End ``track``: each secret revealed in it enters its witnesses' sheets and memories; the
    track becomes the character's previous scene."""
    record = SceneRecord(track.location, track.day, track.time_of_day, ())
    heading = scene_heading(gm, record, language)
    sheet = gm.characters_by_id.get(track.character)
    name = sheet.name if sheet is not None else track.character
    text = words(language)
    for revelation in track.revelations:
        for npc_id in revelation.witnesses:
            known = memo.known.setdefault(npc_id, [])
            if any(k.ref == revelation.ref for k in known):
                continue
            known.append(
                KnownSecret(
                    ref=revelation.ref,
                    text=revelation.text,
                    about=revelation.about,
                    day=track.day,
                    via=revelation.via,
                )
            )
            key = "memory_told" if revelation.about == npc_id else "memory_learnt"
            line = text.t(key, heading=heading, character=name, text=revelation.text)
            remember(gm, state, npc_id, track.character, line, REVEALED_IMPORTANCE)
    memo.previous[track.character] = track
    memo.tracks.pop(track.character, None)
