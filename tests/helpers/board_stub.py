"""A stand-in picture renderer for the tests of the routes that serve pictures.

It writes the whole view it is given into the SVG (as JSON in ``<desc>``) and one spot per legal
action, so a test can read back exactly what a picture was drawn from: which position, whose
private parts, which spots. The real renderers (service/pictures/<game>.py) have tests of their
own; these tests are about what the service hands them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any
from xml.sax.saxutils import escape

import pytest

from service import pictures


class StubPicture:
    """A renderer module's interface (:class:`service.pictures.Renderer`)."""

    def __init__(self, game_id: str, fail: bool = False) -> None:
        self.game_id = game_id
        self.fail = fail

    def render(self, view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]] = ()) -> str:
        if self.fail:
            raise RuntimeError("the stub renderer was told to fail")
        spots = "".join(f'<g class="spot" data-spot="a{i}" data-actions="{i}" role="button" tabindex="0" '
                        f'aria-label="{escape(str(a["text"]), {chr(34): "&quot;"})}"><rect x="{10 + 30 * i}" y="10" '
                        'width="20" height="20"/></g>' for i, a in enumerate(legal))
        return ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 400 200" width="400" height="200" role="img" '
                f'aria-labelledby="title"><title id="title">{escape(self.game_id)}</title>'
                f'<desc>{escape(json.dumps(view, sort_keys=True))}</desc>'
                '<text x="10" y="100" font-size="20">Portolan</text>'
                f'{spots}</svg>')


def drawn_from(svg: str) -> Any:
    """The view a stub picture was drawn from."""
    from xml.etree import ElementTree as ET

    desc = ET.fromstring(svg).find("{http://www.w3.org/2000/svg}desc")
    assert desc is not None and desc.text is not None
    return json.loads(desc.text)


def spot_count(svg: str) -> int:
    return svg.count('class="spot"')


def use_stub(monkeypatch: pytest.MonkeyPatch, fail: bool = False) -> None:
    """Every game (the fixture game too) is drawn by a :class:`StubPicture`."""
    monkeypatch.setattr(pictures, "renderer", lambda game_id: StubPicture(game_id, fail))
