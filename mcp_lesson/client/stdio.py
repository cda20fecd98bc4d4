"""A tiny line-based client for an MCP server started as a subprocess over stdio.

MCP's stdio transport is plain: the client writes one JSON message per line to
the server's stdin and reads one per line from its stdout. This module does
only that, with the guarantees a lesson needs, so that no server, however
badly it behaves, can hang a notebook or a test, or fill its memory:

* **every read and every write has a deadline**: a server that stays silent
  (as real servers do for some bad messages), or that stops reading its input,
  makes a call fail with :class:`ServerError` after ``timeout`` seconds;
* **the server always stops, with everything it started**: the server runs in
  a process group of its own, and :meth:`StdioServer.stop` ends the whole
  process tree (a wrapper such as ``sh -c``, npx or uvx leaves grandchildren
  behind): the group, every descendant, and every process that carries the
  server's mark in its environment, so a grandchild that left the group with
  ``setsid`` and lost its parent is found too. It never waits on a grandchild
  that still holds the server's stdout open. :class:`StdioServer` is a context
  manager, ``stop`` is safe to call twice, and every server still running when
  Python exits is stopped by an ``atexit`` hook;
* **what is kept is bounded**: :attr:`StdioServer.received` and
  :attr:`StdioServer.sent` keep the last :data:`KEEP_LINES` lines (at most
  :data:`KEEP_CHARS` characters) and count the ones they dropped; at most
  :data:`READ_AHEAD` unread lines wait in memory (then the server waits, as
  a pipe makes it), and a line longer than ``max_line`` (by default
  :data:`MAX_LINE_BYTES`) is cut, and comes as a :class:`LongLine`;
  the server's stderr (its logs) is read all the time, never into a
  notebook's output, and only its first :data:`STDERR_HEAD_BYTES` and last
  :data:`STDERR_TAIL_BYTES` bytes are kept, in memory (nothing goes to disk):
  :meth:`StdioServer.stderr_text` shows them, :attr:`StdioServer.stderr_dropped`
  counts the bytes between, read and dropped;
* **a message that is not JSON is refused before anything is written**: one
  that cannot be written as JSON (an integer of more than 4,300 digits, a
  ``set``, a dict that holds itself) raises :class:`ServerError`, and the
  server never sees a piece of it.

The client uses POSIX process groups and ``poll``: it runs on Linux and macOS.
On Linux the processes of a server's tree are found through ``/proc``;
elsewhere through ``psutil`` when it is installed, and without it only the
server's process group is ended.

    >>> from mcp_lesson.client.stdio import StdioServer
    >>> with StdioServer() as server:                      # doctest: +SKIP
    ...     reply = server.request(create_request("ping", request_id=1))

The lines it reads and keeps are :mod:`mcp_lesson.shared.stdio_lines`; how it finds the
processes a server started is :mod:`mcp_lesson.shared.process_tree`.
"""

import atexit
import itertools
import json
import os
import queue
import re
import select
import signal
import subprocess
import sys
import threading
import time
import uuid

from mcp_lesson.rules.classification import classify, parse
from mcp_lesson.rules.messages import is_valid_id
from mcp_lesson.shared.process_tree import server_tree
from mcp_lesson.shared.processes import signal_group
from mcp_lesson.shared.stdio_lines import (  # noqa: F401  (the lines' names, at their old address too)
    KEEP_CHARS,
    KEEP_LINES,
    POLL_SECONDS,
    STDERR_HEAD_BYTES,
    STDERR_TAIL_BYTES,
    BoundedLog,
    RecentLines,
    ServerError,
    json_line,
    ready,
    reply_id,
    same_id,
    wire_text,
)

#: The course's calculator server (``mcp_lesson/server/calculator.py``).
DEFAULT_COMMAND = (sys.executable, "-m", "mcp_lesson.server")
#: Longest wait, in seconds, for a reply that must come (server start included),
#: and for the server to take in a line written to it.
REPLY_TIMEOUT = 15.0
#: How long to keep listening, in seconds, after the probe's follow-up is answered.
GRACE = 0.5


#: Longest line, in bytes, read from the server; the rest of a longer line is dropped.
MAX_LINE_BYTES = 1 << 20
#: How many lines may wait, read but not yet asked for; then reading pauses until one is taken.
READ_AHEAD = 16


class LongLine(str):
    """A line longer than the reader's limit, cut to it: :attr:`size` is the whole line's, in bytes."""

    size = 0


