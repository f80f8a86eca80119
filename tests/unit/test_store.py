"""The estimate store: what one build computed, the next reuses, and saving never drops what pages still need."""

from __future__ import annotations

from pathlib import Path

from generator.catalog.load import load_catalog
from generator.sitedata import EstimateStore, ModelResults, SiteData

CATALOG = Path(__file__).resolve().parents[1] / "fixtures" / "project" / "catalog"


def _results(path: Path) -> ModelResults:
    return ModelResults(load_catalog(CATALOG), EstimateStore(path, "test-code"))


def test_a_saved_store_serves_every_model_of_the_next_build(tmp_path: Path) -> None:
    path = tmp_path / "estimates.pickle"
    first = _results(path)
    assert not any(first.stored(m) for m in first.models)
    first.page_estimates(sorted(first.models))
    first.save_store()
    second = _results(path)
    assert all(second.stored(m) for m in second.models)
    assert SiteData(second.catalog, computed=second).pairs == SiteData(first.catalog, computed=first).pairs


def test_saving_after_a_partial_build_keeps_results_it_did_not_read(tmp_path: Path) -> None:
    """A build that renders few pages reads few results; the ones it only checked for must survive its save."""
    path = tmp_path / "estimates.pickle"
    first = _results(path)
    first.page_estimates(sorted(first.models))
    first.save_store()
    partial = _results(path)
    assert all(partial.stored(m) for m in partial.models)
    partial.from_store(("something new",), lambda: 1)  # the store changed, so it is written
    partial.save_store()
    assert all(_results(path).stored(m) for m in partial.models)


def test_another_estimator_version_starts_from_an_empty_store(tmp_path: Path) -> None:
    path = tmp_path / "estimates.pickle"
    first = _results(path)
    first.page_estimates(sorted(first.models))
    first.save_store()
    other = ModelResults(load_catalog(CATALOG), EstimateStore(path, "other-code"))
    assert not any(other.stored(m) for m in other.models)


def test_saved_estimates_come_back_equal_and_unpack_only_when_read(tmp_path: Path) -> None:
    path = tmp_path / "estimates.pickle"
    first = _results(path)
    found = first.page_estimates(sorted(first.models))
    first.save_store()
    store = EstimateStore(path, "test-code")
    estimates = {key: value for key, value in found.items() if type(value).__name__ == "Estimate"}
    assert estimates and all(store.has(key) for key in estimates)
    assert not any(key in store.entries for key in estimates)  # still packed: nothing read yet
    assert all(store.get(key) == value for key, value in estimates.items())
    assert all(store.get(key) is store.get(key) for key in estimates)  # unpacked once
    assert not store.has(("absent",)) and store.get(("absent",)) is None


def test_an_absorbed_answer_serves_the_same_results_as_computing_them(tmp_path: Path) -> None:
    """What a worker sends (estimates packed) and the parent absorbs equals what the parent would compute."""
    worker, parent, direct = _results(tmp_path / "a"), _results(tmp_path / "b"), _results(tmp_path / "c")
    models = sorted(worker.models)
    for model_id in models:
        parent.absorb(worker.page_answer([model_id]))
    assert all(parent.stored(m) for m in models)
    expected = direct.page_estimates(models)
    assert {key: parent.store.get(key) for key in expected} == expected
    assert SiteData(parent.catalog, computed=parent).pairs == SiteData(direct.catalog, computed=direct).pairs
