"""The keyword ids of a compiled lorebook, shared along a chain of edits (issue 14 §2).

Editing one entry of a 5,000-entry world used to recompile its 15,000 keywords into a new trie
regex (about a second). A ``KeywordTable`` instead hands out ids that never change once given,
and a table derived from another copies the id maps and keeps its matchers: only the keywords
the edit added go into a small *overlay* matcher. Keywords no entry uses any more stay in the
table (they match, but no entry lists them, so they fire nothing). When the overlay grows past
a fraction of the base, the group is recompiled whole, so a long editing session does not pile
up matchers.
"""

from __future__ import annotations

from engine.lorebook_matcher import Keyword, KeywordMatcher, is_word_char

_OVERLAY_MIN = 256  # overlays up to this many keywords never force a full recompile
_OVERLAY_SHARE = 8  # ... nor up to 1/8 of the group's base matcher


class KeywordTable:
    """Keyword text → id per case group, and the matchers that find them in a text.

    A table is filled while one lorebook is compiled, then frozen by ``matchers()``; a derived
    table (``KeywordTable(parent)``) never mutates its parent, which other threads may be
    scanning with.
    """

    def __init__(self, parent: KeywordTable | None = None):
        if parent is None:
            self.keywords: list[Keyword] = []
            self.ids: dict[bool, dict[str, int]] = {False: {}, True: {}}
            self.base: dict[bool, KeywordMatcher | None] = {False: None, True: None}
            self.overlay: dict[bool, dict[str, int]] = {False: {}, True: {}}
            self._matchers: list[KeywordMatcher] | None = None
        else:
            self.keywords = list(parent.keywords)
            self.ids = {cs: dict(ids) for cs, ids in parent.ids.items()}
            self.base = dict(parent.base)
            self.overlay = {cs: dict(ids) for cs, ids in parent.overlay.items()}
            self._matchers = parent._matchers  # reused as long as nothing is added
        self.added = 0  # keywords this table gave an id that its parent did not know

    def id_of(self, raw: str, case_sensitive: bool) -> int | None:
        """The id of a keyword as written (whitespace-normalised, case-folded unless
        ``case_sensitive``); None for a blank one."""
        text = " ".join(raw.split())
        if not text:
            return None
        key = text if case_sensitive else text.lower()
        ids = self.ids[case_sensitive]
        kid = ids.get(key)
        if kid is None:
            kid = ids[key] = len(self.keywords)
            self.keywords.append(Keyword(key, is_word_char(key[0]), is_word_char(key[-1])))
            self.overlay[case_sensitive][key] = kid
            self.added += 1
            self._matchers = None
        return kid

    def matchers(self) -> list[KeywordMatcher]:
        """The matchers covering every id: per case group a base one and, after edits, a small
        overlay one (recompiled whole when the overlay outgrows its share)."""
        if self._matchers is not None:
            return self._matchers
        out: list[KeywordMatcher] = []
        for cs in (False, True):
            overlay, base = self.overlay[cs], self.base[cs]
            base_size = len(base.ids) if base is not None else 0
            if overlay and (
                base is None or len(overlay) > max(_OVERLAY_MIN, base_size // _OVERLAY_SHARE)
            ):
                base = self.base[cs] = KeywordMatcher(dict(self.ids[cs]), self.keywords, cs)
                overlay = self.overlay[cs] = {}
            if base is not None:
                out.append(base)
            if overlay:
                out.append(KeywordMatcher(dict(overlay), self.keywords, cs))
        self._matchers = out
        return out
