"""Hostile catalogue and translation input through a whole build (issue 16): one line, exit status 1 and a site
left byte for byte as it was; nothing the input carried gets into the output."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ROOT, build_project, edit
from tests.site.hostile import all_output, built, clean_build, one_line, tree_digest

pytestmark = pytest.mark.builds  # each test runs one or more builds of the fixture project

CLOUD = "catalog/clouds/digitalocean.yaml"
GPU = "catalog/gpus/rx-7900-xtx.yaml"
MODEL = "catalog/models/llama-3.1-8b.yaml"
DE_PO = "locales/de/LC_MESSAGES/messages.po"
TITLE = 'msgid "Can this GPU run this LLM?"\nmsgstr "Läuft dieses LLM auf dieser GPU?"'
INJECTION = "{% endraw %}{{ cycler.__init__.__globals__.os.getcwd() }}{% raw %}"


def _plant_index_gpu(project: Path) -> None:
    gpu = project / GPU
    edit(gpu, "id: rx-7900-xtx", "id: index.html")
    gpu.rename(gpu.with_name("index.html.yaml"))


PLANTS = {  # what is planted -> the line the build prints
    "script-url": (lambda p: edit(p / CLOUD, "  checked: 2026-05-28\n  url: https://docs.digitalocean.com/products/droplets/"
                                  "details/pricing/\n- instance: GPU Droplet, 8x",
                                  "  checked: 2026-05-28\n  url: javascript:alert(document.cookie)\n"
                                  "- instance: GPU Droplet, 8x"),
                   "catalog/clouds/digitalocean.yaml: offers.0.url: must be an https:// URL"),
    "alias-bomb": (lambda p: edit(p / MODEL, "  architectures: [LlamaForCausalLM]",
                                  "  a: &a [x, x, x, x, x, x, x, x]\n  b: &b [*a, *a, *a, *a, *a, *a, *a, *a]\n"
                                  "  c: [*b, *b, *b, *b, *b, *b, *b, *b]\n  architectures: [LlamaForCausalLM]"),
                   "catalog/models/llama-3.1-8b.yaml: line "),
    "huge-layers": (lambda p: edit(p / MODEL, "  num_hidden_layers: 32", "  num_hidden_layers: 1000000000000"),
                    "catalog/models/llama-3.1-8b.yaml: config.num_hidden_layers: must be at most 4,096"),
    "zero-head-dim": (lambda p: edit(p / MODEL, "  num_hidden_layers: 32", "  num_hidden_layers: 32\n  head_dim: 0"),
                      "catalog/models/llama-3.1-8b.yaml: config.head_dim: must be positive"),
    "kv-heads": (lambda p: edit(p / MODEL, "  num_key_value_heads: 8", "  num_key_value_heads: 7"),
                 "catalog/models/llama-3.1-8b.yaml: config.num_key_value_heads: must be a positive divisor"),
    "quoted-number": (lambda p: edit(p / GPU, "bandwidth_gb_per_s: 960", 'bandwidth_gb_per_s: "1008"'),
                      "catalog/gpus/rx-7900-xtx.yaml: bandwidth_gb_per_s: must be a valid number, got the text '1008'"),
    "gpu-id-index.html": (_plant_index_gpu, "catalog/gpus/index.html.yaml: id: 'index.html' ends like a file name"),
}


@pytest.mark.parametrize("kind", PLANTS)
def test_hostile_catalogue_entry_fails_the_build_in_one_line(tmp_path: Path, kind: str) -> None:
    project, site, before = built(tmp_path)
    plant, expected = PLANTS[kind]
    plant(project)
    done = build_project(project, site)
    assert done.returncode == 1
    assert one_line(done.stderr).startswith(expected)
    assert tree_digest(site) == before
    assert b"javascript:" not in all_output(site)
    assert not (tmp_path / ".site.staging").exists()


def test_template_code_in_a_translation_stays_text(tmp_path: Path) -> None:
    """A msgstr that closes {% raw %} and calls into Python: printed as text, never run."""
    project, site, _ = built(tmp_path)
    edit(project / DE_PO, TITLE, f'msgid "Can this GPU run this LLM?"\nmsgstr "{INJECTION}<script>alert(1)</script>"')
    done = build_project(project, site, "--strict")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    page = (site / "de" / "index.html").read_text(encoding="utf-8")
    assert f"<h1>{INJECTION}&lt;script&gt;alert(1)&lt;/script&gt;</h1>" in page
    output = all_output(site)
    for secret in (str(ROOT), str(project), str(tmp_path)):  # the build's working folder and the project's
        assert secret.encode() not in output
    assert b"<script>alert(1)" not in output
    assert tree_digest(site) == clean_build(project, tmp_path / "clean")


def test_a_translation_with_foreign_placeholders_is_left_out_with_a_warning(tmp_path: Path) -> None:
    project, site, before = built(tmp_path)
    po = project / DE_PO
    text = po.read_text(encoding="utf-8")
    start = text.index('msgid "read %(date)s"')
    end = text.index("\n\n", start)
    po.write_text(text[:start] + 'msgid "read %(date)s"\nmsgstr "gelesen %(secret)s %s"' + text[end:], encoding="utf-8")
    strict = build_project(project, site, "--strict")
    assert strict.returncode == 1
    assert one_line(strict.stderr) == ("build: strict: locales/de: translation left out, its placeholders differ "
                                       "from the message's: 'read %(date)s'")
    assert tree_digest(site) == before
    lenient = build_project(project, site)
    assert lenient.returncode == 0, lenient.stderr
    assert "read " in (site / "de" / "models" / "llama-3.1-8b" / "index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("where", ["relative", "absolute"])
def test_a_manifest_path_outside_the_site_is_never_deleted(tmp_path: Path, where: str) -> None:
    """Paths in .cache/site.manifest.json are untrusted: one outside site/ discards the manifest; the site's files
    are then no build's record, so the build refuses to touch them until told --clean."""
    import json

    project, site, before = built(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    manifest_file = site.parent / ".cache" / "site.manifest.json"
    manifest = json.loads(manifest_file.read_text())
    manifest["pages"]["../victim.txt" if where == "relative" else str(victim)] = "0"
    manifest["inputs"] = "stale"  # the next build compares pages and deletes what the manifest lists beyond them
    manifest_file.write_text(json.dumps(manifest))
    done = build_project(project, site)
    assert done.returncode == 1, done.stderr
    notice, refusal = done.stderr.splitlines()
    assert notice == f"notice: {manifest_file}: corrupt cache file discarded: a path outside the site"
    assert refusal.startswith(f"{site}: holds files that no build recorded as its own")
    assert victim.read_text() == "keep me"
    assert tree_digest(site) == before
    clean = build_project(project, site, "--clean")
    assert clean.returncode == 0 and clean.stderr == "", clean.stderr
    assert victim.read_text() == "keep me"
    assert tree_digest(site) == before
    again = build_project(project, site)
    assert again.stderr == "" and " 0 files written" in again.stdout
