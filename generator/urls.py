"""The site's URL scheme, the one place it is written: every page, JSON document, image and download path,
relative to the site root (pages end in ``/``)."""

from __future__ import annotations

from .i18n import DEFAULT_LANGUAGE  # its 404 page is the one served at the root

API_ROOT = "api/v1/"
IMAGE_ROOT = "og/"
PAIRS_CSV = "downloads/pairs-default.csv"
FINDER_JSON = f"{API_ROOT}finder.json"  # the home page finder's data
DATAPACKAGE = "downloads/datapackage.json"
LLMS_TXT = "llms.txt"
ROBOTS = "robots.txt"
SITEMAP_INDEX = "sitemap.xml"


def index(language: str) -> str:
    return f"{language}/"


def anchor(path: str, fragment: str) -> str:
    """A section of a page (``#models`` of the index, ``#quality`` of the methodology page)."""
    return f"{path}#{fragment}"


def methodology(language: str) -> str:
    return f"{language}/methodology/"


def notfound(language: str) -> str:
    return "404.html" if language == DEFAULT_LANGUAGE else f"{language}/404.html"


def model(language: str, model_id: str) -> str:
    return f"{language}/models/{model_id}/"


def pair(language: str, model_id: str, gpu_id: str) -> str:
    return f"{model(language, model_id)}{gpu_id}/"


def gpu(language: str, gpu_id: str) -> str:
    return f"{language}/gpus/{gpu_id}/"


def compare(language: str, model_id: str) -> str:
    return f"{language}/compare/{model_id}/"


def sitemap(language: str) -> str:
    return f"{language}/sitemap.xml"


def api_index() -> str:
    return f"{API_ROOT}index.json"


def api_model(model_id: str) -> str:
    return f"{API_ROOT}models/{model_id}.json"


def api_pair(model_id: str, gpu_id: str) -> str:
    return f"{API_ROOT}models/{model_id}/{gpu_id}.json"


def api_gpu(gpu_id: str) -> str:
    return f"{API_ROOT}gpus/{gpu_id}.json"


def api_schema(kind: str) -> str:
    return f"{API_ROOT}schema/{kind}.schema.json"


def api_changelog() -> str:
    return f"{API_ROOT}CHANGELOG.md"


def image_index(language: str) -> str:
    return f"{IMAGE_ROOT}{language}/index.png"


def image_model(language: str, model_id: str) -> str:
    return f"{IMAGE_ROOT}{language}/models/{model_id}.png"


def image_gpu(language: str, gpu_id: str) -> str:
    return f"{IMAGE_ROOT}{language}/gpus/{gpu_id}.png"


def huggingface(repo: str) -> str:
    """A Hugging Face repository's page (outside the site)."""
    return f"https://huggingface.co/{repo}"
