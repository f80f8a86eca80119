"""The 404 page."""

from __future__ import annotations

from dataclasses import dataclass

from ..sitedata import SiteData
from .common import Head, Lang
from .plan import PageKey


@dataclass(frozen=True, slots=True)
class NotFoundView:
    head: Head


def notfound_view(site: SiteData, key: PageKey, lang: Lang) -> NotFoundView:
    _ = lang.gettext
    return NotFoundView(Head(_("Page not found · VRAM Atlas"),
                             _("This page does not exist. Find a model or a GPU from the index.")))
