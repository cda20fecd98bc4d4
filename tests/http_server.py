"""The course's server over HTTP, for the tests that need one running (a helper,
like chromium.py): started under the test run's guard, stopped at the end,
and checked to have left nothing behind; and the HTTP client the tests talk
to it with."""

import json
import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from processes import live_processes, patience, start_guarded

from mcp_lesson.server.running import DEFAULT_COMMAND, HttpServer, port_is_free

ROOT = Path(__file__).resolve().parents[1]
TAP = [sys.executable, "-m", "mcp_lesson.tap"]


#: The course's two servers over HTTP: the calculator on the SDK, and lesson 11's, with no SDK.
SDK_SERVER = list(DEFAULT_COMMAND)
OWN_SERVER = [sys.executable, "-m", "mcp_lesson.server.own", "--http"]


def serving(command=SDK_SERVER, cwd=None):
    """Yield the running server (for a module fixture); afterwards stop it and
    check that it ended, its port is free and nothing of its group is left."""
    running = HttpServer(command, start=start_guarded, timeout=patience(30), cwd=cwd)
    try:
        yield running
    finally:
        running.stop(timeout=patience(10))
    assert not running.running
    assert port_is_free(running.port), f"port {running.port} still taken"
    assert [
        p for p in live_processes() if p.pgid == running.pgid
    ] == []  # nothing of its group is left


@pytest.fixture(scope="module")
def server():
    """The course's HTTP server, for a test module (import this fixture from here)."""
    yield from serving()


@pytest.fixture(scope="module")
def http():
    """An HTTP client for a test module (see :func:`http_client`)."""
    with http_client() as client:
        yield client


def http_client():
    """An httpx client for the tests (use it in a ``with``): a generous timeout, and
    trust_env=False, so that no proxy named in the environment sits between the
    test and 127.0.0.1."""
    import httpx  # the SDK brings it

    return httpx.Client(timeout=patience(15), trust_env=False)


class HttpTapped:
    """``python -m mcp_lesson.tap --record FILE --http --port 0 --to URL``, under the guard;
    :attr:`url` is the address it announces on stderr."""

    def __init__(self, tmp_path, to, *options):
        self.recording = tmp_path / "http.jsonl"
        self.proc = start_guarded(
            [*TAP, "--record", str(self.recording), "--http", "--port", "0", "--to", to, *options],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=ROOT,
        )
        said, deadline = b"", time.monotonic() + patience(30)
        while b"\n" not in said:
            assert time.monotonic() < deadline, f"the HTTP tap did not announce itself: {said!r}"
            ready, _, _ = select.select([self.proc.stderr], [], [], 0.1)
            if ready:
                more = os.read(self.proc.stderr.fileno(), 4096)
                assert more, f"the HTTP tap ended: {said!r}"
                said += more
        self.url = re.search(r"listening on (\S+)", said.decode()).group(1)

    def stop(self):
        """SIGTERM (the guard's), and wait: the tap records its end."""
        self.proc.end(grace=patience(5))
        for stream in (self.proc.stdout, self.proc.stderr):
            stream.close()
        return [json.loads(raw) for raw in self.recording.read_text().splitlines()]


def open_session(http, url, revision="2025-11-25"):
    """Initialize a session with the server at ``url`` (and say ``initialized``); the headers
    every later request of the session carries."""
    accept = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    opened = http.post(
        url,
        headers=accept,
        json={
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": revision,
                "capabilities": {},
                "clientInfo": {"name": "course-tests", "version": "1.0"},
            },
        },
    )
    assert opened.status_code == 200, opened.text
    headers = {
        **accept,
        "MCP-Protocol-Version": revision,
        "Mcp-Session-Id": opened.headers["mcp-session-id"],
    }
    said = http.post(
        url, headers=headers, json={"jsonrpc": "2.0", "method": "notifications/initialized"}
    )
    assert said.status_code == 202
    return headers
