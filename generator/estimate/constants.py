"""Fitted speed constants per backend family — PLACEHOLDER until fit_constants writes the fitted values."""

from __future__ import annotations

from .speed import BackendConstants

CONSTANTS: dict[str, BackendConstants] = {
    "cuda": BackendConstants("cuda", 0.8, 0.4, 1e-3, 0.0, 0.0, 0.6, 0.1, 1.3, fitted=False),
    "metal": BackendConstants("metal", 0.8, 0.4, 1e-3, 0.0, 0.0, 0.6, 0.1, 1.3, fitted=False),
}
