"""Social preview images (Open Graph and Twitter cards): a 1200×630 PNG per model, GPU and the index in each
language, drawing the numbers of the view its page renders (nothing recomputed here)."""

from __future__ import annotations

import io
from functools import cache
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from ..sitedata import PAGE_CONTEXT_TOKENS
from ..views.common import Lang
from ..views.plan import IMAGE_KINDS, PageKey

WIDTH, HEIGHT = 1200, 630  # the size Facebook, LinkedIn and X show large
MARGIN = 72
BACKGROUND, FOREGROUND = (15, 23, 42), (241, 245, 249)
# The image is drawn as grey levels, 0 the background and 255 the foreground, and saved with a palette running
# between the two colours: antialiased text blends as in colour, and the PNG holds one byte per pixel (a third of
# RGB's bytes and encoding time).
PALETTE = [round(BACKGROUND[c] + (FOREGROUND[c] - BACKGROUND[c]) * level / 255) for level in range(256) for c in range(3)]
TEXT, MUTED, FAINT = 255, 185, 120
# Bitstream Vera (generator/data/fonts, with its licence): it has the German letters, which Pillow's own default
# font lacks.
FONT_DIR = Path(__file__).resolve().parents[1] / "data" / "fonts"
REGULAR, BOLD = "Vera.ttf", "VeraBd.ttf"


@cache
def _font_bytes(name: str) -> bytes:
    return (FONT_DIR / name).read_bytes()


@cache
def _font(name: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(io.BytesIO(_font_bytes(name)), size)


def _fitted(text: str, name: str, size: int, width: int, smallest: int) -> tuple[str, ImageFont.FreeTypeFont]:
    """The text and a font no larger than ``size`` in which it fits ``width`` pixels; at ``smallest`` the text is
    cut and ends in an ellipsis. No-break spaces are drawn as spaces (Vera draws them twice as wide)."""
    text = text.replace("\u00a0", " ")
    while size > smallest and _font(name, size).getlength(text) > width:
        size -= 2
    font = _font(name, size)
    if font.getlength(text) <= width:
        return text, font
    while text and font.getlength(f"{text}…") > width:
        text = text[:-1]
    return f"{text.rstrip()}…", font


def _wrapped(text: str, name: str, size: int, width: int) -> list[str]:
    """The text in at most two lines of ``width`` pixels at ``size``, broken between words (the second line cut
    and ending in an ellipsis if it is still too long)."""
    font, words = _font(name, size), text.split(" ")
    first = words[0]
    for count in range(len(words), 0, -1):
        first = " ".join(words[:count])
        if font.getlength(first) <= width or count == 1:
            break
    rest = text[len(first):].strip()
    return [first, *([_fitted(rest, name, size, width, size)[0]] if rest else [])]


def _card(kind: str, v: Any, lang: Lang) -> tuple[str, str, list[tuple[str, str]]]:
    """Title, subtitle and (value, label) figures of one subject's image, from its page's view."""
    _, fmt = lang.gettext, lang.fmt
    context = fmt.tokens(PAGE_CONTEXT_TOKENS)
    if kind == "model":
        arch, headline = v.architecture, v.headline
        params = (_("%(total)s parameters, %(active)s active") % {"total": fmt.params(arch.total_params),
                                                                  "active": fmt.params(arch.active_params)}
                  if arch.active_params != arch.total_params else
                  _("%(total)s parameters") % {"total": fmt.params(arch.total_params)})
        return v.model.name, params, [
            (fmt.gib(headline.q4_bytes), _("Q4_K_M, %(context)s context") % {"context": context}),
            (fmt.gib(headline.bf16_bytes), _("BF16, %(context)s context") % {"context": context}),
            (_("%(fit)s of %(n)s") % {"fit": fmt.number(headline.q4_fits), "n": fmt.number(headline.gpus)},
             _("GPUs it fits on at good quality or better")),
        ]
    if kind == "gpu":
        gpu = v.gpu
        return gpu.name, gpu.memory_type, [
            (fmt.gib(gpu.memory_bytes, 0), _("Memory")),
            (f"{fmt.number(gpu.bandwidth_gb_per_s)}\u00a0GB/s", _("Bandwidth")),
            (_("%(fit)s of %(n)s") % {"fit": fmt.number(v.fits_count), "n": fmt.number(len(v.rows))},
             _("LLMs that fit at %(context)s context") % {"context": context}),
        ]
    return "VRAM Atlas", _("Can this GPU run this LLM?"), [
        (fmt.number(len(v.models)), _("LLMs")), (fmt.number(len(v.gpus)), _("GPUs")),
    ]


def image_bytes(key: PageKey, view: Any, lang: Lang) -> bytes:
    """The subject's preview image as PNG bytes: the same bytes for the same view (no time or metadata chunk)."""
    title, subtitle, figures = _card(key.kind, view, lang)
    image = Image.new("L", (WIDTH, HEIGHT), 0)
    draw = ImageDraw.Draw(image)
    inner = WIDTH - 2 * MARGIN
    draw.rectangle((0, 0, WIDTH, 10), fill=FAINT)
    draw.text((MARGIN, 52), "VRAM Atlas", font=_font(BOLD, 30), fill=MUTED)
    text, font = _fitted(title, BOLD, 72, inner, 40)
    draw.text((MARGIN, 110), text, font=font, fill=TEXT)
    text, font = _fitted(subtitle, REGULAR, 34, inner, 24)
    draw.text((MARGIN, 210), text, font=font, fill=MUTED)
    column = inner // 3
    for index, (value, label) in enumerate(figures):
        left = MARGIN + index * column
        text, font = _fitted(value, BOLD, 56, column - 32, 28)
        draw.text((left, 330), text, font=font, fill=TEXT)
        for line, text in enumerate(_wrapped(label, REGULAR, 26, column - 32)):
            draw.text((left, 410 + 34 * line), text, font=_font(REGULAR, 26), fill=MUTED)
    draw.line((MARGIN, 520, WIDTH - MARGIN, 520), fill=FAINT, width=2)
    text, font = _fitted(lang.gettext("Estimates from VRAM Atlas's published method; measured error on the "
                                      "methodology page."), REGULAR, 24, inner, 16)
    draw.text((MARGIN, 545), text, font=font, fill=MUTED)
    image.putpalette(PALETTE)
    out = io.BytesIO()
    image.save(out, "PNG", compress_level=3)  # half the encoding time of the default 6 for 20 % more bytes
    return out.getvalue()


def image_meta(key: PageKey, language: str, view: Any, lang: Lang, base_url: str) -> dict[str, Any]:
    """What a page's head says of the image it shows: absolute URL, size and alternative text."""
    _ = lang.gettext
    if key.kind in IMAGE_KINDS:  # what the image shows, word for word
        title, subtitle, figures = _card(key.kind, view, lang)
        alt = "; ".join([f"{title} ({subtitle})", *(f"{label}: {value}" for value, label in figures)])
    elif key.image_key().kind == "model":
        alt = _("%(model)s: memory at Q4_K_M and BF16 with %(context)s context, and how many GPUs it fits on") % {
            "context": lang.fmt.tokens(PAGE_CONTEXT_TOKENS),
            "model": view.model.name}
    else:
        alt = _("VRAM Atlas: how many LLMs and GPUs it covers")
    return {"url": base_url + key.image_path(language), "width": WIDTH, "height": HEIGHT, "alt": alt}
