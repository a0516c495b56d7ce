"""The free detectors (seed 001 "detectores gratuitos"; decisions 21, 23): engine code, no model.

Each detector reads one ``Step`` (and the game's earlier steps) and returns findings:
directive or tool syntax and thinking text in what the player reads, a secret's words (a code
word, or four running words of it), a sentence said again from the last three narrations (or
twice in one), an empty or overlong narration, a narration not in the world's language, and a
model speaking as an assistant or refusing. The game-master rules (the closure check, names the
character has not heard) are in ``engine.evals.closure_check``; ``detect_step`` runs both.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from engine.evals.closure_check import gm_findings
from engine.evals.secrets import SecretText
from engine.evals.transcript import Finding, Step, Transcript
from engine.gm.mentions import fold
from engine.gm.reading import Narration
from engine.world import WorldDefinition

REPEAT_WINDOW = 3  # decision 21: the last three narrator turns
TOLD = ("master", "narrator")  # the kinds of step a model narrated
SHINGLE = 4  # running words of a secret that count as leaking it
_DIRECTIVE = re.compile(
    r"\[[a-z0-9][\w.\-]{0,40}\s*:\s*[^\]\n]{0,80}\]|</?(?:updatevariable|jsonpatch)\b|"
    r"\blog_event\b|\"(?:narration|tool_calls?|arguments)\"\s*:|\{\s*\"name\"\s*:",
    re.IGNORECASE,
)
_THINKING = re.compile(r"</?(?:think|thinking|reasoning|scratchpad)\b[^>]*>", re.IGNORECASE)
_REFUSAL = (
    "as an ai",
    "as a language model",
    "i can't help with",
    "i cannot help with",
    "i'm sorry, but i can",
    "i am unable to continue",
    "i can't continue this",
    "como modelo de lenguaje",
    "no puedo ayudar",
    "作为一个ai",
    "作为人工智能",
)
_STOP = {
    "en": {"the", "and", "you", "of", "to", "a", "is", "in", "it", "your", "with", "her", "his"},
    "es": {"el", "la", "los", "las", "y", "de", "que", "en", "un", "una", "tu", "con", "se"},
}
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")
_CJK = re.compile(r"[\u3400-\u9fff]")


@dataclass(frozen=True)
class Context:
    """What the detectors know of the game beyond the step."""

    world: WorldDefinition
    character_id: str | None = None
    secrets: tuple[SecretText, ...] = ()
    max_sentences: int = 8
    max_chars: int = 1000
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def language(self) -> str:
        return (self.world.language or "en").split("-")[0].lower()


def text_findings(ctx: Context, step: Step, earlier: Sequence[Step]) -> list[Finding]:
    """Every text detector on ``step``'s narration and suggestions."""
    if step.failed:
        return []
    shown = "\n".join([step.narration, *step.suggestions])
    found = [*_leaks(shown), *secret_leaks(ctx, step)]
    if step.kind not in TOLD:
        return found  # the rest judges a model's writing, not the engine's templates
    found += [*repetition(ctx, step, earlier), *length(ctx, step), *language(ctx, step)]
    if any(p in fold(step.narration) for p in _REFUSAL):
        found.append(Finding("refusal", detail="speaks as an assistant or refuses"))
    return found


def _leaks(shown: str) -> list[Finding]:
    out = []
    if match := _DIRECTIVE.search(shown):
        out.append(Finding("directive-leak", detail=match.group(0)[:80]))
    if match := _THINKING.search(shown):
        out.append(Finding("thinking-leak", detail=match.group(0)[:80]))
    return out


def secret_leaks(ctx: Context, step: Step) -> list[Finding]:
    """A secret whose code word, or four running words, the player reads; not one the engine
    let an NPC reveal this turn (``reveal_secret`` applied)."""
    revealed = {
        str(call.get("arguments", {}).get("npc", ""))
        for call in step.tool_calls
        if call.get("name") == "reveal_secret" and call.get("ok")
    }
    raw = fold(" ".join([step.narration, *step.suggestions]))
    shown = f" {' '.join(_words(raw))} "
    out = []
    for secret in ctx.secrets:
        if secret.owner and secret.owner in revealed:
            continue
        hit = _shared_run(raw, shown, secret.text)
        if hit:
            out.append(Finding("secret-leak", detail=hit))
    return out


