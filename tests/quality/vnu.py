"""HTML gate: the Nu HTML Checker (npm package vnu-jar) on a list of files, in one JVM start.

Usage: python -m tests.quality.vnu FILE... | SITE_FOLDER   (prints errors, exits 1 if any; a folder means one
page of each kind in each language)
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

REPO_ROOT = Path(__file__).resolve().parents[2]
VNU_JAR = REPO_ROOT / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"


# vnu 26.9 predates the HTML standard's `expect` link type, whose element takes blocking="render"
# (https://html.spec.whatwg.org/multipage/links.html#link-type-expect; Chrome 124+, WebKit). This one message about
# such an element is the checker's lag, not an error; `blocking` on any other link still fails.
_BLOCKING_NOT_STYLESHEET = "A “link” element with a “blocking” attribute must have a “rel” attribute whose value is “stylesheet”."
_EXPECT_LINK = re.compile(r"""^<link\s(?:[^>]*\s)?rel=(?:"expect"|'expect'|expect[\s>])""")


def _newer_than_vnu(message: dict) -> bool:
    """Whether ``message`` is vnu's objection to ``blocking`` on a ``<link rel="expect">`` (see above)."""
    start, length = message.get("hiliteStart"), message.get("hiliteLength")
    if message.get("message", "").strip() != _BLOCKING_NOT_STYLESHEET or start is None or length is None:
        return False
    return bool(_EXPECT_LINK.match(message.get("extract", "")[start : start + length]))


class ToolMissing(RuntimeError):
    """A quality tool is not installed; the message says how to install it."""


def vnu_command(files: list[Path], jar: Path = VNU_JAR) -> list[str]:
    """The java command line that checks ``files`` (HTML, and SVG) and reports errors as JSON.

    Not --also-check-css: with it, vnu 26.9 reports every HTML line number one too low.
    """
    java = shutil.which("java")
    if java is None:
        raise ToolMissing("java not found: install a JRE (make node does on Debian)")
    if not jar.is_file():
        raise ToolMissing(f"{jar} not found: run `make node` (npm ci)")
    flags = ["--errors-only", "--format", "json", "--also-check-svg", "--exit-zero-always"]
    return [java, "-Xss4m", "-jar", str(jar), *flags, *map(str, files)]


def parse_report(report: str, root: Path | None = None) -> list[str]:
    """``file:line:column: message`` for every error in vnu's JSON report (file relative to ``root``)."""
    problems = []
    for message in json.loads(report).get("messages", []):
        if message.get("type") not in ("error", "non-document-error") or _newer_than_vnu(message):
            continue
        where = unquote(urlsplit(message.get("url", "")).path) or "?"
        if root is not None and where.startswith(str(root) + os.sep):
            where = where[len(str(root)) + 1 :]
        line, column = message.get("lastLine"), message.get("firstColumn", message.get("lastColumn"))
        position = f":{line}:{column}" if line is not None else ""
        problems.append(f"{where}{position}: {message.get('message', '').strip()}")
    return problems


def validate_html(files: list[Path], root: Path | None = None) -> list[str]:
    """Nu checker errors in ``files`` as ``file:line:column: message`` lines (empty when all are valid)."""
    if not files:
        return []
    paths = [Path(f).resolve() for f in files]
    done = subprocess.run(vnu_command(paths), capture_output=True, text=True, timeout=600, check=False)
    report = done.stderr.strip() or done.stdout.strip()
    try:
        return parse_report(report, root.resolve() if root else None)
    except json.JSONDecodeError:
        raise RuntimeError(f"vnu exited {done.returncode} without a JSON report: {report[-2000:]}") from None


def one_page_of_each_kind(site_dir: Path) -> list[Path]:
    """The first index, methodology, model, GPU, pair, comparison and 404 page in each language folder, and the root
    pages."""
    site_dir = Path(site_dir)
    patterns = ("index.html", "methodology/index.html", "models/*/index.html", "gpus/*/index.html",
                "models/*/*/index.html", "compare/*/index.html", "404.html")
    files = [p for p in (site_dir / "index.html", site_dir / "404.html") if p.is_file()]
    for language in sorted(p.parent for p in site_dir.glob("*/index.html")):
        files += [found[0] for found in (sorted(language.glob(g)) for g in patterns) if found]
    return files


def main(argv: list[str] | None = None) -> int:
    """CLI: check the files named, print every error, exit 1 if there is any."""
    args = [Path(a) for a in (sys.argv[1:] if argv is None else argv)]
    files = one_page_of_each_kind(args[0]) if len(args) == 1 and args[0].is_dir() else args
    problems = validate_html(files, Path.cwd())
    print("\n".join(problems) or f"vnu: {len(files)} files valid")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
