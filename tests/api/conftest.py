"""Fixtures of the API tests: the contract as a server hosting the fixture game publishes it."""

from __future__ import annotations

import pytest
from openapi_core import Config, OpenAPI
from openapi_core.deserializing.media_types.util import json_loads

from service.api import spec as game_spec
from tests.helpers.fixture_game import GAME as FIXTURE


@pytest.fixture(scope="module")
def openapi() -> OpenAPI:
    # "forbid": a response field the spec does not name fails validation (unless the schema
    # explicitly allows more, as the game-shaped objects do). The document is openapi.yaml as
    # a server hosting the tests' fixture game too would publish it: the same hand-written part,
    # the generated per-game block with harbour-race added (the drift test holds the
    # committed block to the hosted games: tests/api/test_contract.py).
    config = Config(extra_media_type_deserializers={"application/problem+json": json_loads},
                    additional_properties_default_policy="forbid")
    return OpenAPI.from_dict(game_spec.document([*game_spec.hosted_games(), FIXTURE]), config=config)
