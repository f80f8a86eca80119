"""Offline fitting: the measured cases and the fits that write the estimator's constants (``estimate/constants.py``,
``estimate/serving_constants.py``). Only the command line imports it; a build never does."""
