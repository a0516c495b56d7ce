"""Spanish verbs conjugated for the closure lexicon (issue 34 §1: "verb-class lexicons keyed by
stems"): a verb is listed once, as its infinitive, and every form a narration or a player may
use is derived here, so that its stem is known ("coger" → coges, cogió, cogiste…; "confesar" →
confiesa by the stressed root). An irregular form is listed after a bar ("coger|cojo"); a form
that is a common word too ("como", "entre") is left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

_ENDINGS = {
    "ar": "o as a amos an e es en é aste ó aron aba abas aban ando ado ada ados adas "
    "ará arás arán aría arías",
    "er": "o es e emos en a as an í iste ió ieron ía ías ían iendo ido ida idos idas "
    "erá erás erán ería erías",
    "ir": "o es e imos en a as an í iste ió ieron ía ías ían iendo ido ida idos idas "
    "irá irás irán iría irías",
}
_PRESENT = {
    "ar": ("o", "as", "a", "an"),
    "er": ("o", "es", "e", "en"),
    "ir": ("o", "es", "e", "en"),
}
_FUNCTION_TEXT = (
    "a al de del el la lo las los le les se en con por para sin y o u un una no ni si "
    "tu te mi me su que como mas es son era fue va vas dan den da das entre sobre "
    "contra hacia desde tras ante junto cerca nada solo claro vino casa cara"
)
_FUNCTION_WORDS = frozenset(
    _FUNCTION_TEXT.split()
)  # a conjugated form that is a common word too ("como", "entre", "bajo") is left out


def alternatives(entries: Iterable[str]) -> list[str]:
    """ "take|took|taken" → take, took, taken (each replacing the phrase's first word);
    "come away with|came away with": a whole phrase stands for itself."""
    out: list[str] = []
    for entry in entries:
        first, *others = entry.split("|")
        out.append(first)
        rest = first.split(" ", 1)[1:] if " " in first else []
        out += [alt if " " in alt else " ".join([alt, *rest]) for alt in others]
    return out


def verb_forms(
    entries: Iterable[str], language: str, irregular: Mapping[str, tuple[str, ...]]
) -> list[str]:
    out: list[str] = []
    for entry in alternatives(entries):
        out.append(entry)
        if language == "zh" and len(entry) == 2 and "*" not in entry:
            out.append(f"{entry[0]}了{entry[1]}")  # a split verb: "咽气", "咽了气"
        if language != "es":
            continue
        head, _, rest = entry.partition(" ")
        infinitive = head.removesuffix("se")
        if infinitive[-2:] not in _ENDINGS and infinitive[-2:] != "ír":
            continue
        root, ending = infinitive[:-2], infinitive[-2:].replace("í", "i")
        forms = [root + end for end in _ENDINGS[ending].split()] if len(root) > 1 else []
        forms += [infinitive + c for c in ("te", "telo", "tela")]  # "llevarte": Snowball keeps te
        forms += [r + end for r in _stem_changes(root, ending) for end in _PRESENT[ending]]
        forms = [f for f in forms if f not in _FUNCTION_WORDS]
        forms += list(irregular.get(infinitive, ()))
        out += [f"{form} {rest}".strip() for form in forms]
    return list(dict.fromkeys(out))


def _stem_changes(root: str, ending: str) -> list[str]:
    """The stressed roots of a Spanish verb that may change its last vowel ("confes" →
    "confies", "cont" → "cuent", "ped" → "pid"): present forms of both are listed, so that
    "confiesa" and "cuentas" match without a table of irregular verbs."""
    at = max(root.rfind("e"), root.rfind("o"), root.rfind("u"))
    if at <= 0 or len(root) < 3:
        return []
    vowel = root[at]
    changed = {"e": ["ie", *(["i"] if ending == "ir" else [])], "o": ["ue"], "u": ["ue"]}[vowel]
    return [root[:at] + c + root[at + 1 :] for c in changed]
