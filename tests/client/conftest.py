"""The course's HTTP server and a client for it, as fixtures for this folder's tests
(defined in tests/http_server.py; pytest finds a fixture where a conftest names it)."""

from http_server import server  # noqa: F401  (fixtures: pytest collects them from here)
