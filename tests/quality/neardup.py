"""Near-duplicate pages: exact Jaccard similarity of shingle sets, with prefix filtering to find candidate pairs.

Prefix filtering (Bayardo et al., "Scaling up all pairs similarity search", 2007; Xiao et al., PPJoin, 2008):
order every set's tokens by one global order, rarest first. Two sets with Jaccard > t share at least
a = ceil(t·|x|) tokens, so the k-th smallest token they share lies within the first |x| - a + k tokens of each.
Pages are compared only when their prefixes share k tokens (k = 3, or fewer for tiny sets), and tokens that occur
in one page only (its numbers, its names) come first, so a healthy site yields few candidates. Pages are indexed
one by one (AllPairs), so a site full of duplicates stops at the limit instead of listing every pair first.
"""

from __future__ import annotations

import math
from array import array
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence


def jaccard(a: frozenset[int], b: frozenset[int]) -> float:
    """|a ∩ b| / |a ∪ b|; 0.0 for two empty sets."""
    if not a and not b:
        return 0.0
    common = len(a & b)
    return common / (len(a) + len(b) - common)


SAMPLE_EVERY = 8  # the sampled sets keep the shingles whose hash is a multiple of this (Broder's MOD-m sample)
MIN_SAMPLE = 64  # smaller samples estimate too loosely: compare the full sets instead
PREFIX_SHARES = 3


def sample(tokens: Iterable[int]) -> array:
    """The MOD-m sample of a shingle set: the same shingle is kept in every page, so Jaccard carries over."""
    return array("q", [t for t in tokens if not t % SAMPLE_EVERY])


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
    # The global order, rarest first, as ranks from 1; tokens in one set only have none: they match nothing.
    rank = {token: r for r, (_, token) in enumerate(sorted((n, t) for t, n in df.items() if n > 1), 1)}
    index: dict[int, list[int]] = defaultdict(list)
    needed: list[int] = []  # shared prefix tokens that doc must have with an earlier one to be a candidate
    frozen: dict[int, frozenset[int]] = {}
    found: list[tuple[int, int, float]] = []
    for x, tokens in enumerate(sets):
        overlap = math.ceil(threshold * len(tokens) - 1e-9)  # at least this many tokens shared with any match
        needed.append(min(PREFIX_SHARES, overlap))
        ranks = sorted(filter(None, map(rank.get, tokens)))
        picks = len(tokens) - overlap + needed[x] - (len(tokens) - len(ranks))
        if picks <= 0 or not tokens:
            continue  # its prefix is tokens that no other page has
        earlier: list[int] = []
        for token in ranks[:picks]:
            earlier += index[token]
            index[token].append(x)
        for y, common in Counter(earlier).items():
            if common < min(needed[x], needed[y]):
                continue
            small, large = sorted((len(sets[y]), len(tokens)))
            if small <= threshold * large:
                continue  # even a full overlap could not reach the threshold
            a = frozen.get(y) or frozen.setdefault(y, frozenset(sets[y]))
            b = frozen.get(x) or frozen.setdefault(x, frozenset(tokens))
            score = jaccard(a, b)
            if score <= threshold:
                continue
            if rescore is not None:
                score = rescore(y, x)
                if score <= final_threshold:
                    continue
            found.append((y, x, score))
            if len(found) >= limit:
                return _ranked(found)
    return _ranked(found)


def near_duplicates(
    full: Sequence[Sequence[int]], sampled: Sequence[Sequence[int]], threshold: float, limit: int = 1000
) -> list[tuple[int, int, float]]:
    """Pairs whose full shingle sets are more than ``threshold`` alike (exact), found through their samples."""
    smallest = min(map(len, sampled), default=0)
    if smallest < MIN_SAMPLE:
        return similar_pairs(full, threshold, limit)
    # Search the samples with a threshold lowered by 3 standard errors of a sampled Jaccard near ``threshold``.
    margin = 3 * math.sqrt(threshold * (1 - threshold) / smallest)
    cache: dict[int, frozenset[int]] = {}

    def exact(i: int, j: int) -> float:
        a = cache.get(i) or cache.setdefault(i, frozenset(full[i]))
        b = cache.get(j) or cache.setdefault(j, frozenset(full[j]))
        return jaccard(a, b)

    return similar_pairs(sampled, threshold - margin, limit, exact, threshold)
