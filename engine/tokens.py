"""Token estimates for prompt budgets and the studio's per-block counts (seed 004 ``maxContext``).

The estimator is deliberately model-free: ``ceil(utf8_bytes / 4)`` for everything except
characters of scripts written without spaces (CJK ideographs, kana, hangul, fullwidth forms),
which count as one token each. Four bytes per token is the usual average of BPE tokenizers on
English; one token per CJK character matches what they do on Chinese and Japanese. It never
needs a tokenizer download and costs one C-level pass for ASCII text.
"""

from __future__ import annotations

import re

# Scripts written without spaces between words; ``engine.lorebook`` uses the same set to decide
# where whole-word boundaries apply.
NO_SPACE_SCRIPTS = (
    "\u0e00-\u0eff"  # Thai, Lao
    "\u1000-\u109f"  # Myanmar
    "\u1100-\u11ff"  # Hangul Jamo
    "\u1780-\u17ff"  # Khmer
    "\u2e80-\u2fdf"  # CJK radicals
    "\u3000-\u303f"  # CJK punctuation
    "\u3040-\u30ff"  # Hiragana, Katakana
    "\u3100-\u312f"  # Bopomofo
    "\u3130-\u318f"  # Hangul compatibility Jamo
    "\u31f0-\u31ff"  # Katakana extensions
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\uac00-\ud7af"  # Hangul syllables
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\uff00-\uffef"  # Halfwidth and fullwidth forms
    "\U00020000-\U0003134f"  # CJK extensions B-G
)
_NO_SPACE_CHAR = re.compile(f"[{NO_SPACE_SCRIPTS}]")


def estimate_tokens(text: str) -> int:
    """Estimate the tokens of ``text``: ceil(utf8 bytes / 4), CJK-like characters one each."""
    if not text:
        return 0
    if text.isascii():
        return -(-len(text) // 4)
    rest, wide = _NO_SPACE_CHAR.subn("", text)
    return wide + -(-len(rest.encode("utf-8")) // 4)
