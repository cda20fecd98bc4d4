"""The course's calculator over stdio, started and past its handshake, for a test module's
fixture (``yield from handshaken(...)``), as a client starts every conversation."""

import json

from mcp_lesson import create_request
from mcp_lesson.client.stdio import StdioServer, live_servers


def initialize_params(client):
    """The params of an ``initialize`` from the client named ``client``, at 2025-11-25."""
    return {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": client, "version": "1.0"},
    }


def handshaken(client, request_id=1, **options):
    """Yield a :class:`StdioServer` (``options`` are its own) once ``initialize`` is answered
    and ``notifications/initialized`` sent, with the result as ``initialize_result``; then
    stop it and check that it ended."""
    with StdioServer(**options) as running:
        reply = json.loads(
            running.request(create_request("initialize", initialize_params(client), request_id))
        )
        assert running.probe(create_request("notifications/initialized")) == []
        running.initialize_result = reply["result"]
        yield running
    assert not running.running
    assert running not in live_servers()
