"""A small, correct site in the generator's layout, for proving the quality gates pass it and fail planted defects."""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

BASE_URL = "https://vram-atlas.example/"
LANGUAGES = ("en", "de")
WORDS = {
    "en": ("fits", "does not fit", "tokens per second", "memory", "context", "weights", "cache", "price"),
    "de": ("passt", "passt nicht", "Token pro Sekunde", "Speicher", "Kontext", "Gewichte", "Cache", "Preis"),
}
CSS = (
    "body{font:16px/1.5 system-ui,sans-serif;margin:0 auto;max-width:50rem;padding:1rem;color:#111;background:#fff}"
    "a{color:#0645ad}table{border-collapse:collapse}td,th{border:1px solid #999;padding:.25rem .5rem}"
    ".skip{position:absolute;left:-999px}.skip:focus{left:1rem}nav a{display:inline-block;padding:.5rem}\n"
)
FAVICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" fill="#0645ad"/></svg>\n'
JS = "document.documentElement.classList.add('js');\n"


@dataclass(frozen=True)
class Spec:
    """What one page is: its URL path in each language, title, description and main HTML per language."""

    paths: dict[str, str]  # language -> URL path below the root, '' for the language index
    titles: dict[str, str]
    descriptions: dict[str, str]
    mains: dict[str, str]

    def file(self, language: str) -> str:
        path = self.paths[language]
        return path if path.endswith(".html") else f"{path}index.html"


def _number(*parts: str) -> int:
    return zlib.crc32("/".join(parts).encode()) % 997 + 3


def _pair_main(language: str, model: str, gpu: str, root: str, detail: int) -> str:
    fits, no_fit, tps, memory, context, weights, cache, price = WORDS[language]
    verdict = fits if _number(model, gpu) % 3 else no_fit
    rows = "".join(
        f"<tr><td>{context} {2 ** (10 + i)}</td><td>{_number(model, gpu, str(i))} GB {memory}</td>"
        f"<td>{_number(gpu, model, str(i)) / 10} {tps}</td></tr>"
        for i in range(8 * detail)
    )
    paragraphs = "".join(
        f"<p>{model} {weights} {_number(model, str(i))} GB on {gpu} with {_number(gpu, str(i))} GB {memory}: "
        f"{cache} {_number(model, gpu, 'kv', str(i))} MB at {context} {1024 * (i + 1)}, {price} "
        f"{_number(gpu, 'price', str(i))} per hour, batch {i + 1} gives {_number(model, gpu, 'b', str(i))} {tps}.</p>"
        for i in range(6 * detail)
    )
    return (
        f'<h1 id="verdict">{model} × {gpu}: {verdict}</h1>{paragraphs}'
        f'<table><caption>{memory}</caption><thead><tr><th scope="col">{context}</th><th scope="col">{memory}</th>'
        f'<th scope="col">{tps}</th></tr></thead><tbody>{rows}</tbody></table>'
        f'<p><a href="{root}{language}/models/{model}/">{model}</a> · <a href="{root}{language}/gpus/{gpu}/">{gpu}</a>'
        f' · <a href="#verdict">{fits}</a></p>'
    )


def _listing(language: str, root: str, heading: str, links: list[tuple[str, str]], anchor: str) -> str:
    items = "".join(f'<li><a href="{root}{language}/{path}">{name}</a></li>' for name, path in links)
    return f'<h2 id="{anchor}">{heading}</h2><ul>{items}</ul>'


