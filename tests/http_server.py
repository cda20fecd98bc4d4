"""The course's server over HTTP, for the tests that need one running (a helper,
like chromium.py): started under the test run's guard, stopped at the end,
and checked to have left nothing behind; and the HTTP client the tests talk
to it with."""

from processes import live_processes, patience, start_guarded

from mcp_lesson.http_client import HttpServer, port_is_free


def serving():
    """Yield the running server (for a module fixture); afterwards stop it and
    check that it ended, its port is free and nothing of its group is left."""
    running = HttpServer(start=start_guarded, timeout=patience(30))
    try:
        yield running
    finally:
        running.stop(timeout=patience(10))
    assert not running.running
    assert port_is_free(running.port), f"port {running.port} still taken"
    assert [p for p in live_processes() if p.pgid == running.pgid] == []  # nothing of its group is left


def http_client():
    """An httpx client for the tests (use it in a ``with``): a generous timeout, and
    trust_env=False, so that no proxy named in the environment sits between the
    test and 127.0.0.1."""
    import httpx  # the SDK brings it

    return httpx.Client(timeout=patience(15), trust_env=False)
