"""``check`` on hostile catalogue files (issues 16 and 27): ids that collide with the site's own files, huge files,
entries that are not regular files. Each is one line naming file and field, exit status 1 (the one-replacement
mistakes are in mistakes.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from mistakes import CLOUD, GPU, MODEL

from tests.conftest import check_problems, edit, run_generator


def one_problem(catalog: Path) -> str:
    """The one line ``check`` prints, asserting it failed with status 1."""
    lines = check_problems(catalog)
    assert len(lines) == 1, lines
    return lines[0]


def test_gpu_id_like_a_site_file_is_refused(catalog: Path) -> None:
    """``index.html`` as a GPU id would put its pair pages at models/<m>/index.html/, over the model page."""
    edit(catalog / GPU, "id: mi300x", "id: index.html")
    (catalog / GPU).rename(catalog / "gpus" / "index.html.yaml")
    edit(catalog / CLOUD, "gpu: mi300x", "gpu: index.html")
    assert one_problem(catalog) == ("catalog/gpus/index.html.yaml: id: 'index.html' ends like a file name and would "
                                    "collide with the site's files")


def test_a_catalogue_file_may_not_be_huge(catalog: Path) -> None:
    with (catalog / GPU).open("a", encoding="utf-8") as handle:
        handle.write("notes: '" + "x" * (1 << 20) + "'\n")
    assert one_problem(catalog) == "catalog/gpus/mi300x.yaml: file too large: at most 1,048,576 bytes"


@pytest.mark.parametrize("plant, expected", [
    pytest.param(lambda path: path.mkdir(), "not a regular file (a folder)", id="folder"),
    pytest.param(lambda path: os.mkfifo(path), "not a regular file (a device, pipe or socket)", id="fifo"),
    pytest.param(lambda path: path.symlink_to("/dev/zero"), "a link to a file outside the project: refusing to read it",
                 id="link-to-dev-zero"),
    pytest.param(lambda path: path.symlink_to("/etc/hostname"),
                 "a link to a file outside the project: refusing to read it", id="link-outside"),
])
def test_an_entry_that_is_not_a_regular_file_is_one_line(catalog: Path, plant, expected: str) -> None:
    """Issue 27: a device, a pipe or a folder named like an entry could hang the loader or read without end."""
    plant(catalog / "models" / "planted.yaml")
    assert one_problem(catalog) == f"catalog/models/planted.yaml: {expected}"


def test_a_link_inside_the_project_is_read(catalog: Path) -> None:
    (catalog / MODEL).rename(catalog / "llama.yaml.txt")
    (catalog / MODEL).symlink_to("../llama.yaml.txt")
    assert run_generator("check", "--catalog", catalog).returncode == 0
