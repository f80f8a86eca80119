"""Jinja2 environments (one per language, built once per process) and the formatting filters."""

from __future__ import annotations

import hashlib
import inspect
import marshal
import os
import re
import sys
import types
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

import jinja2
import jinja2.ext
import markdown
from babel.support import NullTranslations
from markupsafe import Markup

from .. import codegen
from ..cachefile import discard
from ..codegen import CODE_GENERATOR, DirectCalls, Messages, escape_output
from ..errors import Problem, UserError
from ..i18n import LANGUAGES, Formatter, formatter, translation_markup, translations
from ..incremental import digest, library_versions
from ..links import href
from ..sitedata.methodology import Figure, prose_figures
from ..views.common import Lang
from ..views.labels import translated_labels
from . import reads


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
        "href": href,
    }


class FastGettext(Messages):
    """``_("…", name=value)`` for templates: translated text is escaped once, substituted values are escaped.

    Jinja's i18n extension resolves ``gettext`` through the context and wraps every call; with ~200 messages per
    page that was a third of the render time. Messages are translated once and kept as Markup. Literal-only calls
    are compiled in as constant strings by ``FastCodeGenerator``: a translation never becomes template source.
    """

    def __init__(self, catalogue: NullTranslations):
        self._gettext = catalogue.gettext
        self._cache: dict[str, Markup] = {}

    def translate(self, message: str) -> Markup:
        """The message in this language, as markup."""
        translated = self._cache.get(message)
        if translated is None:
            translated = self._cache[message] = translation_markup(self._gettext(message))
        return translated

    @jinja2.pass_context  # how stock Jinja would call it: the same signature either way
    def __call__(self, context: jinja2.runtime.Context, message: str, **values: Any) -> Markup:
        translated = self.translate(message)
        if not values:
            return translated
        # Markup's own % escapes through a Python helper per value; the messages only use %(name)s. The result is
        # built as Markup without Markup's Python constructor (the text is already safe).
        return str.__new__(Markup, str.__mod__(translated, {name: escape_output(value) for name, value in values.items()}))


class CheckedBytecodeCache(jinja2.FileSystemBytecodeCache):
    """Jinja's file cache of compiled templates without its pickled header: each file is a magic line, the
    template source's checksum, a SHA-256 digest of the marshalled code, then the code. A file that is unreadable,
    damaged or holds anything but a code object is discarded with a notice and the template compiles again."""

    MAGIC = b"vram-atlas-jinja-1\n"

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        path = Path(self._get_cache_filename(bucket))
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return
        except OSError as error:
            discard(path, f"cannot read: {error.strerror}", path.parent.parent)  # one line for the whole cache
            return
        header, _, code = raw[len(self.MAGIC):].partition(b"\n")
        checksum, _, code_digest = header.partition(b" ")
        if not raw.startswith(self.MAGIC) or code_digest != hashlib.sha256(code).hexdigest().encode():
            discard(path, "damaged", path.parent.parent)  # one line for the whole cache
            return
        if checksum != bucket.checksum.encode():
            return  # the template changed since: compiled again and saved over it
        try:
            loaded = marshal.loads(code)
        except (EOFError, ValueError, TypeError):
            loaded = None
        if not isinstance(loaded, types.CodeType):
            discard(path, "not compiled code", path.parent.parent)  # one line for the whole cache
            return
        bucket.code = loaded

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        path = Path(self._get_cache_filename(bucket))
        code = marshal.dumps(bucket.code)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")  # workers may save the same template at once
        try:
            tmp.write_bytes(b"%s%s %s\n%s" % (self.MAGIC, bucket.checksum.encode(),
                                              hashlib.sha256(code).hexdigest().encode(), code))
            tmp.replace(path)
        except OSError:  # the cache only saves time
            tmp.unlink(missing_ok=True)


class PageEnvironment(jinja2.Environment):
    """Compiles with ``FastCodeGenerator`` (stock Jinja's where this Jinja lacks its hooks), which also looks up
    ``x.key`` in dicts (the views) before attributes."""

    code_generator_class = CODE_GENERATOR
    plain_filters = frozenset(("num", "sig", "gib", "gb", "mib", "usd", "pct", "tokens", "params"))  # digits and signs only

    def make_globals(self, d: MutableMapping[str, Any] | None) -> MutableMapping[str, Any]:
        """A template's globals as one plain dict, not Jinja's ChainMap: every page's context copies them, and a
        dict copies in C. Our globals are all set before the first template loads, as Jinja asks."""
        return {**self.globals, **(d or {})}


