"""Near-duplicate search: exact against brute force, hand-computed Jaccard values, shingles of real text."""

from __future__ import annotations

import random
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.quality.neardup import SAMPLE_EVERY, jaccard, near_duplicates, sample, similar_pairs
from tests.quality.pagescan import shingle_hashes


def brute_force(sets: list[list[int]], threshold: float) -> list[tuple[int, int, float]]:
    found = []
    for i, j in combinations(range(len(sets)), 2):
        score = jaccard(frozenset(sets[i]), frozenset(sets[j]))
        if score > threshold:
            found.append((i, j, score))
    return sorted(found, key=lambda f: (-f[2], f[0], f[1]))


def test_hand_computed_pairs() -> None:
    a = list(range(1, 21))
    b = list(range(1, 20)) + [21]  # 19 shared of 21: 0.905
    c = list(range(1, 19)) + [22, 23]  # 18 shared with a and with b, of 22: 0.818
    assert similar_pairs([a, b, c], 0.9) == [(0, 1, 19 / 21)]
    assert similar_pairs([a, b, c], 0.8) == [(0, 1, 19 / 21), (0, 2, 18 / 22), (1, 2, 18 / 22)]


def test_threshold_is_strict() -> None:
    a, b = list(range(10)), list(range(9))  # 9 / 10 = 0.9 exactly: not more than 90 % alike
    assert similar_pairs([a, b], 0.9) == []
    assert similar_pairs([a, b], 0.89) == [(0, 1, 0.9)]


def test_limit_stops_the_search() -> None:
    same = [list(range(50)) for _ in range(30)]
    assert len(similar_pairs(same, 0.9, limit=7)) == 7


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.lists(st.integers(0, 40), min_size=0, max_size=25, unique=True), min_size=2, max_size=12),
    st.sampled_from([0.5, 0.7, 0.8, 0.9]),
)
def test_prefix_filtering_misses_nothing(sets: list[list[int]], threshold: float) -> None:
    assert similar_pairs(sets, threshold) == brute_force(sets, threshold)


def test_sampled_search_is_exact_on_what_it_reports() -> None:
    rng = random.Random(7)
    template = [rng.getrandbits(62) for _ in range(3000)]
    pages = []
    # Page k keeps the template but for its first few tokens: pairs land just above and just below 0.9.
    for share in (0.97, 0.95, 0.93, 0.91, 0.80, 0.60):
        own = int(len(template) * (1 - share))
        pages.append(template[own:] + [rng.getrandbits(62) for _ in range(own)])
    full = [list(p) for p in pages]
    samples = [sample(p) for p in pages]
    assert min(map(len, samples)) > 64  # the sampled path, not the full-set fallback
    assert near_duplicates(full, samples, 0.9) == brute_force(full, 0.9)
    # 0–1: 2850 / 3150 = 0.905; 0–2 and 1–2: 2790 / 3210 = 0.869, inside the sampling margin, so rescored out.
    assert [(i, j) for i, j, _ in brute_force(full, 0.9)] == [(0, 1)]


def test_sample_keeps_the_same_shingles_everywhere() -> None:
    tokens = list(range(1000))
    assert list(sample(tokens)) == [t for t in tokens if t % SAMPLE_EVERY == 0]
    assert list(sample(tokens[512:])) == list(sample(tokens))[512 // SAMPLE_EVERY :]


def test_word_shingles() -> None:
    words = "a b c d e f".split()
    assert len(shingle_hashes(words)) == 2  # (a b c d e) and (b c d e f)
    assert len(shingle_hashes("a b c d e a b c d e".split())) == 5  # five distinct windows of six
    assert len(shingle_hashes("a b c d".split())) == 0
    # 10 words → 6 shingles; changing the last word changes one: Jaccard 5 / 7.
    text = "one two three four five six seven eight nine ten".split()
    changed = text[:-1] + ["eleven"]
    assert jaccard(frozenset(shingle_hashes(text)), frozenset(shingle_hashes(changed))) == 5 / 7