#: The start of the name of the environment variable that marks every process
#: a server starts (the rest of the name is unique to that server).
MARK_PREFIX = "MCP_LESSON_STDIO_SERVER_"
#: The first revision with no ``ping`` (stateless MCP): :meth:`StdioServer.probe`
#: follows up with ``server/discover`` from this revision on.
STATELESS_SINCE = "2026-07-28"


_REVISION = re.compile(r"\d{4}-\d{2}-\d{2}")
_LIVE: set["StdioServer"] = set()  # servers started and not yet stopped, for the atexit hook
_LIVE_LOCK = threading.Lock()


class StdioServer:
    """One server subprocess, spoken to line by line.

    ``command`` is the program to start (by default the course's calculator).
    ``timeout`` bounds each wait for a reply and each write; ``revision``
    (``None``, or a protocol revision such as ``"2025-11-25"``) only tells
    :meth:`probe` how to follow up: from :data:`STATELESS_SINCE` on there is
    no ``ping``. ``max_line`` is the longest line read whole, in bytes; ``env``
    holds variables added to the server's environment. Lines are read by a background thread into a small queue, so
    :meth:`read_line` can wait with a timeout.
    """

    def __init__(
        self,
        command=DEFAULT_COMMAND,
        *,
        timeout=REPLY_TIMEOUT,
        grace=GRACE,
        stop_timeout=3.0,
        revision=None,
        max_line=MAX_LINE_BYTES,
        env=None,
    ):
        if revision is not None and not (
            isinstance(revision, str) and _REVISION.fullmatch(revision)
        ):
            raise ValueError(
                f"revision must be None or a date such as {STATELESS_SINCE!r}, not {revision!r}"
            )
        self.command = list(command)
        self.timeout = timeout
        self.grace = grace
        self.stop_timeout = stop_timeout
        self.revision = revision
        self.max_line = max_line
        self.env = dict(env or {})
        self.process = None
        self.sent = RecentLines()  # the latest lines written, in order
        self.received = RecentLines()  # the latest lines read, in order
        self.cut_lines = 0  # lines longer than max_line, read cut short
        self.at_eof = (
            False  # True once the server closed its stdout (or the client stopped reading)
        )
        self._lines = queue.Queue(maxsize=READ_AHEAD)
        self._stopping = threading.Event()
        self._reader_done = threading.Event()
        self._reader = None
        self._broken = None  # why no more lines may be written, once a write was cut off
        self._log = None  # the server's stderr, as far as it is kept
        self._mark = f"{MARK_PREFIX}{uuid.uuid4().hex}"  # in the environment of all it starts
        self._probe_ids = itertools.count(1)

    # --- life cycle -------------------------------------------------------

    def start(self):
        """Start the subprocess (once); return ``self`` so ``StdioServer().start()`` reads well.

        The server leads a new session and process group, so :meth:`stop` can
        end it with all it started, and a Ctrl-C in a terminal reaches the
        client, which then stops it. Its environment is this process's, plus
        a variable of its own (:data:`MARK_PREFIX` and a unique suffix, set
        to ``1``) that every process it starts inherits: :meth:`stop` looks
        for it; and the variables of ``env``.
        """
        if self.process is not None:
            return self
        self.process = subprocess.Popen(
            self.command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            close_fds=True,
            start_new_session=True,
            env={**os.environ, **self.env, self._mark: "1"},
        )
        os.set_blocking(self.process.stdin.fileno(), False)
        with _LIVE_LOCK:
            _LIVE.add(self)
        self._log = BoundedLog(self.process.stderr.fileno())
        self._reader = threading.Thread(target=self._read_stdout, name="stdio-reader", daemon=True)
        self._reader.start()
        return self

    def _read_stdout(self):
        """The reader thread: split the server's output into lines, until end of output or stop.

        It reads the raw descriptor only when ``poll`` says there is something,
        so it never blocks for long and never holds a lock that :meth:`stop` needs.
        """
        fd = self.process.stdout.fileno()
        line, cut = bytearray(), 0

        def take(piece):
            nonlocal cut
            room = self.max_line - len(line)
            line.extend(piece[: max(0, room)])
            cut += max(0, len(piece) - max(0, room))

        try:
            while not self._stopping.is_set():
                if not ready(fd, select.POLLIN, POLL_SECONDS):
                    continue
                chunk = os.read(fd, 1 << 16)
                if not chunk:  # end of output: a last line without a newline still counts
                    if line or cut:
                        self._put(self._finish(line, cut))
                    break
                *whole, rest = chunk.split(b"\n")
                for piece in whole:
                    take(piece)
                    if not self._put(self._finish(line, cut)):
                        return
                    line.clear()
                    cut = 0
                take(rest)
        except (OSError, ValueError):
            pass
        finally:
            self._reader_done.set()

    def _finish(self, line, cut):
        """The text of one line read (``cut`` bytes of it were dropped: then a :class:`LongLine`)."""
        text = line.decode("utf-8", errors="replace").rstrip("\r")
        if not cut:
            return text
        self.cut_lines += 1
        text = LongLine(text)
        text.size = len(line) + cut
        return text

    def _put(self, text):
        """Queue one line, waiting while the queue is full; False when asked to stop."""
        while not self._stopping.is_set():
            try:
                self._lines.put(text, timeout=POLL_SECONDS)
                return True
            except queue.Full:
                continue
        return False

    @property
    def running(self):
        """True while the subprocess is alive."""
        return self.process is not None and self.process.poll() is None

    def stop(self, timeout=None):
        """Stop the server, and every process it started; return its exit code. Safe to call again.

        First the polite way (close its stdin: an MCP stdio server exits at end
        of input), then ``SIGTERM`` to the whole process tree, then
        ``SIGKILL``, waiting up to ``timeout`` seconds (default:
        ``stop_timeout``) after each of the first two, and up to
        ``max(timeout, 5)`` after ``SIGKILL``. The tree is the server's
        process group, every process that carries the server's mark in its
        environment (a grandchild that called ``setsid`` and whose parent
        exited is no longer anyone's descendant, but it still has the mark),
        and every descendant of those; it is looked for again while waiting,
        so a process forked meanwhile is signalled too, and it is signalled
        whenever any of it is left, even after the server itself exited.
        (A process that starts a program with an emptied environment, once it
        is out of the group and its parent is gone, cannot be found.)
        The reader threads are asked to finish (they look every 0.1 s),
        never waited on for a read, so a grandchild that keeps the server's
        stdout or stderr open cannot hold ``stop`` up.
        """
        timeout = self.stop_timeout if timeout is None else timeout
        process = self.process
        if process is None:
            return None
        try:
            if process.poll() is None:
                try:
                    process.stdin.close()
                except OSError:
                    pass
                try:
                    process.wait(timeout)
                except subprocess.TimeoutExpired:
                    pass
            self._end_tree(process, timeout)
        finally:
            self._stopping.set()
            self._reader.join(2 * POLL_SECONDS + 1.0)
            streams = [process.stdin]
            if not self._reader.is_alive():  # never close a descriptor another thread reads
                streams.append(process.stdout)
            if self._log.finish(2 * POLL_SECONDS + 1.0):
                streams.append(process.stderr)
            for stream in streams:
                try:
                    stream.close()
                except (OSError, ValueError, AttributeError):
                    pass
            with _LIVE_LOCK:
                _LIVE.discard(self)
        return process.returncode

    def _end_tree(self, process, timeout):
        """SIGTERM, then SIGKILL, the server's process tree (see :meth:`stop`), until none of it is alive."""
        pgid = process.pid  # the server leads its group (start_new_session)
        mark = f"{self._mark}=1".encode()
        for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, max(timeout, 5.0))):
            signalled = set()  # SIGTERM goes once to each; SIGKILL again at each look
            group_signalled = False
            deadline = time.monotonic() + wait
            while True:
                process.poll()  # reap the leader once it exited, so it does not count
                pids, left = server_tree(pgid, mark)
                if not left:
                    return self._reap(process)
                if not group_signalled or sig == signal.SIGKILL:
                    group_signalled = True
                    signal_group(pgid, sig)
                for pid in pids - signalled:
                    try:
                        os.kill(pid, sig)
                    except (ProcessLookupError, PermissionError):
                        pass
                if sig == signal.SIGTERM:
                    signalled |= pids
                left_time = deadline - time.monotonic()
                if left_time <= 0:
                    break
                time.sleep(min(POLL_SECONDS / 2, left_time))
        return self._reap(process)

    @staticmethod
    def _reap(process):
        if process.poll() is None:
            process.wait()  # SIGKILL cannot be refused

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc_info):
        self.stop()
        return False

    def stderr_text(self, limit=4000):
        """The last ``limit`` characters of what is kept of the server's stderr (its logs).

        What is kept is the first :data:`STDERR_HEAD_BYTES` and the last
        :data:`STDERR_TAIL_BYTES` bytes; when bytes were dropped between them,
        a line in brackets says how many. It is still there after :meth:`stop`.
        """
        return "" if self._log is None else self._log.text()[-limit:]

    @property
    def stderr_dropped(self):
        """How many bytes of the server's stderr were read and dropped (between its start and its end)."""
        return 0 if self._log is None else self._log.dropped

    # --- writing and reading ---------------------------------------------

    def send(self, message, timeout=None):
        """Write one line and return it.

        A ``str`` or ``bytes`` is sent as it is (so a lesson can send text that
        is not JSON); anything else is written as compact JSON. A newline in the
        text would split it into two lines on the wire, so it is refused.
        Raises :class:`ServerError`, before writing anything, when the
        message cannot be written as JSON; and when the server has not taken
        the whole line within ``timeout`` seconds (default: the client's
        ``timeout``).
        A line cut off that way leaves a part of itself in the pipe, so every
        later ``send`` is refused too.
        """
        if self.process is None:
            raise ServerError("the server is not started: call start() first")
        if self._broken:
            raise ServerError(self._broken)
        if isinstance(message, (bytes, bytearray)):
            data = bytes(message)
        else:
            data = json_line(message).encode("utf-8", errors="surrogatepass")
        if b"\n" in data or b"\r" in data:
            raise ValueError("one message is one line: the text must not contain a line break")
        self._write(data + b"\n", self.timeout if timeout is None else timeout)
        line = data.decode("utf-8", errors="replace")
        self.sent.append(line)
        return line

    def _write(self, data, timeout):
        """Write all of ``data`` to the server's stdin within ``timeout`` seconds, or raise ServerError."""
        try:
            fd = self.process.stdin.fileno()
        except ValueError:
            raise ServerError("the server's input is closed (the server was stopped)") from None
        view = memoryview(data)
        deadline = time.monotonic() + timeout
        try:
            while view:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                if ready(fd, select.POLLOUT, left):
                    try:
                        view = view[os.write(fd, view) :]
                    except BlockingIOError:
                        pass
        except OSError as exc:
            raise ServerError(
                f"the server is not reading any more ({exc.__class__.__name__})"
            ) from None
        if not view:
            return
        taken = len(data) - len(view)
        state = "still running" if self.running else f"exited with code {self.process.poll()}"
        if taken:
            self._broken = (
                f"a line was cut off after {taken} of its {len(data)} bytes: the server stopped reading, "
                "so no more lines can be sent; stop() it and start a new one"
            )
        raise ServerError(
            f"the server did not read a {len(data)}-byte line within {timeout:g} s "
            f"(it took {taken} bytes; the server is {state})"
        )

    def read_line(self, timeout=None):
        """The next line from the server, or None after ``timeout`` seconds or at end of output.

        The line is also kept in :attr:`received`. A line longer than
        ``max_line`` comes cut to that length, a :class:`LongLine` (see :attr:`cut_lines`).
        """
        timeout = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            try:
                line = self._lines.get(timeout=max(0.0, min(POLL_SECONDS, left)))
                break
            except queue.Empty:
                if self._reader_done.is_set() and self._lines.empty():
                    self.at_eof = True
                    return None
                if left <= 0:
                    return None
        self.received.append(line)
        return line

    def _read_until(self, done, timeout):
        """Read lines until ``done(lines)`` is true or ``timeout`` runs out; return them.

        ``done`` sees each new line as ``lines[-1]``; at most :data:`KEEP_LINES`
        lines (the latest) are returned, so a flooding server cannot fill memory.
        """
        lines = RecentLines()
        deadline = time.monotonic() + timeout
        while not done(lines):
            left = deadline - time.monotonic()
            if left <= 0:
                break
            line = self.read_line(left)
            if line is None:
                if self.at_eof:
                    break
                continue
            lines.append(line)
        return list(lines)

    def request(self, message, timeout=None):
        """Send a request and return its reply line (the one with the same id).

        Lines that arrive first and are not the reply (say, a notification from
        the server) are kept in :attr:`received`. Raises :class:`ServerError`
        when the request is not written and answered within ``timeout`` seconds.
        """
        request_id = message.get("id") if isinstance(message, dict) else None
        if classify(message)[0] != "request":
            raise ValueError("request() is for requests; use probe() to send anything else")
        timeout = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + timeout
        self.send(message, timeout)
        lines = self._read_until(
            lambda got: bool(got) and same_id(reply_id(got[-1]), request_id),
            deadline - time.monotonic(),
        )
        if lines and same_id(reply_id(lines[-1]), request_id):
            return lines[-1]
        state = "still running" if self.running else f"exited with code {self.process.poll()}"
        raise ServerError(
            f"no reply with id {json.dumps(request_id)} within {timeout:g} s (the server is {state})"
        )

    def follow_up(self, request_id):
        """The request :meth:`probe` sends after a message: one the server must answer.

        A ``ping`` by default; from revision :data:`STATELESS_SINCE` on, which
        has no ping, a ``server/discover`` carrying the ``_meta`` every request
        of that revision needs.
        """
        if self.revision is not None and self.revision >= STATELESS_SINCE:
            meta = {
                "io.modelcontextprotocol/protocolVersion": self.revision,
                "io.modelcontextprotocol/clientCapabilities": {},
            }
            return {
                "jsonrpc": "2.0",
                "id": request_id,
                "method": "server/discover",
                "params": {"_meta": meta},
            }
        return {"jsonrpc": "2.0", "id": request_id, "method": "ping"}

    def probe(self, message, grace=None, await_reply=True):
        """Send anything, and return the list of lines the server sends back for it.

        An empty list means the server stayed silent. Silence cannot be seen
        directly, so the probe proves it: right after ``message`` it sends a
        request the server must answer (see :meth:`follow_up`: a ``ping``, or
        ``server/discover`` for a stateless revision) and reads until that
        reply arrives (the server reads its input in order, so by then it has
        read ``message``; but it handles requests concurrently, so replies may
        come out of order), then listens ``grace`` seconds more for a late
        answer. When ``message`` has a method and a string or integer id, the
        probe waits for the reply with that id instead (up to the timeout):
        the SDK answers such a message, with a result or an error, even where
        this package would call it invalid (``"params": null``).
        With ``await_reply=False`` it does not wait for that reply: a valid
        request the server may drop silently is then probed in about ``grace``
        seconds, not the whole timeout.
        A line already on its way before the probe (a late reply to an earlier
        request) would be counted too, so await every request before probing.
        At most :data:`KEEP_LINES` lines (the latest) are returned.
        """
        grace = self.grace if grace is None else grace
        owed = _owed_id(message) if await_reply else None
        self.send(message)
        follow_up = self.follow_up(f"probe-{next(self._probe_ids)}")
        follow_id = follow_up["id"]
        self.send(follow_up)

        seen = {"follow-up": False, "owed": owed is None}

        def answered(lines):  # looks at each new line once
            if lines:
                got = reply_id(lines[-1])
                seen["follow-up"] = seen["follow-up"] or same_id(got, follow_id)
                seen["owed"] = seen["owed"] or same_id(got, owed)
            return seen["follow-up"] and seen["owed"]

        lines = self._read_until(answered, self.timeout)
        if not seen["follow-up"]:
            raise ServerError(
                f"the server did not answer the follow-up {follow_up['method']} within {self.timeout:g} s"
            )
        if owed is None:  # a valid request is owed one reply, and it came: no need to wait
            lines += self._read_until(lambda got: False, grace)
        return [line for line in lines if not same_id(reply_id(line), follow_id)]


def _owed_id(message):
    """The id a reply to ``message`` will carry, or None when none is owed.

    A message with a method and a string or integer id gets a reply (text is
    parsed first); one with no id, a bad id or no method gets none.
    """
    if isinstance(message, (str, bytes, bytearray)):
        message, reason = parse(message)
        if reason is not None:
            return None
    if isinstance(message, dict) and "method" in message and is_valid_id(message.get("id")):
        return message["id"]
    return None


def live_servers():
    """The servers started by this process and not yet stopped."""
    with _LIVE_LOCK:
        return [server for server in _LIVE if server.running]


def stop_all():
    """Stop every server this process started (the ``atexit`` hook)."""
    with _LIVE_LOCK:
        servers = list(_LIVE)
    for server in servers:
        try:
            server.stop(timeout=1.0)
        except Exception:
            pass


atexit.register(stop_all)
