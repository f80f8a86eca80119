"""The package's data files and library versions: shipped by a wheel and covered by the build's code digest."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from generator import incremental
from generator.pages import social

ROOT = Path(__file__).resolve().parents[2]


def test_every_data_file_is_package_data() -> None:
    """A non-editable install ships what the generator reads at run time (tables, the font and its licence)."""
    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["generator"]
    data = [p for p in (ROOT / "generator" / "data").rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    unshipped = [p for p in data if not any(p.relative_to(ROOT / "generator").match(g) for g in globs)]
    assert {p.name for p in data} >= {"Vera.ttf", "VeraBd.ttf", "bitstream-vera-license.txt", "measurements.csv"}
    assert unshipped == []


def test_the_fonts_are_in_the_code_digest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A changed font changes every preview image, so it rebuilds the site as changed code does."""
    fonts = tmp_path / "generator" / "data" / "fonts"
    fonts.mkdir(parents=True)
    for name in (social.REGULAR, social.BOLD):
        (fonts / name).write_bytes((social.FONT_DIR / name).read_bytes())
    monkeypatch.setattr(incremental, "GENERATOR_DIR", tmp_path / "generator")
    assert {p.name for p in incremental.code_files(tmp_path / "generator")} == {social.REGULAR, social.BOLD}
    before = incremental.code_digest(ROOT)
    (fonts / social.BOLD).write_bytes((fonts / social.BOLD).read_bytes() + b"\0")
    assert incremental.code_digest(ROOT) != before


def test_the_preview_font_is_the_vendored_vera() -> None:
    assert social.FONT_DIR == ROOT / "generator" / "data" / "fonts"
    assert social._font(social.BOLD, 40).getname() == ("Bitstream Vera Sans", "Bold")


def test_library_versions_are_part_of_the_code_digest(monkeypatch: pytest.MonkeyPatch) -> None:
    incremental.library_versions.cache_clear()
    before = incremental.code_digest(ROOT)
    for library in incremental.RENDERING_LIBRARIES:
        real = incremental.metadata.version
        monkeypatch.setattr(incremental.metadata, "version",
                            lambda name, real=real, library=library: "99.0" if name == library else real(name))
        incremental.library_versions.cache_clear()
        assert incremental.code_digest(ROOT) != before, library
        monkeypatch.undo()
    incremental.library_versions.cache_clear()
    assert {"jinja2", "babel", "markdown", "pydantic", "pyyaml"} <= set(incremental.RENDERING_LIBRARIES)
