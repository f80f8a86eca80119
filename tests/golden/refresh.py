"""Rebuild the fixture catalogue and overwrite the golden pages: ``make golden`` after an intended change."""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from tests.conftest import build_project, make_project

EXPECTED = Path(__file__).resolve().parent / "expected"
PAGES = ("en/models/llama-3.1-8b/rx-7900-xtx/index.html", "de/models/gpt-oss-20b/mi300x/index.html",
         "en/models/deepseek-v3/index.html", "de/gpus/rx-7900-xtx/index.html", "en/index.html", "de/methodology/index.html")


def build_fixture(tmp: Path) -> Path:
    """Build the fixture catalogue into ``tmp/site``."""
    result = build_project(make_project(tmp), tmp / "site", "--strict", "--jobs", "1")
    if result.returncode:
        sys.exit(result.stderr)
    return tmp / "site"


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        site = build_fixture(Path(tmp))
        shutil.rmtree(EXPECTED, ignore_errors=True)
        for page in PAGES:
            target = EXPECTED / page
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(site / page, target)
    print(f"refreshed {len(PAGES)} golden pages in {EXPECTED}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
