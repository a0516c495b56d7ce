"""The offline master's closure (seed 001 "Modos de ejecución": offline "Responde con un cierre
sencillo sacado del contexto («Haces X. Nada cambia.»)"; issue 33 §3: "The offline closure never
re-conjugates the player's words").

Turning "silbo una vieja canción" into the second person gave "Haces silbo una vieja canción":
no word list conjugates every verb a player types. The closure quotes him instead, in a
neutral frame of his language (``closure`` in ``engine/gm/lexicon/offline.<lang>.json``):
"You do as you said: “I hum an old song”. Nothing changes.", "Haces lo que dijiste: «silbo una
vieja canción». Nada cambia.", "你照你说的做了：“我哼起一首老歌”。什么也没有改变。". Every
directive, tag and bracket is taken out of the quote first (``engine.llm.offline.quotable``),
so the closure can never change state; an empty action is a plain wait.
"""

from __future__ import annotations

from engine.gm.risk import offline_book
from engine.llm.offline import quotable

_EDGES = " \t\r\n*_~\"'“”‘’«»「」()"
_TRAILING = ".!?…,;:。！？，；：~"


def closure(action: str, language: str | None = "en") -> str:
    """The offline master's closure for ``action``: his words quoted, then that nothing
    changes."""
    book = offline_book(language)
    said = " ".join(quotable(action).split()).strip(_EDGES)
    said = said.rstrip(_TRAILING + _EDGES).lstrip("¡¿").strip()
    if not said:
        return book.t("closure_empty")
    return book.t("closure", action=said)