def _shared_run(raw: str, shown: str, secret: str) -> str:
    """Four running words of ``secret`` (two of them long) in ``shown`` (the player's words,
    spaced), or a short secret (a code word) anywhere in ``raw``; "" when neither."""
    words = _words(fold(secret))
    if len(words) < SHINGLE:
        needle = fold(secret).strip()
        return secret if needle and needle in raw else ""
    for start in range(len(words) - SHINGLE + 1):
        run = words[start : start + SHINGLE]
        if sum(len(w) >= 4 for w in run) >= 2 and f" {' '.join(run)} " in shown:
            return " ".join(run)
    return ""


def _words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text) if w] or ([text] if _CJK.search(text) else [])


def _sentences(text: str, language: str) -> list[str]:
    """Folded sentences of at least four words (short ones repeat by nature: "Nothing moves.")."""
    read = Narration.read(text, language)
    out = []
    for sentence in read.sentences(quotes=False):
        words = _words(fold(sentence))
        if len(words) >= 4 or (not read.spaced and len(sentence) >= 6):
            out.append(" ".join(words) if read.spaced else fold(sentence))
    return out


def repetition(ctx: Context, step: Step, earlier: Sequence[Step]) -> list[Finding]:
    """A sentence said in one of the last three narrations, or twice in this one; not when the
    player said the same words again."""
    if step.kind not in TOLD:
        return []  # engine templates ("You go north.", a refusal) may well come back
    recent = [s for s in earlier if not s.failed and s.kind in TOLD][-REPEAT_WINDOW:]
    if any(fold(s.action).strip() == fold(step.action).strip() for s in recent):
        return []  # the same words again: the same answer is fair
    said = {x for s in recent for x in _sentences(s.narration, ctx.language)}
    mine = _sentences(step.narration, ctx.language)
    for n, sentence in enumerate(mine):
        if sentence in said or sentence in mine[:n]:
            return [Finding("repetition", detail=sentence[:120])]
    return []


def length(ctx: Context, step: Step) -> list[Finding]:
    """Nothing said, or more than a phone screen (sentences or characters)."""
    text = step.narration.strip()
    if not text:
        return [Finding("length", detail="empty narration")]
    count = len(Narration.read(text, ctx.language).sentences())
    if count > ctx.max_sentences or len(text) > ctx.max_chars:
        return [Finding("length", detail=f"{count} sentences, {len(text)} characters")]
    return []


def language(ctx: Context, step: Step) -> list[Finding]:
    """The narration reads as another language than the world's (six words at least)."""
    text = step.narration
    cjk = len(_CJK.findall(text)) / max(1, len(text.replace(" ", "")))
    if ctx.language == "zh":
        wrong = len(text.strip()) >= 6 and cjk < 0.2
    else:
        words = _words(fold(text))
        if len(words) < 6:
            return []
        counts = {lang: sum(w in stop for w in words) for lang, stop in _STOP.items()}
        other = max((c for lang, c in counts.items() if lang != ctx.language), default=0)
        wrong = cjk > 0.3 or (ctx.language in counts and other > 2 * max(1, counts[ctx.language]))
    return [Finding("language", detail=f"not '{ctx.language}'")] if wrong else []


def detect_step(ctx: Context, step: Step, earlier: Sequence[Step]) -> list[Finding]:
    """All the free detectors on one step, each class once (the first finding's detail)."""
    found = [
        *gm_findings(ctx.world, ctx.character_id, step, earlier),
        *text_findings(ctx, step, earlier),
    ]
    unique: dict[str, Finding] = {}
    for finding in found:
        unique.setdefault(finding.error_class, finding)
    return list(unique.values())


def detect_transcript(ctx: Context, transcript: Transcript) -> None:
    """Replace each step's detector findings with fresh ones (the judge's stay)."""
    for n, step in enumerate(transcript.steps):
        kept = [f for f in step.findings if f.source != "detector"]
        step.findings = [*detect_step(ctx, step, transcript.steps[:n]), *kept]
