"""SVG pictures to PNG, for the mails (mail clients show no SVG) and ``board.png``.

resvg (through resvg-py) draws the SVG the pictures make; it needs no browser and no Cairo. The
pictures name ``DejaVu Sans`` first (service.pictures.svg), so the machine needs the DejaVu fonts
(Debian: ``fonts-dejavu-core``, see deploy/README.md): without them resvg falls back to whatever
sans-serif font it finds, and with none at all the text is left out of the picture.
"""

from __future__ import annotations

import re
from functools import lru_cache

import resvg_py

MAX_WIDTH = 900
"""The widest PNG made, in pixels: a mail reader's column is rarely wider, and a bigger picture
only makes the mail heavier."""

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
