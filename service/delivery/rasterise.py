"""SVG pictures to PNG, for the mails (mail clients show no SVG) and ``board.png``.

A turn notice must stay light (at most 64 KiB as sent: service.delivery.letters.NOTICE_BUDGET),
and a truecolour board is not: drawn 900 px wide, El Capitán's board with five players weighed
265 KB, Nauticus' 220 KB, Ophir's 130 to 150 KB, and so the notices 143 to 370 KB. The mail's
picture (:func:`to_mail_png`) is therefore an 8-bit palette PNG (Pillow's fast-octree quantizer,
no dithering: the boards are flat colours, and the octree keeps the seat colours apart where
median cut merged the green and the blue pieces), drawn for a phone's column, and the first of
:data:`MAIL_LADDER` that fits the room the mail leaves it. Measured over 12 positions of one
random game per game and player count (bench/notice_sizes.py), the largest boards, at the end of a
game with the most players, come out 720 px wide with 64 colours for Ophir (about 40 KB), 600 px
with 32 colours for Nauticus and El Capitán (35 to 45 KB); a board that fits no rung is left out
and the mail links to it instead. Looked at: at 600 px the pieces, cubes and numbers read at once,
the small print (footnotes, loan terms) needs a zoom, as it does at 900 px on a phone.

resvg (through resvg-py) draws the SVG the pictures make; it needs no browser and no Cairo. The
pictures name ``DejaVu Sans`` first (service.pictures.svg), so the machine needs the DejaVu fonts
(Debian: ``fonts-dejavu-core``, see deploy/README.md): without them resvg falls back to whatever
sans-serif font it finds, and with none at all the text is left out of the picture.
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
                                            (480, 32))
"""The mail picture's (width, palette colours), best first; :func:`to_mail_png` takes the first
that fits. The widest is 720 px: shown 600 CSS px wide (turn_notice.html), crisper on a phone's
denser screen; below 480 px the board's words no longer read. Fewer than 32 colours saves little
(16 was often bigger: the octree then blends the seat colours into the background's)."""

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
