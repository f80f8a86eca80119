"""Jinja's code generator with a cheaper hot path: plain-string output escaping and direct calls of our globals.

Jinja compiles ``{{ x }}`` to ``escape(x)``, which builds a ``Markup`` object per value only for the page to join
them into one string, and every ``f(...)`` in a template to ``context.call(f, ...)``, which inspects ``f`` and, in a
block, derives a new context per call. With ~450 output values and ~60 calls per pair page that was a third of
the render time. The output is the same: ``tests/site/test_codegen.py`` compares it with stock Jinja's.
"""

from __future__ import annotations

from typing import Any

from jinja2 import nodes
from jinja2.compiler import CodeGenerator, Frame
from markupsafe import Markup

try:  # markupsafe's C escaper; its Python twin where the C speedups are missing
    from markupsafe._speedups import _escape_inner as _escape_text
except ImportError:  # pragma: no cover - depends on the installed markupsafe build
    from markupsafe import escape as _markup_escape

    def _escape_text(text: str) -> str:
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


class FastCodeGenerator(CodeGenerator):
    """Emits ``escape_output(x)`` for autoescaped output and ``f(...)`` for globals marked ``DirectCalls``."""

    def visit_Template(self, node: nodes.Template, frame: Frame | None = None) -> None:
        self.writeline(f"from {__name__} import escape_output")
        super().visit_Template(node, frame)

    def _output_child_pre(self, node: nodes.Expr, frame: Frame, finalize: CodeGenerator._FinalizeInfo) -> None:
        if frame.eval_ctx.autoescape and not frame.eval_ctx.volatile and finalize.src is None:
            self.write("escape_output(")
        else:
            super()._output_child_pre(node, frame, finalize)

    def visit_Call(self, node: nodes.Call, frame: Frame, forward_caller: bool = False) -> None:
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
