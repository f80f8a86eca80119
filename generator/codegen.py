"""Jinja's code generator with a cheaper hot path: plain-string output escaping, inline look-ups, direct calls
of our globals, translated messages as constants.

Jinja compiles ``{{ x }}`` to ``escape(x)``, which builds a ``Markup`` object per value only for the page to join
them into one string; ``x.key`` to a method call per lookup; and every ``f(...)`` to ``context.call(f, ...)``,
which inspects ``f`` and, in a block, derives a new context per call. A pair page has ~450 output values, ~680
lookups and ~60 calls: that was half its render time. Messages, ``{{ _("…") }}`` and ``{{ _("… %(x)s", x=…) }}``,
become their escaped translation as a Python string constant (``%`` the escaped values): a translation is data in
the compiled code, never template source, so template syntax in a ``.po`` file stays text; and
number filters, whose output never needs escaping, are written as they are. The output is the same:
``tests/site/test_codegen.py`` compares pages with stock Jinja's (every fixture page, and a sample of real pages
of every kind). The rules a template must follow for that are in ``templates/README.md``.

It overrides Jinja internals (``HOOKS``), so pyproject.toml pins Jinja2 to the minor range it was tested on, and
``code_generator()`` checks at import that the hooks are there and falls back to stock Jinja (slower, same pages)
when one is missing.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable
from importlib.metadata import version
from typing import Any

import jinja2
import jinja2.compiler
from jinja2 import nodes
from jinja2.compiler import CodeGenerator, Frame
from markupsafe import Markup

# The Jinja internals this generator relies on: (owner, attribute, parameters it must accept, in order).
HOOKS: tuple[tuple[Any, str, tuple[str, ...]], ...] = (
    (CodeGenerator, "_output_child_pre", ("self", "node", "frame", "finalize")),
    (CodeGenerator, "_FinalizeInfo", ()),
    (CodeGenerator, "enter_frame", ("self", "frame")),
    (CodeGenerator, "leave_frame", ("self", "frame", "with_python_scope")),
    (CodeGenerator, "visit_Template", ("self", "node", "frame")),
    (CodeGenerator, "visit_Getattr", ("self", "node", "frame")),
    (CodeGenerator, "visit_Call", ("self", "node", "frame", "forward_caller")),
    (CodeGenerator, "signature", ("self", "node", "frame")),
    (jinja2.compiler, "optimizeconst", ("f",)),
)
JINJA_VERSION = version("jinja2")
FRAME_FIELDS = ("buffer", "rootlevel", "block_frame", "eval_ctx")  # set in Frame.__init__, read and written here


def missing_hooks() -> list[str]:
    """The hooks (``HOOKS``, ``Frame`` fields) this Jinja lacks or has with other parameters; empty when usable."""
    missing = []
    for owner, name, parameters in HOOKS:
        found = getattr(owner, name, None)
        if found is None:
            missing.append(name)
        elif parameters and tuple(inspect.signature(found).parameters)[:len(parameters)] != parameters:
            missing.append(f"{name}{parameters}")
    try:
        frame = Frame(nodes.EvalContext(jinja2.Environment()))
        missing += [f"Frame.{name}" for name in FRAME_FIELDS if not hasattr(frame, name)]
    except Exception as error:  # noqa: BLE001 - any change in Frame's constructor means the hooks are unsafe
        missing.append(f"Frame() ({error.__class__.__name__})")
    return missing


def _optimizeconst(f: Callable) -> Callable:
    """Jinja's ``optimizeconst`` when it exists (``code_generator()`` does not use this class otherwise)."""
    return getattr(jinja2.compiler, "optimizeconst", lambda g: g)(f)

try:  # markupsafe's C escaper; its Python twin where the C speedups are missing
    from markupsafe._speedups import _escape_inner as _escape_text
except ImportError:  # pragma: no cover - depends on the installed markupsafe build
    from markupsafe import escape as _markup_escape

    def _escape_text(text: str, /) -> str:
        return str(_markup_escape(text))


def escape_output(value: Any) -> str:
    """An output value as HTML: markup as it is, anything else escaped (a ``str``: page output is only joined)."""
    kind = type(value)
    if kind is str:
        return _escape_text(value)
    if kind is Markup:
        return value
    if hasattr(value, "__html__"):
        return value.__html__()
    return _escape_text(str(value))


class DirectCalls:
    """Marks template globals that ``FastCodeGenerator`` calls directly as ``f(context, ...)``: the template's
    context, not one derived per block, so they see the page's variables but not ``{% set %}`` ones."""


class Messages(DirectCalls):
    """Marks the gettext global whose ``translate(message)`` gives a message's markup in the environment's language
    (compiled templates are cached per language and catalogue, so the translation may be compiled in)."""

    def translate(self, message: str) -> Markup:
        raise NotImplementedError


