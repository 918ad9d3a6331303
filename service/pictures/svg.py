"""A small SVG writer over :mod:`xml.etree.ElementTree`, shared by the game pictures.

Why not a string template: every name on a board is data (player names are chosen by people), and
ElementTree escapes text and attributes, so no name can break the document or inject markup. Why
not a drawing library: the pictures need a dozen element kinds and stable, diffable output for the
golden tests; the stdlib writer gives exactly that.

Conventions every picture follows (the web client and the tests rely on them):

* the root is ``<svg xmlns=... viewBox="0 0 W H" role="img" aria-labelledby="title">`` with a
  ``<title id="title">`` naming the game and the position;
* a **spot** (a place to click for legal actions) is a ``<g class="spot" data-spot="<id>"
  data-actions="<i> <j>" role="button" tabindex="0" aria-label="...">``; ``data-actions`` are
  indices into the legal actions given to the renderer;
* a provisional value is drawn with the class ``provisional`` (a dashed outline or a trailing
  ``*``) and the picture carries a footnote saying what ``*`` means.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache
from importlib import resources
from types import ModuleType
from typing import Any

from service.games.editions import module_of
from service.i18n import DEFAULT, render, tr

__all__ = ["Drawing", "data", "said", "spots_of"]

SVG_NS = "http://www.w3.org/2000/svg"
Attr = str | int | float


def _attrs(attrs: Mapping[str, Attr | None]) -> dict[str, str]:
    """Python keyword names to SVG attribute names: ``font_size`` -> ``font-size``, ``class_`` ->
    ``class``, ``data_spot`` -> ``data-spot``; None drops the attribute; floats are rounded to 0.1
    so the output is stable across platforms."""
    out: dict[str, str] = {}
    for key, value in attrs.items():
        if value is None:
            continue
        name = key.rstrip("_").replace("_", "-")
        out[name] = f"{value:.1f}".rstrip("0").rstrip(".") if isinstance(value, float) else str(value)
    return out


class Drawing:
    """One SVG document under construction.

    >>> d = Drawing(100, 50, "An empty board")
    >>> _ = d.rect(d.root, 0, 0, 100, 50, fill="#fff")
    >>> d.to_string().startswith("<svg")
    True
    """

    def __init__(self, width: int, height: int, title: str, *, style: str = "") -> None:
        self.width, self.height = width, height
        self.root = ET.Element("svg", _attrs({"xmlns": SVG_NS, "viewBox": f"0 0 {width} {height}", "width": width,
                                              "height": height, "role": "img", "aria-labelledby": "title",
                                              "font-family": "DejaVu Sans, Verdana, sans-serif"}))
        ET.SubElement(self.root, "title", id="title").text = title
        if style:
            ET.SubElement(self.root, "style").text = style

    def add(self, parent: ET.Element, tag: str, **attrs: Attr | None) -> ET.Element:
        """A child element ``tag`` of ``parent`` with ``attrs`` (see :func:`_attrs` for names)."""
        return ET.SubElement(parent, tag, _attrs(attrs))

    def group(self, parent: ET.Element, **attrs: Attr | None) -> ET.Element:
        return self.add(parent, "g", **attrs)

    def rect(self, parent: ET.Element, x: float, y: float, w: float, h: float, **attrs: Attr | None) -> ET.Element:
        return self.add(parent, "rect", x=float(x), y=float(y), width=float(w), height=float(h), **attrs)

    def circle(self, parent: ET.Element, cx: float, cy: float, r: float, **attrs: Attr | None) -> ET.Element:
        return self.add(parent, "circle", cx=float(cx), cy=float(cy), r=float(r), **attrs)

    def line(self, parent: ET.Element, x1: float, y1: float, x2: float, y2: float, **attrs: Attr | None) -> ET.Element:
        return self.add(parent, "line", x1=float(x1), y1=float(y1), x2=float(x2), y2=float(y2), **attrs)

    def polygon(self, parent: ET.Element, points: Iterable[tuple[float, float]], **attrs: Attr | None) -> ET.Element:
        pts = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
        return self.add(parent, "polygon", points=pts, **attrs)

    def path(self, parent: ET.Element, d: str, **attrs: Attr | None) -> ET.Element:
        return self.add(parent, "path", d=d, **attrs)

    def text(self, parent: ET.Element, x: float, y: float, text: str, **attrs: Attr | None) -> ET.Element:
        el = self.add(parent, "text", x=float(x), y=float(y), **attrs)
        el.text = text
        return el

    def tooltip(self, element: ET.Element, text: str) -> None:
        """A ``<title>`` child: the browser shows it on hover, screen readers read it."""
        ET.SubElement(element, "title").text = text

    def spot(self, parent: ET.Element, spot_id: str, actions: Sequence[int], label: str) -> ET.Element:
        """A clickable place standing for the legal actions ``actions`` (indices); draw its shape
        inside the returned group. Without actions it is a plain group (nothing to click)."""
        if not actions:
            return self.group(parent, data_spot=spot_id)
        return self.group(parent, class_="spot", data_spot=spot_id, data_actions=" ".join(map(str, actions)),
                          role="button", tabindex=0, aria_label=label)

    def footnote(self, lines: Sequence[str], *, y: float | None = None, size: int = 11) -> None:
        """Small print under the board (the provisional-values note, the edition)."""
        base = self.height - 6 - size * (len(lines) - 1) if y is None else y
        for i, line in enumerate(lines):
            self.text(self.root, 8, base + i * (size + 2), line, font_size=size, fill="#444", class_="footnote")

    def to_string(self) -> str:
        """The document as text (no XML declaration: it is embedded inline by the web client)."""
        ET.indent(self.root, space="")
        return ET.tostring(self.root, encoding="unicode")


def spots_of(legal: Sequence[Mapping[str, Any]], spot: Callable[[Mapping[str, Any]], str | None]) -> dict[str, list[int]]:
    """Group the legal actions by the spot each belongs to: ``spot(action)`` names the place on
    the board an action is natural to click, or None (it stays a button only)."""
    out: dict[str, list[int]] = {}
    for i, item in enumerate(legal):
        sid = spot(item["action"])
        if sid is not None:
            out.setdefault(sid, []).append(i)
    return out


@cache
def data(game: str) -> dict[str, Any]:
    """The geometry and colours of a game's picture: ``service/pictures/data/<game>.json``."""
    text = resources.files(__package__).joinpath("data", f"{game}.json").read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def provisional_paths_of(view: Mapping[str, Any], shipped: frozenset[str]) -> frozenset[str]:
    """The data paths provisional in the match's edition: the ``edition.provisional`` the service
    puts in the view it asks a picture of (docs/editions.md), else the game's shipped ones."""
    edition = view.get("edition")
    if isinstance(edition, Mapping) and isinstance(edition.get("provisional"), list):
        return frozenset(str(p) for p in edition["provisional"])
    return shipped


def rules_of(view: Mapping[str, Any], module: ModuleType) -> ModuleType:
    """A game's data ``module`` as the match's edition binds it (the view's ``edition.digest``):
    the numbers a picture draws are the ones the match plays with."""
    edition = view.get("edition")
    digest = edition.get("digest") if isinstance(edition, Mapping) else None
    return module_of(module, digest if isinstance(digest, str) else None)


def edition_note(view: Mapping[str, Any], language: str = "en") -> list[str]:
    """The footnote line naming the data edition the match plays (none when the view has none)."""
    edition = view.get("edition")
    if not isinstance(edition, Mapping) or not edition.get("id"):
        return []
    title = edition.get("title") or edition["id"]
    if edition["id"] == "shipped" and language != DEFAULT:
        # the service names the game's own data in English ("El Capitán, shipped data"); an edition's
        # title is its author's words, shown as written
        title = tr(language, "shipped data")
    return [tr(language, "Edition: {title} ({id})", title=title, id=edition["id"])]


def said(text: Any, language: str) -> str:
    """A legal action's label (a phrase of the game, or plain text) in ``language``."""
    return render(text, language)
