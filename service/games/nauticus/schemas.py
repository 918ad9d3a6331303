"""The action vocabulary: one-line descriptions and JSON Schemas (OpenAPI 3.1 dialect)."""

from __future__ import annotations

from typing import Any

from . import data
from .ships import CATEGORY

ACTIONS: dict[str, str] = {
    "choose-action": "as start player, choose a face-up action tile for this phase (you take its printed bonus)",
    "take-bonus": "take the bonus tile of your choice: the board bonus of your chosen space, or the free item for buying all four kinds",
    "buy": "buy one item of the running paid action for 1 worker and its price, placing it in your shipyard or warehouse",
    "transfer": "move one tile from your warehouse to your shipyard for 1 worker",
    "deliver": "deliver the whole cargo of one complete, fully loaded ship for 1 worker per good",
    "take-money": "take 2 thaler per worker used",
    "score-crowns": "score crowns x workers VP (at most 15 per use)",
    "take-reward": "take one reward for your just completed ship (one per mast, each kind at most twice)",
    "pass": "pass on the current action and flip your most negative pass tile to its crown",
    "done": "end your turn after executing the action (or end your extra action)",
    "extra-action": "play your once-per-game extra-action tile: gain workers, then execute any action",
}

_ITEMS = sorted(CATEGORY)
_ACTION_IDS = list(data.ACTIONS)

_PLACEMENT_PROPS: dict[str, Any] = {
    "item": {"type": "string", "enum": _ITEMS, "description": "tile id"},
    "to": {
        "type": "string",
        "enum": ["warehouse", "new-ship", "ship"],
        "description": "warehouse; new-ship (hull pieces only); or ship (with ship and end, or ship and hull)",
    },
    "ship": {"type": "integer", "minimum": 0, "description": "index of the ship in your shipyard (to=ship)"},
    "end": {
        "type": "string",
        "enum": ["front", "back"],
        "description": "hull piece joining a ship: front (bow end) or back (stern end)",
    },
    "hull": {"type": "integer", "minimum": 0, "description": "mast, sail or good: index of the hull piece in the ship"},
}


def _obj(type_: str, props: dict[str, Any] | None = None, required: list[str] | None = None) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"type": {"const": type_}, **(props or {})},
        "required": ["type", *(required or [])],
        "additionalProperties": False,
    }


def _placement(type_: str) -> dict[str, Any]:
    schema = _obj(type_, _PLACEMENT_PROPS, ["item", "to"])
    schema["oneOf"] = [
        {
            "properties": {"to": {"enum": ["warehouse", "new-ship"]}},
            "not": {"anyOf": [{"required": ["ship"]}, {"required": ["end"]}, {"required": ["hull"]}]},
        },
        {"properties": {"to": {"const": "ship"}}, "required": ["ship", "end"], "not": {"required": ["hull"]}},
        {"properties": {"to": {"const": "ship"}}, "required": ["ship", "hull"], "not": {"required": ["end"]}},
    ]
    return schema


ACTION_SCHEMAS: dict[str, dict[str, Any]] = {
    "choose-action": _obj("choose-action", {"action": {"type": "string", "enum": _ACTION_IDS}}, ["action"]),
    "take-bonus": _obj("take-bonus", {"item": {"type": "string", "enum": _ITEMS}}, ["item"]),
    "buy": _placement("buy"),
    "transfer": _placement("transfer"),
    "deliver": _obj("deliver", {"ship": {"type": "integer", "minimum": 0}}, ["ship"]),
    "take-money": _obj("take-money", {"workers": {"type": "integer", "minimum": 1}}, ["workers"]),
    "score-crowns": _obj("score-crowns", {"workers": {"type": "integer", "minimum": 1}}, ["workers"]),
    "take-reward": {
        **_obj(
            "take-reward",
            {
                "reward": {"type": "string", "enum": list(data.REWARDS)},
                "goods": {
                    "type": "array",
                    "items": {"type": "string", "enum": list(data.GOODS)},
                    "minItems": data.REWARD_AMOUNT["goods"],
                    "maxItems": data.REWARD_AMOUNT["goods"],
                    "uniqueItems": True,
                    "description": "with reward=goods: the different goods chosen",
                },
            },
            ["reward"],
        ),
        "if": {"properties": {"reward": {"const": "goods"}}},
        "then": {"required": ["goods"]},
        "else": {"not": {"required": ["goods"]}},
    },
    "pass": _obj("pass"),
    "done": _obj("done"),
    "extra-action": _obj(
        "extra-action",
        {
            "action": {"type": "string", "enum": _ACTION_IDS},
            "pass_first": {
                "type": "boolean",
                "default": False,
                "description": "pass on the current action first (flip a pass tile), then play the extra action",
            },
        },
        ["action"],
    ),
}
