"""Fixtures of the tap's tests: the course's server over HTTP, for each file that asks.

It is :func:`http_server.server` under another name (``server`` here is a helper of
tapping.py that writes a small stdio server).
"""

import pytest
from http_server import serving


@pytest.fixture(scope="module")
def http_server():
    yield from serving()
