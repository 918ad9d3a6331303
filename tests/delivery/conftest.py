"""The webhook tests' fixtures (tests/delivery/hooks.py)."""

from tests.delivery.hooks import hs, hs_app, receiver

__all__ = ["hs", "hs_app", "receiver"]
