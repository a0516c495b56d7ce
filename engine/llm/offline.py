"""The offline provider: no call, a closure and 2-3 suggestions (seed 001 "Modos de ejecución").

Offline mode never reaches a model. It answers the player's action (``ChatRequest.player_text``)
with a closure drawn from it («Haces X. Nada cambia.»), turned from first to second person for
the common cases, plus a few suggested actions, at zero cost. Replay mode falls back to it for
missing exchanges.

Its reply is parsed as the narrator's, so it must never carry directives the player typed
(seeds 000, 002: directives are the narrator's): the action is quoted with every directive,
``<think>``/``<UpdateVariable>`` block and other tag taken out, and no ``[`` or ``<`` is left
for `engine.directives.parse_reply` to read. Nor does it ever quote the prompt: a request
without player text (continue, a rule asking the narrator to go on) gets a neutral line of its
own, because the prompt's last user message may be a creator's hidden entry or instructions.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import re
from collections.abc import AsyncIterator

from engine.llm.base import ChatRequest, Chunk, Usage
from engine.stream_filter import CLOSE, MAX_HEAD, BodyScan, fallback_close

LANGUAGES = ("en", "es", "zh")

_EDGE_NOISE = " \t\r\n*_~\"'“”«»()[]"
_TRAILING_PUNCTUATION = ".!?…,;:。！？，；：~"

# First person → second person, whole words, case-insensitive; the leading subject is dropped
# separately because the closure supplies its own ("You …").
_EN_LEADING = [
    (re.compile(r"^(?:i am|i'm|i’m)\s+", re.I), "are "),
    (re.compile(r"^(?:i will|i'll|i’ll)\s+", re.I), "will "),
    (re.compile(r"^(?:i have|i've|i’ve)\s+", re.I), "have "),
    (re.compile(r"^(?:i would|i'd|i’d)\s+", re.I), "would "),
    (re.compile(r"^i was\s+", re.I), "were "),
    (re.compile(r"^(?:i|you)\s+", re.I), ""),
]
_EN_WORDS = [
    (re.compile(r"\b(?:i am|i'm|i’m)\b", re.I), "you are"),
    (re.compile(r"\bi was\b", re.I), "you were"),
    (re.compile(r"\bmyself\b", re.I), "yourself"),
    (re.compile(r"\bmine\b", re.I), "yours"),
    (re.compile(r"\bmy\b", re.I), "your"),
    (re.compile(r"\bme\b", re.I), "you"),
    (re.compile(r"\bi\b", re.I), "you"),
]

# (first person, infinitive, second person) for verbs players type most.
_ES_VERBS = [
    ("abro", "abrir", "abres"),
    ("miro", "mirar", "miras"),
    ("observo", "observar", "observas"),
    ("examino", "examinar", "examinas"),
    ("voy", "ir", "vas"),
    ("entro", "entrar", "entras"),
    ("salgo", "salir", "sales"),
    ("cojo", "coger", "coges"),
    ("tomo", "tomar", "tomas"),
    ("hablo", "hablar", "hablas"),
    ("digo", "decir", "dices"),
    ("pregunto", "preguntar", "preguntas"),
    ("espero", "esperar", "esperas"),
    ("busco", "buscar", "buscas"),
    ("registro", "registrar", "registras"),
    ("ataco", "atacar", "atacas"),
    ("corro", "correr", "corres"),
    ("huyo", "huir", "huyes"),
    ("subo", "subir", "subes"),
    ("bajo", "bajar", "bajas"),
    ("camino", "caminar", "caminas"),
    ("vuelvo", "volver", "vuelves"),
    ("sigo", "seguir", "sigues"),
    ("uso", "usar", "usas"),
    ("leo", "leer", "lees"),
    ("bebo", "beber", "bebes"),
    ("pido", "pedir", "pides"),
    ("compro", "comprar", "compras"),
    ("pago", "pagar", "pagas"),
    ("intento", "intentar", "intentas"),
    ("doy", "dar", "das"),
    ("pongo", "poner", "pones"),
    ("hago", "hacer", "haces"),
    ("cierro", "cerrar", "cierras"),
    ("empujo", "empujar", "empujas"),
    ("escucho", "escuchar", "escuchas"),
    ("saludo", "saludar", "saludas"),
    ("grito", "gritar", "gritas"),
    ("llamo", "llamar", "llamas"),
    ("guardo", "guardar", "guardas"),
    ("escondo", "esconder", "escondes"),
    ("duermo", "dormir", "duermes"),
    ("descanso", "descansar", "descansas"),
    ("estoy", "estar", "estás"),
    ("soy", "ser", "eres"),
    ("tengo", "tener", "tienes"),
    ("quiero", "querer", "quieres"),
    ("puedo", "poder", "puedes"),
    ("acerco", "acercar", "acercas"),
    ("alejo", "alejar", "alejas"),
    ("levanto", "levantar", "levantas"),
    ("agacho", "agachar", "agachas"),
]
# Verbs whose reflexive form is another verb: "me siento" is sentarse, "siento" is sentir.
_ES_REFLEXIVE = {"siento": "sientas", "sentar": "sientas"}
_ES_CONJUGATED = {form: second for first, inf, second in _ES_VERBS for form in (first, inf)}
_ES_WORDS = [
    (re.compile(r"\bconmigo\b", re.I), "contigo"),
    (re.compile(r"\bmis\b", re.I), "tus"),
    (re.compile(r"\bmi\b", re.I), "tu"),
    (re.compile(r"\bme\b", re.I), "te"),
]

_CLOSURES = {
    "en": ("You {action}.", "You wait.", "Nothing changes."),
    "es": ("Haces {action}.", "Esperas.", "Nada cambia."),
    "zh": ("你{action}。", "你静静等待。", "什么也没有改变。"),
}

# What the narrator says when asked to go on without a player's action (continue).
_CONTINUATIONS = {
    "en": ("A moment passes.", "The silence stretches on.", "Time drifts by."),
    "es": ("Pasa un momento.", "El silencio se alarga.", "El tiempo pasa."),
    "zh": ("片刻过去了。", "沉默在延续。", "时间悄悄流逝。"),
}

# Directive syntax a player may type: a bracket head (``[health:``, ``[audio:``), a tag block
# whose content the parser would read or hide, any other tag; then whatever '[' '<' is left.
_HEAD = re.compile(rf"\[[^\[\]\n:]{{1,{MAX_HEAD}}}:")
_BLOCK = re.compile(r"<(think(?:ing)?|updatevariable)\b[^>]*>.*?(?:</\1\s*>|\Z)", re.I | re.S)
_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
_OPENERS = str.maketrans("", "", "[]<>")
_CUT = "\ue0f7"  # where something was taken out, until the gaps are tidied
_GAP = re.compile(rf"\s*{_CUT}[\s{_CUT}]*")

# Each suggestion with the fragments that mark it as "what the player just did".
_SUGGESTIONS: dict[str, list[tuple[str, tuple[str, ...]]]] = {
    "en": [
        ("Look around", ("look", "search", "examine")),
        ("Wait", ("wait", "rest")),
        ("Go back", ("back", "return", "leave")),
        ("Listen carefully", ("listen", "hear")),
        ("Check your belongings", ("check", "inventory", "belongings")),
        ("Ask someone nearby", ("ask", "talk", "say")),
    ],
    "es": [
        ("Mirar alrededor", ("mir", "observ", "busc", "examin")),
        ("Esperar", ("esper", "descans")),
        ("Volver atrás", ("volv", "vuelv", "regres", "sal")),
        ("Escuchar con atención", ("escuch", "oig", "oír")),
        ("Revisar tus cosas", ("revis", "inventario")),
        ("Preguntar a alguien cercano", ("pregunt", "habl", "dig")),
    ],
    "zh": [
        ("环顾四周", ("看", "观察", "环顾", "搜")),
        ("等待", ("等",)),
        ("返回", ("回", "离开")),
        ("仔细倾听", ("听",)),
        ("检查随身物品", ("检查", "物品", "背包")),
        ("询问附近的人", ("问", "说", "聊")),
    ],
}


def language_of(language: str | None) -> str:
    """The closure language for a tag like "es-ES" or "zh-Hans"; English when unknown."""
    base = (language or "en").lower().replace("_", "-").split("-")[0]
    return base if base in LANGUAGES else "en"


def quotable(text: str) -> str:
    """The player's text with every directive, tag block and tag taken out, and no '[' or '<'
    left: what the offline narrator may say back without its reply changing any state."""
    text = text.replace(_CUT, "")
    text = _TAG.sub(_CUT, _BLOCK.sub(_CUT, text))
    pieces: list[str] = []
    pos = 0
    for head in _HEAD.finditer(text):
        if head.start() < pos:
            continue
        pieces.append(text[pos : head.start()])
        pos = _directive_end(text, head.end())
    pieces.append(text[pos:])
    joined = _CUT.join(pieces).translate(_OPENERS)
    return _GAP.sub(lambda gap: _gap(joined, gap), joined)


def _gap(text: str, gap: re.Match[str]) -> str:
    """What a removal leaves: a space between words, nothing between CJK characters."""
    before = text[gap.start() - 1] if gap.start() else ""
    after = text[gap.end()] if gap.end() < len(text) else ""
    return " " if before.isascii() or after.isascii() else ""


def _directive_end(text: str, body_start: int) -> int:
    """Where a directive whose body starts at ``body_start`` ends, as the parser reads it; an
    unterminated one runs to the end of its line."""
    found, close = BodyScan().scan(text, body_start)
    if found != CLOSE:
        close = fallback_close(text, body_start, close)
    if close >= 0:
        return close + 1
    newline = text.find("\n", body_start)
    return len(text) if newline < 0 else newline


def continuation(language: str = "en", rng: random.Random | None = None) -> str:
    """A neutral line that goes on with the scene without quoting anything."""
    lang = language_of(language)
    line = (rng or random.Random(0)).choice(_CONTINUATIONS[lang])
    nothing = _CLOSURES[lang][2]
    return line + nothing if lang == "zh" else f"{line} {nothing}"


def closure(action: str, language: str = "en") -> str:
    """Say the player's action back in the second person, then that nothing changes."""
    lang = language_of(language)
    template, waiting, nothing = _CLOSURES[lang]
    text = _clean(quotable(action))
    if not text:
        return f"{waiting} {nothing}" if lang != "zh" else waiting + nothing
    if lang == "zh":
        text = text.replace("我", "你")
        sentence = f"{text}。" if text.startswith("你") else template.format(action=text)
        return sentence + nothing
    if lang == "es":
        return f"{_spanish(text)} {nothing}"
    return f"{template.format(action=_english(text))} {nothing}"


def suggestions(action: str, language: str, rng: random.Random) -> list[str]:
    """Two or three localised next actions, skipping ones like what the player just did."""
    lowered = action.lower()
    pool = [
        text
        for text, marks in _SUGGESTIONS[language_of(language)]
        if not any(mark in lowered for mark in marks)
    ]
    count = min(len(pool), rng.randint(2, 3))
    return rng.sample(pool, count)


class OfflineProvider:
    """Answers without any call: a closure from the player's action and 2-3 suggestions."""

    name = "offline"
    model = "offline"

    def __init__(self, language: str = "en", rng: random.Random | None = None) -> None:
        """Without ``rng``, suggestions are seeded by the action, so a reply is reproducible."""
        self.language = language_of(language)
        self.rng = rng

    async def stream(self, request: ChatRequest) -> AsyncIterator[Chunk]:
        """Stream the closure (or, without player text, a continuation) in a few small chunks,
        then the suggestions, at zero usage. The prompt's messages are never quoted."""
        action = request.player_text
        # Continuing, the seed is the text so far (never quoted), so each Continue varies.
        last = request.messages[-1].content if request.messages else ""
        seed = action if action is not None else f"continue:{last}"
        rng = self.rng or random.Random(hashlib.sha256(seed.encode()).digest())
        if action is None:
            text, action = continuation(self.language, rng), ""
        else:
            text = closure(action, self.language)
        for piece in _pieces(text):
            yield Chunk(text=piece)
            await asyncio.sleep(0)  # let the consumer run, as a real stream would
        yield Chunk(choices=suggestions(action, self.language, rng))
        yield Chunk(usage=Usage(), finish_reason="stop")


def _clean(action: str) -> str:
    text = " ".join(action.split()).strip(_EDGE_NOISE)
    text = text.rstrip(_TRAILING_PUNCTUATION + _EDGE_NOISE).lstrip("¡¿")
    return text[:1].lower() + text[1:] if text else ""


def _english(text: str) -> str:
    for pattern, replacement in _EN_LEADING:
        text, count = pattern.subn(replacement, text, count=1)
        if count:
            break
    for pattern, replacement in _EN_WORDS:
        text = pattern.sub(replacement, text)
    return text[:1].lower() + text[1:]


def _spanish(text: str) -> str:
    words = text.split(" ")
    if words[0].lower() == "yo" and len(words) > 1:
        words = words[1:]
    reflexive = words[0].lower() == "me" and len(words) > 1
    verb_at = 1 if reflexive else 0
    verb = words[verb_at].lower()
    if verb.endswith("se") and (verb[:-2] in _ES_CONJUGATED or verb[:-2] in _ES_REFLEXIVE):
        # An infinitive with its pronoun: acercarse → te acercas.
        verb, reflexive = verb[:-2], True
    second = (_ES_REFLEXIVE.get(verb) if reflexive else None) or _ES_CONJUGATED.get(verb)
    if second:
        rest = " ".join(words[verb_at + 1 :])
        for pattern, replacement in _ES_WORDS:
            rest = pattern.sub(replacement, rest)
        head = ("te " if reflexive else "") + second
        sentence = f"{head} {rest}".strip()
        return sentence[:1].upper() + sentence[1:] + "."
    swapped = " ".join(words)
    for pattern, replacement in _ES_WORDS:
        swapped = pattern.sub(replacement, swapped)
    return _CLOSURES["es"][0].format(action=swapped)


def _pieces(text: str, count: int = 3) -> list[str]:
    units = re.findall(r"\S+\s*", text) if " " in text else list(text)
    size = max(1, -(-len(units) // count))
    return ["".join(units[i : i + size]) for i in range(0, len(units), size)]
