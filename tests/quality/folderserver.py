"""A throwaway static server for a built site on 127.0.0.1, for Lighthouse and browser tests."""

from __future__ import annotations

import gzip
import io
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, BinaryIO
from urllib.parse import urlsplit

STALL_SECONDS = 1.0
_REWRITTEN_TYPES = ("text/html", "application/xml", "text/xml", "text/plain")
_COMPRESSED_TYPES = ("text/", "application/json", "application/javascript", "application/xml", "image/svg+xml",
                     "application/manifest+json")


class _StalledBody(io.BytesIO):
    """A response body that hands out its first ``split`` bytes, then waits ``pause`` seconds before the rest."""

    def __init__(self, body: bytes, split: int, pause: float) -> None:
        super().__init__(body)
        self.split, self.pause, self.paused = split, pause, False

    def read(self, size: int | None = -1) -> bytes:
        left = self.split - self.tell()
        if left > 0:
            return super().read(left if size is None or size < 0 else min(size, left))
        if not self.paused:
            self.paused = True
            time.sleep(self.pause)
        return super().read(size)


def _handler(root: Path, rewrite: tuple[bytes, bytes] | None, stall: Callable[[bytes], int] | None = None,
             ) -> type[SimpleHTTPRequestHandler]:
    """A quiet handler for ``root``; text responses get ``rewrite[0]`` replaced by ``rewrite[1]`` and are gzipped for
    clients that accept it, as a static host serves them. With ``stall``, HTML goes out uncompressed and pauses after
    the first ``stall(body)`` bytes, as a slow network or a busy browser delivers it to the parser."""

    class Handler(SimpleHTTPRequestHandler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=str(root), **kwargs)

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
            pass

        def send_head(self) -> BinaryIO | None:
            path = Path(self.translate_path(self.path))
            if path.is_dir():
                if not urlsplit(self.path).path.endswith("/"):
                    return super().send_head()  # the base class redirects to the folder URL
                path = path / "index.html"
            kind = self.guess_type(str(path))
            rewritten = rewrite is not None and kind.startswith(_REWRITTEN_TYPES)
            stalled = stall is not None and kind.startswith("text/html")
            compressed = ("gzip" in self.headers.get("Accept-Encoding", "") and kind.startswith(_COMPRESSED_TYPES)
                          and not stalled)
            if not path.is_file() or not (rewritten or compressed or stalled):
                return super().send_head()
            body = path.read_bytes()
            if rewritten and rewrite is not None:
                body = body.replace(*rewrite)
            self.send_response(200)
            self.send_header("Content-Type", kind)
            if compressed:  # as static hosts serve text (GitHub Pages, Netlify, nginx gzip_static): budgets count this
                body = gzip.compress(body, compresslevel=6, mtime=0)
                self.send_header("Content-Encoding", "gzip")
                self.send_header("Vary", "Accept-Encoding")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if stall is not None and stalled:
                return _StalledBody(body, stall(body), STALL_SECONDS)
            return io.BytesIO(body)

    return Handler


@contextmanager
def serve_folder(root: Path, production_base: str | None = None,
                 stall: Callable[[bytes], int] | None = None) -> Iterator[str]:
    """Serve ``root`` on a free port of 127.0.0.1 and yield its base URL (``http://127.0.0.1:PORT/``).

    With ``production_base``, HTML, XML and text responses carry this server's URL in its place, so that
    canonical and hreflang links point at the copy being served, as they will on the real site. With ``stall``,
    each HTML body pauses for :data:`STALL_SECONDS` after the number of bytes ``stall`` returns for it.
    """
    server = ThreadingHTTPServer(("127.0.0.1", 0), SimpleHTTPRequestHandler)
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    rewrite = (production_base.encode(), base.encode()) if production_base else None
    server.RequestHandlerClass = _handler(Path(root).resolve(), rewrite, stall)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield base
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
