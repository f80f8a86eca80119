"""Typed view models: one frozen dataclass per page kind (and per cached partial), holding the final numbers,
labels, texts and flags a template lays out."""
