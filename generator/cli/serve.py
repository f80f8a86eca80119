"""``serve``: serve the built site on http://127.0.0.1:8000 (loopback only)."""

from __future__ import annotations

import argparse
import functools
import http.server
import os
from pathlib import Path

from ..errors import Problem, UserError


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``serve`` subcommand."""
    parser = subparsers.add_parser("serve", help="serve site/ on http://127.0.0.1:8000", description=__doc__)
    parser.add_argument("--dir", type=Path, default=Path("site"), help="folder to serve (default: site)")
    parser.add_argument("--port", type=int, default=8000)
    parser.set_defaults(func=run)


class _Handler(http.server.SimpleHTTPRequestHandler):
    """Static files, with the site's own 404 page; a folder without an index page is not listed (404)."""

    def list_directory(self, path: str | os.PathLike[str]) -> None:
        self.send_error(404, "Not found")
        return None

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        page = Path(self.directory) / "404.html"
        if code != 404 or not page.exists():
            super().send_error(code, message, explain)
            return
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted."""
    if not (args.dir / "index.html").exists():
        raise UserError(Problem(str(args.dir), "", "no built site here: run `make build` first"))
    if not 0 <= args.port <= 65535:
        raise UserError(Problem("serve", "--port", f"must be 0 to 65535, got {args.port}"))
    handler = functools.partial(_Handler, directory=str(args.dir))
    try:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), handler)
    except OSError as error:
        raise UserError(Problem("serve", "--port", f"cannot listen on 127.0.0.1:{args.port}: {error.strerror}")) from None
    with server:
        print(f"serving {args.dir} on http://127.0.0.1:{args.port}/ (Ctrl-C to stop)")
        server.serve_forever()
    return 0
