"""Jinja2 environments (one per language, built once per process) and the formatting filters."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2
import markdown
from markupsafe import Markup

from babel.support import Translations

from .i18n import LANGUAGES, Formatter, formatter, translations


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


def make_environment(templates_dir: Path, catalogue: Translations, language: str) -> jinja2.Environment:
    """A strict, autoescaping environment with the language's gettext catalogue and formatters."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir)),
        autoescape=jinja2.select_autoescape(("html", "xml", "svg"), default_for_string=True),
        undefined=jinja2.StrictUndefined,
        extensions=["jinja2.ext.i18n"],
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,
    )
    env.install_gettext_translations(catalogue, newstyle=True)  # type: ignore[attr-defined]
    env.filters.update(_filters(formatter(language)))
    return env


class Renderer:
    """Renders pages in every language; templates compile once per process."""

    def __init__(self, templates_dir: Path, locales_dir: Path, asset_names: dict[str, str]):
        self.translations = {language: translations(locales_dir, language) for language in LANGUAGES}
        self.environments = {language: make_environment(templates_dir, self.translations[language], language)
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
