"""Page views: one typed view model per page kind (``views/``), looked up by the page's kind."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..sitedata import SiteData
from .common import Lang
from .compare import compare_view
from .gpu import gpu_view
from .index import index_view
from .methodology import methodology_view
from .model import model_view
from .notfound import notfound_view
from .pair import pair_view
from .plan import PageKey

VIEWS: dict[str, Callable[[SiteData, PageKey, Lang], Any]] = {
    "pair": pair_view, "model": model_view, "gpu": gpu_view, "compare": compare_view, "index": index_view,
    "methodology": methodology_view, "notfound": notfound_view,
}
