"""The tap (mcp_lesson/tap/), for real: every test runs the tap as a process in front of a
real server (the course's calculator over stdio and over HTTP, the sloppy server, small
servers written here for one bad input each), and checks what a client receives, what the
recording holds, what ``--report`` says, and that no process is left.

The rules tested are the module docstrings' of :mod:`mcp_lesson.tap` and
:mod:`mcp_lesson.sloppy_server`. :func:`processes.start_guarded` runs each tap, so nothing
outlives the test run; the guard keeps stdin for itself, so the client's side reaches the
tap through a pipe the shell opens by name (``sh -c 'exec "$@" < /proc/PID/fd/N'``). Every
wait polls, with a limit scaled by :func:`processes.patience`; no test waits a fixed time.
"""

import base64
import json
import os
import select
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from http_server import HttpTapped, http_client, serving
from processes import live_processes, patience, run_to_end, start_guarded, wait_for

from mcp_lesson import classify_json
from mcp_lesson.cases import TEXT_CASES
from mcp_lesson.tap import (
    MAX_WAITING,
    CourseJudge,
    Lines,
    Recorder,
    agreed_revision,
    answer_times,
    audit,
    id_key,
    revisions_by_scope,
)

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
TAP = [PY, "-m", "mcp_lesson.tap"]
COURSE_SERVER = [PY, "-m", "mcp_lesson.server"]
SLOPPY_SERVER = [PY, "-m", "mcp_lesson.sloppy_server"]
#: A server that says back every byte it reads, as it reads it.
ECHO = [PY, "-c", "import os\nwhile True:\n    data = os.read(0, 65536)\n    if not data: break\n"
                  "    os.write(1, data)\n"]

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "test-tap", "version": "1.0"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


#: Runs argv[2:] with files limited to argv[1] bytes (RLIMIT_FSIZE): a write past it fails
#: with EFBIG, as one on a full disk fails with ENOSPC (Python ignores SIGXFSZ).
LIMITED = ("import os, resource, sys\n"
           "resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[1]), resource.RLIM_INFINITY))\n"
           "os.execv(sys.argv[2], sys.argv[2:])\n")


def line(message):
    return (json.dumps(message) + "\n").encode()


def server(code):
    """A small server: Python ``code`` (dedented) run with the course's Python."""
    return [PY, "-c", textwrap.dedent(code)]


