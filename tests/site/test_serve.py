"""``serve``: a busy port is one line, not a traceback; folders without an index page are not listed."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from tests.conftest import ROOT, run_generator


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_serve_on_a_busy_port_is_one_line(fixture_site: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = run_generator("serve", "--dir", str(fixture_site), "--port", str(port))
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.splitlines() == [f"serve: --port: cannot listen on 127.0.0.1:{port}: Address already in use"]


def test_serve_rejects_a_port_out_of_range(fixture_site: Path) -> None:
    done = run_generator("serve", "--dir", str(fixture_site), "--port", "70000")
    assert done.returncode == 1
    assert done.stderr.splitlines() == ["serve: --port: must be 0 to 65535, got 70000"]


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def test_serve_lists_no_folder(fixture_site: Path) -> None:
    """assets/ has no index page: the site's 404 page, not a listing of its files."""
    assert (fixture_site / "assets").is_dir() and not (fixture_site / "assets" / "index.html").exists()
    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "generator", "serve", "--dir", str(fixture_site), "--port", str(port)],
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline and server.poll() is None, server.stderr.read() if server.stderr else ""
                time.sleep(0.05)
        status, body = _get(f"http://127.0.0.1:{port}/assets/")
        assert status == 404
        assert body == (fixture_site / "404.html").read_bytes()
        assert b"Directory listing" not in body
        assert _get(f"http://127.0.0.1:{port}/en/")[0] == 200
    finally:
        server.terminate()
        server.wait(timeout=10)
