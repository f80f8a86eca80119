"""The links every page's header, footer and notes carry."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from .. import urls


@dataclass(frozen=True)
class Nav:
    """Site links of one language, relative to the site root."""

    index: str
    models: str
    gpus: str
    methodology: str
    quality: str  # the methodology page's quality grading section


@cache
def nav(language: str) -> Nav:
    index, methodology = urls.index(language), urls.methodology(language)
    return Nav(index, urls.anchor(index, "models"), urls.anchor(index, "gpus"), methodology,
               urls.anchor(methodology, "quality"))


OG_LOCALE = {"en": "en_US", "de": "de_DE"}


@dataclass(frozen=True, slots=True)
class LanguageLink:
    """The same page in another language, as the header links it."""

    code: str
    path: str
    name: str


def other_languages(alternates: dict[str, str], language: str, names: dict[str, str]) -> tuple[LanguageLink, ...]:
    return tuple(LanguageLink(code, path, names[code]) for code, path in alternates.items()
                 if code not in (language, "x-default"))