def specs(models: list[str], gpus: list[str], detail: int = 1) -> list[Spec]:
    """Index, methodology, model, GPU and pair pages in every language, plus the two 404 pages."""

    def each(make) -> dict[str, str]:
        return {language: make(language) for language in LANGUAGES}

    out = [
        Spec(
            each(lambda lang: f"{lang}/"),
            each(lambda lang: f"VRAM Atlas ({lang}): which GPU runs which LLM"),
            each(lambda lang: f"Every model and GPU in the VRAM Atlas catalogue, {lang} edition."),
            each(
                lambda lang: "<h1>VRAM Atlas</h1>"
                + _listing(lang, "../", "Models", [(m, f"models/{m}/") for m in models], "models")
                + _listing(lang, "../", "GPUs", [(g, f"gpus/{g}/") for g in gpus], "gpus")
            ),
        ),
        Spec(
            each(lambda lang: f"{lang}/methodology/"),
            each(lambda lang: f"Methodology ({lang}) – VRAM Atlas"),
            each(lambda lang: f"How VRAM Atlas estimates memory and speed ({lang})."),
            each(lambda lang: f"<h1>Methodology</h1><p>{' '.join(WORDS[lang])} are estimated from model configs.</p>"),
        ),
    ]
    for model in models:
        out.append(
            Spec(
                each(lambda lang, m=model: f"{lang}/models/{m}/"),
                each(lambda lang, m=model: f"{m} ({lang}) – VRAM Atlas"),
                each(lambda lang, m=model: f"Which GPUs run {m}, and how fast ({lang})."),
                each(
                    lambda lang, m=model: f"<h1>{m}</h1><p>{m} {WORDS[lang][5]} {_number(m)} GB.</p>"
                    + _listing(lang, "../../../", "GPUs", [(g, f"models/{m}/{g}/") for g in gpus], "gpus")
                ),
            )
        )
    for gpu in gpus:
        out.append(
            Spec(
                each(lambda lang, g=gpu: f"{lang}/gpus/{g}/"),
                each(lambda lang, g=gpu: f"{g} ({lang}) – VRAM Atlas"),
                each(lambda lang, g=gpu: f"Which models run on {g}, and how fast ({lang})."),
                each(
                    lambda lang, g=gpu: f"<h1>{g}</h1><p>{g} {WORDS[lang][3]} {_number(g)} GB.</p>"
                    + _listing(lang, "../../../", "Models", [(m, f"models/{m}/{g}/") for m in models], "models")
                ),
            )
        )
    for model in models:
        for gpu in gpus:
            out.append(
                Spec(
                    each(lambda lang, m=model, g=gpu: f"{lang}/models/{m}/{g}/"),
                    each(lambda lang, m=model, g=gpu: f"{m} on {g} ({lang}) – VRAM Atlas"),
                    each(lambda lang, m=model, g=gpu: f"Can {g} run {m}? Memory, speed and price ({lang})."),
                    each(lambda lang, m=model, g=gpu: _pair_main(lang, m, g, "../../../../", detail)),
                )
            )
    return out


def _root_of(file: str) -> str:
    return "../" * file.count("/")


def render(spec: Spec, language: str, base_url: str) -> str:
    """One page of ``spec`` in ``language``: head with canonical and alternates, language switch, main."""
    file = spec.file(language)
    root = _root_of(file)
    alternates = {**spec.paths, "x-default": spec.paths["en"]}
    links = "".join(f'<link rel="alternate" hreflang="{c}" href="{base_url}{p}">' for c, p in alternates.items())
    switch = "".join(
        f'<a href="{root}{spec.paths[other]}" hreflang="{other}" lang="{other}">{other.upper()}</a>'
        for other in LANGUAGES
        if other != language
    )
    return (
        f'<!doctype html>\n<html lang="{language}"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{spec.titles[language]}</title>"
        f'<meta name="description" content="{spec.descriptions[language]}">'
        f'<link rel="canonical" href="{base_url}{spec.paths[language]}">{links}'
        f'<link rel="icon" href="{root}assets/favicon.svg" type="image/svg+xml">'
        f'<link rel="stylesheet" href="{root}assets/site.css"></head>\n<body>'
        f'<a class="skip" href="#main">Skip</a><header><nav aria-label="Site">'
        f'<a href="{root}{language}/">VRAM Atlas</a><a href="{root}{language}/#models">Models</a>'
        f'<a href="{root}{language}/methodology/">Methodology</a>{switch}</nav></header>'
        f'<main id="main">{spec.mains[language]}</main>'
        f'<footer><p>VRAM Atlas</p></footer><script src="{root}assets/site.js" defer></script></body></html>\n'
    )


