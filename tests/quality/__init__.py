"""Quality gates for a built site: site structure (sitecheck), HTML validity (vnu) and Lighthouse scores."""

from .lighthouse import run_lighthouse
from .sitecheck import check_site
from .vnu import validate_html

__all__ = ["check_site", "run_lighthouse", "validate_html"]