class FragmentCache(DirectCalls):
    """``cached(template, part)``: a partial rendered once per part key and reused (Hugo's ``partialCached``).

    The part (``views/parts.py``) is the partial's whole context: the partial sees ``p`` (the part), ``root``
    (always part of the cache key: pages at different depths link differently) and the environment's globals, never
    the calling page's variables, so it cannot show what the part's ``key`` does not name. One cache per environment
    (language).
    """

    def __init__(self, env: jinja2.Environment):
        self._env = env
        self._rendered: dict[tuple[Any, ...], Markup] = {}
        self._reads: dict[tuple[Any, ...], frozenset] = {}  # what rendering each fragment read, replayed on a hit
        self._templates: dict[str, jinja2.Template] = {}
        self._hits = 0

    @jinja2.pass_context
    def __call__(self, context: jinja2.runtime.Context, template: str, part: Any) -> Markup:
        root = context.parent["root"]  # a page variable: in the parent, never a {% set %}
        full_key = (template, root, part.key)
        found = self._rendered.get(full_key)
        if found is None:
            reads.make_room(self._rendered, self._reads)
            partial = self._template(template)
            local = partial.new_context({**partial.globals, "root": root, "p": part}, shared=True)
            depth = reads.open_log()
            try:
                found = self._rendered[full_key] = Markup("".join(partial.root_render_func(local)))
            finally:
                self._reads[full_key] = reads.close_log(depth)
        else:
            self._hits += 1
            reads.replay(self._reads[full_key])
        return found

    def _template(self, name: str) -> jinja2.Template:
        """A partial, looked up once (Jinja's own cache takes a lock and a freshness check per call)."""
        if name not in self._templates:
            self._templates[name] = self._env.get_template(name)
        return self._templates[name]

    def size(self) -> int:
        """Fragments rendered so far."""
        return len(self._rendered)

    def hits(self) -> int:
        """Fragments served from the cache so far."""
        return self._hits


def make_environment(templates_dir: Path, catalogue: NullTranslations, language: str,
                     cache_dir: Path | None = None) -> jinja2.Environment:
    """A strict, autoescaping environment with the language's gettext catalogue, labels and formatters."""
    if cache_dir:  # compiled code embeds the translations and our code generator: one cache per version of each
        compiler = digest(library_versions(), *(Path(inspect.getfile(module)).read_bytes()
                                                for module in (codegen, sys.modules[__name__])),
                          codegen.JINJA_VERSION, PageEnvironment.code_generator_class.__qualname__)
        cache_dir = cache_dir / f"{language}-{digest(sorted(getattr(catalogue, '_catalog', {}).items()), compiler)}"
        cache_dir.mkdir(parents=True, exist_ok=True)
    env = PageEnvironment(
        loader=jinja2.FileSystemLoader(str(templates_dir)),
        autoescape=jinja2.select_autoescape(("html", "xml", "svg"), default_for_string=True),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,
        bytecode_cache=CheckedBytecodeCache(str(cache_dir)) if cache_dir else None,
    )
    env.globals["_"] = FastGettext(catalogue)
    env.globals["L"] = translated_labels(catalogue.gettext)
    env.globals["cached"] = FragmentCache(env)
    env.filters.update(_filters(formatter(language)))
    return env


_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def fill_figures(text: str, figures: dict[str, Figure], fmt: Formatter, shown: str) -> str:
    """Prose with each ``{name}`` replaced by that code constant in the language's number format; a name that is
    not a figure is an error, not text."""
    unknown = sorted({name for name in _PLACEHOLDER.findall(text) if name not in figures})
    if unknown:
        raise UserError([Problem(shown, "", f"unknown figure {{{name}}}: not in sitedata.methodology.prose_figures")
                         for name in unknown])

    def figure(match: re.Match[str]) -> str:
        value, digits = figures[match.group(1)]
        return str(int(value)) if digits is None else fmt.number(value, digits)

    return _PLACEHOLDER.sub(figure, text)


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
        self._langs: dict[str, Lang] = {}
        self._common = reads.RecordedMemo()  # view parts every language shares, of the current subject's pages
        self._subject: Any = None

    def lang(self, language: str) -> Lang:
        """The views' handle on one language, with its memo of shared view parts and the memo of parts every
        language shares (one per process)."""
        if language not in self._langs:
            self._langs[language] = Lang(language, formatter(language), self.translations[language].gettext,
                                         lambda name: self.prose(language, name), memo=reads.RecordedMemo(),
                                         common=self._common)
        return self._langs[language]

    def start_subject(self, subject: Any) -> None:
        """Forget the parts every language shares when the pages move on to another subject: a subject's files are
        planned together, and kept, those parts would hold every pair's estimates till the end of the build."""
        if subject != self._subject:
            self._subject = subject
            self._common.clear()
            self._common.reads.clear()

    def prose(self, language: str, name: str) -> Markup:
        """A Markdown page from ``templates/content/<name>.<language>.md`` as HTML, read once per process."""
        key = (language, name)
        if key not in self._prose:
            path = self._content_dir / f"{name}.{language}.md"
            text = fill_figures(path.read_text(encoding="utf-8"), prose_figures(), formatter(language),
                                f"templates/content/{path.name}")
            self._prose[key] = Markup(markdown.markdown(text, output_format="html"))
        return self._prose[key]

    def load_templates(self) -> None:
        """Compile (or load from the cache) every template in every language now, not at first use."""
        for language, env in self.environments.items():
            for name in env.list_templates(extensions=["html"]):
                self._templates[(language, name)] = env.get_template(name)

    def render(self, language: str, template: str, context: dict[str, Any]) -> str:
        """Render one template in one language."""
        key = (language, template)
        if key not in self._templates:
            self._templates[key] = self.environments[language].get_template(template)
        return self._templates[key].render(context)
