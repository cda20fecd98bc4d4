"""Fixtures of the tap's tests: the course's server over HTTP, one for each file."""

import pytest

from http_server import serving


@pytest.fixture(scope="module")
def http_server():
    yield from serving()
