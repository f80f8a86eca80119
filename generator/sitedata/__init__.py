"""The site-data stage: per-model estimates (``compute``), the store, recommendation policy, navigation and
methodology data, assembled into one frozen ``SiteData`` before any page renders."""

from .compute import (
    FINETUNE_METHODS,
    FINETUNE_SEQ_LEN,
    PAGE_CONTEXT_TOKENS,
    ContextSweep,
    ModelEstimates,
    VllmSetup,
    matrix_quants,
    preference,
)
from .policy import OLDER_LAUNCH_YEAR, RANK, PairResult, Pick, ServingChoice, recommend
from .site import SiteData
from .store import EstimateStore

__all__ = ["FINETUNE_METHODS", "FINETUNE_SEQ_LEN", "OLDER_LAUNCH_YEAR", "PAGE_CONTEXT_TOKENS", "RANK", "ContextSweep",
           "EstimateStore", "ModelEstimates", "PairResult", "Pick", "ServingChoice", "SiteData", "VllmSetup",
           "matrix_quants", "preference", "recommend"]
