"""Shared test helpers: what more than one test module uses lives here, never in a ``test_*.py``.

A test module imports only from here, from ``service``/``workers`` and from the libraries; never
from another test module (tests/test_suite_shape.py holds it to that), so any test file can run
on its own or on any pytest-xdist worker, and moving or deleting one test file breaks no other.
"""
