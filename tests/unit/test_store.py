"""The estimate store: what one build computed, the next reuses, and saving never drops what pages still need."""

from __future__ import annotations

from pathlib import Path

from generator.catalog.load import load_catalog
from generator.sitedata import EstimateStore, ModelEstimates, SiteData

CATALOG = Path(__file__).resolve().parents[1] / "fixtures" / "project" / "catalog"


def _estimates(path: Path) -> ModelEstimates:
    return ModelEstimates(load_catalog(CATALOG), EstimateStore(path, "test-code"))


def test_a_saved_store_serves_every_model_of_the_next_build(tmp_path: Path) -> None:
    path = tmp_path / "estimates.pickle"
    first = _estimates(path)
    assert not any(first.stored(m) for m in first.models)
    first.compute(sorted(first.models))
    first.save_store()
    second = _estimates(path)
    assert all(second.stored(m) for m in second.models)
    assert SiteData(second.catalog, estimates=second).pairs == SiteData(first.catalog, estimates=first).pairs


def test_saving_after_a_partial_build_keeps_results_it_did_not_read(tmp_path: Path) -> None:
    """A build that renders few pages reads few results; the ones it only checked for must survive its save."""
    path = tmp_path / "estimates.pickle"
    first = _estimates(path)
    first.compute(sorted(first.models))
    first.save_store()
    partial = _estimates(path)
    assert all(partial.stored(m) for m in partial.models)
    partial.from_store(("something new",), lambda: 1)  # the store changed, so it is written
    partial.save_store()
    assert all(_estimates(path).stored(m) for m in partial.models)


def test_another_estimator_version_starts_from_an_empty_store(tmp_path: Path) -> None:
    path = tmp_path / "estimates.pickle"
    first = _estimates(path)
    first.compute(sorted(first.models))
    first.save_store()
    other = ModelEstimates(load_catalog(CATALOG), EstimateStore(path, "other-code"))
    assert not any(other.stored(m) for m in other.models)


def _all_stored(estimates: ModelEstimates) -> dict[tuple, object]:
    """Every stored result the pages of the catalogue need, computed or found, by store key."""
    estimates.compute(sorted(estimates.models))
    return {key: estimates.store.get(key) for m in sorted(estimates.models) for key, _ in estimates._store_entries(m)}


def test_saved_results_come_back_equal_and_unpickle_only_when_read(tmp_path: Path) -> None:
    path = tmp_path / "estimates.pickle"
    first = _estimates(path)
    found = _all_stored(first)
    first.save_store()
    store = EstimateStore(path, "test-code")
    assert found and all(store.has(key) for key in found)
    assert all(type(store.entries[key]) is bytes for key in found)  # still bytes: nothing read yet
    assert all(store.get(key) == value for key, value in found.items())
    assert not store.has(("absent",)) and store.get(("absent",)) is None


def test_a_damaged_value_is_computed_again_and_never_runs_code(tmp_path: Path) -> None:
    """The store file is untrusted: a value that unpickles a function is dropped, as a missing one is."""
    import pickle
    import zlib
    path = tmp_path / "estimates.pickle"
    first = _estimates(path)
    found = _all_stored(first)
    key = next(iter(found))
    first.store.put_encoded(key, zlib.compress(pickle.dumps(print)))
    first.save_store()
    second = _estimates(path)
    assert second.store.get(key) is None and not second.store.has(key)
    assert not all(second.stored(m) for m in second.models)
    assert _all_stored(second)[key] == found[key]


def test_an_absorbed_answer_serves_the_same_results_as_computing_them(tmp_path: Path) -> None:
    """What a worker sends (each result as stored bytes) and the parent absorbs equals what the parent would compute."""
    worker, parent, direct = _estimates(tmp_path / "a"), _estimates(tmp_path / "b"), _estimates(tmp_path / "c")
    models = sorted(worker.models)
    for model_id in models:
        parent.absorb(worker.page_answer([model_id]))
    assert all(parent.stored(m) for m in models)
    expected = _all_stored(direct)
    assert {key: parent.store.get(key) for key in expected} == expected
    assert SiteData(parent.catalog, estimates=parent).pairs == SiteData(direct.catalog, estimates=direct).pairs
