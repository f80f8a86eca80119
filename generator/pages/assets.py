"""Static assets: one stylesheet, the site script, the rent-or-buy calculator, the home page's finder script and the
favicon, with content-hashed names."""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

SOURCES = {"css": "style.css", "js": "site.js", "rentbuy": "rentbuy.js",  # rentbuy: only pages with the calculator
           "finder": "finder.js"}  # finder.js: the home page only


@cache
def names(project: Path) -> dict[str, str]:
    """Fingerprinted file names, e.g. ``{"css": "style.3f2a….css"}``, so caches never serve stale files."""
    result = {}
    for key, name in SOURCES.items():
        digest = hashlib.sha256((project / "templates" / "assets" / name).read_bytes()).hexdigest()[:10]
        stem, suffix = name.rsplit(".", 1)
        result[key] = f"{stem}.{digest}.{suffix}"
    return result


def files(project: Path) -> list[tuple[str, bytes]]:
    """Every asset as (site path, bytes)."""
    folder = project / "templates" / "assets"
    hashed = names(project)
    out = [(f"assets/{hashed[key]}", (folder / name).read_bytes()) for key, name in SOURCES.items()]
    out.append(("assets/favicon.svg", (folder / "favicon.svg").read_bytes()))
    return out
