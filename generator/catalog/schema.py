"""Pydantic models for catalogue entries; units live in field names."""

from __future__ import annotations

import datetime as dt
import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, HttpUrl, field_validator, model_validator

from ..links import is_safe_href

ID_PATTERN = r"^[a-z0-9]+(?:[-.][a-z0-9]+)*$"
# An id names a folder of the site: one ending like a file the site writes (index.html) would collide with it.
FILE_LIKE_ID = re.compile(r"\.(?:html?|xml|txt|json|css|js|svg|png|ico|webmanifest|gz)$")
MAX_FILE_SIZE_BYTES = 2**42  # 4 TiB: any published weights (a 2-trillion-parameter model in BF16) and then some
JSON_INTEGER = 2**53  # the largest integer a config.json (JSON, read as doubles by most tools) holds exactly
URL_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def _slug(value: str) -> str:
    if FILE_LIKE_ID.search(value):
        raise ValueError(f"{value!r} ends like a file name and would collide with the site's files")
    return value


def _https(value: str) -> str:
    if not is_safe_href(value):
        raise ValueError("must be an https:// URL")
    HttpUrl(value)
    return value


SlugId = Annotated[str, Field(pattern=ID_PATTERN, max_length=80), AfterValidator(_slug)]
HttpsUrl = Annotated[str, Field(max_length=2000), AfterValidator(_https)]


