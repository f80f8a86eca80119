"""Languages, gettext catalogues and per-locale number, size, price and date formatters."""

from __future__ import annotations

import datetime as dt
import math
import os
import re
from dataclasses import dataclass
from functools import cache
from io import BytesIO
from pathlib import Path

from babel import Locale
from babel.dates import format_date
from babel.messages.catalog import Catalog, Message
from babel.messages.mofile import write_mo
from babel.messages.pofile import PoFileParser
from babel.support import NullTranslations, Translations
from markupsafe import Markup

from .errors import Problem, UserError
from .inputfile import LOCALE_FILE_BYTES, read_input

LANGUAGES = ("en", "de")
DEFAULT_LANGUAGE = "en"
GIB = 2**30
GB = 10**9


@dataclass(frozen=True)
class CatalogueStatus:
    """How complete one language's gettext catalogue is."""

    language: str
    untranslated: tuple[str, ...]
    fuzzy: tuple[str, ...]
    bad_placeholders: tuple[str, ...] = ()
    syntax: tuple[str, ...] = ()  # what the .po parser could not read ("line 12: ..."), skipped


class _CheckedPoParser(PoFileParser):
    """Babel's .po parser, collecting what it cannot parse instead of printing it (a translation file is data:
    its problems are the build's warnings, which ``--strict`` fails on)."""

    def __init__(self, catalog: Catalog):
        super().__init__(catalog, ignore_obsolete=False, abort_invalid=False)
        self.problems: list[str] = []

    def _invalid_pofile(self, line: str, lineno: int, msg: str) -> None:
        self.problems.append(f"line {lineno + 1}: {msg}: {line[:60]!r}")


def read_checked_po(po_path: Path, language: str, shown: str) -> tuple[Catalog, tuple[str, ...]]:
    """A ``messages.po`` read through the project's bounded reader: its catalogue and the lines it could not
    parse. Text that is not UTF-8 is a one-line :class:`UserError`."""
    raw = read_input(po_path, po_path.parents[3], LOCALE_FILE_BYTES, shown)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        raise UserError(Problem(shown, f"line {line}", "not UTF-8 text: a .po file must be UTF-8")) from None
    catalog = Catalog(locale=language, domain="messages", charset="utf-8")
    parser = _CheckedPoParser(catalog)
    try:
        parser.parse(text.splitlines())  # text: a header's charset cannot re-decode it
    except (ValueError, LookupError) as error:  # a header Babel cannot use (an unknown charset, a bad plural form)
        raise UserError(Problem(shown, "", f"cannot parse: {str(error).splitlines()[0][:100]}")) from None
    return catalog, tuple(parser.problems)


# A %-format directive: pages fill a message's %(name)s placeholders, so a translation may use only its message's.
PLACEHOLDER = re.compile(r"%(?:\([^)]*\))?[^(]?")


def _placeholders_differ(message: Message) -> bool:
    strings = tuple(message.string) if isinstance(message.string, (tuple, list)) else (message.string,)
    ids = tuple(message.id) if isinstance(message.id, (tuple, list)) else (message.id,)
    if not any("%(" in text for text in ids):
        return False  # not a format: pages show it as it is
    allowed = {p for text in ids for p in PLACEHOLDER.findall(text)}
    return any(p not in allowed for text in strings if text for p in PLACEHOLDER.findall(text))


def compile_locales(locales_dir: Path) -> list[CatalogueStatus]:
    """Compile each ``messages.po`` to ``messages.mo`` unless it already holds the same bytes (a clock or a copy
    can make an old ``.mo`` look newer); report untranslated messages and translations whose placeholders are not
    their message's (left out: the page shows the message untranslated rather than fail to fill it)."""
    statuses = []
    for language in LANGUAGES:
        po_path = locales_dir / language / "LC_MESSAGES" / "messages.po"
        catalog, syntax = read_checked_po(po_path, language, "/".join(po_path.parts[-4:]))  # locales/de/...
        messages = [m for m in catalog if m.id]
        bad = tuple(str(m.id) for m in messages if _placeholders_differ(m))
        for message in messages:
            if str(message.id) in bad:
                message.string = "" if not isinstance(message.string, tuple) else ("",) * len(message.string)
        compiled = BytesIO()
        write_mo(compiled, catalog, use_fuzzy=False)
        mo_path = po_path.with_suffix(".mo")
        try:
            current = read_input(mo_path, po_path.parents[3], 2 * LOCALE_FILE_BYTES)
        except UserError:  # none yet, or not a file of ours (a link, a pipe): replaced below, never written through
            current = None
        if current != compiled.getvalue():
            tmp = mo_path.with_name(f".{mo_path.name}.{os.getpid()}.tmp")  # builds of two sites may compile at once
            tmp.write_bytes(compiled.getvalue())
            os.replace(tmp, mo_path)
        if language != DEFAULT_LANGUAGE:
            untranslated = tuple(str(m.id) for m in messages if str(m.id) not in bad and (
                not m.string or (isinstance(m.string, tuple) and not all(m.string))))
            fuzzy = tuple(str(m.id) for m in messages if m.fuzzy)
            statuses.append(CatalogueStatus(language, untranslated, fuzzy, bad, syntax))
        elif bad or syntax:
            statuses.append(CatalogueStatus(language, (), (), bad, syntax))
    return statuses


