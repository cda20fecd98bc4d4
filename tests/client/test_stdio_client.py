"""The stdio client's own promises: nothing it does can hang, leak or grow without bound.

Each test starts real child processes. A hang shows up as a failure through a
per-test ``pytest.mark.timeout`` (pytest-timeout), never as a suite that does
not end; no test asserts on wall-clock time.
"""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import tracemalloc

import pytest
from processes import live_processes, wait_for

from mcp_lesson import create_request
from mcp_lesson.client.stdio import (
    KEEP_LINES,
    MAX_LINE_BYTES,
    STDERR_HEAD_BYTES,
    STDERR_TAIL_BYTES,
    LongLine,
    ServerError,
    StdioServer,
    same_id,
)
from mcp_lesson.shared.process_tree import alive

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


# A polite server (it leaves at end of input) that first double-forks a
# grandchild into a session of its own (setsid): out of the server's process
# group, and no longer its descendant once the middle process exits. The
# grandchild ignores SIGTERM, prints its pid on the server's stdout, and sleeps.
SETSID_GRANDCHILD = textwrap.dedent(
    """
    import os, signal, sys, time
    middle = os.fork()
    if middle == 0:
        os.setsid()
        if os.fork() == 0:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            print(os.getpid(), flush=True)
            time.sleep(600)
        os._exit(0)
    os.waitpid(middle, 0)
    sys.stdin.read()
    """
)


@pytest.mark.timeout(120)
def test_stop_ends_a_grandchild_that_left_the_group_with_setsid():
    command = [sys.executable, "-c", SETSID_GRANDCHILD]
    first = StdioServer(command, timeout=30.0, stop_timeout=0.5)
    second = StdioServer(command, timeout=30.0, stop_timeout=0.5)
    grandchildren = []
    try:
        for server in (first, second):
            server.start()
            grandchildren.append(int(server.read_line()))
            # in a session and group of its own, not the server's
            assert (
                os.getsid(grandchildren[-1]) != os.getsid(server.process.pid) == server.process.pid
            )
            assert os.getpgid(grandchildren[-1]) != server.process.pid
        first.stop()
        assert not first.running
        wait_for(lambda: not alive(grandchildren[0]), "the setsid grandchild outlived stop()", 30)
        assert alive(grandchildren[1]), "stop() ended a process of another server"
        second.stop()
        wait_for(
            lambda: not alive(grandchildren[1]), "the second setsid grandchild outlived stop()", 30
        )
    finally:
        for server in (first, second):
            server.stop()
        for pid in grandchildren:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


# --- what is kept is bounded -------------------------------------------------


# A server that floods its stderr (about 100 MB), then says "done" on stdout.
STDERR_FLOOD = textwrap.dedent(
    """
    import sys
    log = sys.stderr.buffer
    log.write(b"the first line of the log\\n")
    block = b"x" * 1023 + b"\\n"
    for _ in range(100 * 1024):
        log.write(block)
    log.write(b"the last line of the log\\n")
    log.flush()
    print("done", flush=True)
    sys.stdin.read()
    """
)


@pytest.mark.timeout(300)
def test_the_server_s_stderr_keeps_its_start_and_end_within_a_fixed_size():
    flooded = (
        len(b"the first line of the log\n") + 100 * 1024 * 1024 + len(b"the last line of the log\n")
    )
    bound = STDERR_HEAD_BYTES + STDERR_TAIL_BYTES
    tracemalloc.start()
    try:
        with StdioServer(
            [sys.executable, "-c", STDERR_FLOOD], timeout=240.0, stop_timeout=0.5
        ) as server:
            assert server.read_line() == "done"
            deadline = time.monotonic() + 60.0  # the log is drained by a thread of its own
            while (
                not server.stderr_text().endswith("the last line of the log\n")
                and time.monotonic() < deadline
            ):
                time.sleep(0.05)
            held = tracemalloc.get_traced_memory()[1]
            text = server.stderr_text(limit=10 * flooded)
            assert text.startswith("the first line of the log\n")
            assert text.endswith("x\nthe last line of the log\n")
            assert server.stderr_dropped == flooded - bound
            assert f"[{flooded - bound:,} bytes of the log not kept]" in text
            assert len(text.encode()) < bound + 100
            assert server.stderr_text(limit=25) == "the last line of the log\n"
        assert held < 10e6, f"the client held {held / 1e6:.0f} MB for the server's log"
        assert server.stderr_text(limit=10 * flooded) == text  # still there after stop()
    finally:
        tracemalloc.stop()


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


@pytest.mark.full  # a flood: slow by design
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
        line = long.read_line()
        assert (
            line == "z" * MAX_LINE_BYTES
            and isinstance(line, LongLine)
            and line.size == 3 * MAX_LINE_BYTES
        )
        assert long.cut_lines == 1
        after = long.read_line()
        assert after == "after" and not isinstance(after, LongLine)


@pytest.mark.timeout(60)
def test_a_limit_of_its_own_and_variables_for_the_server():
    script = "import os, sys\nsys.stdout.write(os.environ['WORD'] * 3 + '\\n')\nsys.stdout.flush()\nsys.stdin.read()"
    with StdioServer(
        [sys.executable, "-c", script],
        timeout=20.0,
        stop_timeout=0.5,
        max_line=5,
        env={"WORD": "abc"},
    ) as server:
        line = server.read_line()
        assert (line, line.size) == ("abcab", 9)


# --- a message that cannot be written as JSON ------------------------------

# A server that writes back every line it reads.
ECHO = [
    sys.executable,
    "-c",
    "import sys\nfor line in sys.stdin:\n    print(line, end='', flush=True)",
]


@pytest.mark.timeout(60)
def test_a_message_that_cannot_be_written_as_json_is_a_server_error_and_nothing_is_sent():
    circular = {"jsonrpc": "2.0", "method": "ping"}
    circular["params"] = circular
    with StdioServer(ECHO, timeout=20.0, stop_timeout=0.5) as echo:
        huge = create_request("ping", request_id=10**4300)  # 4,301 digits: a valid id for classify
        with pytest.raises(ServerError, match="cannot be written as JSON.*4,300 digits"):
            echo.request(huge)
        with pytest.raises(ServerError, match="cannot be written as JSON"):
            echo.probe(huge)
        with pytest.raises(ServerError, match="cannot be written as JSON"):
            echo.send({"jsonrpc": "2.0", "method": "ping", "params": {"ids": {1, 2}}})
        with pytest.raises(ServerError, match="cannot be written as JSON"):
            echo.send(circular)
        assert list(echo.sent) == []
        # nothing of them reached the pipe: the next line is the first the server sees
        echo.send(create_request("ping", request_id=1))
        assert json.loads(echo.read_line()) == create_request("ping", request_id=1)


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


# --- moved here from tests/server/test_server.py (purely about the client) -----------


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
        from mcp_lesson.client.stdio import StdioServer
        server = StdioServer({GRANDCHILD!r}).start()
        print(server.process.pid, flush=True)
        # exits without stopping it
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 0 and done.stdout.strip(), done.stderr
    assert _group_members(int(done.stdout.split()[0])) == []