class Tapped:
    """``python -m mcp_lesson.tap --record FILE OPTIONS -- COMMAND``, started under the guard.

    The test is its client: :meth:`send` writes to its stdin (a named pipe),
    :meth:`read_until` and :meth:`finish` read its stdout; stderr is read too,
    so that no pipe fills while the test waits.
    """

    def __init__(self, tmp_path, command, *options, name="talk", file_limit=None):
        self.recording = tmp_path / f"{name}.jsonl"
        # The tap's stdin is a pipe of this process, which the shell opens by its /proc name
        # (on Linux that open never waits). Only this process writes to it: the tap sees the
        # end of its input when the write end is closed.
        self._reader, self._input = os.pipe()
        stdin = f"/proc/{os.getpid()}/fd/{self._reader}"
        tap = [*TAP, "--record", str(self.recording), *options, "--", *command]
        if file_limit is not None:  # no file of the tap's may grow past file_limit bytes (a full disk)
            tap = [PY, "-c", LIMITED, str(file_limit), *tap]
        self.proc = start_guarded(["sh", "-c", 'exec "$@" < "$0"', stdin, *tap],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
        self.out, self.err = bytearray(), bytearray()
        self._open = {self.proc.stdout.fileno(): self.out, self.proc.stderr.fileno(): self.err}
        self._writers = []

    def send(self, data):
        """Write ``data`` to the tap's stdin from a thread (a big write must not stop the
        test from reading what comes back)."""
        def write():
            view = memoryview(data)
            try:
                while view:
                    view = view[os.write(self._input, view):]
            except OSError:  # the test ended the tap before it read everything
                pass

        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        self._writers.append(writer)
        return writer

    def close_input(self):
        for writer in self._writers:
            writer.join(patience(60))
            assert not writer.is_alive(), "the tap stopped reading its input"
        if self._input is not None:
            os.close(self._input)
            self._input = None

    def stop_reading(self):
        """Close the reading end of the tap's stdout, as a client that goes away does."""
        del self._open[self.proc.stdout.fileno()]
        self.proc.stdout.close()

    def _read_some(self, timeout):
        ready, _, _ = select.select(list(self._open), [], [], timeout)
        for fd in ready:
            data = os.read(fd, 1 << 20)
            if data:
                self._open[fd].extend(data)
            else:
                del self._open[fd]

    def read_until(self, condition, limit=30, what="the tap's output"):
        """Read until ``condition(bytes read from stdout)`` holds (polling, with a limit)."""
        deadline = time.monotonic() + patience(limit)
        while not condition(bytes(self.out)):
            assert self._open, f"the tap ended before {what} came: {bytes(self.out)[-300:]!r}"
            assert time.monotonic() < deadline, f"still waiting for {what}"
            self._read_some(0.1)
        return bytes(self.out)

    def lines_out(self, count, limit=30):
        return self.read_until(lambda out: out.count(b"\n") >= count, limit,
                               f"{count} lines").splitlines()[:count]

    def finish(self, limit=30, close=True):
        """Close the input (unless told not to), read to the end, wait for the tap's exit;
        the exit status."""
        if close:
            self.close_input()
        deadline = time.monotonic() + patience(limit)
        while self._open:
            assert time.monotonic() < deadline, "the tap did not end"
            self._read_some(0.1)
        try:
            status = self.proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        finally:
            self.end()
        return status

    def end(self):
        if self._input is not None:
            os.close(self._input)
            self._input = None
        self.proc.end(grace=1)
        if self._reader is not None:
            os.close(self._reader)
            self._reader = None
        for stream in (self.proc.stdout, self.proc.stderr):
            if not stream.closed:
                stream.close()

    def tap_pid(self):
        """The tap's own pid (the guard's child)."""
        deadline = time.monotonic() + patience(10)
        while True:
            found = [p.pid for p in live_processes() if p.ppid == self.proc.pid]
            if found:
                return found[0]
            assert time.monotonic() < deadline, "the tap did not start"
            time.sleep(0.02)

    def entries(self):
        return [json.loads(raw) for raw in self.recording.read_text().splitlines()]

    def lines(self, direction=None):
        return [entry for entry in self.entries() if "direction" in entry
                and direction in (None, entry["direction"])]

    def event(self, name):
        found = [entry for entry in self.entries() if entry.get("event") == name]
        assert found, f"no {name} event in {self.entries()[-5:]}"
        return found[-1]

    def server_pid(self):
        deadline = time.monotonic() + patience(10)
        while not (self.recording.exists() and '"event": "start"' in self.recording.read_text()):
            assert time.monotonic() < deadline, "the tap recorded no start"
            time.sleep(0.02)
        return self.event("start")["pid"]


def assert_gone(pid):
    """No process ``pid``, and none left in its process group."""
    left = [p for p in live_processes() if pid in (p.pid, p.pgid)]
    assert left == [], f"left behind: {left}"


def played_back(entries, direction):
    """The bytes of one direction, rebuilt from the recording alone."""
    out = bytearray()
    for entry in entries:
        if entry.get("direction") != direction:
            continue
        out += base64.b64decode(entry["bytes"]) if "bytes" in entry else entry["text"].encode()
        if entry.get("newline", True):
            out += b"\n"
    return bytes(out)


def report(path, *options):
    done = run_to_end([*TAP, "--report", str(path), *options], 60, cwd=ROOT)
    assert "Traceback" not in done.stderr, done.stderr
    return done


# --- bytes pass through, and the recording holds them ---------------------------------------

AWKWARD = (line(INIT) + b'{"jsonrpc":"2.0","method":"x"}\r\n' + b"\n" + b"not json at all\n"
           + b"\xff\xfe broken \xc3\x28 utf-8\n" + b"\x00nul\x00\n" + "caf\u00e9 \u2603\n".encode()
           + b'{"jsonrpc": "2.0", "id": 1, "result": NaN}\n' + b'{"jsonrpc":"2.0","id":9,"res')


def test_bytes_pass_through_unchanged_both_ways_and_the_recording_plays_them_back(tmp_path):
    tap = Tapped(tmp_path, ECHO)
    tap.send(AWKWARD)
    assert tap.read_until(lambda out: out == AWKWARD) == AWKWARD
    assert tap.finish() == 0
    assert bytes(tap.out) == AWKWARD
    entries = tap.entries()
    assert played_back(entries, "to_server") == AWKWARD
    assert played_back(entries, "from_server") == AWKWARD
    for entry in tap.lines():
        raw = base64.b64decode(entry["bytes"]) if "bytes" in entry else entry["text"]
        assert (entry["kind"], entry["code"]) == classify_json(raw), entry
        assert isinstance(entry["t"], float)
    broken = [entry for entry in tap.lines("to_server") if "bytes" in entry]
    assert len(broken) == 1 and "\ufffd" in broken[0]["text"]
    assert (broken[0]["kind"], broken[0]["code"]) == ("invalid", -32700)
    last = tap.lines("to_server")[-1]
    assert last["newline"] is False and last["text"] == '{"jsonrpc":"2.0","id":9,"res'
    assert tap.event("end")["status"] == 0
    assert_gone(tap.event("start")["pid"])


def test_a_chunk_passes_on_before_its_line_ends(tmp_path):
    tap = Tapped(tmp_path, ECHO)
    tap.send(b'{"jsonrpc": "2.0", ')
    tap.read_until(lambda out: out == b'{"jsonrpc": "2.0", ', what="half a line")
    assert tap.lines() == []  # recorded only when the line is complete
    tap.send(b'"method": "ping", "id": 1}\n')
    tap.read_until(lambda out: out.endswith(b"}\n"))
    assert tap.finish() == 0
    assert [(e["direction"], e["kind"]) for e in tap.lines()] == [
        ("to_server", "request"), ("from_server", "request")]


#: Lines where the tap's quick path must hand over to classify_json itself.
AWKWARD_TEXTS = [
    ' {"jsonrpc": "2.0", "method": "x"}', '{"jsonrpc": "2.0", "method": "x"}\r',
    '{"jsonrpc": "2.0", "method": "x"} {}', '{"jsonrpc": "2.0", "method": "x"}x',
    '\ufeff{"jsonrpc": "2.0", "method": "x"}', "", " ", "[]", "1e400", "NaN", "-Infinity",
    '{"jsonrpc": "2.0", "id": 1, "result": {"n": NaN}}', "[" * 100_000 + "]" * 100_000,
    '{"jsonrpc": "2.0", "id": ' + "9" * 5000 + ', "method": "x"}',
    '{"jsonrpc": "2.0", "id": ' + "9" * 30_000 + ', "method": "x"}',
    '{"jsonrpc": "2.0", "method": "\ud800"}', '"just a string"', "null", "true",
]


def test_the_recorded_verdict_is_classify_jsons():
    judge = CourseJudge()
    texts = [case.text for case in TEXT_CASES] + AWKWARD_TEXTS
    for text in texts:
        if isinstance(text, (bytes, bytearray)):
            fields = judge.fields(None, bytes(text))
        elif isinstance(text, str):
            fields = judge.fields(text, None)
        else:
            continue
        verdict = json.loads("{" + fields[:-1] + "}")
        assert (verdict["kind"], verdict["code"]) == classify_json(text), text[:80]


@given(st.lists(st.sampled_from([b"{", b"}", b"\n", b"x", b"\xff", b'"jsonrpc"', b"\r\n", b""]),
                max_size=30), st.lists(st.integers(1, 7), min_size=1, max_size=10))
def test_lines_are_the_same_however_the_bytes_are_cut(pieces, cuts):
    data = b"".join(pieces)
    whole = Lines("to_server", CourseJudge(), 0.0)
    expected = whole.feed(data, 1.0) + whole.finish(1.0)
    cut = Lines("to_server", CourseJudge(), 0.0)
    got, start, i = [], 0, 0
    while start < len(data):
        size = cuts[i % len(cuts)]
        got.append(cut.feed(data[start:start + size], 1.0))
        start, i = start + size, i + 1
    got.append(cut.finish(1.0))
    assert "".join(got) == expected


def test_entries_are_written_in_the_order_their_chunks_were_read(tmp_path):
    recorder = Recorder(tmp_path / "order.jsonl", waiting=MAX_WAITING)
    first, second, third = (recorder.ticket()[0] for _ in range(3))
    recorder.write(third, "3\n")
    recorder.write(second, "2\n")
    recorder.write(first, "1\n")
    assert (tmp_path / "order.jsonl").read_text() == "1\n2\n3\n"
    # A chunk stuck on its way (its reader reads nothing) holds the others back only so long.
    stuck = recorder.ticket()[0]
    for _ in range(3):
        recorder.write(recorder.ticket()[0], "x" * (MAX_WAITING // 2) + "\n")
    assert (tmp_path / "order.jsonl").stat().st_size > MAX_WAITING
    recorder.write(stuck, "late\n")
    recorder.close()
    assert (tmp_path / "order.jsonl").read_text().splitlines()[-1] == "late"


def test_a_line_longer_than_max_line_passes_whole_and_is_kept_in_part():
    lines = Lines("from_server", CourseJudge(), 0.0, max_line=10)
    text = lines.feed(b"0123456789abcdef", 1.0) + lines.feed(b"ghi\nok\n", 1.0)
    first, second = [json.loads(raw) for raw in text.splitlines()]
    assert first == {"t": 1.0, "direction": "from_server", "kind": None, "code": None,
                     "truncated": True, "size": 19, "text": "0123456789"}
    assert second["text"] == "ok" and second["kind"] == "invalid"


# --- the course's server, and the official SDK's client ----------------------------------------

def test_the_course_server_through_the_tap(tmp_path):
    tap = Tapped(tmp_path, COURSE_SERVER)
    tap.send(line(INIT))
    first = json.loads(tap.lines_out(1)[0])
    assert first["id"] == 1 and first["result"]["protocolVersion"] == "2025-11-25"
    tap.send(line(INITIALIZED) + line({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
             + line({"jsonrpc": "2.0", "id": "c", "method": "tools/call",
                     "params": {"name": "add", "arguments": {"a": 2, "b": 40}}}))
    replies = [json.loads(raw) for raw in tap.lines_out(3)]
    assert [reply["id"] for reply in replies] == [1, 2, "c"]
    assert replies[2]["result"]["structuredContent"] == {"result": 42}
    assert tap.finish() == 0
    kinds = [(e["direction"], e["kind"]) for e in tap.lines()]
    assert kinds.count(("to_server", "request")) == 3
    assert kinds.count(("to_server", "notification")) == 1
    assert kinds.count(("from_server", "response")) == 3
    events = [e["event"] for e in tap.entries() if "event" in e]
    assert events[0] == "start" and events[-1] == "end"
    assert events.index("client_closed") < events.index("server_closed")
    assert sorted(events[1:-1]) == ["client_closed", "server_closed", "server_exited"]
    done = report(tap.recording)
    assert done.returncode == 0, done.stdout
    assert "revision: 2025-11-25 (the client asked for 2025-11-25 in initialize and the server " \
           "agreed)" in done.stdout
    assert "no problems" in done.stdout
    assert "the client's request \"c\" (tools/call): " in done.stdout
    assert_gone(tap.event("start")["pid"])


def _sdk_session(recording, pings):
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def talk():
        params = StdioServerParameters(
            command=PY, args=["-m", "mcp_lesson.tap", "--record", str(recording), "--",
                              *COURSE_SERVER], cwd=str(ROOT))
        with anyio.fail_after(patience(60)):
            async with stdio_client(params) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    tools = await session.list_tools()
                    called = await session.call_tool("calculator", {"expression": "6 * 7"})
                    for _ in range(pings):
                        await session.send_ping()
                    return sorted(tool.name for tool in tools.tools), called

    return anyio.run(talk)


def test_the_sdks_client_through_the_tap(tmp_path):
    recording = tmp_path / "sdk.jsonl"
    names, called = _sdk_session(recording, pings=20)
    assert names == ["add", "calculator"]
    assert called.content[0].text == "42"
    entries = [json.loads(raw) for raw in recording.read_text().splitlines()]
    methods = [json.loads(e["text"]).get("method") for e in entries
               if e.get("direction") == "to_server"]
    assert methods[:4] == ["initialize", "notifications/initialized", "tools/list", "tools/call"]
    assert methods.count("ping") == 20
    assert all(e["kind"] != "invalid" for e in entries if "direction" in e)
    done = report(recording)
    assert done.returncode == 0, done.stdout
    assert "no problems" in done.stdout and "23 requests" in done.stdout
    start = next(e for e in entries if e.get("event") == "start")
    assert_gone(start["pid"])
    assert [p for p in live_processes() if str(recording) in p.command] == []


# --- the sloppy server's four faults -------------------------------------------------------

SLOPPY_TALK = [
    INIT, INITIALIZED,
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    {"jsonrpc": "2.0", "id": 3, "method": "ping"},
    {"jsonrpc": "2.0", "id": 4, "method": "tools/call",
     "params": {"name": "forget", "arguments": {}}},
    {"jsonrpc": "2.0", "id": 5, "method": "tools/call",
     "params": {"name": "echo", "arguments": {"text": "hi"}}},
]


def test_the_audit_finds_each_fault_of_the_sloppy_server(tmp_path):
    tap = Tapped(tmp_path, SLOPPY_SERVER)
    tap.send(b"".join(line(message) for message in SLOPPY_TALK))
    tap.read_until(lambda out: b'"id": 5' in out, what="the echo's answer")
    assert tap.finish() == 0
    done = report(tap.recording)
    assert done.returncode == 1
    said = done.stdout
    # 1. log lines on stdout
    assert 'the server wrote "sloppy server 1.0 ready" on stdout, which is not JSON' in said
    assert 'the server wrote "[sloppy] calling forget" on stdout' in said
    # 2. a null-id result
    assert "Invalid (-32600): the id is null; a result response must carry" in said
    assert "; was it meant for request 3 (ping, line 5), which is never answered?" in said
    # 3. an answer to a notification
    assert ("the server answered the notification notifications/initialized (line 3): a "
            "notification gets no answer") in said
    # 4. a forgotten request
    assert "the client's request 4 (tools/call) was never answered by the server" in said
    problems = [json.loads(raw) for raw in report(tap.recording, "--json").stdout.splitlines()]
    assert sorted(p["problem"] for p in problems) == sorted(
        ["pollution"] * 3 + ["answer_to_notification", "invalid", "unanswered",
                             "unanswered"])
    assert {p["id"] for p in problems if p["problem"] == "unanswered"} == {3, 4}


# --- bad input -------------------------------------------------------------------------------

def test_a_ten_megabyte_line_both_ways(tmp_path):
    big = create_big_request(10 * 1024 * 1024)
    tap = Tapped(tmp_path, ECHO)
    tap.send(big)
    assert tap.read_until(lambda out: len(out) >= len(big), limit=60) == big
    assert tap.finish(limit=60) == 0
    entries = tap.lines()
    assert [(e["direction"], e["kind"]) for e in entries] == [
        ("to_server", "request"), ("from_server", "request")]
    assert all(e["text"].encode() + b"\n" == big for e in entries)


def test_a_recording_cut_by_a_full_disk_ends_with_a_whole_line(tmp_path):
    pings = b"".join(line({"jsonrpc": "2.0", "id": n, "method": "ping", "params": {"pad": "x" * 50}})
                     for n in range(200))
    tap = Tapped(tmp_path, ECHO, file_limit=5000)
    tap.send(pings)
    assert tap.read_until(lambda out: len(out) >= len(pings)) == pings  # the traffic passes on
    assert tap.finish() == 0
    text = tap.recording.read_text()
    assert 0 < len(text) <= 5000 and text.endswith("\n")
    assert all(json.loads(raw) for raw in text.splitlines())  # each line whole
    assert bytes(tap.err).count(b"cannot write the recording any more") == 1


def create_big_request(size):
    head = b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"text": "'
    return head + b"x" * (size - len(head) - 4) + b'"}}\n'


def test_a_line_over_max_line_passes_on_whole_and_is_recorded_in_part(tmp_path):
    big = create_big_request(300_000)
    tap = Tapped(tmp_path, ECHO, "--max-line", "1000")
    tap.send(big + line(INITIALIZED))
    assert tap.read_until(lambda out: len(out) >= len(big) + len(line(INITIALIZED))) == (
        big + line(INITIALIZED))
    assert tap.finish() == 0
    first, second = tap.lines("to_server")
    assert first["truncated"] is True and first["size"] == len(big) - 1
    assert len(first["text"]) == 1000 and first["kind"] is None
    assert second["kind"] == "notification"
    assert "more than the tap kept, so it was not judged" in report(tap.recording).stdout


def test_a_last_line_without_newline_and_a_server_that_dies(tmp_path):
    dying = server("""
        import os, sys
        sys.stdin.readline()
        os.write(1, b'{"jsonrpc": "2.0", "id": 1, "result": {}')
        os._exit(3)
    """)
    tap = Tapped(tmp_path, dying)
    tap.send(line(INIT) + line({"jsonrpc": "2.0", "id": 2, "method": "ping"}))
    assert tap.finish(close=False) == 3  # it ends with the server, its client still there
    assert bytes(tap.out) == b'{"jsonrpc": "2.0", "id": 1, "result": {}'
    last = tap.lines("from_server")[-1]
    assert last["newline"] is False and last["kind"] == "invalid" and last["code"] == -32700
    assert tap.event("server_exited")["status"] == 3
    said = report(tap.recording).stdout
    assert "the server's last line has no newline at its end" in said
    assert "was never answered by the server (the server exited with status 3" in said
    assert_gone(tap.event("start")["pid"])


def test_a_server_killed_by_a_signal(tmp_path):
    tap = Tapped(tmp_path, server("import os, signal; os.kill(os.getpid(), signal.SIGKILL)"))
    assert tap.finish(close=False) == 128 + 9
    assert tap.event("server_exited")["returncode"] == -9


@pytest.mark.full  # a flood of lines: slow by design
def test_a_flooding_server_is_held_back_by_its_reader_and_everything_arrives(tmp_path):
    lines, size = 200_000, len(line(INITIALIZED))
    flood = server(f"""
        import sys
        block = {line(INITIALIZED)!r} * 1000
        for _ in range({lines // 1000}):
            sys.stdout.buffer.write(block)
        sys.stdout.buffer.flush()
    """)
    tap = Tapped(tmp_path, flood)
    tap.server_pid()
    # The client reads nothing yet: the tap must not read the flood ahead into memory.
    recorded = lambda: tap.recording.stat().st_size  # noqa: E731
    wait_for(lambda: recorded() > 0, "the first lines")
    settled, previous = 0, -1
    deadline = time.monotonic() + patience(30)
    while settled < 5:  # the recording stops growing when the client's pipe is full
        now = recorded()
        settled = settled + 1 if now == previous else 0
        previous = now
        assert time.monotonic() < deadline, "the flood was never held back"
        time.sleep(0.05)
    held = len(tap.lines("from_server"))
    assert held * size < 8 * 65536 + 4 * 65536, f"{held} lines read ahead"
    tap.read_until(lambda out: len(out) >= lines * size, limit=60)
    assert tap.finish(limit=60) == 0
    assert bytes(tap.out) == line(INITIALIZED) * lines
    assert len(tap.lines("from_server")) == lines
    assert tap.event("end")["max_rss_kb"] < 200_000


def test_a_client_that_stops_reading_and_goes(tmp_path):
    flood = server("""
        import sys
        while True:
            sys.stdout.write('{"jsonrpc": "2.0", "method": "notifications/message"}\\n')
    """)
    tap = Tapped(tmp_path, flood, "--grace", "0.2")
    tap.read_until(lambda out: len(out) > 100_000)
    tap.stop_reading()  # the client goes: it reads nothing more
    assert tap.finish() == 128 + signal.SIGTERM  # and closes its input
    events = [e["event"] for e in tap.entries() if "event" in e]
    assert "client_gone" in events and "client_closed" in events
    assert "stopping" in events  # the flooding server did not end by itself
    assert_gone(tap.event("start")["pid"])


def test_a_server_deaf_to_the_end_of_input_and_to_sigterm_is_killed(tmp_path):
    deaf = server("""
        import signal, sys, time
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        print("ready", flush=True)
        while True:
            time.sleep(1)
    """)
    tap = Tapped(tmp_path, deaf, "--grace", "0.1")
    tap.read_until(lambda out: out == b"ready\n")
    started = time.monotonic()
    assert tap.finish() == 128 + 9
    assert time.monotonic() - started < patience(10)
    stops = [e for e in tap.entries() if e.get("event") == "stopping"]
    assert [stop["signal"] for stop in stops] == ["SIGTERM", "SIGKILL"]
    assert_gone(tap.event("start")["pid"])


def test_what_the_server_leaves_in_its_group_is_ended(tmp_path):
    leaves = server(f"""
        import subprocess, sys
        child = subprocess.Popen([{PY!r}, "-c", "import time; time.sleep(3600)"])
        print(child.pid, flush=True)
        sys.stdin.read()
    """)
    tap = Tapped(tmp_path, leaves)
    child = int(tap.lines_out(1)[0])
    assert tap.finish() == 0
    assert [p for p in live_processes() if p.pid == child] == []
    assert_gone(tap.event("start")["pid"])


def test_a_signal_to_the_tap_is_passed_on_to_the_server(tmp_path):
    tap = Tapped(tmp_path, COURSE_SERVER)
    tap.send(line(INIT))
    tap.lines_out(1)
    os.kill(tap.tap_pid(), signal.SIGTERM)
    assert tap.finish(close=False) == 128 + signal.SIGTERM
    assert tap.event("signal")["signal"] == "SIGTERM"
    assert_gone(tap.event("start")["pid"])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_killed_tap_takes_its_server_along(tmp_path):
    tap = Tapped(tmp_path, server("import sys; print('up', flush=True); sys.stdin.read()"))
    tap.read_until(lambda out: out == b"up\n")
    pid = tap.server_pid()
    os.kill(tap.tap_pid(), signal.SIGKILL)  # no chance to clean up: the kernel ends the server
    wait_for(lambda: not [p for p in live_processes() if p.pid == pid], "the server's end")
    tap.end()


def test_a_command_that_cannot_start(tmp_path):
    tap = Tapped(tmp_path, ["/no/such/server", "--flag"])
    assert tap.finish() == 127
    assert tap.out == b""
    assert "mcp_lesson.tap: cannot start /no/such/server --flag" in tap.err.decode()
    assert tap.event("tap_error")["detail"].startswith("cannot start the server")


def test_the_recording_cannot_go_to_the_protocols_stdout():
    done = run_to_end([*TAP, "--record", "/dev/stdout", "--", *ECHO], 30, cwd=ROOT)
    assert done.returncode == 2 and done.stdout == ""
    assert "the recording cannot go to /dev/stdout: that is the tap's stdout" in done.stderr


@pytest.mark.parametrize("arguments, words", [
    (["--record", "x.jsonl", "python"], "give the server's command after --"),
    (["--report", "x.jsonl", "--", "python"], "--report reads a recording"),
    (["--report", "x.jsonl", "--revision", "2030-01-01"], "unknown revision '2030-01-01'"),
    ([], "one of the arguments --record --report is required"),
])
def test_usage_errors_are_said_on_stderr(arguments, words):
    done = run_to_end([*TAP, *arguments], 30, cwd=ROOT)
    assert done.returncode == 2 and done.stdout == ""
    assert words in done.stderr


def test_a_recording_that_cannot_be_read(tmp_path):
    done = report(tmp_path / "missing.jsonl")
    assert done.returncode == 2 and "cannot read" in done.stderr
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'not json\n[1, 2]\n{"t": 0.1, "direction": "to_server", "text": '
                    b'"{\\"jsonrpc\\": \\"2.0\\", \\"id\\": 1, \\"method\\": \\"ping\\"}"}\n')
    done = report(bad)
    assert done.returncode == 1
    assert "line 1 of the recording is not JSON; left out" in done.stdout
    assert "line 2 of the recording is no entry" in done.stdout
    assert "line 3: the client's request 1 (ping) was never answered" in done.stdout


# --- the user's own judge ------------------------------------------------------------------

def _package(folder, code):
    folder.mkdir()
    (folder / "__init__.py").write_text(textwrap.dedent(code))
    return folder


def test_judge_with_the_users_own_package(tmp_path):
    mine = _package(tmp_path / "my_mcp", """
        print("importing my judge")  # must not reach the protocol's stdout
        def classify_json(text):
            if "boom" in text:
                raise ValueError("boom")
            return ("request", None)
    """)
    tap = Tapped(tmp_path, ECHO, "--judge", str(tmp_path))  # the folder that holds my_mcp
    sent = b'{"jsonrpc": "2.0", "method": "x"}\nnot json\nboom\n'
    tap.send(sent)
    tap.read_until(lambda out: out == sent)
    assert tap.finish() == 0
    assert bytes(tap.out) == sent
    assert "importing my judge" in tap.err.decode()
    assert str(mine) in tap.event("start")["judge"]
    verdicts = [(e["kind"], e.get("judge_error")) for e in tap.lines("to_server")]
    assert verdicts == [("request", None), ("request", None), (None, "ValueError: boom")]
    said = report(tap.recording).stdout
    assert "the course's rules disagree on 6 lines" in said  # the echo says each line back
    assert ('"not json": the judge says ("request", null), the course\'s rules ("invalid", '
            '-32700)') in said


@pytest.mark.parametrize("code, words", [
    ("def classify_json(text):\n    return (", "SyntaxError"),
    ("x = 1\n", "has no classify_json"),
    ("def classify_json(text):\n    raise NotImplementedError('not yet')\n",
     "raised NotImplementedError on a ping request"),
])
def test_a_judge_that_fails_is_said_and_the_course_judges(tmp_path, code, words):
    _package(tmp_path / "my_mcp", code)
    tap = Tapped(tmp_path, ECHO, "--judge", str(tmp_path / "my_mcp"))
    tap.send(line(INITIALIZED))
    tap.read_until(lambda out: out == line(INITIALIZED))
    assert tap.finish() == 0
    err = tap.err.decode()
    assert "mcp_lesson.tap: --judge" in err and "judging with the course's classify_json" in err
    assert words in err, err
    assert tap.event("start")["judge"] == "mcp_lesson"
    assert tap.lines("to_server")[0]["kind"] == "notification"


# --- the HTTP tap --------------------------------------------------------------------------

MODERN_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientCapabilities": {},
               "io.modelcontextprotocol/clientInfo": {"name": "test-tap", "version": "1.0"}}


@pytest.fixture(scope="module")
def http_server():
    yield from serving()


def test_the_sdks_client_through_the_http_tap(tmp_path, http_server):
    import anyio
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    tap = HttpTapped(tmp_path, http_server.url)
    assert tap.url.endswith("/mcp") and tap.url != http_server.url
    steps = []

    async def talk():
        with anyio.fail_after(patience(60)):
            async with streamable_http_client(tap.url) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    tools = await session.list_tools()

                    async def progress(done, total, message):
                        steps.append(done)

                    counted = await session.call_tool("count", {"to": 3},
                                                      progress_callback=progress)
                    await session.send_ping()
                    return sorted(tool.name for tool in tools.tools), counted

    names, counted = anyio.run(talk)
    assert names == ["add", "calculator", "count"] and counted.structured_content == {"result": 3}
    assert steps == [1, 2, 3]
    entries = tap.stop()
    assert entries[0]["event"] == "start" and entries[0]["to"] == http_server.url
    assert entries[-1]["event"] == "end"
    sent = [e for e in entries if e.get("direction") == "to_server"]
    assert [json.loads(e["text"]).get("method") for e in sent] == [
        "initialize", "notifications/initialized", "tools/list", "tools/call", "ping"]
    assert all(e["http"]["method"] == "POST" and e["http"]["path"] == "/mcp" for e in sent)
    assert "mcp-session-id" in sent[-1]["http"]["headers"]
    streamed = [e for e in entries if e.get("direction") == "from_server" and "sse" in e]
    assert [json.loads(e["text"]).get("method") for e in streamed].count(
        "notifications/progress") == 3
    accepted = [e for e in entries if e.get("event") == "http_response" and e["status"] == 202]
    assert len(accepted) == 1  # the notification: 202 and no body
    done = report(tap.recording)
    assert done.returncode == 0, done.stdout
    assert "no problems" in done.stdout and "4 requests" in done.stdout


def test_the_http_tap_passes_statuses_and_bodies_on_and_the_audit_reads_them(
        tmp_path, http_server):
    tap = HttpTapped(tmp_path, http_server.url)
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
               "MCP-Protocol-Version": "2026-07-28"}
    listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": MODERN_META}}
    with http_client() as client:
        direct = client.post(http_server.url, json=listing,
                             headers={**headers, "Mcp-Method": "tools/list"})
        tapped = client.post(tap.url, json=listing, headers={**headers, "Mcp-Method": "tools/list"})
        assert tapped.status_code == direct.status_code == 200
        assert tapped.headers["content-type"] == direct.headers["content-type"]
        assert tapped.text == direct.text  # the same answer, byte for byte
        refused = client.post(tap.url, json=listing, headers={
            **headers, "Mcp-Method": "tools/list", "Origin": "http://evil.example"})
        assert (refused.status_code, refused.text) == (403, "Invalid Origin header")
        cut = client.post(tap.url, content=b'{"jsonrpc": "2.0", "id": 2, "meth',
                          headers={**headers, "Mcp-Method": "tools/list"})
        assert cut.status_code == 400 and cut.json()["id"] is None
    entries = tap.stop()
    said = report(tap.recording).stdout
    assert 'the client sent "{\\"jsonrpc\\": \\"2.0\\", \\"id\\": 2, \\"meth", which is ' \
           'not JSON' in said
    assert "revision: 2026-07-28 (the client's requests carry 2026-07-28 in params._meta" in said
    assert "never answered" not in said
    problems = [json.loads(raw) for raw in report(tap.recording, "--json").stdout.splitlines()]
    # The null-id parse error answers the cut-off body: no problem of its own. The request
    # refused for its Origin got a 403 in plain text, which the transport allows: the
    # refusal answers its request (the tap numbers each exchange), and is no problem.
    assert [p["problem"] for p in problems] == ["not_json"]
    origins = [e["http"]["headers"].get("origin") for e in entries if "http" in e
               and e.get("direction") == "to_server"]
    assert "http://evil.example" in origins


def test_the_http_tap_says_when_the_server_cannot_be_reached(tmp_path):
    import socket

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        nowhere = f"http://127.0.0.1:{probe.getsockname()[1]}/mcp"
    tap = HttpTapped(tmp_path, nowhere)
    with http_client() as client:
        answer = client.post(tap.url, json=INITIALIZED)
    assert answer.status_code == 502 and f"cannot reach {nowhere}" in answer.text
    entries = tap.stop()
    assert any(e.get("event") == "tap_error" and "cannot reach" in e["detail"] for e in entries)


@pytest.mark.parametrize("arguments, words", [
    (["--record", "x.jsonl", "--http"], "--http passes on to a server's address"),
    (["--record", "x.jsonl", "--http", "--to", "http://127.0.0.1:1/mcp", "--", "python"],
     "not a command"),
    (["--record", "x.jsonl", "--to", "http://127.0.0.1:1/mcp", "--", "python"],
     "--to goes with --http"),
])
def test_http_usage_errors(arguments, words):
    done = run_to_end([*TAP, *arguments], 30, cwd=ROOT)
    assert done.returncode == 2 and words in done.stderr


# --- the audit, on conversations written here --------------------------------------------------

def entry(direction, message, t=None, **extra):
    text = message if isinstance(message, str) else json.dumps(message)
    return {"direction": direction, "text": text, **({"t": t} if t is not None else {}), **extra}


def up(message, **extra):
    return entry("to_server", message, **extra)


def down(message, **extra):
    return entry("from_server", message, **extra)


def request(request_id, method="ping", **params):
    message = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params:
        message["params"] = params
    return message


def result(request_id):
    return {"jsonrpc": "2.0", "id": request_id, "result": {}}


def names(conversation, revision="agreed"):
    return [(p["line"], p["problem"]) for p in audit(conversation, revision)]


def test_a_clean_conversation_has_no_problems():
    talk = [up(INIT, t=0.0), down({"jsonrpc": "2.0", "id": 1, "result": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": {"name": "s",
                                                                            "version": "1"}}},
        t=0.002),
        up(INITIALIZED, t=0.003), up(request("a"), t=0.004),
        down(request(7, "roots/list"), t=0.005),
        up(result(7), t=0.006), down(result("a"), t=0.0105)]
    assert audit(talk) == []
    assert agreed_revision(talk) == ("2025-06-18", "the client asked for 2025-11-25 in "
                                                   "initialize and the server answered 2025-06-18")
    times = answer_times(talk)
    assert [(row["id"], row["direction"], row["answer_line"]) for row in times] == [
        (1, "to_server", 2), ("a", "to_server", 7), (7, "from_server", 6)]
    assert times[1]["seconds"] == pytest.approx(0.0065)


