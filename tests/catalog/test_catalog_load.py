"""``check`` on the fixture catalogue: its report and price-age warnings, and mistakes the loader catches across
files (the one-replacement mistakes are in mistakes.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

from mistakes import CLOUD, GPU, MODEL

from tests.conftest import check_problems, edit, run_generator


def test_fixture_catalogue_passes(catalog: Path) -> None:
    done = run_generator("check", "--catalog", catalog, "--as-of", "2026-09-25")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == ("catalogue ok: 1 models, 1 GPUs, 1 cloud offers from 1 providers\n"
                           "oldest price: 2026-05-28 (120 days), catalog/clouds/digitalocean.yaml offers.0\n")


def test_check_warns_of_prices_past_120_days(catalog: Path) -> None:
    """2026-05-28 + 121 days: the price is past its age; check warns on stdout and still passes."""
    done = run_generator("check", "--catalog", catalog, "--as-of", "2026-09-26")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines()[1:] == [
        "oldest price: 2026-05-28 (121 days), catalog/clouds/digitalocean.yaml offers.0",
        "warning: 1 of 1 cloud prices are older than 120 days; `make prices-report` lists them"]


def test_strict_check_fails_on_a_stale_price(catalog: Path) -> None:
    """The same stale catalogue: ``--strict`` prints the same lines and exits 1; a fresh one still passes."""
    plain = run_generator("check", "--catalog", catalog, "--as-of", "2026-09-26")
    strict = run_generator("check", "--catalog", catalog, "--as-of", "2026-09-26", "--strict")
    assert (plain.returncode, strict.returncode) == (0, 1)
    assert (strict.stdout, strict.stderr) == (plain.stdout, "")
    assert strict.stdout.splitlines()[-1].startswith("warning: 1 of 1 cloud prices are older than 120 days")
    fresh = run_generator("check", "--catalog", catalog, "--as-of", "2026-09-25", "--strict")
    assert (fresh.returncode, fresh.stderr) == (0, "")


def test_duplicate_id(catalog: Path) -> None:
    shutil.copy(catalog / MODEL, catalog / "models" / "llama-copy.yaml")
    assert check_problems(catalog) == [
        "catalog/models/llama-copy.yaml: id: duplicate id 'llama-3.1-8b', also in catalog/models/llama-3.1-8b.yaml"]


def test_id_must_match_file_name(catalog: Path) -> None:
    (catalog / MODEL).rename(catalog / "models" / "llama.yaml")
    assert check_problems(catalog) == ["catalog/models/llama.yaml: id: must match the file name ('llama')"]


def test_not_a_mapping(catalog: Path) -> None:
    (catalog / "gpus" / "empty.yaml").write_text("- just a list\n", encoding="utf-8")
    assert check_problems(catalog) == ["catalog/gpus/empty.yaml: must be a YAML mapping"]


def test_every_problem_of_every_file_is_listed(catalog: Path) -> None:
    edit(catalog / GPU, "memory_type: HBM3\n", "")
    edit(catalog / CLOUD, "tier: on-demand", "tier: cheap")
    assert check_problems(catalog) == [
        "catalog/clouds/digitalocean.yaml: offers.0.tier: must be 'on-demand', 'spot', 'community', 'secure', "
        "'reserved' or 'serverless'",
        "catalog/gpus/mi300x.yaml: memory_type: is required",
    ]


def test_missing_catalogue_folder(tmp_path: Path) -> None:
    assert check_problems(tmp_path / "nowhere") == [f"{tmp_path / 'nowhere'}: catalogue folder not found"]


def test_prices_report_lists_offers_oldest_first(catalog: Path) -> None:
    """Two offers 2026-05-28 and 2026-09-01; on 2026-09-26 the first is 121 days old (stale), the second 25."""
    with (catalog / "clouds/digitalocean.yaml").open("a", encoding="utf-8") as cloud:
        cloud.write("  - {instance: 'GPU Droplet, 8x AMD MI300X', gpu: mi300x, gpu_count: 8, price_usd_per_hour: 15.92,\n"
                    "     billing: hourly, tier: on-demand, checked: 2026-09-01,\n"
                    "     url: 'https://docs.digitalocean.com/products/droplets/details/pricing/'}\n")
    done = run_generator("prices-report", "--catalog", catalog, "--as-of", "2026-09-26")
    assert (done.returncode, done.stderr) == (0, "")
    lines = done.stdout.splitlines()
    assert lines[0] == "2 cloud offers as of 2026-09-26, oldest first; older than 120 days marked '!'"
    assert lines[1].split()[:5] == ["!", "121", "d", "2026-05-28", "catalog/clouds/digitalocean.yaml"]
    assert lines[2].split()[:5] == ["25", "d", "2026-09-01", "catalog/clouds/digitalocean.yaml", "offers.1"]
    assert "15.92 USD/h" in lines[2]
    stale = run_generator("prices-report", "--catalog", catalog, "--as-of", "2026-09-26", "--stale").stdout.splitlines()
    assert len(stale) == 6 and "offers.0" in stale[1]
    # then grouped by provider: its file and price page, and each URL to read again with the offers read from it
    assert stale[2:] == [
        "", "Stale offers by provider: 1 offers of 1 providers, the pages to read again",
        "DigitalOcean (catalog/clouds/digitalocean.yaml, 1 stale, oldest 121 d; price page "
        "https://docs.digitalocean.com/products/droplets/details/pricing/)",
        "  re-read https://docs.digitalocean.com/products/droplets/details/pricing/  (offers.0 mi300x; checked 2026-05-28)"]
