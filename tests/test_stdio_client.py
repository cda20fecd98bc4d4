"""The stdio client's own promises: nothing it does can hang, leak or grow without bound.

Each test starts real child processes. A hang shows up as a failure through a
per-test ``pytest.mark.timeout`` (pytest-timeout), never as a suite that does
not end; no test asserts on wall-clock time.
"""

import json
import os
import subprocess
import sys
import textwrap
import time
import tracemalloc

import pytest

from processes import live_processes

from mcp_lesson import create_request
from mcp_lesson.stdio_client import (
    KEEP_LINES,
    MAX_LINE_BYTES,
    ServerError,
    StdioServer,
    same_id,
)

# A child that never reads its input nor writes a line: a silent, stubborn server.
STUBBORN = [sys.executable, "-c", "import time; time.sleep(600)"]
# A wrapper launcher whose grandchildren keep the server's stdout open.
GRANDCHILD = ["sh", "-c", "sleep 45 & sleep 45"]
# A leader that leaves politely at end of input, and a grandchild that stays.
POLITE_LEADER = ["sh", "-c", "sleep 45 & exec cat"]
# A server that writes numbered lines as fast as it can, forever.
FLOOD = [
    sys.executable,
    "-c",
    "import sys\nw = sys.stdout.buffer\ni = 0\nwhile True:\n    w.write(b'%d\\n' % i)\n    i += 1",
]
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


def _group_members(pgid):
    """Pids of the live (not zombie) processes whose process group is ``pgid``."""
    return [process.pid for process in live_processes() if process.pgid == pgid]


def _wait_for_members(pgid, count, timeout=20.0):
    """Wait (up to ``timeout`` s) until the group has ``count`` live members; return them."""
    deadline = time.monotonic() + timeout
    while len(members := _group_members(pgid)) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    return members


# --- writes have a deadline --------------------------------------------------


@pytest.mark.timeout(60)
def test_a_write_the_server_never_reads_fails_within_the_timeout():
    megabyte = "x" * (1 << 20)  # the pipe holds 64 KB
    with StdioServer(STUBBORN, timeout=1.0, stop_timeout=0.5) as stubborn:
        with pytest.raises(ServerError, match="did not read"):
            stubborn.send(megabyte)
        # part of that line is in the pipe now: the connection is refused from here on
        with pytest.raises(ServerError, match="cut off"):
            stubborn.send("{}")
        assert stubborn.running
    assert not stubborn.running


@pytest.mark.timeout(60)
def test_a_large_request_the_server_never_reads_fails_within_the_timeout():
    request = create_request("tools/call", {"name": "add", "arguments": {"a": "9" * (1 << 20)}}, 1)
    with StdioServer(STUBBORN, timeout=1.0, stop_timeout=0.5) as stubborn:
        with pytest.raises(ServerError, match="did not read"):
            stubborn.request(request)


# --- stop ends the whole process group ---------------------------------------


@pytest.mark.timeout(60)
def test_stop_returns_and_ends_the_group_when_a_grandchild_holds_stdout():
    server = StdioServer(GRANDCHILD, stop_timeout=1.0).start()
    pgid = os.getpgid(server.process.pid)
    assert pgid == server.process.pid  # the server leads a group of its own
    assert len(_wait_for_members(pgid, 3)) == 3  # sh and both sleeps
    server.stop()
    assert not server.running
    assert _group_members(pgid) == []
    assert server.stop() == server.process.returncode  # stopping twice is fine


@pytest.mark.timeout(60)
def test_a_grandchild_outliving_a_polite_leader_is_stopped_too():
    server = StdioServer(POLITE_LEADER, stop_timeout=1.0).start()
    pgid = server.process.pid
    assert len(_wait_for_members(pgid, 2)) == 2  # cat and the sleep
    assert server.stop() == 0  # cat left at end of input, as a stdio server should
    assert _group_members(pgid) == []


# --- what is kept is bounded -------------------------------------------------


@pytest.mark.timeout(120)
def test_received_keeps_the_last_lines_and_counts_the_dropped_ones():
    extra = 500
    with StdioServer(FLOOD, timeout=10.0, stop_timeout=0.5) as flood:
        read = [flood.read_line() for _ in range(KEEP_LINES + extra)]
        assert None not in read
        assert len(flood.received) == KEEP_LINES
        assert flood.received.dropped == extra
        assert list(flood.received) == read[extra:]  # the newest lines, in order
        assert f"{extra} earlier lines dropped" in repr(flood.received)


