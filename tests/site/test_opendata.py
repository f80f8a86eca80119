"""The open data of the fixture site: JSON documents that carry the numbers their pages show (their schemas:
test_documents.py); a CSV with one row per pair; llms.txt; incremental builds that keep them exact."""

from __future__ import annotations

import csv
import html
import json
import re
import shutil
from pathlib import Path

import pytest

from generator.i18n import formatter
from generator.pages.api import dumps
from tests.conftest import build_project, make_project
from tests.site.test_build import tree_digest

API = Path("api/v1")
MODELS = ("deepseek-v3", "gpt-oss-20b", "llama-3.1-8b")
GPUS = ("mi300x", "rx-7900-xtx")


def _json(site: Path, path: str | Path) -> dict:
    return json.loads((site / path).read_text(encoding="utf-8"))


def _plain(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def _kpis(page: Path) -> dict[str, str]:
    """Every ``<dt>label</dt><dd>value</dd>`` of a page, as plain text (the first of each label)."""
    found: dict[str, str] = {}
    for label, value in re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", page.read_text(encoding="utf-8"), re.S):
        found.setdefault(_plain(label), _plain(value))
    return found


def _table_rows(page: Path, heading_id: str) -> list[list[str]]:
    """The body rows of the table in the section headed ``heading_id``, as plain-text cells."""
    text = page.read_text(encoding="utf-8")
    section = text[text.index(f'id="{heading_id}"'):]
    body = section[section.index("<tbody>"):section.index("</tbody>")]
    return [[_plain(cell) for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)]
            for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)]


def _nbsp(text: str) -> str:
    return text.replace("\u00a0", " ")


GRADE_LABELS = {"en": {"native": "native release", "near_lossless": "near-lossless", "good": "good",
                       "noticeable": "noticeable loss", "heavy": "heavy loss"},
                "de": {"native": "Originalformat", "near_lossless": "nahezu verlustfrei", "good": "gut",
                       "noticeable": "merklicher Verlust", "heavy": "starker Verlust"}}


def _speed(fmt, value: float | None) -> str:
    return "—" if value is None else fmt.sig(value)


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("model", MODELS)
def test_pair_documents_carry_the_numbers_their_pages_show(fixture_site: Path, model: str, language: str):
    fmt = formatter(language)
    label = {"en": ("Recommended quantization", "Memory needed", "Usable on this GPU", "Margin", "Decode speed"),
             "de": ("Empfohlene Quantisierung", "Speicherbedarf", "Nutzbar auf dieser GPU", "Reserve",
                    "Decode-Geschwindigkeit")}[language]
    for gpu in GPUS:
        doc = _json(fixture_site, API / "models" / model / f"{gpu}.json")
        e = doc["estimate"]
        page = fixture_site / doc["html_paths"][language] / "index.html"
        kpis = _kpis(page)
        quant, _, grade = kpis[label[0]].partition(" ")
        assert quant == doc["setup"]["quant"] and grade == GRADE_LABELS[language][doc["setup"]["quality_grade"]]
        assert kpis[label[1]] == _nbsp(f"{fmt.gib(e['total_bytes'])} {fmt.gb(e['total_bytes'])}")
        assert kpis[label[2]].startswith(_nbsp(fmt.gib(e["usable_bytes"])))
        assert kpis[label[3]] == _nbsp(f"{fmt.gib(e['margin_bytes'])} {fmt.percent(e['margin_ratio'])}")
        decode = kpis[label[4]]
        assert decode == "—" if e["decode_tokens_per_s"] is None else decode.startswith(_nbsp(fmt.sig(e["decode_tokens_per_s"])))
        matrix = _table_rows(page, "h-quant")
        assert [row[0] for row in matrix] == [row["quant"] for row in doc["quantization_matrix"]]
        for cells, row in zip(matrix, doc["quantization_matrix"]):
            assert cells[1:4] == [_nbsp(fmt.gib(row[k])) for k in ("weights_bytes", "kv_cache_bytes", "total_bytes")]
            assert cells[4].split(" ")[0] == _speed(fmt, row["decode_tokens_per_s"])
        context = _table_rows(page, "h-context")
        assert [c[2] for c in context] == [_nbsp(fmt.gib(r["total_f16_bytes"])) for r in doc["context"]["rows"]]
        if doc["cost"]:
            assert _nbsp(fmt.usd(doc["cost"]["usd_per_million_tokens_single"])) in kpis.values()


def _quant_cell(row: dict, language: str) -> str:
    """A list row's format cell: the quant, and its grade where the row holds the model only below the floor."""
    return f"{row['quant']} {GRADE_LABELS[language][row['quality_grade']]}" if row["heavy_loss"] else row["quant"]


