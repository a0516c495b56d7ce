"""One master turn played by the three directors (seed 003 "un pipeline de tres etapas que se
vuelve progresivamente más especializado"; issue 12 §1).

``direct`` stands in for ``engine.gm.loop.run_master`` when ``gameMaster.settings.directors``
is on. The **Game Director** runs the tool loop (its brief: ``engine.gm.directors.game``) and
says whether the input only continues the scene; the engine decides the route. When the plot
moves, the **Story Director** (everything in view) writes the synopsis and its notes, and may
ask for a line out of character for the player; the synopsis is held to the state and, as a
second lock, any sentence of it that gives away a secret the people of the scene do not know is
dropped. The **Scene Director** then plays the turn from ``project_scene``'s secret-free
input; its words pass the closure check (one retry, then the Game Director's checked account is
shown). The narration the player reads is the Scene Director's, followed by what the
character alone learnt this turn (a clue's text); the logged event carries the Scene Director's
words, seen only by those who may hear them (a confidence reaches its witnesses; the others see
that it happened). Revelations join the scene and, at its end, their witnesses' sheets and
memories (``engine.gm.directors.knowledge``). What the directors did is reported in the turn's
``changes["directors"]``. When the Story Director asked for a line out of character, a last
call writes it from what the player knows and was shown (``engine.gm.directors.ooc``): no word
the Story Director wrote reaches a player, so no filter by string matching is needed there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from engine.gm.brief import brief
from engine.gm.closure import TurnFacts, check_closure
from engine.gm.dice import Roll
from engine.gm.directors.calls import Answer, Labelled, complete
from engine.gm.directors.game import (
    Route,
    RouteDecision,
    decide_route,
    game_brief,
    route_hint,
)
from engine.gm.directors.knowledge import (
    add_revelations,
    close_scene,
    confided,
    open_in_scene,
    secret_detector,
    secret_inventory,
)
from engine.gm.directors.ooc import ooc_request, parse_ooc, project_player
from engine.gm.directors.projection import project_scene
from engine.gm.directors.prompts import words
from engine.gm.directors.records import DirectorMemo, Revelation, SceneTrack, SceneTurn, Synopsis
from engine.gm.directors.search import KeywordSearch, MemorySearch
from engine.gm.directors.stage import SceneReply, parse_scene, scene_request
from engine.gm.directors.story import StoryTurn, story_request
from engine.gm.directors.synopsis import StoryPlan, parse_story, settle, slug
from engine.gm.directors.turn import apply_scene, private_lines
from engine.gm.loop import run_master
from engine.gm.perception import perceive
from engine.gm.report import MasterTurn
from engine.gm.scene import Scene
from engine.gm.tools import ToolCall, ToolOutcome
from engine.gm.tools.base import turn_start
from engine.llm.base import ChatRequest, Provider
from engine.session import Message, SessionState
from engine.world import WorldDefinition


@dataclass
class DirectorReport:
    """What the directors did this turn (``changes["directors"]``)."""

    route: str = "plot"
    reasons: tuple[str, ...] = ()
    story: bool = False
    scene: int = 0
    npcs: list[str] = field(default_factory=list)
    location: str = ""
    new_scene: bool = False
    ooc: str = ""
    problems: list[str] = field(default_factory=list)
    redacted: list[str] = field(default_factory=list)
    scene_fallback: bool = False

    def to_dict(self) -> dict[str, object]:
        return {
            "route": self.route,
            "reasons": list(self.reasons),
            "story": self.story,
            "scene": self.scene,
            "npcs": list(self.npcs),
            "location": self.location,
            "new_scene": self.new_scene,
            "ooc": self.ooc,
            "problems": list(self.problems),
            "redacted": list(self.redacted),
            "scene_fallback": self.scene_fallback,
        }


async def play_master(
    scene: Scene,
    action: str,
    provider: Provider,
    *,
    context: str,
    cap: int,
    request: ChatRequest | None,
    rolls: Sequence[Roll],
    world: WorldDefinition,
    session: SessionState,
    search: MemorySearch | None = None,
) -> MasterTurn:
    """Play one master turn: through the three directors when ``gameMaster.settings.directors``
    is on, else the one tool-calling master (``engine.gm.loop.run_master``, whose arguments
    these are). ``world`` and ``session`` give the directors the title and the session recap;
    ``search`` finds older memories (the keyword fallback by default). Changes are applied to
    ``scene.state``; a ProviderError passes through."""
    if not scene.gm.settings.directors:
        return await run_master(
            scene, action, provider, context=context, cap=cap, request=request, rolls=rolls
        )
    turn = _Turn(scene, action, provider, context, request, rolls, world, session, search)
    return await turn.run()


class _Turn:
    def __init__(
        self,
        scene: Scene,
        action: str,
        provider: Provider,
        context: str,
        request: ChatRequest | None,
        rolls: Sequence[Roll],
        world: WorldDefinition,
        session: SessionState,
        search: MemorySearch | None,
    ) -> None:
        self.scene, self.action, self.provider, self.context = scene, action, provider, context
        self.request, self.rolls, self.world, self.session = request, list(rolls), world, session
        self.search = search or KeywordSearch()
        self.gm = scene.gm
        self.me = scene.character_id
        self.report = DirectorReport()
        self.turn = MasterTurn(narration="")
        self.answer = Answer()
        self.mechanics: list[str] = []
        self.ooc_kind = ""  # the line out of character the Story Director asked for

    @property
    def memo(self) -> DirectorMemo:
        return self.scene.state.directors

    async def run(self) -> MasterTurn:
        labelled = Labelled(self.provider, "game")
        cap = self.gm.settings.tool_cap
        self.turn = await run_master(
            self.scene,
            self.action,
            labelled,
            context=self.context,
            cap=cap,
            request=self.request,
            rolls=self.rolls,
            system=game_brief(self.scene.lex.language, cap),
        )
        track, decision, newcomers = self.route(route_hint(labelled.texts))
        if decision.route == "plot":
            track = await self.story(track, decision, newcomers)
        assert track is not None
        add_revelations(track, confided(self.gm, self.turn.events))
        reply = await self.play(track)
        self.finish(track, reply)
        if self.ooc_kind:
            self.report.ooc = await self.aside(reply)
        self.turn.changes["directors"] = self.report.to_dict()
        return self.turn

    # --- the route -------------------------------------------------------------------------------

    def route(self, hint: Route | None) -> tuple[SceneTrack | None, RouteDecision, list[str]]:
        state = self.scene.state
        track = self.memo.tracks.get(self.me)
        present = [n.id for n in self.scene.npcs()]
        now = (self.scene.me.location, state.clock.day, state.clock.time_of_day)
        changed = track is not None and (track.location, track.day, track.time_of_day) != now
        if changed and track is not None:
            close_scene(self.gm, state, self.memo, track, self.scene.world_lex.language)
            track = None
        newcomers = [n for n in present if track is not None and n not in track.npcs]
        decision = decide_route(
            self.turn,
            hint,
            has_scene=track is not None,
            scene_changed=changed,
            newcomers=newcomers,
            present=present,
            prior_rolls=len(self.rolls),
        )
        if self.memo.story_every_turn and decision.route == "continue":
            decision = RouteDecision("plot", ("story-every-turn",))
        self.report.route, self.report.reasons = decision.route, decision.reasons
        return track, decision, newcomers

    # --- the Story Director ----------------------------------------------------------------------

    async def story(
        self, track: SceneTrack | None, decision: RouteDecision, newcomers: list[str]
    ) -> SceneTrack:
        state = self.scene.state
        told = StoryTurn(
            character_id=self.me,
            action=self.action,
            account=self.turn,
            reasons=decision.reasons,
            title=self.world.name,
            recap=self.session.session_memory,
            language=self.scene.lex.language,
        )
        self.spend(await complete(self.provider, story_request(self.gm, state, told, self.request)))
        self.report.story = True
        plan = parse_story(self.answer.text)
        present = [(n.id, n.name) for n in self.scene.npcs()]
        previous = track.synopsis if track is not None else None
        synopsis, problems = settle(plan, present, self.scene.me.location, previous)
        self.report.problems = [*plan.problems, *problems]
        if track is not None and (plan.new_scene or newcomers):
            close_scene(self.gm, state, self.memo, track, self.scene.world_lex.language)
            track = None
        fresh = track is None
        track = track or self.open()
        synopsis.new_scene = fresh
        add_revelations(track, self.reveals(plan, present))
        self.memo.add_note(plan.notes)
        track.synopsis = self.redact_synopsis(synopsis, track)
        self.ooc_kind = plan.ooc
        return track

    def open(self) -> SceneTrack:
        state = self.scene.state
        self.memo.scenes += 1
        track = SceneTrack(
            number=self.memo.scenes,
            character=self.me,
            location=self.scene.me.location,
            day=state.clock.day,
            time_of_day=state.clock.time_of_day,
            first_event=turn_start(self.scene) or state.next_event,
            npcs=[n.id for n in self.scene.npcs()],
        )
        self.memo.tracks[self.me] = track
        return track

    def reveals(self, plan: StoryPlan, present: list[tuple[str, str]]) -> list[Revelation]:
        """The character's own secrets the Story Director lets the people present find out."""
        mine = {
            r.ref: r
            for r in secret_inventory(self.gm)
            if r.owner == self.me and r.kind in ("character", "background")
        }
        by_slug = {slug(name): i for i, name in present} | {i: i for i, _ in present}
        out = []
        for order in plan.reveals:
            record = mine.get(order.secret)
            witnesses = list(dict.fromkeys(by_slug[w] for w in order.to if w in by_slug))
            if record is None or not witnesses:
                self.report.problems.append(f"reveal-refused:{order.secret}")
                continue
            out.append(
                Revelation(
                    ref=record.ref,
                    text=record.text,
                    about=self.me,
                    witnesses=witnesses,
                    via="story",
                )
            )
        return out

    def redact_synopsis(self, synopsis: Synopsis, track: SceneTrack) -> Synopsis:
        state = self.scene.state
        allowed = open_in_scene(self.gm, state, self.memo, track, self.me, synopsis.npcs)
        detector = secret_detector(self.gm, plan_words=False)
        prose, found = detector.redact(synopsis.prose, allowed)
        self.report.redacted += [f"synopsis:{ref}" for ref in found]
        return synopsis.model_copy(update={"prose": prose})

    # --- the Scene Director ----------------------------------------------------------------------

    async def play(self, track: SceneTrack) -> SceneReply | None:
        scene_input = project_scene(
            self.gm,
            self.scene.state,
            self.me,
            synopsis=track.synopsis,
            action=self.action,
            events=self.turn.events,
            title=self.world.name,
            language=self.scene.lex.language,
            search=self.search,
            values=self.scene.values,
        )
        self.mechanics = list(scene_input.turn.mechanics)
        report = self.report
        report.npcs = [n.id for n in scene_input.npcs]
        report.scene, report.location = track.number, track.location
        report.new_scene = not track.turns
        cast = {n.id: n.label for n in scene_input.npcs}
        request = scene_request(scene_input, self.request)
        text = words(self.scene.lex.language)
        for _ in range(2):
            self.spend(await complete(self.provider, request))
            reply = parse_scene(self.answer.text, cast)
            why = self.check(reply)
            if not why:
                return reply
            retry = text.t("scene_retry", reasons=why)
            more = [Message("assistant", self.answer.text), Message("user", retry)]
            request = replace(request, messages=[*request.messages, *more])
        report.scene_fallback = True
        return None

    def check(self, reply: SceneReply) -> str:
        """Why the reply cannot be shown ("" when it can): nothing said, or its narration
        fails the closure check (NPCs' words, like the master's bubbles, are theirs)."""
        if not reply.said:
            return "empty"
        if not reply.narration:
            return ""
        checked = check_closure(reply.narration, self.facts(), self.scene)
        return "" if checked.ok else brief(self.scene.lex.language).reasons(checked.violations)

    def facts(self) -> TurnFacts:
        calls = [
            (
                ToolCall(f"r{n}", r.name, dict(r.arguments)),
                ToolOutcome(
                    r.ok, {k: v for k, v in r.result.items() if k not in ("ok", "error")}, r.error
                ),
            )
            for n, r in enumerate(self.turn.tool_calls)
        ]
        return TurnFacts(
            tool_calls=calls,
            rolls=[*self.rolls, *self.turn.rolls],
            character_id=self.me,
            player_character_ids=[c.id for c in self.gm.characters if c.id != self.me],
            language=self.scene.lex.language,
        )

    # --- the end of the turn ---------------------------------------------------------------------

    def finish(self, track: SceneTrack, reply: SceneReply | None) -> None:
        narration = apply_scene(self.scene, self.turn, reply)
        shown = [narration, *(private_lines(self.turn) if reply is not None else [])]
        self.turn.narration = "\n".join(p for p in shown if p).strip()
        kept = self.answer.text if reply is not None else narration
        track.add_turn(
            SceneTurn(
                input=self.action,
                narration=" ".join(kept.split()) if reply is None else kept.strip(),
                mechanics=self.mechanics,
                route=self.report.route,
            )
        )
        track.npcs = list(dict.fromkeys([*track.npcs, *(n.id for n in self.scene.npcs())]))

    async def aside(self, reply: SceneReply | None) -> str:
        """The line out of character, written from the player's view alone (what he perceives
        and what he read this turn), never from the Story Director's words."""
        state, gm = self.scene.state, self.gm
        bubbles = reply.bubbles if reply is not None else ()
        shown = (self.turn.narration, *(f"{b.name}: {b.text}" for b in bubbles))
        learnt = [gm.clues_by_id[c] for c in state.characters[self.me].clues if c in gm.clues_by_id]
        view = project_player(
            perceive(gm, state, self.me, values=self.scene.values),
            kind=self.ooc_kind,
            action=self.action,
            shown=tuple(s for s in shown if s.strip()),
            clues=tuple(f"{c.name}: {c.text}" for c in learnt),
            language=self.scene.lex.language,
        )
        self.spend(await complete(self.provider, ooc_request(view, self.request)))
        return parse_ooc(self.answer.text)

    def spend(self, answer: Answer) -> None:
        self.answer = answer
        self.turn.model_calls += 1
        self.turn.usage = self.turn.usage.plus(answer.usage)
