"""``check`` on single-file mistakes the loader catches: one line per problem, exit status 1."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from catalog_cli import cli, edit

MODEL = "models/llama-3.1-8b.yaml"
GPU = "gpus/mi300x.yaml"
CLOUD = "clouds/digitalocean.yaml"


def problems(catalog: Path) -> list[str]:
    """The lines ``check`` prints, asserting it failed."""
    done = cli("check", "--catalog", catalog)
    assert done.returncode == 1, done.stdout
    assert done.stdout == ""
    return done.stderr.splitlines()


def test_fixture_catalogue_passes(catalog: Path) -> None:
    done = cli("check", "--catalog", catalog, "--as-of", "2026-09-25")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == ("catalogue ok: 1 models, 1 GPUs, 1 cloud offers from 1 providers\n"
                           "oldest price: 2026-05-28 (120 days), catalog/clouds/digitalocean.yaml offers.0\n")


def test_check_warns_of_prices_past_120_days(catalog: Path) -> None:
    """2026-05-28 + 121 days: the price is past its age; check warns on stdout and still passes."""
    done = cli("check", "--catalog", catalog, "--as-of", "2026-09-26")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines()[1:] == [
        "oldest price: 2026-05-28 (121 days), catalog/clouds/digitalocean.yaml offers.0",
        "warning: 1 of 1 cloud prices are older than 120 days; `make prices-report` lists them"]


def test_strict_check_fails_on_a_stale_price(catalog: Path) -> None:
    """The same stale catalogue: ``--strict`` prints the same lines and exits 1; a fresh one still passes."""
    plain = cli("check", "--catalog", catalog, "--as-of", "2026-09-26")
    strict = cli("check", "--catalog", catalog, "--as-of", "2026-09-26", "--strict")
    assert (plain.returncode, strict.returncode) == (0, 1)
    assert (strict.stdout, strict.stderr) == (plain.stdout, "")
    assert strict.stdout.splitlines()[-1].startswith("warning: 1 of 1 cloud prices are older than 120 days")
    fresh = cli("check", "--catalog", catalog, "--as-of", "2026-09-25", "--strict")
    assert (fresh.returncode, fresh.stderr) == (0, "")


@pytest.mark.parametrize(("file", "old", "new", "expected"), [
    pytest.param(MODEL, "name: Llama 3.1 8B Instruct", "name: [Llama 3.1",
                 "catalog/models/llama-3.1-8b.yaml: line 3: invalid YAML: did not find expected ',' or ']'",
                 id="yaml-syntax"),
    pytest.param(MODEL, "org: Meta\n", "org: Meta\norg: Meta AI\n",
                 "catalog/models/llama-3.1-8b.yaml: line 5: invalid YAML: duplicate key 'org'", id="duplicate-key"),
    pytest.param(GPU, "memory_type: HBM3\n", "", "catalog/gpus/mi300x.yaml: memory_type: is required",
                 id="missing-field"),
    pytest.param(CLOUD, "gpu_count: 1", "gpu_count: one", "catalog/clouds/digitalocean.yaml: offers.0.gpu_count: "
                 "must be a valid integer, got the text 'one'", id="wrong-type"),
    pytest.param(MODEL, "size_bytes: 8540771264", "size_bytes: -8540771264",
                 "catalog/models/llama-3.1-8b.yaml: gguf.0.files.0.size_bytes: must be greater than 0",
                 id="negative-size"),
    pytest.param(GPU, "memory_type: HBM3\n", "memory_type: HBM3\nvram_gb: 192\n",
                 "catalog/gpus/mi300x.yaml: vram_gb: unknown field", id="unknown-field"),
    pytest.param(GPU, "segment: datacenter", "segment: server",
                 "catalog/gpus/mi300x.yaml: segment: must be 'consumer', 'workstation', 'datacenter' or 'unified'",
                 id="unknown-enum"),
    pytest.param(MODEL, "id: llama-3.1-8b", "id: Llama_3.1",
                 "catalog/models/llama-3.1-8b.yaml: id: must match pattern '^[a-z0-9]+(?:[-.][a-z0-9]+)*$'",
                 id="bad-id"),
    pytest.param(MODEL, "total_params: 8030261248", "total_params: 8030261248\nactive_params: 9000000000",
                 "catalog/models/llama-3.1-8b.yaml: active_params: must not exceed total_params", id="active-gt-total"),
    pytest.param(MODEL, "  read: 2026-11-30\n  fields: [total_params]", "  read: yesterday\n  fields: [total_params]",
                 "catalog/models/llama-3.1-8b.yaml: sources.1.read: must be a valid date, got the text 'yesterday'",
                 id="undated-source"),
])
def test_one_mistake_one_line(catalog: Path, file: str, old: str, new: str, expected: str) -> None:
    edit(catalog / file, old, new)
    assert problems(catalog) == [expected]


def test_duplicate_id(catalog: Path) -> None:
    shutil.copy(catalog / MODEL, catalog / "models" / "llama-copy.yaml")
    assert problems(catalog) == [
        "catalog/models/llama-copy.yaml: id: duplicate id 'llama-3.1-8b', also in catalog/models/llama-3.1-8b.yaml"]


def test_id_must_match_file_name(catalog: Path) -> None:
    (catalog / MODEL).rename(catalog / "models" / "llama.yaml")
    assert problems(catalog) == ["catalog/models/llama.yaml: id: must match the file name ('llama')"]


def test_not_a_mapping(catalog: Path) -> None:
    (catalog / "gpus" / "empty.yaml").write_text("- just a list\n", encoding="utf-8")
    assert problems(catalog) == ["catalog/gpus/empty.yaml: must be a YAML mapping"]


def test_every_problem_of_every_file_is_listed(catalog: Path) -> None:
    edit(catalog / GPU, "memory_type: HBM3\n", "")
    edit(catalog / CLOUD, "tier: on-demand", "tier: cheap")
    assert problems(catalog) == [
        "catalog/clouds/digitalocean.yaml: offers.0.tier: must be 'on-demand', 'spot', 'community', 'secure', "
        "'reserved' or 'serverless'",
        "catalog/gpus/mi300x.yaml: memory_type: is required",
    ]


def test_missing_catalogue_folder(tmp_path: Path) -> None:
    assert problems(tmp_path / "nowhere") == [f"{tmp_path / 'nowhere'}: catalogue folder not found"]


def test_prices_report_lists_offers_oldest_first(catalog: Path) -> None:
    """Two offers 2026-05-28 and 2026-09-01; on 2026-09-26 the first is 121 days old (stale), the second 25."""
    with (catalog / "clouds/digitalocean.yaml").open("a", encoding="utf-8") as cloud:
        cloud.write("  - {instance: 'GPU Droplet, 8x AMD MI300X', gpu: mi300x, gpu_count: 8, price_usd_per_hour: 15.92,\n"
                    "     billing: hourly, tier: on-demand, checked: 2026-09-01,\n"
                    "     url: 'https://docs.digitalocean.com/products/droplets/details/pricing/'}\n")
    done = cli("prices-report", "--catalog", catalog, "--as-of", "2026-09-26")
    assert (done.returncode, done.stderr) == (0, "")
    lines = done.stdout.splitlines()
    assert lines[0] == "2 cloud offers as of 2026-09-26, oldest first; older than 120 days marked '!'"
    assert lines[1].split()[:5] == ["!", "121", "d", "2026-05-28", "catalog/clouds/digitalocean.yaml"]
    assert lines[2].split()[:5] == ["25", "d", "2026-09-01", "catalog/clouds/digitalocean.yaml", "offers.1"]
    assert "15.92 USD/h" in lines[2]
    stale = cli("prices-report", "--catalog", catalog, "--as-of", "2026-09-26", "--stale").stdout.splitlines()
    assert len(stale) == 6 and "offers.0" in stale[1]
    # then grouped by provider: its file and price page, and each URL to read again with the offers read from it
    assert stale[2:] == [
        "", "Stale offers by provider: 1 offers of 1 providers, the pages to read again",
        "DigitalOcean (catalog/clouds/digitalocean.yaml, 1 stale, oldest 121 d; price page "
        "https://docs.digitalocean.com/products/droplets/details/pricing/)",
        "  re-read https://docs.digitalocean.com/products/droplets/details/pricing/  (offers.0 mi300x; checked 2026-05-28)"]
