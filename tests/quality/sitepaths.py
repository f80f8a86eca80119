"""Mapping between a built site's files and its URLs, and resolution of the links found in its pages."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

DEFAULT_BASE_URL = "https://vram-atlas.example/"
# Relative links made of "../" steps and plain path segments, with at most a plain fragment.
_SIMPLE_RELATIVE = re.compile(r"((?:\.\./)*)((?:[\w~-][\w.~-]*/)*(?:[\w~-][\w.~-]*)?)(?:#([\w.:-]*))?\Z")
_SKIPPED_SCHEMES = frozenset({"mailto", "tel", "data", "javascript", "blob", "about"})


def normalise_base(base_url: str) -> str:
    """The base URL with exactly one trailing slash."""
    return base_url.rstrip("/") + "/"


def url_of(rel_path: str, base_url: str) -> str:
    """The public URL of a site file: folder URLs for ``index.html`` files, file URLs otherwise."""
    if rel_path == "index.html":
        return base_url
    if rel_path.endswith("/index.html"):
        return base_url + rel_path[: -len("index.html")]
    return base_url + rel_path


def file_of(site_path: str) -> str:
    """The file a site-relative URL path names, before checking it exists (``a/`` → ``a/index.html``)."""
    if site_path == "" or site_path.endswith("/"):
        return site_path + "index.html"
    return site_path


@dataclass(frozen=True)
class Link:
    """A resolved internal link: the site file it names, its fragment, or why it cannot be resolved."""

    href: str
    target: str | None = None  # site-relative file path (``en/x/index.html``)
    fragment: str = ""
    error: str | None = None


def site_path_of(url: str, base_url: str) -> str | None:
    """The site-relative path of an absolute URL under ``base_url``; None for URLs elsewhere."""
    if not url.startswith(base_url):
        return None
    return unquote(urlsplit(url[len(base_url) - 1 :]).path)[1:]


def resolve(href: str, page_path: str, base_url: str) -> Link | None:
    """Resolve ``href`` found in the page at site path ``page_path``; None for external or non-page links."""
    href = href.strip()
    if not href:
        return Link(href, error="empty link")
    if href.startswith("#"):
        return Link(href, target=page_path, fragment=unquote(href[1:]))
    simple = _SIMPLE_RELATIVE.match(href)
    if simple:  # the common case, without the cost of urlsplit and normpath
        ups, rest, fragment = simple.group(1).count("../"), simple.group(2), simple.group(3) or ""
        folders = page_path.split("/")[:-1]
        if ups > len(folders):
            return Link(href, error="climbs above the site root")
        return Link(href, target=file_of("/".join([*folders[: len(folders) - ups], rest])), fragment=fragment)
    parts = urlsplit(href)
    scheme = parts.scheme.lower()
    if scheme in _SKIPPED_SCHEMES:
        return None
    base = urlsplit(base_url)
    fragment = unquote(parts.fragment)
    if not scheme and not parts.netloc and not parts.path.startswith("/"):
        if not parts.path:
            return Link(href, target=page_path, fragment=fragment)
        rel = posixpath.normpath(posixpath.join(posixpath.dirname(page_path), unquote(parts.path)))
        if rel == ".." or rel.startswith("../"):
            return Link(href, error="climbs above the site root")
        rel = "" if rel == "." else rel
        if parts.path.endswith("/") or parts.path.rsplit("/", 1)[-1] in (".", ".."):
            rel = rel + "/" if rel else ""
        return Link(href, target=file_of(rel), fragment=fragment)
    if scheme or parts.netloc:
        if parts.netloc.lower() != base.netloc.lower():
            return None  # another site: not ours to check
        if scheme and scheme != base.scheme:
            return Link(href, error=f"uses {scheme}: but the site is served over {base.scheme}:")
    root_path = parts.path or "/"
    if not root_path.startswith(base.path):
        return Link(href, error=f"points outside the site (above {base.path})")
    return Link(href, target=file_of(unquote(root_path[len(base.path) :])), fragment=fragment)
