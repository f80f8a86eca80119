"""Typed views and what the templates may do with them: no arithmetic or comparisons in a template, cached partials
that see only their part, one URL scheme, and sentences whose figures come from the code that computes them."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import jinja2
import pytest
from babel.support import NullTranslations

from generator.estimate import finetune
from generator.i18n import formatter
from generator.pages.render import make_environment
from generator.views import pair_text
from generator.views.common import Lang

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = ROOT / "templates"
ARITHMETIC = (jinja2.nodes.BinExpr, jinja2.nodes.Concat, jinja2.nodes.Compare, jinja2.nodes.Neg, jinja2.nodes.Pos)


def _english() -> Lang:
    return Lang("en", formatter("en"), lambda message: message, lambda name: "")


@pytest.mark.parametrize("name", sorted(str(p.relative_to(TEMPLATES)) for p in TEMPLATES.rglob("*.html")))
def test_templates_hold_no_arithmetic_and_no_comparison(name: str) -> None:
    """Decisions and sums belong to the views: a template only tests presence and loops."""
    env = jinja2.Environment(extensions=["jinja2.ext.i18n"])
    tree = env.parse((TEMPLATES / name).read_text(encoding="utf-8"))
    found = [f"line {node.lineno}: {type(node).__name__}" for node in tree.find_all(ARITHMETIC)
             if not isinstance(node, (jinja2.nodes.And, jinja2.nodes.Or))]  # presence tests may combine
    assert not found, found


def _environment(tmp_path: Path, partial: str) -> jinja2.Environment:
    (tmp_path / "partials").mkdir()
    (tmp_path / "partials" / "probe.html").write_text(partial, encoding="utf-8")
    (tmp_path / "page.html").write_text('{{ cached("partials/probe.html", part) }}', encoding="utf-8")
    return make_environment(tmp_path, NullTranslations(), "en")


@dataclasses.dataclass(frozen=True)
class Probe:
    key: tuple[str, str]
    name: str


def test_a_cached_partial_cannot_read_the_page(tmp_path: Path) -> None:
    env = _environment(tmp_path, "{{ v.secret }}")
    with pytest.raises(jinja2.UndefinedError):
        env.get_template("page.html").render(root="", v={"secret": "page data"}, part=Probe(("probe", "a"), "A"))


def test_a_cached_partial_shows_its_part_once_per_key_and_root(tmp_path: Path) -> None:
    env = _environment(tmp_path, "{{ root }}{{ p.name }}")
    page = env.get_template("page.html")
    assert page.render(root="../", part=Probe(("probe", "a"), "A")) == "../A"
    assert page.render(root="../", part=Probe(("probe", "b"), "B")) == "../B"
    assert page.render(root="../../", part=Probe(("probe", "a"), "A")) == "../../A"
    # The key names the part: the same key is the same fragment (which is why parts are built per key).
    assert page.render(root="../", part=Probe(("probe", "a"), "changed")) == "../A"


def test_the_finetune_note_states_the_estimators_setup(monkeypatch: pytest.MonkeyPatch) -> None:
    note = str(pair_text.finetune_note(_english(), 2048))
    estimate_text = dict(finetune.finetune_memory(_tiny_arch(), "lora").assumptions)["finetune.trainable"]
    assert f"LoRA rank {finetune.LORA_RANK} " in note and f"LoRA rank {finetune.LORA_RANK} " in estimate_text
    assert "routed experts excluded" in note and "routed experts excluded" in estimate_text
    assert finetune.full_bytes_per_param() == 16 and "(16 bytes per parameter)" in note  # 2 + 2 + 4 + 4 + 4
    assert f"micro-batch {finetune.MICRO_BATCH}," in note and "Sequence length 2,048," in note
    monkeypatch.setattr(finetune, "LORA_RANK", 64)
    assert "LoRA rank 64 " in str(pair_text.finetune_note(_english(), 2048))


@dataclasses.dataclass(frozen=True)
class _Tensor:
    ne: tuple[int, ...]
    role: str
    elements: int
    is_matrix: bool = True


@dataclasses.dataclass(frozen=True)
class _Arch:
    hidden_size: int = 16
    vocab_size: int = 32
    tensors: tuple[_Tensor, ...] = (_Tensor((16, 16), "attn", 256), _Tensor((16, 64, 2), "expert", 2048))
    n_layers: int = 1


def _tiny_arch() -> _Arch:
    return _Arch()


def test_only_the_url_module_writes_site_paths() -> None:
    """``generator/urls.py`` is the one copy of the URL scheme: no other module writes a page or API path."""
    pattern = re.compile(r"""f["'][^"']*(\{[a-z_]*lang[a-z_]*\}/|/models/\{|/gpus/\{|/compare/\{|api/v1/|\.schema\.json)""")
    offenders = [f"{path.relative_to(ROOT)}:{number}" for path in (ROOT / "generator").rglob("*.py")
                 if path.name != "urls.py"
                 for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if pattern.search(line) and ".yaml" not in line]  # catalogue files, not site paths
    assert not offenders, offenders


def test_an_offload_pick_at_the_floor_names_the_heavier_loss_quant_the_gpu_would_hold_alone() -> None:
    from generator.estimate.estimator import Estimate
    from generator.views.insight import Insight

    fields = {name: 0 for name in Estimate._fields}
    fields.update(verdict="offload", total_bytes=16 * 2**30, usable_bytes=12 * 2**30, decode_tokens_per_s=82.0,
                  assumptions=())
    e = Estimate(**fields)
    insight = Insight(None, None, 0, None, True, 1.0, None, None, False)
    chosen = str(pair_text.verdict_reason(e, "IQ4_XS", 0.0, 4 * 2**30, insight, _english(), ("Q2_K", "heavy loss")))
    assert "4.00\u00a0GiB stay in system RAM" in chosen and "Q2_K (heavy loss) would fit the GPU alone" in chosen
    assert "Even at" not in chosen  # a smaller quant does fit: "even" would say it does not
    forced = str(pair_text.verdict_reason(e, "IQ4_XS", 0.0, 4 * 2**30, insight, _english()))
    assert forced.startswith("Even at IQ4_XS")


def test_a_fit_passed_over_for_speed_names_the_better_quant_and_its_speed() -> None:
    from generator.estimate.estimator import Estimate
    from generator.views.insight import Insight

    fields = {name: 0 for name in Estimate._fields}
    fields.update(verdict="fits", total_bytes=56 * 2**30, usable_bytes=96 * 2**30, margin_bytes=40 * 2**30,
                  decode_tokens_per_s=5.31, assumptions=())
    e = Estimate(**fields)
    insight = Insight(None, None, 0, None, True, 1.0, None, None, False)
    passed = str(pair_text.verdict_reason(e, "Q6_K", 0.41, 0, insight, _english(), slower_fit=("Q8_0", "4.13")))
    assert passed.endswith("Q8_0 would fit too, but decodes at about 4.13 tok/s, slower than people read.")
    assert "would fit too" not in str(pair_text.verdict_reason(e, "Q6_K", 0.41, 0, insight, _english()))
