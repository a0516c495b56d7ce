"""Text vectors for the NPCs' semantic memory search (seed 003: "Para recuerdos más antiguos, la
búsqueda semántica recupera los que podrían importar"; GAME_MASTER.md decision 25).

Decision 25 asks for a small embedding model that ships as a package and runs on CPU with no
download at run time. None on PyPI fits well enough: the only wheel found that truly bundles its
weights (a 64-dimension, 10k-cluster static model, 7 MB) is a native extension of one author's
0.1 release whose scores put an unrelated sentence level with the right one. So the default is
this module's ``HashedNgramEmbedder``: deterministic, pure Python, nothing to install and no
weights at all. Words and their character trigrams (Chinese: characters and character pairs)
are hashed into a fixed number of signed buckets, weighted by how rare they are in the batch
being embedded (the query and the memories it is compared with), then scaled to unit length.
So "did he pay his debts?" finds "Ren paid his debt to the innkeeper" through "paid"/"pay" and
"debts"/"debt", and a Spanish or Chinese memory is found by a query in its own language.
It is lexical, not truly semantic: anything implementing ``Embedder`` (a packaged static model,
say) can replace it, and ``engine.gm.recall`` falls back to plain keyword overlap when an
embedder is missing or fails.
"""

from __future__ import annotations

import math
import re
import zlib
from collections import Counter
from collections.abc import Sequence
from typing import Protocol

from engine.gm.mentions import fold

Vector = list[float]
DIMENSIONS = 2048
_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af"
_RUNS = re.compile(rf"[{_CJK}]+|[^\W{_CJK}]+")
_IS_CJK = re.compile(rf"[{_CJK}]")


class EmbeddingUnavailable(RuntimeError):
    """The embedder cannot run here (a model that failed to load): search falls back to keywords."""


class Embedder(Protocol):
    """Turns texts into vectors of one length; similar texts get a high cosine."""

    name: str

    def embed(self, texts: Sequence[str]) -> list[Vector]: ...


def features(text: str) -> Counter[str]:
    """The hashed features of a text: each word and its trigrams; for Chinese (and other
    unspaced scripts) each character and each pair of neighbours."""
    out: Counter[str] = Counter()
    for run in _RUNS.findall(fold(text)):
        if _IS_CJK.match(run):
            out.update(run)
            out.update(run[i : i + 2] for i in range(len(run) - 1))
            continue
        out[f"w:{run}"] += 1
        if len(run) > 3:
            padded = f"<{run}>"
            out.update(padded[i : i + 3] for i in range(len(padded) - 2))
    return out


def _bucket(feature: str, dimensions: int) -> tuple[int, float]:
    digest = zlib.crc32(feature.encode("utf-8"))
    return digest % dimensions, 1.0 if (digest >> 31) & 1 else -1.0


class HashedNgramEmbedder:
    """The default embedder: see the module docstring. The texts of one ``embed`` call are each
    other's corpus for the rarity weights, so embed the query with what it is compared to."""

    name = "hashed-ngrams"

    def __init__(self, dimensions: int = DIMENSIONS) -> None:
        self.dimensions = dimensions

    def embed(self, texts: Sequence[str]) -> list[Vector]:
        counted = [features(text) for text in texts]
        seen_in: Counter[str] = Counter()
        for feats in counted:
            seen_in.update(feats.keys())
        total = len(counted)
        return [self._vector(feats, seen_in, total) for feats in counted]

    def _vector(self, feats: Counter[str], seen_in: Counter[str], total: int) -> Vector:
        vector = [0.0] * self.dimensions
        for feature, count in feats.items():
            rarity = math.log((1 + total) / (1 + seen_in[feature])) + 1.0
            weight = (1.0 + math.log(count)) * rarity * (2.0 if feature[:2] == "w:" else 1.0)
            index, sign = _bucket(feature, self.dimensions)
            vector[index] += sign * weight
        return unit(vector)


def unit(vector: Vector) -> Vector:
    """``vector`` scaled to length 1 (all zeros stays all zeros)."""
    norm = math.sqrt(sum(x * x for x in vector))
    return [x / norm for x in vector] if norm else vector


def cosine(a: Vector, b: Vector) -> float:
    """The cosine of two vectors (0 when either is all zeros)."""
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    norms = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norms if norms else 0.0
