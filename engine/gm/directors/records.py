"""What the directors keep between turns, inside ``GMState.directors`` (seed 003: "El Director
de Escena retiene las escenas generadas previamente"; "hacer notas de interpretación detalladas
para su propio uso futuro"; "Al final de las escenas, esas escenas forman recuerdos para el PNJ").

Per character, the scene in progress and the one before (the Story Director reads "the full
history of the two most recent scenes"); the Story Director's private notes; and what each NPC
has come to know of the secrets, committed at the end of the scene it learned them in. Plain
pydantic so that the session's usual commit path saves it. This module imports nothing of the
engine: ``engine.gm.state`` imports it.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

MAX_NOTES = 12  # the Story Director's private notes kept (the newest)
MAX_TURNS = 30  # turns kept of one scene (the newest)


class _Record(BaseModel):
    model_config = ConfigDict(extra="ignore")


class Synopsis(_Record):
    """The Story Director's hand-off: what happens, who is there, where, whether it is new."""

    prose: str = ""
    npcs: list[str] = Field(default_factory=list)
    location: str = ""
    new_scene: bool = False


class SceneTurn(_Record):
    """One turn of a scene as the Scene Director played it (its own history)."""

    input: str
    narration: str
    mechanics: list[str] = Field(default_factory=list)  # engine lines the NPCs perceived
    route: str = "plot"


class Revelation(_Record):
    """A secret that came out in this scene, and the NPCs who witnessed it."""

    ref: str  # a secret's id (``engine.gm.directors.knowledge``)
    text: str
    about: str  # whose secret: a character or an NPC id
    witnesses: list[str] = Field(default_factory=list)  # NPC ids
    via: str = "reveal_secret"  # or "story"


class KnownSecret(_Record):
    """A secret an NPC knows since the end of the scene it learned it in."""

    ref: str
    text: str
    about: str
    day: int = 1
    via: str = "reveal_secret"


class SceneTrack(_Record):
    """One character's scene: where and when, who was there, the synopsis and the turns."""

    number: int
    character: str
    location: str
    day: int
    time_of_day: str
    first_event: int  # events from this id on belong to this scene
    npcs: list[str] = Field(default_factory=list)  # every NPC present at some turn
    synopsis: Synopsis = Field(default_factory=Synopsis)
    turns: list[SceneTurn] = Field(default_factory=list)
    revelations: list[Revelation] = Field(default_factory=list)

    def add_turn(self, turn: SceneTurn) -> None:
        self.turns.append(turn)
        del self.turns[:-MAX_TURNS]


class DirectorMemo(_Record):
    """Everything the three directors keep; empty until a directors world plays a turn."""

    notes: list[str] = Field(default_factory=list)
    scenes: int = 0  # scenes opened so far (numbers them)
    tracks: dict[str, SceneTrack] = Field(default_factory=dict)  # character → scene now
    previous: dict[str, SceneTrack] = Field(default_factory=dict)  # character → scene before
    known: dict[str, list[KnownSecret]] = Field(default_factory=dict)  # npc → secrets it knows
    story_every_turn: bool = False  # never skip the Story Director (the bench's baseline)

    def add_note(self, note: str) -> None:
        text = " ".join(note.split())
        if text:
            self.notes.append(text)
            del self.notes[:-MAX_NOTES]