class Strict(BaseModel):
    """Base model: unknown keys are errors, values are not coerced across types (a quoted number is an error)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class Source(Strict):
    """Where a set of facts was read: a URL or document, the date it was read, the fields it backs."""

    url: str = Field(min_length=4, max_length=2000)
    read: dt.date
    fields: list[str] = Field(min_length=1)
    title: str | None = None
    note: str | None = None

    @field_validator("url")
    @classmethod
    def _url_or_document(cls, value: str) -> str:
        if URL_SCHEME.match(value):  # a link: https only (a title is shown as text and never starts with a scheme)
            return _https(value)
        if len(value.split()) < 2:
            raise ValueError("must be an https:// URL or a document title")
        return value


class Entry(Strict):
    """Fields shared by every catalogue entry."""

    id: SlugId
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
    memory_gb: float | None = Field(default=None, gt=0, le=2_000)  # the size as the vendor states it (decimal GB)
    usable_memory_bytes: int | None = Field(default=None, gt=0, le=2**40)
    unified_memory: bool = False
    memory_type: str
    bandwidth_gb_per_s: float = Field(gt=0, le=20_000)
    fp16_tensor_tflops: float | None = Field(default=None, gt=0, le=20_000)
    fp8_tensor_tflops: float | None = Field(default=None, gt=0, le=40_000)
    int8_tensor_tops: float | None = Field(default=None, gt=0, le=40_000)
    fp32_tflops: float | None = Field(default=None, gt=0, le=1_000)  # non-tensor (shader) FP32 rate
    tdp_w: float | None = Field(default=None, gt=0, le=5_000)
    launch_date: dt.date | None = None
    price_usd: float | None = Field(default=None, gt=0, le=1_000_000)
    price_kind: Literal["msrp", "street"] | None = None
    price_date: dt.date | None = None
    street_price_usd: float | None = Field(default=None, gt=0, le=1_000_000)  # a current new or used street price
    street_price_date: dt.date | None = None
    backends: list[Backend] = Field(min_length=1)
    interconnect: Interconnect | None = None

    @model_validator(mode="after")
    def _consistent(self) -> Gpu:
        if self.usable_memory_bytes is not None and self.usable_memory_bytes > self.memory_bytes:
            raise ValueError("usable_memory_bytes: must not exceed memory_bytes")
        if (self.price_usd is None) != (self.price_kind is None) or (self.price_usd is None) != (self.price_date is None):
            raise ValueError("price_usd, price_kind and price_date: give all three or none")
        return self


QuantName = str  # validated against the estimator's quant table by ``check``


class GgufFile(Strict):
    """A published GGUF file (or the sum of its split parts)."""

    quant: QuantName
    size_bytes: int | None = Field(default=None, gt=0, le=MAX_FILE_SIZE_BYTES)  # left out where no source states it
    file: str | None = None


class GgufRepo(Strict):
    """A Hugging Face repository of GGUF files, with where its sizes were read."""

    repo: str = Field(pattern=r"^[\w.-]+/[\w.-]+$")
    files: list[GgufFile] = Field(min_length=1)
    source_url: HttpsUrl
    read: dt.date
    note: str | None = None  # what was read (a file listing, a run guide's `-hf` lines), when not obvious


class OllamaTag(Strict):
    """An Ollama library tag."""

    tag: str = Field(pattern=r"^[\w.-]+:[\w.-]+$")
    quant: QuantName | None = None
    size_bytes: int | None = Field(default=None, gt=0, le=MAX_FILE_SIZE_BYTES)
    source_url: HttpsUrl
    read: dt.date
    note: str | None = None  # what was read, when not the library page itself


class MlxRepo(Strict):
    """A Hugging Face repository of MLX weights (Apple silicon), as ``mlx_lm`` loads it."""

    repo: str = Field(pattern=r"^[\w.-]+/[\w.-]+$")
    bits: Literal[3, 4, 5, 6, 8, 16]  # weight bits as the repository's name and config state them (16: bf16/fp16)
    size_bytes: int | None = Field(default=None, gt=0, le=MAX_FILE_SIZE_BYTES)
    source_url: HttpsUrl
    read: dt.date
    note: str | None = None


class Checkpoint(Strict):
    """A published Hugging Face checkpoint vLLM loads (an official FP8/FP4 release, an AWQ/GPTQ repository)."""

    repo: str = Field(pattern=r"^[\w.-]+/[\w.-]+$")
    quant: QuantName
    size_bytes: int | None = Field(default=None, gt=0, le=MAX_FILE_SIZE_BYTES)
    source_url: HttpsUrl
    read: dt.date
    note: str | None = None


class Model(Entry):
    """One LLM: identity, licence, and the architecture as its config.json states it."""

    family: str
    org: str
    hf_repo: str = Field(pattern=r"^[\w.-]+/[\w.-]+$")
    # The repository people chat with, where ``hf_repo`` is a pre-trained base model: the Instruct/chat release of
    # the same architecture and size, which commands serve instead.
    chat_repo: str | None = Field(default=None, pattern=r"^[\w.-]+/[\w.-]+$")
    gated: bool | None = None  # true: the model's own repositories need a Hugging Face login and an accepted licence
    license: str | None = None
    release_date: dt.date | None = None
    total_params: int = Field(gt=0, le=10**13)
    active_params: int | None = Field(default=None, gt=0, le=10**13)
    context_length: int = Field(gt=0, le=2**25)
    config: dict[str, Any]
    config_revision: str | None = None
    gguf: list[GgufRepo] = []
    ollama: list[OllamaTag] = []
    checkpoints: list[Checkpoint] = []
    mlx: list[MlxRepo] = []

    @field_validator("config")
    @classmethod
    def _json_data(cls, value: dict[str, Any]) -> dict[str, Any]:
        """A config.json holds JSON data only (no YAML sets, bytes, dates or non-text keys)."""
        where = _not_json(value)
        if where is not None:
            raise ValueError(f"must hold JSON data only (as config.json does); not at {where or 'the top'}")
        return value

    @model_validator(mode="after")
    def _active_le_total(self) -> Model:
        if self.active_params is not None and self.active_params > self.total_params:
            raise ValueError("active_params: must not exceed total_params")
        return self


def _not_json(value: Any, path: str = "") -> str | None:
    """The path of the first value in ``value`` that JSON cannot hold, else None."""
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"{path}.{key!r}".lstrip(".")
            found = _not_json(item, f"{path}.{key}".lstrip("."))
            if found is not None:
                return found
        return None
    if isinstance(value, list):
        return next((found for i, item in enumerate(value) if (found := _not_json(item, f"{path}.{i}")) is not None),
                    None)
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > JSON_INTEGER:
        return path  # a number no config.json holds (and the estimator's arithmetic would overflow)
    return None if value is None or isinstance(value, (str, int, float, bool)) else path


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
    url: HttpsUrl
    note: str | None = None  # how the price was read (a marketplace median, a "from" price); not shown on pages


class CloudProvider(Strict):
    """A cloud provider and its offers; one file per provider."""

    id: SlugId
    name: str
    url: HttpsUrl
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
