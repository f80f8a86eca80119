"""Pydantic models for catalogue entries; units live in field names."""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, HttpUrl, field_validator, model_validator

Id = str  # lower-case slug, validated by ``Entry``
ID_PATTERN = r"^[a-z0-9]+(?:[-.][a-z0-9]+)*$"


class Strict(BaseModel):
    """Base model: unknown keys are errors, values are not coerced across types."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=False)


class Source(Strict):
    """Where a set of facts was read: a URL or document, the date it was read, the fields it backs."""

    url: str = Field(min_length=4)
    read: dt.date
    fields: list[str] = Field(min_length=1)
    title: str | None = None
    note: str | None = None

    @field_validator("url")
    @classmethod
    def _url_or_document(cls, value: str) -> str:
        if value.startswith(("http://", "https://")):
            HttpUrl(value)
        elif len(value.split()) < 2:
            raise ValueError("must be an http(s) URL or a document title")
        return value


class Entry(Strict):
    """Fields shared by every catalogue entry."""

    id: str = Field(pattern=ID_PATTERN, max_length=80)
    name: str = Field(min_length=2, max_length=120)
    sources: list[Source] = Field(min_length=1)
    notes: str | None = None

    def sourced_fields(self) -> set[str]:
        """Names of the fields some source backs."""
        return {name for source in self.sources for name in source.fields}


Vendor = Literal["nvidia", "amd", "apple", "intel", "huawei", "cambricon", "hygon", "metax", "kunlunxin", "moore-threads"]
Segment = Literal["consumer", "workstation", "datacenter", "unified"]
Backend = Literal["cuda", "rocm", "metal", "vulkan", "sycl", "cann", "musa", "other"]


class Interconnect(Strict):
    """Link between GPUs of one machine."""

    name: str
    bandwidth_gb_per_s: float = Field(gt=0, le=10_000)


class Gpu(Entry):
    """One GPU or machine configuration as people buy or rent it."""

    vendor: Vendor
    segment: Segment
    aliases: list[str] = []
    memory_bytes: int = Field(gt=0, le=2**40)
    usable_memory_bytes: int | None = Field(default=None, gt=0)
    unified_memory: bool = False
    memory_type: str
    bandwidth_gb_per_s: float = Field(gt=0, le=20_000)
    fp16_tensor_tflops: float | None = Field(default=None, gt=0, le=20_000)
    fp8_tensor_tflops: float | None = Field(default=None, gt=0, le=40_000)
    int8_tensor_tops: float | None = Field(default=None, gt=0, le=40_000)
    tdp_w: float | None = Field(default=None, gt=0, le=5_000)
    launch_date: dt.date | None = None
    price_usd: float | None = Field(default=None, gt=0, le=1_000_000)
    price_kind: Literal["msrp", "street"] | None = None
    price_date: dt.date | None = None
    backends: list[Backend] = Field(min_length=1)
    interconnect: Interconnect | None = None

    @model_validator(mode="after")
    def _consistent(self) -> "Gpu":
        if self.usable_memory_bytes is not None and self.usable_memory_bytes > self.memory_bytes:
            raise ValueError("usable_memory_bytes: must not exceed memory_bytes")
        if (self.price_usd is None) != (self.price_kind is None) or (self.price_usd is None) != (self.price_date is None):
            raise ValueError("price_usd, price_kind and price_date: give all three or none")
        return self


QuantName = str  # validated against the estimator's quant table by ``check``


class GgufFile(Strict):
    """A published GGUF file (or the sum of its split parts)."""

    quant: QuantName
    size_bytes: int = Field(gt=0)
    file: str | None = None


class GgufRepo(Strict):
    """A Hugging Face repository of GGUF files, with where its sizes were read."""

    repo: str = Field(pattern=r"^[\w.-]+/[\w.-]+$")
    files: list[GgufFile] = Field(min_length=1)
    source_url: str
    read: dt.date


class OllamaTag(Strict):
    """An Ollama library tag."""

    tag: str = Field(pattern=r"^[\w.-]+:[\w.-]+$")
    quant: QuantName | None = None
    size_bytes: int | None = Field(default=None, gt=0)
    source_url: str
    read: dt.date


class Checkpoint(Strict):
    """A published Hugging Face checkpoint vLLM loads (an official FP8/FP4 release, an AWQ/GPTQ repository)."""

    repo: str = Field(pattern=r"^[\w.-]+/[\w.-]+$")
    quant: QuantName
    size_bytes: int | None = Field(default=None, gt=0)
    source_url: str
    read: dt.date
    note: str | None = None


class Model(Entry):
    """One LLM: identity, licence, and the architecture as its config.json states it."""

    family: str
    org: str
    hf_repo: str = Field(pattern=r"^[\w.-]+/[\w.-]+$")
    license: str | None = None
    release_date: dt.date | None = None
    total_params: int = Field(gt=0, le=10**13)
    active_params: int | None = Field(default=None, gt=0)
    context_length: int = Field(gt=0, le=2**25)
    config: dict[str, Any]
    config_revision: str | None = None
    gguf: list[GgufRepo] = []
    ollama: list[OllamaTag] = []
    checkpoints: list[Checkpoint] = []

    @model_validator(mode="after")
    def _active_le_total(self) -> "Model":
        if self.active_params is not None and self.active_params > self.total_params:
            raise ValueError("active_params: must not exceed total_params")
        return self


Billing = Literal["per-second", "per-minute", "hourly", "monthly"]
Tier = Literal["on-demand", "spot", "community", "secure", "reserved", "serverless"]


class CloudOffer(Strict):
    """One rentable instance at a published price."""

    instance: str
    gpu: str = Field(pattern=ID_PATTERN)
    gpu_count: int = Field(ge=1, le=64)
    price_usd_per_hour: float = Field(gt=0, le=1_000)
    billing: Billing
    tier: Tier
    region: str | None = None
    checked: dt.date
    url: str
    note: str | None = None  # how the price was read (a marketplace median, a "from" price); not shown on pages


class CloudProvider(Strict):
    """A cloud provider and its offers; one file per provider."""

    id: str = Field(pattern=ID_PATTERN)
    name: str
    url: str
    offers: list[CloudOffer] = Field(min_length=1)
    notes: str | None = None


class Catalog(BaseModel):
    """Everything loaded from ``catalog/``, keyed by id."""

    model_config = ConfigDict(frozen=True)

    models: dict[str, Model]
    gpus: dict[str, Gpu]
    clouds: dict[str, CloudProvider]

    def offers(self) -> list[tuple[CloudProvider, CloudOffer]]:
        """Every cloud offer with its provider, in a stable order."""
        return [(p, o) for p in self.clouds.values() for o in p.offers]
