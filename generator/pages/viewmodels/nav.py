"""The links every page's header, footer and notes carry."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from ... import urls


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
