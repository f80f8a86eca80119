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
from collections.abc import Sequence
from itertools import combinations


def jaccard(a: frozenset[int], b: frozenset[int]) -> float:
    """|a ∩ b| / |a ∪ b|; 0.0 for two empty sets."""
    if not a and not b:
        return 0.0
    common = len(a & b)
    return common / (len(a) + len(b) - common)


def _prefix_length(size: int, threshold: float) -> int:
    return size - math.ceil(threshold * size - 1e-9) + 1


def similar_pairs(
    sets: Sequence[Sequence[int]], threshold: float, limit: int = 1000
) -> list[tuple[int, int, float]]:
    """Index pairs (i < j) whose Jaccard similarity exceeds ``threshold``, most alike first, at most ``limit``."""
    df = Counter()
    for tokens in sets:
        df.update(tokens)
    postings: dict[int, list[int]] = defaultdict(list)
    for doc, tokens in enumerate(sets):
        if not tokens:
            continue
        prefix = _prefix_length(len(tokens), threshold)
        shared = [(n, t) for t, n in zip(tokens, map(df.__getitem__, tokens)) if n > 1]
        unique = len(tokens) - len(shared)
        if unique >= prefix:
            continue  # the whole prefix is tokens no other page has
        for _, token in heapq.nsmallest(prefix - unique, shared):
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
            if score > threshold:
                found.append((i, j, score))
                if len(found) >= limit:
                    return sorted(found, key=lambda f: (-f[2], f[0], f[1]))
    found.sort(key=lambda f: (-f[2], f[0], f[1]))
    return found
