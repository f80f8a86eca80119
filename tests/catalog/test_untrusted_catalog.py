"""``check`` on hostile or careless catalogue input (issue 16): links that are not https, YAML that multiplies
itself, architecture numbers that would exhaust memory, values the estimator would silently ignore or coerce,
ids that collide with the site's own files. Each is one line naming file and field, exit status 1."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from catalog_cli import cli, edit

MODEL = "models/llama-3.1-8b.yaml"
GPU = "gpus/mi300x.yaml"
CLOUD = "clouds/digitalocean.yaml"
BOMB = """  bomb_a: &a [x, x, x, x, x, x, x, x, x, x]
  bomb_b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]
  bomb_c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
  bomb_d: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]
  architectures: [LlamaForCausalLM]"""


def one_problem(catalog: Path) -> str:
    """The one line ``check`` prints, asserting it failed with status 1."""
    done = cli("check", "--catalog", catalog)
    assert done.returncode == 1, done.stdout
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


@pytest.mark.parametrize("file, old, new, expected", [
    pytest.param(CLOUD, "    url: https://docs.digitalocean.com/products/droplets/details/pricing/",
                 "    url: javascript:alert(document.cookie)",
                 "catalog/clouds/digitalocean.yaml: offers.0.url: must be an https:// URL", id="script-offer-url"),
    pytest.param(CLOUD, "url: https://docs.digitalocean.com/products/droplets/details/pricing/\noffers",
                 "url: http://docs.digitalocean.com/\noffers",
                 "catalog/clouds/digitalocean.yaml: url: must be an https:// URL", id="plain-http-provider-url"),
    pytest.param(GPU, "- url: https://rocm.docs.amd.com/en/latest/reference/gpu-arch-specs.html",
                 "- url: javascript:alert(1) // AMD datasheet",
                 "catalog/gpus/mi300x.yaml: sources.0.url: must be an https:// URL", id="script-source-url"),
    pytest.param(CLOUD, "    url: https://docs.digitalocean.com/products/droplets/details/pricing/",
                 '    url: "https://example.com/\\"onmouseover=alert(1)"',
                 "catalog/clouds/digitalocean.yaml: offers.0.url: must be an https:// URL", id="quote-in-url"),
    pytest.param(MODEL, "  architectures: [LlamaForCausalLM]", BOMB,
                 "catalog/models/llama-3.1-8b.yaml: line 11: invalid YAML: anchors and aliases (&name, *name) are not "
                 "allowed", id="alias-bomb"),
    pytest.param(MODEL, "  num_hidden_layers: 32", "  num_hidden_layers: 1000000000000",
                 "catalog/models/llama-3.1-8b.yaml: config.num_hidden_layers: must be at most 4,096, "
                 "got 1,000,000,000,000", id="huge-layer-count"),
    pytest.param(MODEL, "  vocab_size: 128256", "  vocab_size: 10000000000",
                 "catalog/models/llama-3.1-8b.yaml: config.vocab_size: must be at most 16,777,216, "
                 "got 10,000,000,000", id="huge-vocabulary"),
    pytest.param(MODEL, "  num_hidden_layers: 32", "  num_hidden_layers: 32\n  head_dim: 0",
                 "catalog/models/llama-3.1-8b.yaml: config.head_dim: must be positive", id="zero-head-dim"),
    pytest.param(MODEL, "  num_key_value_heads: 8", "  num_key_value_heads: 7",
                 "catalog/models/llama-3.1-8b.yaml: config.num_key_value_heads: must be a positive divisor of "
                 "num_attention_heads (32), got 7", id="kv-heads-not-dividing"),
    pytest.param(GPU, "bandwidth_gb_per_s: 5300", 'bandwidth_gb_per_s: "5300"',
                 "catalog/gpus/mi300x.yaml: bandwidth_gb_per_s: must be a valid number, got the text '5300'",
                 id="quoted-number"),
    pytest.param(CLOUD, "    gpu_count: 1", "    gpu_count: '1'",
                 "catalog/clouds/digitalocean.yaml: offers.0.gpu_count: must be a valid integer, got the text '1'",
                 id="quoted-integer"),
    pytest.param(MODEL, "  architectures: [LlamaForCausalLM]", "  architectures: !!set {a, b}",
                 "catalog/models/llama-3.1-8b.yaml: config: must hold JSON data only (as config.json does); not at "
                 "architectures", id="yaml-set-in-config"),
    pytest.param(MODEL, "  architectures: [LlamaForCausalLM]", "  deep: " + "[" * 20000 + "]" * 20000,
                 "catalog/models/llama-3.1-8b.yaml: line 11: invalid YAML: exceeded maximum nesting depth",
                 id="deep-nesting"),
])
def test_hostile_value_is_one_line(catalog: Path, file: str, old: str, new: str, expected: str) -> None:
    edit(catalog / file, old, new)
    assert one_problem(catalog) == expected


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


CHECKPOINT = ("checkpoints:\n- repo: neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8\n  quant: FP8\n  size_bytes: {size}\n"
              "  source_url: {url}\n  read: 2026-11-30\nollama:")
HUGE = "1000000000000000000000000000000"


@pytest.mark.parametrize("file, old, new, expected", [
    pytest.param(MODEL, "  num_hidden_layers: 32", "  num_hidden_layers: " + "9" * 5000,
                 "catalog/models/llama-3.1-8b.yaml: invalid value: Exceeds the limit (4300 digits) for integer string "
                 "conversion: value has 5000 digits", id="integer-of-5000-digits"),
    pytest.param(MODEL, "read: 2026-11-30\n  files:\n  - {quant: Q8_0", "read: 2026-02-30\n  files:\n  - {quant: Q8_0",
                 "catalog/models/llama-3.1-8b.yaml: invalid value: day is out of range for month", id="30th-of-february"),
    pytest.param(MODEL, "{quant: Q8_0, size_bytes: 8540771264,", "{quant: Q8_0, size_bytes: " + HUGE + ",",
                 "catalog/models/llama-3.1-8b.yaml: gguf.0.files.0.size_bytes: must be less than or equal to "
                 "4398046511104", id="huge-gguf-size"),
    pytest.param(MODEL, "  size_bytes: 4920753328", "  size_bytes: " + HUGE,
                 "catalog/models/llama-3.1-8b.yaml: ollama.0.size_bytes: must be less than or equal to 4398046511104",
                 id="huge-ollama-size"),
    pytest.param(MODEL, "ollama:", CHECKPOINT.format(size=HUGE, url="https://huggingface.co/neuralmagic/x"),
                 "catalog/models/llama-3.1-8b.yaml: checkpoints.0.size_bytes: must be less than or equal to "
                 "4398046511104", id="huge-checkpoint-size"),
    pytest.param(MODEL, "ollama:", CHECKPOINT.format(size=8_500_000_000, url="javascript:alert(1)"),
                 "catalog/models/llama-3.1-8b.yaml: checkpoints.0.source_url: must be an https:// URL",
                 id="script-checkpoint-url"),
    pytest.param(MODEL, "  architectures: [LlamaForCausalLM]", "  architectures: [LlamaForCausalLM]\n  x: " + HUGE,
                 "catalog/models/llama-3.1-8b.yaml: config: must hold JSON data only (as config.json does); not at x",
                 id="config-integer-beyond-json"),
])
def test_a_value_beyond_its_bounds_is_one_line(catalog: Path, file: str, old: str, new: str, expected: str) -> None:
    """Issue 27: Python's own limits (int() of 4,300+ digits, dates) and sizes no file has are input errors."""
    edit(catalog / file, old, new)
    assert one_problem(catalog) == expected


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
    assert cli("check", "--catalog", catalog).returncode == 0
