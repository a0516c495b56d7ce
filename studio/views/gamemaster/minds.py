"""One NPC's mind in the game-master editor (issue "Directors, NPC memory and trust…", Done when:
"the studio shows, for a chosen NPC, its memories, trust per character and what it would say at
each level").

Owner-only, like the rest of the editor (``get_world_for_user(write=True)``: someone else's
draft is a 404, someone else's published world a 403). The creator picks one of their own play
sessions of this world (playtests included); without one the page reads the world's starting
state. Nothing is changed: ``engine.gm.npc_mind`` reads the state. Levels, manners and sample
lines are in the creator's language (offline, an NPC answers in the player's).
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import Http404, HttpResponse
from django.shortcuts import redirect
from django.utils import translation
from django.utils.http import urlencode
from django.views.decorators.http import require_GET
from pydantic import ValidationError

from engine.gm.npc_mind import npc_mind
from engine.gm.state import GMState
from engine.session import SessionState
from play.models import Session
from studio.access import get_world_for_user
from studio.gamemaster import load_game_master
from studio.models import World
from studio.views.common import AuthedRequest, render_page
from studio.views.gamemaster.nouns import NOUNS

TEMPLATE = "studio/gamemaster_npc.html"
MAX_SESSIONS = 30  # the newest of the creator's sessions offered in the picker


def own_sessions(user: User, world: World) -> list[Session]:
    """The creator's own sessions of this world, newest first (never another player's)."""
    found = Session.objects.filter(owner=user, world=world).order_by("-updated_at")
    return list(found[:MAX_SESSIONS])


def session_gm_state(session: Session | None) -> GMState | None:
    """A session's game-master state; None without a session, or for one not started yet."""
    if session is None:
        return None
    try:
        return SessionState.model_validate(session.state or {}).gm
    except ValidationError:
        return None


def _language(world: World) -> str:
    """The creator's own language, as the offline templates answer a player in his (a
    language without a phrasebook falls back to English there)."""
    return translation.get_language() or world.language or "en"


@login_required
@require_GET
def gm_npc_mind(request: AuthedRequest, world_id: int, ref: str) -> HttpResponse:
    world = get_world_for_user(request.user, world_id, write=True)
    gm = load_game_master(world)
    if gm is None or ref not in gm.npcs_by_id:
        raise Http404(f"no NPC '{ref}'")
    sessions = own_sessions(request.user, world)
    chosen = next((s for s in sessions if str(s.pk) == request.GET.get("session")), None)
    context = {
        "world": world,
        "nouns": NOUNS,
        "npcs": gm.npcs,
        "mind": npc_mind(gm, session_gm_state(chosen), ref, _language(world)),
        "sessions": sessions,
        "chosen": chosen,
        "section": "gm",
        "gm_tab": "npcs",
    }
    return render_page(request, TEMPLATE, context, partial="workspace")


@login_required
@require_GET
def gm_minds(request: AuthedRequest, world_id: int) -> HttpResponse:
    """The picker's answer: the chosen NPC's page (the first NPC's when none is named)."""
    world = get_world_for_user(request.user, world_id, write=True)
    gm = load_game_master(world)
    if gm is None or not gm.npcs:
        raise Http404("no NPC")
    ref = request.GET.get("npc") or gm.npcs[0].id
    target = redirect(
        "studio:gm_npc_mind", world.pk, ref if ref in gm.npcs_by_id else gm.npcs[0].id
    )
    session = request.GET.get("session")
    if session:
        target["Location"] += "?" + urlencode({"session": session})
    return target
