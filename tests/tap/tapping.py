"""What the tap's tests share: the commands, the messages, a tap run as the test's own
process (:class:`Tapped`), and ``--report`` run on a recording.

:func:`processes.start_guarded` runs each tap, so nothing outlives the test run; the guard
keeps stdin for itself, so the client's side reaches the tap through a pipe the shell opens
by name (``sh -c 'exec "$@" < /proc/PID/fd/N'``). Every wait polls, with a limit scaled by
:func:`processes.patience`; no test waits a fixed time.
"""

import base64
import json
import os
import select
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

from processes import live_processes, patience, run_to_end, start_guarded

from mcp_lesson.tap._settings import GRACE

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable
TAP = [PY, "-m", "mcp_lesson.tap"]
COURSE_SERVER = [PY, "-m", "mcp_lesson.server"]
SLOPPY_SERVER = [PY, "-m", "mcp_lesson.server.sloppy"]


#: A server that says back every byte it reads, as it reads it.
ECHO = [
    PY,
    "-c",
    "import os\nwhile True:\n    data = os.read(0, 65536)\n    if not data: break\n"
    "    os.write(1, data)\n",
]


INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "test-tap", "version": "1.0"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


#: Runs argv[2:] with files limited to argv[1] bytes (RLIMIT_FSIZE): a write past it fails
#: with EFBIG, as one on a full disk fails with ENOSPC (Python ignores SIGXFSZ).
LIMITED = (
    "import os, resource, sys\n"
    "resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[1]), resource.RLIM_INFINITY))\n"
    "os.execv(sys.argv[2], sys.argv[2:])\n"
)


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
        if "--grace" not in options:  # the tap's grace, as long as every other wait here
            options = ("--grace", f"{patience(GRACE):g}", *options)
        tap = [*TAP, "--record", str(self.recording), *options, "--", *command]
        if (
            file_limit is not None
        ):  # no file of the tap's may grow past file_limit bytes (a full disk)
            tap = [PY, "-c", LIMITED, str(file_limit), *tap]
        self.proc = start_guarded(
            ["sh", "-c", 'exec "$@" < "$0"', stdin, *tap],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=ROOT,
        )
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
                    view = view[os.write(self._input, view) :]
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
        return self.read_until(
            lambda out: out.count(b"\n") >= count, limit, f"{count} lines"
        ).splitlines()[:count]

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
        return [
            entry
            for entry in self.entries()
            if "direction" in entry and direction in (None, entry["direction"])
        ]

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


# --- small recordings, written as the tap records them -----------------------------------


def up(message, **extra):
    return {"direction": "to_server", "text": json.dumps(message), **extra}


def down(message, **extra):
    return {"direction": "from_server", "text": json.dumps(message), **extra}


def init(revision="2025-06-18", client=None, server=None):
    return [
        up(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": revision,
                    "capabilities": client or {},
                    "clientInfo": {"name": "c", "version": "1"},
                },
            }
        ),
        down(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "result": {
                    "protocolVersion": revision,
                    "capabilities": server or {},
                    "serverInfo": {"name": "s", "version": "1"},
                },
            }
        ),
        up({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ]