class FastCodeGenerator(CodeGenerator):
    """Emits ``escape_output(x)`` for autoescaped output, an inline look-up for ``x.key`` on dicts (the views),
    ``f(context, ...)`` for globals marked ``DirectCalls``, translated messages as constants and the output of
    the environment's ``plain_filters`` (numbers: no character HTML escapes) as it is; root and block functions
    yield their output once."""

    _output_message: nodes.Expr | None

    def visit_Template(self, node: nodes.Template, frame: Frame | None = None) -> None:
        self.writeline(f"from {__name__} import escape_output")
        self._buffered: set[int] = set()
        super().visit_Template(node, frame)

    def enter_frame(self, frame: Frame) -> None:
        # A template's root and its blocks collect output in a list and yield it once, joined: a yield per output
        # piece passed each of a page's ~360 pieces up through three generator frames (5 % of its instructions).
        super().enter_frame(frame)
        if (frame.rootlevel or frame.block_frame) and frame.buffer is None and not self.environment.is_async:
            self._buffered.add(id(frame))
            frame.buffer = "_out"
            self.writeline("_out = []")

    def leave_frame(self, frame: Frame, with_python_scope: bool = False) -> None:
        super().leave_frame(frame, with_python_scope)
        if id(frame) in self._buffered:
            self._buffered.discard(id(frame))
            self.writeline("yield concat(_out)")

    def _output_child_pre(self, node: nodes.Expr, frame: Frame, finalize: CodeGenerator._FinalizeInfo) -> None:
        if frame.eval_ctx.autoescape and not frame.eval_ctx.volatile and finalize.src is None:
            if self._message(node) is not None:
                self._output_message = node
                self.write("(")
            elif self._plain(node):
                self.write("(")
            else:
                self.write("escape_output(")
        else:
            super()._output_child_pre(node, frame, finalize)

    def _plain(self, node: nodes.Expr) -> bool:
        """Whether ``node`` is a call of one of the environment's ``plain_filters``, whose output needs no escaping."""
        return isinstance(node, nodes.Filter) and node.name in getattr(self.environment, "plain_filters", ())

    def _message(self, node: nodes.Expr) -> Markup | None:
        """The translated markup of an output ``_("literal", name=value, …)``, else None."""
        if (self.environment.is_async or not isinstance(node, nodes.Call) or not isinstance(node.node, nodes.Name)
                or len(node.args) != 1 or not isinstance(node.args[0], nodes.Const) or node.dyn_args or node.dyn_kwargs
                or not isinstance(node.args[0].value, str)):
            return None
        messages = self.environment.globals.get(node.node.name)
        return messages.translate(node.args[0].value) if isinstance(messages, Messages) else None

    def _write_message(self, node: nodes.Call, frame: Frame) -> None:
        """The message's markup with each value escaped, as FastGettext would build it, minus the call."""
        translated = self._message(node)
        if not node.kwargs:
            self.write(repr(str(translated)))
            return
        self.write(f"str.__mod__({str(translated)!r}, {{")
        for keyword in node.kwargs:
            self.write(f"{keyword.key!r}: {'(' if self._plain(keyword.value) else 'escape_output('}")
            self.visit(keyword.value, frame)
            self.write("), ")
        self.write("})")

    @_optimizeconst
    def visit_Getattr(self, node: nodes.Getattr, frame: Frame) -> None:
        if self.environment.is_async:
            super().visit_Getattr(node, frame)
            return
        # One temporary serves nested look-ups: the inner one is done before the outer one rebinds it.
        key = repr(node.attr)
        self.write(f"(_view[{key}] if type(_view := ")
        self.visit(node.node, frame)
        # Objects (estimates, catalogue entries): builtin getattr; Jinja's item and undefined fallbacks only when it fails.
        self.write(f") is dict and {key} in _view else _found if (_found := getattr(_view, {key}, missing)) is not missing"
                   f" else environment.getattr(_view, {key}))")

    def visit_Call(self, node: nodes.Call, frame: Frame, forward_caller: bool = False) -> None:
        if node is getattr(self, "_output_message", None):
            self._output_message = None
            self._write_message(node, frame)
            return
        if not self._direct_call(node, forward_caller):
            super().visit_Call(node, frame, forward_caller=forward_caller)
            return
        self.visit(node.node, frame)
        self.write("(context")
        self.signature(node, frame)
        self.write(")")

    def _direct_call(self, node: nodes.Call, forward_caller: bool) -> bool:
        if forward_caller or self.environment.is_async or not isinstance(node.node, nodes.Name):
            return False
        return isinstance(self.environment.globals.get(node.node.name), DirectCalls)


def code_generator() -> type[CodeGenerator]:
    """``FastCodeGenerator`` when this Jinja has every hook it overrides, else stock Jinja's (with a warning)."""
    missing = missing_hooks()
    if not missing:
        return FastCodeGenerator
    warnings.warn(f"Jinja2 {JINJA_VERSION} lacks {', '.join(missing)}: templates compile with stock Jinja "
                  "(same pages, slower); pyproject.toml names the Jinja2 versions tested", RuntimeWarning, stacklevel=2)
    return CodeGenerator


CODE_GENERATOR = code_generator()  # checked once, at import