def test_ids_match_by_type_and_value():
    assert id_key(1) != id_key("1") and id_key(True) is None and id_key(1.0) is None
    talk = [up(request(1)), down(result("1")), down(result(1.0))]
    assert names(talk, None) == [(1, "unanswered"), (2, "unknown_id"), (3, "invalid")]


def test_answered_twice_reused_ids_and_unknown_ids():
    talk = [up(request(1)), up(request(1)), down(result(1)), down(result(1)), down(result(2))]
    assert names(talk, None) == [(2, "id_reused"), (4, "answered_twice"), (5, "unknown_id")]


def test_a_null_id_error_answers_an_unreadable_message_not_a_notification():
    parse_error = {"jsonrpc": "2.0", "id": None,
                   "error": {"code": -32700, "message": "Parse error"}}
    assert names([up("{oops"), down(parse_error)], None) == [(1, "not_json")]
    assert names([up(INITIALIZED), down(parse_error)], None) == [(2, "answer_to_notification")]
    assert names([down(parse_error)], None) == [(1, "unmatched")]


def test_a_cancelled_request_may_go_unanswered_and_may_still_be_answered():
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}
    assert names([up(request(1)), up(cancel)], None) == []
    assert names([up(request(1)), up(cancel), down(result(1))], None) == []


