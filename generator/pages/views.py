"""Page views: one typed view model per page kind (``viewmodels/``), looked up by the page's kind."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..sitedata import SiteData
from .plan import PageKey
from .viewmodels.common import Lang
from .viewmodels.compare import compare_view
from .viewmodels.gpu import gpu_view
from .viewmodels.index import index_view
from .viewmodels.methodology import methodology_view
from .viewmodels.model import model_view
from .viewmodels.notfound import notfound_view
from .viewmodels.pair import pair_view

VIEWS: dict[str, Callable[[SiteData, PageKey, Lang], Any]] = {
    "pair": pair_view, "model": model_view, "gpu": gpu_view, "compare": compare_view, "index": index_view,
    "methodology": methodology_view, "notfound": notfound_view,
}
