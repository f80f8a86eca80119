"""Locale formatting: hand-checked strings per language."""

import datetime as dt

import pytest

from generator.i18n import Formatter, formatter

GIB = 2**30


@pytest.mark.parametrize("language, expected", [("en", "69.96\u00a0GiB"), ("de", "69,96\u00a0GiB")])
def test_gib_uses_the_locale_decimal_sign(language, expected):
    assert formatter(language).gib(round(69.96 * GIB)) == expected


@pytest.mark.parametrize("language, expected", [("en", "$1,599.00"), ("de", "1.599,00\u00a0$")])
def test_usd_keeps_dollars_in_the_locale_layout(language, expected):
    assert formatter(language).usd(1599) == expected


def test_decimal_gigabytes_and_grouping():
    assert formatter("en").gb(75_120_000_000) == "75.12\u00a0GB"
    assert formatter("de").number(1234567.891, 1) == "1.234.567,9"


def test_percent_and_significant_digits():
    assert formatter("en").percent(0.273) == "27%"
    assert formatter("de").percent(0.273) == "27\u00a0%"
    assert formatter("en").sig(205.43) == "205"
    assert formatter("en").sig(0.1714) == "0.171"
    assert formatter("de").sig(12.345) == "12,3"


def test_token_counts_use_binary_k():
    fmt = formatter("en")
    assert [fmt.tokens(n) for n in (4096, 131072, 1048576, 40960, 1000)] == ["4K", "128K", "1M", "40K", "1,000"]


def test_dates_per_locale():
    assert formatter("en").date(dt.date(2026, 11, 30)) == "Nov 30, 2026"
    assert formatter("de").date(dt.date(2026, 11, 30)) == "30.11.2026"


def test_formatter_is_built_once_per_language():
    assert formatter("de") is formatter("de")
    assert isinstance(formatter("en"), Formatter)


@pytest.mark.parametrize("language", ["en", "de"])
def test_numbers_match_python_grouping_whatever_was_formatted_before(language):
    """The fast paths give what Python's own grouping format gives, with and without grouping, in both signs."""
    import random
    fmt = Formatter(language)
    signs = str.maketrans({",": ".", ".": ","}) if language == "de" else str.maketrans({})
    rng = random.Random(7)
    values = [0.0, -0.0, 0.0, 999.5, -999.5, 999.4999, 999.995, 1000, 1e15, -1234567.891, 5, 5.0, float("inf")]
    values += [rng.uniform(-3e6, 3e6) for _ in range(3000)] + [rng.uniform(-2000, 2000) for _ in range(3000)]
    for value in values + values[::-1]:
        for digits in (0, 1, 2):
            assert fmt.number(value, digits) == f"{value:,.{digits}f}".translate(signs), (value, digits)