def test_answers_are_matched_in_the_order_things_happened():
    # The server's thread recorded the answer before the client's thread recorded the request.
    talk = [down(result(1), t=0.5), up(request(1), t=0.4)]
    assert audit(talk) == []


def test_batches_are_judged_member_by_member_under_2025_03_26():
    batch = [request(1), {"jsonrpc": "2.0", "id": 2, "method": "ping", "params": None}]
    talk = [up(json.dumps(batch)), down(json.dumps([result(1), result(2)]))]
    # The invalid member is owed an error: a result to it is no answer (lesson 10's rule).
    assert names(talk, "2025-03-26") == [(1, "invalid"), (2, "unknown_id")]
    [owed] = [p for p in audit(talk, "2025-03-26") if p["problem"] == "unknown_id"]
    assert owed["detail"] == "a result to the client's invalid request 2 (ping, line 1), which is owed an error"
    assert names(talk, None) == [(1, "invalid"), (2, "invalid")]


def test_the_revision_of_a_stateless_conversation_and_one_that_changes():
    def meta(request_id, version):
        return request(request_id, "tools/list", _meta={
            "io.modelcontextprotocol/protocolVersion": version})

    talk = [up(meta(1, "2026-07-28")), down(result(1)), up(meta(2, "2025-11-25")),
            down(result(2))]
    assert agreed_revision(talk)[0] == "2026-07-28"
    assert names(talk) == [(3, "revision")]
    # an error response without an id is valid from 2025-11-25, not under the course's rules
    no_id = {"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}}
    assert names([up("{oops"), down(no_id)], "2025-11-25") == [(1, "not_json")]
    assert names([up("{oops"), down(no_id)], None) == [(1, "not_json"), (2, "invalid")]


def test_an_unknown_revision_is_judged_by_the_courses_rules():
    talk = [up(INIT),
            down({"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "1999-01-01"}})]
    revision, how = agreed_revision(talk)
    assert revision is None and "the course does not know 1999-01-01" in how


def test_a_recording_that_lies_about_a_cut_line_is_still_read():
    """A hand-edited or foreign recording may mark a line truncated without its size."""
    from mcp_lesson.tap import audit, message_of

    entry = {"direction": "from_server", "text": "", "truncated": True, "size": "big"}
    value, reason = message_of(entry)
    assert value is None and "longer than the tap keeps" in reason
    audit([{"direction": "to_server", "text": '{"jsonrpc": "2.0", "id": 1, "method": "ping"}'}, entry])


def test_ids_count_per_http_session(tmp_path, http_server):
    """Two sessions may use the same ids at once (2025-11-25: a session is its Mcp-Session-Id).
    A real recording of one session, and a second one interleaved with it: the audit finds no
    problem; without the tap's exchange numbers it would take the second session's id for a
    reused one."""
    from http_server import open_session

    tap = HttpTapped(tmp_path, http_server.url)
    with http_client() as client:
        headers = open_session(client, tap.url)
        client.post(tap.url, headers=headers, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    entries = tap.stop()
    talk = [entry for entry in entries if "direction" in entry or entry.get("event", "").startswith("http")]
    other = json.loads(json.dumps(talk).replace(headers["Mcp-Session-Id"], "another-session"))
    for entry in other:
        for place in (entry.get("http"), entry):
            if isinstance(place, dict) and "exchange" in place:
                place["exchange"] += 1000
    # The other session's every line just after the same line of the first: both in flight at once.
    merged = [entry for pair in zip(talk, other) for entry in pair]
    assert audit(merged) == []
    unnumbered = json.loads(json.dumps(merged).replace('"exchange"', '"_exchange"'))
    assert "id_reused" in {problem["problem"] for problem in audit(unnumbered)}


def test_each_http_session_is_judged_by_the_revision_it_agreed(tmp_path, http_server):
    """One recording, three conversations: a session at 2025-11-25, one at 2025-06-18 (each
    client sends its own session's version header, as it must), and a stateless request of
    2026-07-28. Judged by one revision for the recording, the second session's headers would
    be warned about; each is judged by its own."""
    from http_server import open_session

    tap = HttpTapped(tmp_path, http_server.url)
    with http_client() as client:
        for revision in ("2025-11-25", "2025-06-18"):
            headers = open_session(client, tap.url, revision)
            client.post(tap.url, headers=headers, json=request(2, "tools/list"))
        client.post(tap.url, headers={**headers, "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list",
                                      "Mcp-Session-Id": ""},
                    json=request(3, "tools/list", _meta={
                        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                        "io.modelcontextprotocol/clientCapabilities": {}}))
    entries = tap.stop()
    by_scope = {revision for revision, _ in revisions_by_scope(entries).values()}
    assert by_scope == {"2025-11-25", "2025-06-18", "2026-07-28"}
    assert audit(entries) == []
    done = report(tap.recording)
    assert done.returncode == 0 and "warning" not in done.stdout, done.stdout
    assert ("each judged by its own: 2025-06-18 in 1 HTTP exchange without a session, 2025-06-18 in 1 "
            "HTTP session") in done.stdout


@pytest.mark.full  # times crafted recordings side by side
def test_the_audit_runs_in_time_linear_in_the_entries():
    """The patterns that made the audit's cost grow with the square of the entries (every
    answer scanning what waits, every id-less answer searching it) cost the same per entry
    at 3,000 entries as at 12,000: the ratio of the times is near 4 (it was 14 before),
    never near 16 (measured side by side, best of three)."""
    def crafted(count):
        talk = [up(request(n)) for n in range(count)]
        talk += [up(INITIALIZED) for _ in range(4 * count)]  # notifications that wait behind them
        talk += [down(result(n)) for n in range(count)]  # each answer once scanned them all
        talk += [down({"jsonrpc": "2.0", "id": "x" + str(n), "result": {}}) for n in range(count // 4)]
        return talk

    def best(talk):
        times = []
        for _ in range(3):
            began = time.perf_counter()
            audit(talk, None)
            times.append(time.perf_counter() - began)
        return min(times)

    small, large = crafted(500), crafted(2000)
    ratio = best(large) / best(small)
    assert ratio < 9, f"4x the entries took {ratio:.1f}x the time"


def test_a_batch_s_members_are_requests_only_where_batches_are_allowed():
    batch = json.dumps([request(1), request(2)])
    talk = [up(batch, t=0.0), down(json.dumps([result(1), result(2)]), t=0.01)]
    assert [row["id"] for row in answer_times(talk, "2025-03-26")] == [1, 2]
    assert answer_times(talk, "2025-11-25") == [] and answer_times(talk, None) == []


@pytest.mark.full  # the attacker's cases and real SDK runs: the full tier
def test_a_refused_probe_leaves_the_handshake_s_revision_in_force(tmp_path):
    """The SDK's mcp.Client (its default mode) first probes server/discover at 2026-07-28; a
    server of the handshake era answers -32601, and the session runs under what initialize
    then agrees. A real recording: the SDK's client, the tap, a server with no SDK."""
    import warnings

    import anyio
    from mcp import Client, StdioServerParameters

    recording = tmp_path / "legacy.jsonl"
    server = StdioServerParameters(command=PY, args=["-m", "mcp_lesson.tap", "--record", str(recording),
                                                     "--", PY, str(ROOT / "tests" / "legacy_server.py")])

    async def talk():
        with anyio.fail_after(patience(60)):
            async with Client(server) as client:
                await client.list_tools()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # ping is gone at 2026-07-28, here under 2025-11-25
                    await client.send_ping()

    anyio.run(talk)
    entries = [json.loads(line) for line in recording.read_text().splitlines()]
    methods = [json.loads(e["text"]).get("method") for e in entries if e.get("direction") == "to_server"]
    assert methods[:2] == ["server/discover", "initialize"]
    revision, words = agreed_revision(entries)
    assert revision == "2025-11-25"
    assert words.startswith("the client tried 2026-07-28 (server/discover) and the server refused it "
                            "(error -32601); then the client asked for 2025-11-25")
    done = report(recording)
    assert done.returncode == 0 and "revision: 2025-11-25" in done.stdout, done.stdout


def test_a_stateless_error_of_the_method_s_own_is_no_refusal():
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
    talk = [{"direction": "to_server", "text": json.dumps(
                 {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x", "_meta": meta}})},
            {"direction": "from_server", "text": json.dumps(
                 {"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "Unknown tool: x"}})}]
    assert agreed_revision(talk)[0] == "2026-07-28"


def test_a_refused_tools_call_is_answered_and_gets_no_error_code_warning():
    """A 403 with a plain-text body answers the tools/call of its exchange: neither
    unanswered nor an error code "no spec defines" (the refusal has no code at all)."""
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x"}}
    talk = [{"direction": "to_server", "text": json.dumps(call), "http": {"exchange": 1, "headers": {}}},
            {"direction": "from_server", "text": "Forbidden: Origin", "http": {"exchange": 1, "status": 403}}]
    assert audit(talk, None) == []


#: The SDK's own server with its defaults (none of the course's fixes), over stdio.
BARE_SDK_SERVER = ("from mcp.server.mcpserver import MCPServer\n"
                   "server = MCPServer('bare')\n"
                   "@server.tool()\n"
                   "def echo(text: str) -> str:\n"
                   "    return text\n"
                   "server.run('stdio')\n")


@pytest.mark.full  # the attacker's cases and real SDK runs: the full tier
def test_an_error_code_the_spec_names_otherwise_is_a_warning(tmp_path):
    """The SDK's catch-all answers an unknown prompt with code 0; 2025-11-25's server/prompts.mdx
    names -32602. A real recording: the SDK's client and the SDK's own server, through the tap."""
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from mcp.shared.exceptions import MCPError

    recording = tmp_path / "bare.jsonl"
    server = StdioServerParameters(command=PY, args=["-m", "mcp_lesson.tap", "--record", str(recording),
                                                     "--", PY, "-c", BARE_SDK_SERVER])

    async def talk():
        with anyio.fail_after(patience(60)), open(tmp_path / "stderr.txt", "w") as log:
            async with stdio_client(server, errlog=log) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    try:
                        await session.get_prompt("nope")
                    except MCPError as exc:
                        return exc.error.code

    assert anyio.run(talk) == 0
    entries = [json.loads(line) for line in recording.read_text().splitlines()]
    [warning] = audit(entries)
    assert (warning["problem"], warning["severity"]) == ("error_code", "warning")
    assert warning["detail"] == ("the server answered prompts/get with error code 0, which no spec "
                                 "defines; for an invalid prompt name 2025-11-25's server/prompts.mdx "
                                 "names -32602")
    done = report(recording)
    assert done.returncode == 0 and "1 warning:" in done.stdout and "no problems" in done.stdout


def test_a_version_header_other_than_the_agreed_one_is_a_warning(tmp_path, http_server):
    """A real session through the HTTP tap whose client sends 2025-03-26 after agreeing on
    2025-11-25 (as the conformance suite does in server-sse-polling), then no header at all."""
    from http_server import open_session

    tap = HttpTapped(tmp_path, http_server.url)
    with http_client() as client:
        headers = open_session(client, tap.url)
        client.post(tap.url, headers={**headers, "MCP-Protocol-Version": "2025-03-26"},
                    json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        client.post(tap.url, headers={k: v for k, v in headers.items() if k != "MCP-Protocol-Version"},
                    json={"jsonrpc": "2.0", "id": 3, "method": "ping"})
    tap.stop()
    problems = [json.loads(raw) for raw in report(tap.recording, "--json").stdout.splitlines()]
    assert [(p["problem"], p["severity"]) for p in problems] == [("version_header", "warning")] * 2
    assert 'MCP-Protocol-Version "2025-03-26" in a session that agreed on 2025-11-25' in problems[0]["detail"]
    assert "no MCP-Protocol-Version header" in problems[1]["detail"]
    assert report(tap.recording).returncode == 0


@pytest.mark.parametrize("text", [
    '{"event":"start","wall":1e20,"command":["x\\u001b[31mred\\u202e"]}\n',
    '{"event":"start","wall":NaN}\n{"t":NaN,"direction":"to_server","text":"{}"}\n',
    '{"t":1e400,"direction":"to_server","text":"{\\"jsonrpc\\":\\"2.0\\",\\"id\\":1,\\"method\\":\\"ping\\"}"}\n',
    '{"event":"start","judge":"my_mcp"}\n{"direction":"to_server","bytes":"!!notbase64","kind":"request"}\n',
    '{"direction":"to_server","judge_error":"a\\u001bb","text":"x"}\n',
    "[" * 100_000 + "\n",
    '{"direction":"from_server","text":"{\\"jsonrpc\\":\\"2.0\\",\\"id\\":1,\\"result\\":{}}","http":'
    '{"status":"x","exchange":1e999}}\n',
], ids=["forged wall and command", "NaN", "t of 1e400", "bad Base64 under a judge", "judge error",
        "too deep", "forged http"])
def test_the_report_never_shows_a_traceback_or_a_raw_control_character(tmp_path, text):
    path = tmp_path / "forged.jsonl"
    path.write_text(text)
    done = report(path)
    said = done.stdout + done.stderr
    assert done.returncode in (0, 1, 2) and "Traceback" not in said, said
    assert "\x1b" not in said and "\u202e" not in said


def test_an_id_of_thousands_of_digits_is_reported_in_words_and_exactly_in_json(tmp_path):
    """An integer id of 5,000 digits (the strict reader takes up to 20,000, Python writes 4,300):
    the words give its count of digits, the JSON the id itself."""
    digits = "9" * 5000
    path = tmp_path / "big.jsonl"
    path.write_text(json.dumps({"direction": "to_server",
                                "text": f'{{"jsonrpc": "2.0", "id": {digits}, "method": "ping"}}'}) + "\n")
    said = report(path)
    assert said.returncode == 1 and "Traceback" not in said.stdout + said.stderr, said.stderr
    assert "the client's request <a 5,000-digit integer> (ping) was never answered" in said.stdout
    as_json = report(path, "--json")
    assert "Traceback" not in as_json.stderr, as_json.stderr
    [line] = as_json.stdout.splitlines()
    assert f'"id": {digits}' in line and json.loads(line.replace(digits, "1"))["problem"] == "unanswered"


def test_the_report_reads_no_line_past_its_limit():
    import io

    from mcp_lesson.tap.report import _lines

    lines = _lines(io.BytesIO(b'{"a":1}\n' + b"x" * 20 + b"\n" + b"x" * 50 + b"\n"), 20)
    assert [next(lines), next(lines), next(lines)] == [b'{"a":1}\n', b"x" * 20 + b"\n", None]


# --- the HTTP tap against an attacker (issue 30): each attack, a test ------------------------


def _raw(tap_url, data, keep_open=False):
    """Send raw bytes to the tap's address; the socket (still open when ``keep_open``), else
    what came back until the tap closed the connection."""
    import socket
    import urllib.parse

    where = urllib.parse.urlsplit(tap_url)
    sock = socket.create_connection((where.hostname, where.port), timeout=patience(20))
    line, _, rest = data.partition(b"\r\n")  # the Host a client sends: the tap's own address
    sock.sendall(line + b"\r\nHost: " + where.netloc.encode() + b"\r\n" + rest)
    if keep_open:
        return sock
    got = b""  # until the tap closes the connection (HTTP/1.0 ends an answer so)
    while chunk := sock.recv(65536):
        got += chunk
    sock.close()
    return got


CALL = (b'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"add",'
        b'"arguments":{"a":1,"b":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
        b'"io.modelcontextprotocol/clientCapabilities":{}}}}')
MODERN_CALL_HEADERS = (b"Content-Type: application/json\r\n"
                       b"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n"
                       b"Mcp-Method: tools/call\r\nMcp-Name: add\r\n")


@pytest.mark.full  # the attacker's cases and real SDK runs: the full tier
@pytest.mark.parametrize("unfinished", [
    b"Transfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n" % (len(CALL), CALL),  # no last chunk
    b"Content-Length: %d\r\n\r\n%s" % (len(CALL) + 54, CALL),  # 54 bytes short
], ids=["chunked, no last chunk", "Content-Length, short"])
def test_a_body_its_client_did_not_finish_never_reaches_the_server(tmp_path, http_server, unfinished):
    tap = HttpTapped(tmp_path, http_server.url)
    sock = _raw(tap.url, b"POST /mcp HTTP/1.1\r\n" + MODERN_CALL_HEADERS + unfinished, keep_open=True)
    with http_client() as client:  # the tap goes on meanwhile: a whole request passes
        assert client.post(tap.url, content=CALL, headers={
            "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "add"}).status_code == 200
    sock.close()  # the client goes away without finishing its body
    wait_for(lambda: '"event": "client_gone"' in tap.recording.read_text(), "the tap to record the client gone")
    entries = tap.stop()
    gone = [e for e in entries if e.get("event") == "client_gone"]
    assert len(gone) == 1 and "nothing was passed on" in gone[0]["detail"]
    sent = [e for e in entries if e.get("direction") == "to_server"]
    answers = [e for e in entries if e.get("direction") == "from_server"]
    assert len(sent) == 1 and len(answers) == 1  # only the whole request went on, and was answered


@pytest.mark.full  # the attacker's cases and real SDK runs: the full tier
def test_a_huge_content_length_holds_nothing_and_stops_nothing(tmp_path, http_server):
    tap = HttpTapped(tmp_path, http_server.url)
    sock = _raw(tap.url, b"POST /mcp HTTP/1.1\r\n" + MODERN_CALL_HEADERS +
                b"Content-Length: 100000000000\r\n\r\n" + CALL, keep_open=True)
    with http_client() as client:
        for _ in range(3):  # later requests are answered and recorded
            assert client.post(tap.url, content=CALL, headers={
                "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call",
                "Mcp-Name": "add"}).status_code == 200
        wait_for(lambda: tap.recording.read_text().count('"direction":"from_server"') == 3,
                 "three answers recorded while the huge body waits")
    sock.close()
    entries = tap.stop()
    assert entries[-1]["event"] == "end"
    assert sum(e.get("direction") == "to_server" for e in entries) == 3


@pytest.mark.full  # the attacker's cases and real SDK runs: the full tier
def test_a_body_over_the_tap_s_limit_is_413_and_not_passed_on(tmp_path, http_server):
    from mcp_lesson.tap.http import MAX_BODY

    tap = HttpTapped(tmp_path, http_server.url)
    with http_client() as client:
        answer = client.post(tap.url, content=b" " * (MAX_BODY + 1), headers={"Content-Type": "application/json"})
    assert answer.status_code == 413 and "nothing was passed on" in answer.text
    entries = tap.stop()
    assert [e["event"] for e in entries if e.get("event") == "tap_error"] == ["tap_error"]
    assert not any(e.get("direction") for e in entries)


def test_an_http_1_0_client_gets_no_chunked_answer(tmp_path, http_server):
    """HTTP/1.0 has no chunked encoding: a stream (progress, then the answer) ends with the connection."""
    tap = HttpTapped(tmp_path, http_server.url)
    call = (b'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"count","arguments":{"to":2},'
            b'"_meta":{"progressToken":"p","io.modelcontextprotocol/protocolVersion":"2026-07-28",'
            b'"io.modelcontextprotocol/clientCapabilities":{}}}}')
    headers = MODERN_CALL_HEADERS.replace(b"Mcp-Name: add", b"Mcp-Name: count")
    got = _raw(tap.url, b"POST /mcp HTTP/1.0\r\n" + headers + b"Content-Length: %d\r\n\r\n%s" % (len(call), call))
    head, _, body = got.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200") and b"transfer-encoding" not in head.lower()
    assert body.count(b"notifications/progress") == 2 and b'"id":9' in body
    tap.stop()


@pytest.mark.full  # the attacker's cases and real SDK runs: the full tier
def test_an_answer_that_breaks_off_is_a_tap_error_and_cut_for_the_client(tmp_path):
    """A server that promises 100 bytes and sends 10: the client's answer is cut off too."""
    import socket
    import threading

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)

    def serve():
        conn, _ = listener.accept()
        conn.recv(65536)
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\"")
        conn.close()

    threading.Thread(target=serve, daemon=True).start()
    tap = HttpTapped(tmp_path, f"http://127.0.0.1:{listener.getsockname()[1]}/mcp")
    import httpx

    with http_client() as client, pytest.raises(httpx.HTTPError):
        client.post(tap.url, content=b'{"jsonrpc":"2.0","id":1,"method":"ping"}',
                    headers={"Content-Type": "application/json"}).read()
    entries = tap.stop()
    listener.close()
    errors = [e for e in entries if e.get("event") == "tap_error"]
    assert len(errors) == 1 and errors[0]["detail"].startswith("reading the answer failed")


@pytest.mark.full
def test_a_thousand_requests_at_once_are_all_answered(tmp_path, http_server):
    """The attacker's load: 1,000 concurrent requests (the old tap's queue of 5 lost 204)."""
    import anyio
    import httpx

    tap = HttpTapped(tmp_path, http_server.url)
    with http_client() as client:
        from http_server import open_session

        headers = open_session(client, tap.url)
    statuses = []

    async def one(client, number):
        answer = await client.post(tap.url, headers=headers,
                                   json={"jsonrpc": "2.0", "id": 100 + number, "method": "ping"})
        statuses.append(answer.status_code)

    async def flood():
        limits = httpx.Limits(max_connections=1000)
        async with httpx.AsyncClient(timeout=patience(120), limits=limits, trust_env=False) as client:
            async with anyio.create_task_group() as group:
                for number in range(1000):
                    group.start_soon(one, client, number)

    anyio.run(flood)
    entries = tap.stop()
    errors = [e.get("detail") for e in entries if e.get("event") == "tap_error"]
    assert statuses == [200] * 1000, errors[:5]
    assert sum(e.get("direction") == "from_server" for e in entries) == 1001  # and initialize's
    done = report(tap.recording)
    assert done.returncode == 0, done.stdout[:2000]


@pytest.mark.full  # the attacker's cases and real SDK runs: the full tier
def test_a_client_that_leaves_during_the_answer_is_owed_nothing_there(tmp_path):
    """As the conformance suite's server-sse-multiple-streams does: it reads the first event of
    a stream (the priming event) and cancels it. The request is not the server's fault then:
    not "unanswered", and an answer that still comes later is allowed, as after a cancel."""
    import socket
    import threading

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    go_on = threading.Event()

    def serve():
        conn, _ = listener.accept()
        conn.recv(65536)
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
                     b"e\r\nid: 1\ndata: \n\n\r\n")
        go_on.wait(patience(30))
        answer = b'data: {"jsonrpc":"2.0","id":7,"result":{}}\n\n'
        try:
            conn.sendall(b"%x\r\n%s\r\n0\r\n\r\n" % (len(answer), answer))
        except OSError:
            pass
        conn.close()

    threading.Thread(target=serve, daemon=True).start()
    tap = HttpTapped(tmp_path, f"http://127.0.0.1:{listener.getsockname()[1]}/mcp")
    sock = _raw(tap.url, b"POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n"
                b'{"jsonrpc":"2.0","id":7,"method":"ping"}', keep_open=True)
    got = b""
    while b"id: 1" not in got:  # the head, then the priming event
        more = sock.recv(65536)
        assert more, got
        got += more
    sock.close()
    wait_for(lambda: '"client_gone"' in tap.recording.read_text(), "the tap to see the client gone")
    go_on.set()  # the server answers only now, to a client that is gone
    entries = tap.stop()
    listener.close()
    assert audit(entries) == []
