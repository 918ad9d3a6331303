"""SVG pictures to PNG, for the mails (mail clients show no SVG) and ``board.png``.

A turn notice must stay light (at most 64 KiB as sent: service.delivery.letters.NOTICE_BUDGET),
and a truecolour board is not: drawn 900 px wide, El Capitán's board with five players weighed up
to 265 KB, Nauticus' 220 KB, Ophir's 150 KB, and so the notices 144 to 370 KB. The mail's picture
(:func:`to_mail_png`) is an 8-bit palette PNG (Pillow's fast-octree quantizer, no dithering: the
boards are flat colours, and the octree keeps the seat colours apart where median cut turned the
green pieces grey-blue), the first rung of :data:`MAIL_LADDER` that fits the room the rest of the
mail leaves it; a board that fits no rung is left out and linked (letters.notice_of).

Measured with bench/notice_sizes.py (12 positions spread over one random game per game and player
count; whole message bytes before DKIM, max / median per game over all its player counts; before
with LF line ends as in the outbox file, after with CRLF as over SMTP, so the gain is if anything
understated):

    before (truecolour, 900 px), seed 0   El Capitán 369,745 / 325,545   Nauticus 306,934 / 245,434
                                          Ophir      207,566 / 193,115
    after (palette, ladder), seed 0       El Capitán  60,426 /  58,324   Nauticus  61,000 /  57,005
                                          Ophir       57,107 /  52,496   (every picture sent)
    after, seed 1 (El Capitán with the    El Capitán  60,290 /  58,039   Nauticus  60,578 /  56,556
    three expansion cities)               Ophir       58,199 /  51,454

With the expansions, 6 of El Capitán's 24 positions at four and five players fit no rung: those
notices (15 to 18 KB) link the picture and show the text board instead.

The rungs taken: Ophir 720 px with 64 colours always; Nauticus 720 px (32 colours) with two
players, 600 px with more; El Capitán 600 or 560 px with two players, mostly 560 or 520 px with
more, 480 px twice in 48 (seed 0; 32 colours throughout). Looked at: at 600 px and more the pieces, cubes, prices and labels read; at 480 to 560 px the cities, pieces and
colours read but the player panels' small print (loans, hands) needs the match page, which the mail
links under the picture.
"""

from __future__ import annotations

import io
import re
from functools import lru_cache

import resvg_py
from PIL import Image

MAX_WIDTH = 900
"""The widest PNG made, in pixels: a mail reader's column is rarely wider, and a bigger picture
only makes the mail heavier."""

MAIL_LADDER: tuple[tuple[int, int], ...] = ((720, 64), (720, 32), (600, 64), (600, 32), (560, 32), (520, 32),
                                            (480, 32), (480, 24))
"""The mail picture's (width, palette colours), best first; :func:`to_mail_png` takes the first
that fits. The widest is 720 px: shown 600 CSS px wide (turn_notice.html), crisper on a phone's
denser screen; below 480 px the board's words no longer read. Fewer than 32 colours saves little
(16 was often bigger than 32, not smaller); the last rung's 24 still keeps the five seat colours
apart and saved a tenth on El Capitán's board with the expansions and five players, where 32 did
not fit."""

BACKGROUND = "#ffffff"
"""The pictures' own background may be transparent; mail clients in dark mode would then show
dark text on a dark page, so the PNG is drawn on white."""

FONT = "DejaVu Sans"

# the root element's width: the pictures write it as a plain number of user units (pixels)
_ROOT = re.compile(r"<svg\b[^>]*>", re.S)
_WIDTH = re.compile(r'\swidth="([0-9]+(?:\.[0-9]+)?)(?:px)?"')


class RasteriseError(ValueError):
    """The SVG could not be drawn (not SVG, or resvg refused it)."""


def natural_width(svg: str) -> float | None:
    """The width the SVG's root element declares, in pixels, or None when it declares none."""
    root = _ROOT.search(svg)
    found = _WIDTH.search(root.group(0)) if root else None
    return float(found.group(1)) if found else None


@lru_cache(maxsize=32)
def to_png(svg: str, max_width: int = MAX_WIDTH) -> bytes:
    """The PNG of ``svg`` on a white background, at its own width but at most ``max_width`` pixels
    (the height follows the aspect ratio).

    Drawing a board takes a few tenths of a second of CPU, and the same picture is asked for again
    and again (every spectator of a position, the PNG after its SVG), so the last few are kept:
    a picture is a pure function of its SVG, so a kept one is never stale."""
    natural = natural_width(svg)
    width = max(1, min(max_width, round(natural))) if natural else max_width
    try:
        return bytes(resvg_py.svg_to_bytes(svg_string=svg, width=width, background=BACKGROUND, font_family=FONT,
                                           sans_serif_family=FONT))
    except (ValueError, RuntimeError) as exc:
        raise RasteriseError(f"the picture could not be drawn as PNG: {exc}") from exc


def palette_png(png: bytes, colours: int) -> bytes:
    """``png`` as an 8-bit palette PNG of at most ``colours`` colours (fast octree, no dithering:
    dithering speckles the flat areas and makes the file bigger)."""
    with Image.open(io.BytesIO(png)) as picture:
        quantized = picture.convert("RGB").quantize(colors=colours, method=Image.Quantize.FASTOCTREE,
                                                     dither=Image.Dither.NONE)
    out = io.BytesIO()
    quantized.save(out, "PNG", optimize=True)
    return out.getvalue()


def to_mail_png(svg: str, max_bytes: int) -> bytes | None:
    """The mail's PNG of ``svg``: the first of :data:`MAIL_LADDER` of at most ``max_bytes``
    bytes, or None when even the smallest is bigger (the mail then links to the picture)."""
    for width, colours in MAIL_LADDER:
        png = palette_png(to_png(svg, width), colours)
        if len(png) <= max_bytes:
            return png
    return None