def _sitemap(entries: list[tuple[str, dict[str, str]]]) -> str:
    urls = "".join(
        f"<url><loc>{loc}</loc>"
        + "".join(f'<xhtml:link rel="alternate" hreflang="{c}" href="{h}"/>' for c, h in alternates.items())
        + "</url>"
        for loc, alternates in entries
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
        f'xmlns:xhtml="http://www.w3.org/1999/xhtml">{urls}</urlset>\n'
    )


def _special_page(language: str, title: str, body: str, root: str) -> str:
    return (
        f'<!doctype html>\n<html lang="{language}"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{title}</title>'
        f'<meta name="robots" content="noindex"><link rel="stylesheet" href="{root}assets/site.css"></head>'
        f'<body><main id="main">{body}</main></body></html>\n'
    )


def build_site(
    out: Path,
    models: list[str] | None = None,
    gpus: list[str] | None = None,
    base_url: str = BASE_URL,
    detail: int = 1,
) -> Path:
    """Write a complete, correct synthetic site to ``out`` and return it (``detail`` scales pair-page length)."""
    models = models or ["llama-3-8b", "qwen3-32b"]
    gpus = gpus or ["rtx-4090", "h100-sxm", "mi300x"]
    top = urlsplit(base_url).path
    files: dict[str, str] = {
        "assets/site.css": CSS,
        "assets/favicon.svg": FAVICON,
        "assets/site.js": JS,
        "robots.txt": f"User-agent: *\nAllow: /\nSitemap: {base_url}sitemap.xml\n",
        "index.html": _special_page(
            "en", "VRAM Atlas – choose a language", '<h1>VRAM Atlas</h1><p><a href="en/">English</a> · '
            '<a href="de/" hreflang="de" lang="de">Deutsch</a></p>', ""
        ),
        # 404 pages are served at any depth: their links start from the site's root path.
        "404.html": _special_page("en", "Page not found – VRAM Atlas",
                                  f'<h1>Not found</h1><p><a href="{top}en/">Home</a></p>', top),
        "de/404.html": _special_page("de", "Seite nicht gefunden – VRAM Atlas",
                                     f'<h1>Nicht gefunden</h1><p><a href="{top}de/">Start</a></p>', top),
        "sitemap.xml": (
            '<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
            + "".join(f"<sitemap><loc>{base_url}{lang}/sitemap.xml</loc></sitemap>" for lang in LANGUAGES)
            + "</sitemapindex>\n"
        ),
    }
    all_specs = specs(models, gpus, detail)
    for language in LANGUAGES:
        entries = []
        for spec in all_specs:
            files[spec.file(language)] = render(spec, language, base_url)
            alternates = {c: base_url + p for c, p in {**spec.paths, "x-default": spec.paths["en"]}.items()}
            entries.append((base_url + spec.paths[language], alternates))
        files[f"{language}/sitemap.xml"] = _sitemap(entries)
        index = [{"title": s.titles[language], "url": s.paths[language]} for s in all_specs]
        files[f"{language}/search.json"] = json.dumps(index)
    for rel, text in files.items():
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return out


PAIR = "en/models/llama-3-8b/rtx-4090/index.html"
PAIR_DE = "de/models/llama-3-8b/rtx-4090/index.html"
OTHER_PAIR = "en/models/llama-3-8b/h100-sxm/index.html"


def edit(site: Path, rel: str, old: str, new: str, count: int = 1) -> None:
    """Replace ``old`` by ``new`` in one site file, insisting that ``old`` occurs there ``count`` times."""
    path = site / rel
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == count, f"{rel}: expected {count} × {old!r}, found {text.count(old)}"
    path.write_text(text.replace(old, new), encoding="utf-8")