@pytest.mark.parametrize("language", ["en", "de"])
def test_model_and_gpu_documents_carry_the_numbers_their_pages_show(fixture_site: Path, language: str):
    fmt = formatter(language)
    for model in MODELS:
        doc = _json(fixture_site, API / "models" / f"{model}.json")
        rows = _table_rows(fixture_site / doc["html_paths"][language] / "index.html", "h-gpus")
        assert [r[:4] for r in rows] == [[g["name"], _quant_cell(g, language), _nbsp(fmt.gib(g["total_bytes"])),
                                          _speed(fmt, g["decode_tokens_per_s"])] for g in doc["gpus"]]
        quality, *requirements = _table_rows(fixture_site / doc["html_paths"][language] / "index.html", "h-req")
        assert quality[1:] == [GRADE_LABELS[language][g["quality_grade"]] for g in doc["quality_grades"]]
        assert [r[1:] for r in requirements] == [
            [_nbsp(f"{fmt.gib(c['total_bytes'], 1)} {fmt.gb(c['total_bytes'], 1)}") for c in row["cells"]]
            for row in doc["requirements"]]
        serving = _table_rows(fixture_site / doc["html_paths"][language] / "index.html", "h-serving")
        assert doc["cheapest_serving"] and [r[0] for r in serving] == [s["precision"] for s in doc["cheapest_serving"]]
        assert [r[2:] for r in serving] == [
            [_nbsp(fmt.usd(s["usd_per_million_output_tokens"])), _nbsp(fmt.sig(s["output_tokens_per_s_per_gpu"])),
             _nbsp(fmt.sig(s["tokens_per_s_per_user"])), fmt.number(s["concurrency"])] for s in doc["cheapest_serving"]]
        for row, s in zip(serving, doc["cheapest_serving"]):
            assert row[1].startswith(f"{s['gpu_count']}× {s['gpu']['name']}")
            pair = _json(fixture_site, s["pair_json_path"])
            assert pair["gpu"]["id"] == s["gpu"]["id"] and pair["model"]["id"] == model
            assert any(c["remark"] == "serving" and f" {s['tensor_parallel']} " in f" {c['text']} "
                       and f"--max-num-seqs {s['concurrency']}" in c["text"] for c in pair["commands"])
    for gpu in GPUS:
        doc = _json(fixture_site, API / "gpus" / f"{gpu}.json")
        rows = _table_rows(fixture_site / doc["html_paths"][language] / "index.html", "h-models")
        assert [r[:5] for r in rows] == [
            [m["name"], _quant_cell(m, language), _nbsp(fmt.gib(m["total_bytes"])), _speed(fmt, m["decode_tokens_per_s"]),
             "—" if m["max_context_tokens"] is None else fmt.number(m["max_context_tokens"])] for m in doc["models"]]
        usable = {"en": "Usable for models", "de": "Nutzbar für Modelle"}[language]
        assert _kpis(fixture_site / doc["html_paths"][language] / "index.html")[usable] == _nbsp(
            fmt.gib(doc["facts"]["usable_memory_bytes"]))


def test_the_index_document_lists_every_subject_and_the_pages_popular_pairs(fixture_site: Path):
    doc = _json(fixture_site, API / "index.json")
    assert sorted(m["id"] for m in doc["models"]) == list(MODELS)
    assert sorted(g["id"] for g in doc["gpus"]) == list(GPUS)
    page = (fixture_site / "en" / "index.html").read_text(encoding="utf-8")
    shown = re.findall(r'<li><a href="\.\./(en/models/[^"]+)">', page)
    assert shown == [f"en/models/{p['model']['id']}/{p['gpu']['id']}/" for p in doc["popular_pairs"]] and shown
    for target in ("api/v1/index.json", doc["downloads"]["pairs_csv_path"], doc["downloads"]["datapackage_path"], "llms.txt"):
        assert f'href="../{target}"' in page and (fixture_site / target).is_file()  # the index links the open data
    for entry in [*doc["models"], *doc["gpus"], *doc["popular_pairs"]]:
        assert (fixture_site / entry.get("json_path", entry.get("pair_json_path", ""))).is_file()


def _documents(site: Path) -> list[Path]:
    return sorted(p for p in (site / API).rglob("*.json") if "schema" not in p.parts)


def test_documents_are_deterministic_json(fixture_site: Path):
    """Sorted keys at every level, and the bytes the encoder gives again for what they parse to."""
    def sorted_keys(pairs: list[tuple[str, object]]) -> dict:
        assert [k for k, _ in pairs] == sorted(k for k, _ in pairs)
        return dict(pairs)

    for path in _documents(fixture_site):
        raw = path.read_bytes()
        assert raw.endswith(b"}\n") and dumps(json.loads(raw, object_pairs_hook=sorted_keys)) == raw, path