def translations(locales_dir: Path, language: str) -> NullTranslations:
    """The compiled gettext catalogue of one language."""
    return Translations.load(str(locales_dir), [language], domain="messages")


class Formatter:
    """Locale-aware formatting; built once per language, cheap per call (no Babel pattern parsing)."""

    def __init__(self, language: str):
        locale = Locale.parse(language)
        symbols = locale.number_symbols["latn"]
        self.language = language
        self._group, self._decimal = symbols["group"], symbols["decimal"]
        currency = locale.currency_formats["standard"].pattern.split(";")[0]
        self._usd_prefix = "$" if currency.startswith("¤") else ""
        self._usd_suffix = "\u00a0$" if currency.endswith("¤") else ""
        percent = locale.percent_formats[None].pattern
        self._percent_suffix = "\u00a0%" if " %" in percent or "\u00a0%" in percent else "%"

    def number(self, value: float, digits: int = 0) -> str:
        """A number with grouping and the locale's decimal sign."""
        if -999.5 < value < 999.5:  # no group separator even after rounding: the plain format is 3× faster
            text = "%.*f" % (digits, value)  # noqa: UP031 - 25 % faster than the f-string on this hot path
            return text if self._decimal == "." else text.replace(".", self._decimal)
        # "_" marks the groups: no locale uses it as a sign, so the two replacements cannot collide
        return f"{value:_.{digits}f}".replace(".", self._decimal).replace("_", self._group)

    def sig(self, value: float, significant: int = 3) -> str:
        """A number with about ``significant`` significant digits (no trailing noise)."""
        if value == 0 or not math.isfinite(value):
            return self.number(value)
        digits = max(0, significant - 1 - math.floor(math.log10(abs(value))))
        return self.number(value, digits)

    def gib(self, size_bytes: int, digits: int = 2) -> str:
        """Binary gibibytes, as llama.cpp and nvidia-smi count them."""
        return f"{self.number(size_bytes / GIB, digits)}\u00a0GiB"

    def gb(self, size_bytes: int, digits: int = 2) -> str:
        """Decimal gigabytes, as vendors and Hugging Face count them."""
        return f"{self.number(size_bytes / GB, digits)}\u00a0GB"

    def mib(self, size_bytes: int) -> str:
        """Binary mebibytes, for small buffers."""
        return f"{self.number(size_bytes / 2**20, 0)}\u00a0MiB"

    def usd(self, value: float, digits: int = 2) -> str:
        """US dollars as providers publish them, in the locale's layout."""
        return f"{self._usd_prefix}{self.number(value, digits)}{self._usd_suffix}"

    def percent(self, ratio: float, digits: int = 0) -> str:
        """A ratio (0.27) as a percentage (27 %)."""
        return f"{self.number(ratio * 100, digits)}{self._percent_suffix}"

    def tokens(self, count: int) -> str:
        """A token count in the short form used for context sizes (8K, 128K, 1M)."""
        if count >= 2**20 and count % 2**20 == 0:
            return f"{count // 2**20}M"
        if count >= 1024 and count % 1024 == 0:
            return f"{count // 1024}K"
        return self.number(count)

    def params(self, count: int) -> str:
        """A parameter count in billions (8.03 B; German 8,03 Mrd.)."""
        return f"{self.sig(count / 1e9, 3)}\u00a0{'Mrd.' if self.language == 'de' else 'B'}"

    def date(self, value: dt.date) -> str:
        """A date in the locale's medium format."""
        return _format_date(value, self.language)


@cache
def _format_date(value: dt.date, language: str) -> str:
    return format_date(value, format="medium", locale=language)


@cache
def formatter(language: str) -> Formatter:
    """The one formatter of a language."""
    return Formatter(language)


def translation_markup(text: str) -> Markup:
    """A translated message as markup: translations are text, so ``&``, ``<``, ``>`` and ``"`` are escaped (``'``
    needs no escape: every template attribute is double-quoted)."""
    return Markup(text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&#34;"))