@pytest.mark.timeout(120)
def test_a_flood_nobody_reads_does_not_fill_memory():
    lines, size = 5000, 10_000  # 50 MB on offer
    script = f"import sys, time\nsys.stdout.buffer.write((b'y' * {size} + b'\\n') * {lines})\ntime.sleep(600)"
    tracemalloc.start()
    try:
        with StdioServer([sys.executable, "-c", script], stop_timeout=0.5) as flood:
            deadline = time.monotonic() + 3.0  # time for the flood to arrive, if it were kept
            while time.monotonic() < deadline and tracemalloc.get_traced_memory()[0] < 10e6:
                time.sleep(0.05)
            held = tracemalloc.get_traced_memory()[0]
            assert held < 10e6, f"the client holds {held / 1e6:.0f} MB of unread lines"
            assert flood.read_line() == "y" * size  # backpressure lost nothing
    finally:
        tracemalloc.stop()


@pytest.mark.timeout(60)
def test_a_line_longer_than_the_limit_is_cut_and_counted():
    script = (
        "import sys, time\n"
        f"sys.stdout.buffer.write(b'z' * {3 * MAX_LINE_BYTES} + b'\\nafter\\n')\n"
        "sys.stdout.flush()\ntime.sleep(600)"
    )
    with StdioServer([sys.executable, "-c", script], timeout=20.0, stop_timeout=0.5) as long:
        assert long.read_line() == "z" * MAX_LINE_BYTES
        assert long.cut_lines == 1
        assert long.read_line() == "after"


# --- probe speaks 2026-07-28 --------------------------------------------------


@pytest.mark.timeout(120)
def test_probe_uses_server_discover_with_the_real_server_in_2026_07_28_mode():
    with StdioServer(revision="2026-07-28") as server:
        assert server.probe(create_request("notifications/nothing")) == []
        follow_up = json.loads(server.sent[-1])
        assert follow_up["method"] == "server/discover"
        assert follow_up["params"]["_meta"] == META
        reply = server.probe(create_request("tools/list", {"_meta": META}, request_id=7))
        assert len(reply) == 1
        assert json.loads(reply[0])["result"]["tools"]
        # no line of the conversation was a ping
        assert all(json.loads(line).get("method") != "ping" for line in server.sent)
        assert {json.loads(line)["id"] for line in server.received} >= {7}


# A stateless stand-in: answers server/discover, and nothing else (no ping).
DISCOVER_ONLY = textwrap.dedent(
    """
    import json, sys
    for line in sys.stdin:
        message = json.loads(line)
        if message.get("method") == "server/discover":
            reply = {"jsonrpc": "2.0", "id": message["id"], "result": {"supportedVersions": ["2026-07-28"]}}
            print(json.dumps(reply), flush=True)
    """
)


@pytest.mark.timeout(60)
def test_probe_in_2026_07_28_mode_does_not_depend_on_ping():
    command = [sys.executable, "-c", DISCOVER_ONLY]
    with StdioServer(command, revision="2026-07-28", timeout=5.0, grace=0.1) as stateless:
        assert stateless.probe(create_request("notifications/anything")) == []
    with StdioServer(command, timeout=1.0, grace=0.1) as by_default:  # the default still pings
        with pytest.raises(ServerError, match="ping"):
            by_default.probe(create_request("notifications/anything"))
        assert json.loads(by_default.sent[-1])["method"] == "ping"


@pytest.mark.parametrize("revision", ["latest", "2026-7-28", 20260728])
def test_an_unreadable_revision_is_refused(revision):
    with pytest.raises(ValueError, match="revision"):
        StdioServer(revision=revision)


# --- moved here from tests/test_server.py (purely about the client) -----------


def test_same_id_is_strict_about_types():
    assert same_id(1, 1) and same_id("a", "a")
    assert not same_id(1, True) and not same_id(1, 1.0) and not same_id(1, "1")
    assert not same_id(None, None)


@pytest.mark.timeout(60)
def test_a_silent_server_never_hangs_and_is_stopped():
    with StdioServer(STUBBORN, timeout=0.3, grace=0.1, stop_timeout=0.3) as stubborn:
        with pytest.raises(ServerError):
            stubborn.request(create_request("ping", request_id=1))
        with pytest.raises(ServerError):
            stubborn.probe("anything")
        assert stubborn.running
        pgid = stubborn.process.pid
    assert not stubborn.running
    assert _group_members(pgid) == []


@pytest.mark.timeout(120)
def test_atexit_stops_a_forgotten_server():
    script = textwrap.dedent(
        f"""
        from mcp_lesson.stdio_client import StdioServer
        server = StdioServer({GRANDCHILD!r}).start()
        print(server.process.pid, flush=True)
        # exits without stopping it
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0 and done.stdout.strip(), done.stderr
    assert _group_members(int(done.stdout.split()[0])) == []
