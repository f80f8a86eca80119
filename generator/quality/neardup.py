"""Near-duplicate pages: exact Jaccard similarity of shingle sets, with prefix filtering to find candidate pairs.

Prefix filtering (Bayardo et al., "Scaling up all pairs similarity search", 2007): order every set's tokens by a
global order, rarest first. Two sets with Jaccard >= t share at least ceil(t·|x|) tokens, so their first
|x| - ceil(t·|x|) + 1 tokens must overlap. Only pairs that share a prefix token are compared, and tokens that occur
in one page only (its numbers, its names) fill the prefixes, so a healthy site yields few candidates.
"""

from __future__ import annotations

import heapq
import math
from collections import Counter, defaultdict
from array import array
from collections.abc import Callable, Iterable, Sequence
from itertools import combinations


def jaccard(a: frozenset[int], b: frozenset[int]) -> float:
    """|a ∩ b| / |a ∪ b|; 0.0 for two empty sets."""
    if not a and not b:
        return 0.0
    common = len(a & b)
    return common / (len(a) + len(b) - common)


SAMPLE_EVERY = 8  # the sampled sets keep the shingles whose hash is a multiple of this (Broder's MOD-m sample)
MIN_SAMPLE = 64  # smaller samples estimate too loosely: compare the full sets instead
SAMPLE_MARGIN = 0.08  # over 3 standard errors of a 64+-token sample's Jaccard near 0.9


def sample(tokens: Iterable[int]) -> array:
    """The MOD-m sample of a shingle set: the same shingle is kept in every page, so Jaccard carries over."""
    return array("q", [t for t in tokens if not t % SAMPLE_EVERY])


def _prefix_length(size: int, threshold: float) -> int:
    return size - math.ceil(threshold * size - 1e-9) + 1


def _ranked(found: list[tuple[int, int, float]]) -> list[tuple[int, int, float]]:
    return sorted(found, key=lambda f: (-f[2], f[0], f[1]))


def similar_pairs(
    sets: Sequence[Sequence[int]],
    threshold: float,
    limit: int = 1000,
    rescore: Callable[[int, int], float] | None = None,
    final_threshold: float = 0.0,
) -> list[tuple[int, int, float]]:
    """Index pairs (i < j) whose Jaccard exceeds ``threshold``, most alike first, at most ``limit``.

    With ``rescore``, each such pair is scored again by it and kept only above ``final_threshold``.
    """
    df: Counter[int] = Counter()
    for tokens in sets:
        df.update(tokens)
    repeated = {token for token, count in df.items() if count > 1}
    postings: dict[int, list[int]] = defaultdict(list)
    for doc, tokens in enumerate(sets):
        if not tokens:
            continue
        shared = repeated.intersection(tokens)
        prefix = _prefix_length(len(tokens), threshold) - (len(tokens) - len(shared))
        # Rarest first: the prefix's tokens that occur in one page only cannot pair it with another.
        for _, token in heapq.nsmallest(prefix, zip(map(df.__getitem__, shared), shared)) if prefix > 0 else ():
            postings[token].append(doc)
    seen: set[tuple[int, int]] = set()
    frozen: dict[int, frozenset[int]] = {}
    found: list[tuple[int, int, float]] = []
    for docs in postings.values():
        for pair in combinations(docs, 2):
            if pair in seen:
                continue
            seen.add(pair)
            i, j = pair
            small, large = sorted((len(sets[i]), len(sets[j])))
            if small <= threshold * large:
                continue  # even a full overlap could not reach the threshold
            a = frozen.get(i) or frozen.setdefault(i, frozenset(sets[i]))
            b = frozen.get(j) or frozen.setdefault(j, frozenset(sets[j]))
            score = jaccard(a, b)
            if score <= threshold:
                continue
            if rescore is not None:
                score = rescore(i, j)
                if score <= final_threshold:
                    continue
            found.append((i, j, score))
            if len(found) >= limit:
                return _ranked(found)
    return _ranked(found)


def near_duplicates(
    full: Sequence[Sequence[int]], sampled: Sequence[Sequence[int]], threshold: float, limit: int = 1000
) -> list[tuple[int, int, float]]:
    """Pairs whose full shingle sets are more than ``threshold`` alike (exact), found through their samples."""
    if not full or min(map(len, sampled)) < MIN_SAMPLE:
        return similar_pairs(full, threshold, limit)
    cache: dict[int, frozenset[int]] = {}

    def exact(i: int, j: int) -> float:
        a = cache.get(i) or cache.setdefault(i, frozenset(full[i]))
        b = cache.get(j) or cache.setdefault(j, frozenset(full[j]))
        return jaccard(a, b)

    return similar_pairs(sampled, threshold - SAMPLE_MARGIN, limit, exact, threshold)
