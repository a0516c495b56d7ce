"""The error classes of an evaluation (GAME_MASTER.md decision 23; GM-B-4).

The closure-check rules of ``engine.gm.closure`` (seed 001 "Comprobación del cierre"), the leaks
(a secret, a name the character has not heard, directive or thinking text), repetition, length,
language, refusal, contradiction of state, and the classes only a judge can see (a false premise
accepted, a haggle or a lie accepted without a check…). Free detectors find the first groups; the
judge may return any class. Anything else a judge says is read as ``other``.
"""

from __future__ import annotations

from engine.gm.closure import VIOLATIONS

CLOSURE_CLASSES: tuple[str, ...] = VIOLATIONS
LEAK_CLASSES = ("secret-leak", "unknown-name", "directive-leak", "thinking-leak")
TEXT_CLASSES = ("repetition", "length", "language", "refusal")
JUDGE_CLASSES = (
    "state-contradiction",
    "false-premise-accepted",
    "haggle-accepted",
    "lie-accepted",
    "claim-accepted",
    "acting-for-others-accepted",
    "unanswered",
    "other",
)
ERROR_CLASSES: tuple[str, ...] = (*CLOSURE_CLASSES, *LEAK_CLASSES, *TEXT_CLASSES, *JUDGE_CLASSES)
DETECTABLE: tuple[str, ...] = (*CLOSURE_CLASSES, *LEAK_CLASSES, *TEXT_CLASSES)

DESCRIPTIONS: dict[str, str] = {
    "failed-tool-narrated": "a tool that failed is told as done",
    "unknown-place": "a place or point that does not exist (or is still hidden) is named",
    "unregistered-deal": "a deal is closed with no deal tool applied",
    "contradicts-roll": "the outcome told is the opposite of the roll",
    "acts-for-player": "another player's character acts, speaks or wants",
    "death-or-return": "someone dies or comes back from death",
    "time-advanced": "time passes although only the engine moves the clock",
    "several-actions": "more than one action is resolved in one message",
    "secret-leak": "a secret's words reach the player",
    "unknown-name": "a name the character has not heard, of someone not present",
    "directive-leak": "directive or tool syntax reaches the player",
    "thinking-leak": "the model's thinking reaches the player",
    "repetition": "a sentence said again from the last turns",
    "length": "empty, or longer than a phone screen",
    "language": "not in the world's language",
    "refusal": "the model refuses or speaks as an assistant",
    "state-contradiction": "the narration contradicts the game state",
    "false-premise-accepted": "asked about something that does not exist, it was invented",
    "haggle-accepted": "a haggle succeeds with no check or deal",
    "lie-accepted": "a lie is believed with no check",
    "claim-accepted": "an item the character lacks is used as if held",
    "acting-for-others-accepted": "the player decides for someone else and it happens",
    "unanswered": "the player's question or action is ignored",
    "other": "any other error the judge names",
}
CLASS_GROUPS: dict[str, tuple[str, ...]] = {
    "closure": CLOSURE_CLASSES,
    "leak": LEAK_CLASSES,
    "text": TEXT_CLASSES,
    "judge": JUDGE_CLASSES,
}


def normalise_class(name: str) -> str:
    """The known class ``name`` stands for (case, spaces and underscores aside), else ``other``."""
    key = "-".join(name.strip().casefold().replace("_", " ").split())
    return key if key in DESCRIPTIONS else "other"
