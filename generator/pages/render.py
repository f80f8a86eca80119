"""Jinja2 environments (one per language, built once per process) and the formatting filters."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2
import markdown
from markupsafe import Markup

from babel.support import Translations

from .i18n import LANGUAGES, Formatter, formatter, translations
from .labels import translated_labels


def _filters(fmt: Formatter) -> dict[str, Any]:
    return {
        "num": fmt.number,
        "sig": fmt.sig,
        "gib": fmt.gib,
        "gb": fmt.gb,
        "mib": fmt.mib,
        "usd": fmt.usd,
        "pct": fmt.percent,
        "tokens": fmt.tokens,
        "date": fmt.date,
        "params": fmt.params,
    }


class FastGettext:
    """``_("…", name=value)`` for templates: translated text is trusted markup, substituted values are escaped.

    Jinja's i18n extension resolves ``gettext`` through the context and wraps every call; with ~200 messages per
    page that was a third of the render time. Messages are translated once and kept as Markup.
    """

    def __init__(self, catalogue: Translations):
        self._gettext = catalogue.gettext
        self._cache: dict[str, Markup] = {}

    def __call__(self, message: str, **values: Any) -> Markup:
        translated = self._cache.get(message)
        if translated is None:
            translated = self._cache[message] = Markup(self._gettext(message))
        return translated % values if values else translated


def make_environment(templates_dir: Path, catalogue: Translations, language: str,
                     cache_dir: Path | None = None) -> jinja2.Environment:
    """A strict, autoescaping environment with the language's gettext catalogue, labels and formatters."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir)),
        autoescape=jinja2.select_autoescape(("html", "xml", "svg"), default_for_string=True),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,
        bytecode_cache=jinja2.FileSystemBytecodeCache(str(cache_dir)) if cache_dir else None,
    )
    env.globals["_"] = FastGettext(catalogue)
    env.globals["L"] = translated_labels(catalogue.gettext)
    env.filters.update(_filters(formatter(language)))
    return env


class Renderer:
    """Renders pages in every language; templates compile once per process."""

    def __init__(self, templates_dir: Path, locales_dir: Path, asset_names: dict[str, str], cache_dir: Path | None = None):
        self.translations = {language: translations(locales_dir, language) for language in LANGUAGES}
        if cache_dir:
            cache_dir.mkdir(parents=True, exist_ok=True)
        self.environments = {language: make_environment(templates_dir, self.translations[language], language, cache_dir)
                             for language in LANGUAGES}
        self.asset_names = asset_names
        self._templates: dict[tuple[str, str], jinja2.Template] = {}
        self._content_dir = templates_dir / "content"
        self._prose: dict[tuple[str, str], Markup] = {}

    def prose(self, language: str, name: str) -> Markup:
        """A Markdown page from ``templates/content/<name>.<language>.md`` as HTML, read once per process."""
        key = (language, name)
        if key not in self._prose:
            text = (self._content_dir / f"{name}.{language}.md").read_text(encoding="utf-8")
            self._prose[key] = Markup(markdown.markdown(text, output_format="html"))
        return self._prose[key]
        self._templates: dict[tuple[str, str], jinja2.Template] = {}

    def render(self, language: str, template: str, context: dict[str, Any]) -> str:
        """Render one template in one language."""
        key = (language, template)
        if key not in self._templates:
            self._templates[key] = self.environments[language].get_template(template)
        return self._templates[key].render(context)
