"""Small helpers for the words players read: counts with the right noun form, the rules pages.

Every game's events, action labels, renderings and error messages are read by people who own the
box, not by the people who wrote the code: "1 coin", never "1 coins" or "1 coin(s)"; a rule is cited
only by an id that the game's rules reference page (``docs/rules/<game>.md``) defines.
"""

from __future__ import annotations

import re

__all__ = ["RULES_PAGES", "RULE_REF", "cited_rules", "count", "plural", "rules_page", "rules_url"]

RULES_PAGES = {
    "el-capitan": "docs/rules/el-capitan.md",
    "nauticus": "docs/rules/nauticus.md",
    "ophir": "docs/rules/ophir.md",
}
"""Where each game's rules reference lives in the repository; messages cite its section ids."""

_IRREGULAR = {"gems": "gems", "goods": "goods", "VP": "VP", "favor": "favor", "thaler": "thaler", "wood": "wood",
              "cloth": "cloth", "stone": "stone", "grain": "grain", "salt": "salt", "fish": "fish",
              "coffee": "coffee", "gold": "gold", "silver": "silver"}


def plural(n: int, noun: str, many: str | None = None) -> str:
    """The form of ``noun`` that goes with the number ``n``: ``plural(2, "coin")`` is "coins".

    ``many`` overrides the plural form; nouns that do not change (thaler, VP, goods, favor) and a few
    irregular ones are known."""
    if abs(n) == 1:
        return noun
    if many is not None:
        return many
    if noun in _IRREGULAR:
        return _IRREGULAR[noun]
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"


def count(n: int, noun: str, many: str | None = None) -> str:
    """A number with its noun in the right form: ``count(1, "coin")`` is "1 coin", ``count(3, "coin")`` "3 coins"."""
    return f"{n} {plural(n, noun, many)}"


RULE_REF = re.compile(r"§\s*\d+(?:\.\d+)*|\bR-\d+\b")
"""How a message cites a rule: a section ("§5.4") or a server ruling ("R-7") of the rules page."""


def cited_rules(text: str) -> list[str]:
    """The rule ids a message cites, in order of appearance: ``["§5.2", "R-10"]``."""
    return [re.sub(r"\s+", "", m.group(0)) for m in RULE_REF.finditer(text)]


def rules_page(game_id: str) -> str | None:
    """The repository path of a game's rules reference page, ``None`` for a game without one."""
    return RULES_PAGES.get(game_id)


def rules_url(game_id: str) -> str | None:
    """Where the server serves that page (``GET /v1/games/{game}/rules``), ``None`` without one."""
    return f"/v1/games/{game_id}/rules" if game_id in RULES_PAGES else None
