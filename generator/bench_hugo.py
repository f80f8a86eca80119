"""The build-speed anchor of ``make bench``: a Hugo site of N report pages, each a 250-row table rendered by a
template loop (``../shared/bench/hugo_gen.py``, vendored: the same files for the same N), built with Hugo in the same
run as our build, to compare HTML pages per second."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import time
from pathlib import Path
from typing import NamedTuple

INSTALL = "apt-get install -y hugo (Debian's 0.111, the anchor's version)"
CONFIG = '''baseURL = "https://example.org/"
title = "Bench"
disableKinds = ["taxonomy", "term", "RSS"]
[markup.goldmark.renderer]
unsafe = false
'''
BASEOF = '''<!doctype html><html lang="{{ .Site.Language.Lang }}"><head><meta charset="utf-8"><title>{{ .Title }}</title>
<link rel="canonical" href="{{ .Permalink }}"><meta name="description" content="{{ .Params.description }}"></head>
<body><header><nav><a href="/">Home</a></nav></header>{{ block "main" . }}{{ end }}<footer>footer</footer></body></html>'''
SINGLE = '''{{ define "main" }}<main><h1>{{ .Title }}</h1>
{{ .Content }}
<table><thead><tr><th>batch</th><th>ctx</th><th>tok/s</th><th>latency ms</th><th>mem GiB</th></tr></thead><tbody>
{{ $tps := .Params.tps }}{{ range $i := seq 250 }}<tr><td>{{ $i }}</td><td>{{ mul $i 128 }}</td><td>{{ lang.FormatNumber 1 (mul $tps $i) }}</td><td>{{ div 1000.0 $i }}</td><td>{{ $.Params.mem }}</td></tr>
{{ end }}</tbody></table></main>{{ end }}'''
LIST = ('{{ define "main" }}<ul>{{ range first 50 .Pages }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>'
        '{{ end }}</ul>{{ end }}')
PARAGRAPH = ("Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et "
             "dolore magna aliqua. ") * 4


class Timing(NamedTuple):
    """One build: wall seconds and CPU seconds (user + system of the process and its children)."""

    wall: float
    cpu: float


def page_files(count: int) -> dict[str, str]:
    """The Hugo site's files by path relative to its root: configuration, layouts and ``count`` report pages."""
    rng = random.Random(1)
    files = {"hugo.toml": CONFIG, "layouts/_default/baseof.html": BASEOF, "layouts/_default/single.html": SINGLE,
             "layouts/_default/list.html": LIST}
    for i in range(count):
        m, g = divmod(i, 100)
        files[f"content/reports/model{m:03d}-gpu{g:02d}.md"] = (
            f'---\ntitle: "Model {m} on GPU {g}"\ndescription: "How fast model {m} runs on GPU {g}"\n'
            f"tps: {rng.uniform(5, 500):.2f}\nmem: {rng.randint(8, 80)}\n---\n\n## Summary\n\n{PARAGRAPH}\n\n"
            f"## Details\n\n- item one\n- item **two**\n- item three\n\n{PARAGRAPH}\n")
    return files


def write_site(count: int, root: Path) -> None:
    """Write the Hugo site of ``count`` report pages into ``root``."""
    for name, text in page_files(count).items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def hugo() -> str | None:
    """The ``hugo`` executable on the PATH, or None."""
    return shutil.which("hugo")


def build(executable: str, root: Path) -> Timing:
    """Build the site in ``root`` with Hugo; its wall and CPU seconds. A failed build is a one-line SystemExit."""
    start = time.monotonic()
    process = subprocess.Popen([executable, "--quiet"], cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    error = process.stderr.read().decode(errors="replace") if process.stderr else ""  # until Hugo closes it
    _, status, usage = os.wait4(process.pid, 0)  # this child's own usage
    process.returncode = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - start
    if process.returncode != 0:
        last = error.strip().splitlines()[-1:] or [f"exit status {process.returncode}"]
        raise SystemExit(f"hugo failed in {root}: {last[0]}")
    return Timing(wall, usage.ru_utime + usage.ru_stime)


def html_pages(site: Path) -> int:
    """HTML files under ``site``: what both generators count as pages."""
    return sum(1 for _ in site.rglob("*.html"))