def test_the_csv_has_one_row_per_pair_with_the_pair_documents_numbers(fixture_site: Path):
    with (fixture_site / "downloads" / "pairs-default.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert sorted((r["model_id"], r["gpu_id"]) for r in rows) == [(m, g) for m in MODELS for g in GPUS]
    package = _json(fixture_site, "downloads/datapackage.json")
    fields = package["resources"][0]["schema"]["fields"]
    assert list(rows[0]) == [f["name"] for f in fields] and all(f["description"] for f in fields)
    assert package["licenses"][0]["name"]
    for row in rows:
        doc = _json(fixture_site, row["pair_json_path"])
        e = doc["estimate"]
        assert row["quant"] == doc["setup"]["quant"] and row["verdict"] == e["verdict"]
        for key in ("weights_bytes", "kv_cache_bytes", "total_bytes", "usable_bytes", "margin_bytes"):
            assert int(row[key]) == e[key]
        for key in ("decode_tokens_per_s", "ttft_s", "batched_tokens_per_s"):
            assert (float(row[key]) if row[key] else None) == e[key]
        single = doc["cost"]["usd_per_million_tokens_single"] if doc["cost"] else None
        assert (float(row["usd_per_million_tokens_single"]) if row["usd_per_million_tokens_single"] else None) == single


def test_llms_txt_and_the_changelog_name_the_api(fixture_site: Path):
    text = (fixture_site / "llms.txt").read_text(encoding="utf-8")
    assert text.startswith("# VRAM Atlas\n\n> ")
    version = _json(fixture_site, API / "index.json")["schema_version"]
    assert f"schema version {version}" in text and "api/v1/index.json" in text and "pairs-default.csv" in text
    assert f"- {version} (" in (fixture_site / API / "CHANGELOG.md").read_text(encoding="utf-8")


def test_pages_link_their_document(fixture_site: Path):
    for page, document in (("en/models/gpt-oss-20b/mi300x/index.html", "api/v1/models/gpt-oss-20b/mi300x.json"),
                           ("de/gpus/mi300x/index.html", "api/v1/gpus/mi300x.json")):
        text = (fixture_site / page).read_text(encoding="utf-8")
        href = re.search(r'<link rel="alternate" type="application/json" href="([^"]+)">', text).group(1)
        assert (fixture_site / Path(page).parent / href).resolve() == (fixture_site / document).resolve()


def test_a_lost_document_is_rebuilt_with_the_same_bytes(tmp_path: Path):
    """A document rendered without its English page just before (no shared view) has the same bytes."""
    project = make_project(tmp_path)
    site = tmp_path / "site"
    assert build_project(project, site).returncode == 0
    before = tree_digest(site)
    lost = site / API / "models" / "llama-3.1-8b" / "mi300x.json"
    lost.unlink()
    (site / API / "gpus" / "mi300x.json").unlink()
    result = build_project(project, site, "--jobs", "1")
    assert result.returncode == 0, result.stderr
    assert tree_digest(site) == before


def test_the_site_gate_follows_the_document_links(fixture_site: Path, tmp_path: Path):
    """The pages with documents pass the link gate, and a missing document is a broken link."""
    from tests.quality.sitecheck import check_site
    assert check_site(fixture_site, jobs=1) == []
    site = tmp_path / "site"
    shutil.copytree(fixture_site, site)
    (site / API / "gpus" / "mi300x.json").unlink()
    problems = check_site(site, jobs=1)
    assert problems and all("api/v1/gpus/mi300x.json" in p for p in problems), problems


def test_every_pair_page_that_shows_a_serving_plan_publishes_it(fixture_site: Path):
    """Issue 25: the serving plan (setup, curve, operating point, cost) is in the pair document wherever the page
    shows one, on the fewest GPUs that serve the model (one, where one GPU holds it)."""
    shown = 0
    for model in MODELS:
        for gpu in GPUS:
            doc = _json(fixture_site, API / "models" / model / f"{gpu}.json")
            html = (fixture_site / doc["html_paths"]["en"] / "index.html").read_text(encoding="utf-8")
            serving = doc["serving"]
            assert ('<section id="serving"' in html) == (serving is not None), (model, gpu)
            if serving is None:
                continue
            shown += 1
            assert f'data-tp="{serving["tensor_parallel"]}"' in html
            assert serving["setups"][0]["gpu_count"] == serving["gpu_count"]
            assert [p["concurrency"] for p in serving["curve"]] == sorted(p["concurrency"] for p in serving["curve"])
            if (model, gpu) == ("llama-3.1-8b", "mi300x"):  # 8B at FP8 on 192 GB: one GPU, never two
                assert serving["gpu_count"] == 1 and serving["setups"][1]["gpu_count"] == 2
    assert shown
