"""``make bench-scale``'s synthetic catalogue: every model N times, each clone a valid entry with the original's
estimates, and a comparison of two full builds."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.bench import scale, scaled_catalog
from generator.catalog.check import check_catalog
from generator.catalog.load import load_catalog
from generator.sitedata import SiteData
from tests.conftest import FIXTURE_PROJECT, make_project


def test_a_scaled_catalogue_clones_every_model_with_new_ids_and_the_same_estimates(tmp_path: Path) -> None:
    target = tmp_path / "catalog"
    assert scaled_catalog(FIXTURE_PROJECT / "catalog", target, 3) == 9
    catalog = check_catalog(load_catalog(target), target)  # unique ids, names and repositories
    originals = sorted(p.stem for p in (FIXTURE_PROJECT / "catalog" / "models").glob("*.yaml"))
    assert sorted(catalog.models) == sorted(x for m in originals for x in (m, f"{m}-x2", f"{m}-x3"))
    assert catalog.gpus.keys() == load_catalog(FIXTURE_PROJECT / "catalog").gpus.keys()
    site = SiteData(catalog)
    for m in originals:
        assert catalog.models[f"{m}-x3"].hf_repo == catalog.models[m].hf_repo + "-x3"
        for g in catalog.gpus:
            assert site.pairs[(f"{m}-x2", g)].estimate.total_bytes == site.pairs[(m, g)].estimate.total_bytes


@pytest.mark.builds  # three builds of the fixture project
def test_scale_reports_both_builds(tmp_path: Path, capsys) -> None:
    assert scale(2, make_project(tmp_path)) == 0
    lines = capsys.readouterr().out.splitlines()
    one, two, again = (line.split() for line in lines[1:4])
    assert (one[0], one[1], two[0], two[1], again[0], again[2]) == ("1x", "3", "2x", "6", "1x", one[2])
    assert int(two[2].replace(",", "")) > int(one[2].replace(",", "")) > 0
    seconds = [float(row[3]) for row in (one, two, again)]
    base = (seconds[0] + seconds[2]) / 2
    ratio = seconds[1] / base
    # Both are printed to 0.1: the ratio is off by up to 0.05 from its own rounding, plus what rounding each time by up
    # to 0.05 s moves the ratio computed here (first order: 0.05 × (1 + ratio) / base).
    assert float(two[6].rstrip("x")) == pytest.approx(ratio, abs=0.05 + 0.05 * (1 + ratio) / base + 1e-9)
