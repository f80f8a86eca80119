"""External links: the one check every URL from the catalogue passes, in the schema and again where pages link it."""

from __future__ import annotations

from urllib.parse import urlsplit

# Characters a URL never needs and that could end an attribute, start markup or hide a scheme.
_FORBIDDEN = frozenset(' "\'<>`\\{}|^') | frozenset(map(chr, range(0x20))) | {"\x7f"}


class UnsafeLinkError(ValueError):
    """A page was asked to link something other than an https URL: the schema should have refused it."""


def is_safe_href(url: object) -> bool:
    """Whether ``url`` is an absolute https URL with a host and no character that needs quoting."""
    if not isinstance(url, str) or not url.startswith("https://") or any(ch in _FORBIDDEN for ch in url):
        return False
    try:
        return bool(urlsplit(url).hostname)
    except ValueError:
        return False


def href(url: object) -> str:
    """``url`` for an ``href`` attribute; anything but an https URL is refused."""
    if not is_safe_href(url):
        raise UnsafeLinkError(f"refusing to link {url!r}: only https URLs are linked")
    return str(url)
