"""A tiny line-based client for an MCP server started as a subprocess over stdio.

MCP's stdio transport is plain: the client writes one JSON message per line to
the server's stdin and reads one per line from its stdout. This module does
only that, with two guarantees a lesson needs:

* **every read has a timeout**, so a server that stays silent (as real servers
  do for some bad messages) can never hang a notebook or a test;
* **the server always stops**: :class:`StdioServer` is a context manager,
  :meth:`StdioServer.stop` is safe to call twice, and every server still
  running when Python exits is stopped by an ``atexit`` hook.

The server's stderr (its logs) goes to a private temporary file, never into a
notebook's output; :meth:`StdioServer.stderr_text` reads it when needed.

    >>> from mcp_lesson.stdio_client import StdioServer
    >>> with StdioServer() as server:                      # doctest: +SKIP
    ...     reply = server.request(create_request("ping", request_id=1))
"""

import atexit
import itertools
import json
import queue
import subprocess
import sys
import tempfile
import threading
import time

from .classification import classify, parse
from .messages import is_integer, is_valid_id

#: The course's calculator server (``mcp_lesson/server.py``).
DEFAULT_COMMAND = (sys.executable, "-m", "mcp_lesson.server")
#: Longest wait, in seconds, for a reply that must come (server start included).
REPLY_TIMEOUT = 15.0
#: How long to keep listening, in seconds, after the follow-up ping is answered.
GRACE = 0.5

_EOF = object()
_LIVE = set()  # servers started and not yet stopped, for the atexit hook
_LIVE_LOCK = threading.Lock()


class ServerError(RuntimeError):
    """The server did not answer in time, or it is not running."""


def wire_text(message):
    """The line :meth:`StdioServer.send` writes for ``message`` (without the newline).

    Text is sent as it is; anything else as compact JSON (no spaces), the way
    most MCP programs write it.
    """
    if isinstance(message, str):
        return message
    return json.dumps(message, separators=(",", ":"))


def same_id(a, b):
    """True when two JSON-RPC ids are the same id: same type, same value.

    Python says ``1 == True`` and ``1 == 1.0``; JSON-RPC does not, so a bool or
    a float never matches, and the string ``"1"`` is not the integer ``1``.
    """
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    return is_integer(a) and is_integer(b) and a == b


def reply_id(line):
    """The id of a response line, or None (for other lines, or text that is not JSON)."""
    value, _ = parse(line)
    if isinstance(value, dict) and "method" not in value:
        return value.get("id")
    return None


class StdioServer:
    """One server subprocess, spoken to line by line.

    ``command`` is the program to start (by default the course's calculator).
    Lines are read by a background thread into a queue, so :meth:`read_line`
    can wait with a timeout.
    """

    def __init__(self, command=DEFAULT_COMMAND, *, timeout=REPLY_TIMEOUT, grace=GRACE, stop_timeout=3.0):
        self.command = list(command)
        self.timeout = timeout
        self.grace = grace
        self.stop_timeout = stop_timeout
        self.process = None
        self.sent = []  # every line written, in order
        self.received = []  # every line read, in order
        self._lines = queue.Queue()
        self._stderr = None
        self._stderr_tail = ""
        self._probe_ids = itertools.count(1)
        self.at_eof = False  # True once the server has closed its stdout

    # --- life cycle -------------------------------------------------------

    def start(self):
        """Start the subprocess (once); return ``self`` so ``StdioServer().start()`` reads well."""
        if self.process is not None:
            return self
        self._stderr = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            self.command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            close_fds=True,
        )
        with _LIVE_LOCK:
            _LIVE.add(self)
        reader = threading.Thread(target=self._read_stdout, name="stdio-reader", daemon=True)
        reader.start()
        return self

    def _read_stdout(self):
        stream = self.process.stdout
        try:
            for raw in iter(stream.readline, b""):
                self._lines.put(raw.decode("utf-8", errors="replace").rstrip("\r\n"))
        except (OSError, ValueError):
            pass
        finally:
            self._lines.put(_EOF)

    @property
    def running(self):
        """True while the subprocess is alive."""
        return self.process is not None and self.process.poll() is None

    def stop(self, timeout=None):
        """Stop the server and return its exit code; safe to call again.

        First the polite way (close its stdin: an MCP stdio server exits at end
        of input), then ``terminate``, then ``kill``, waiting up to ``timeout``
        seconds (default: ``stop_timeout``) after each of the first two.
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
                    process.terminate()
                    try:
                        process.wait(timeout)
                    except subprocess.TimeoutExpired:
                        process.kill()
                        process.wait()
        finally:
            self._stderr_tail = self.stderr_text()
            for stream in (process.stdin, process.stdout, self._stderr):
                try:
                    stream.close()
                except (OSError, ValueError, AttributeError):
                    pass
            with _LIVE_LOCK:
                _LIVE.discard(self)
        return process.returncode

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc_info):
        self.stop()
        return False

    def stderr_text(self, limit=4000):
        """The end of what the server wrote to stderr (its logs), for debugging."""
        if self._stderr is None or self._stderr.closed:
            return self._stderr_tail[-limit:]
        try:
            self._stderr.flush()
            self._stderr.seek(0)
            data = self._stderr.read()
        except (OSError, ValueError):
            return ""
        return data[-limit:].decode("utf-8", errors="replace")

    # --- writing and reading ---------------------------------------------

    def send(self, message):
        """Write one line and return it.

        A ``str`` or ``bytes`` is sent as it is (so a lesson can send text that
        is not JSON); anything else is written as compact JSON. A newline in the
        text would split it into two lines on the wire, so it is refused.
        """
        if self.process is None:
            raise ServerError("the server is not started: call start() first")
        if isinstance(message, (bytes, bytearray)):
            data = bytes(message)
        else:
            data = wire_text(message).encode("utf-8", errors="surrogatepass")
        if b"\n" in data or b"\r" in data:
            raise ValueError("one message is one line: the text must not contain a line break")
        try:
            self.process.stdin.write(data + b"\n")
            self.process.stdin.flush()
        except (OSError, ValueError) as exc:
            raise ServerError(f"the server is not reading any more ({exc.__class__.__name__})") from None
        line = data.decode("utf-8", errors="replace")
        self.sent.append(line)
        return line

    def read_line(self, timeout=None):
        """The next line from the server, or None after ``timeout`` seconds or at end of output."""
        timeout = self.timeout if timeout is None else timeout
        try:
            line = self._lines.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return None
        if line is _EOF:
            self._lines.put(_EOF)  # stay at end of output for later reads
            self.at_eof = True
            return None
        self.received.append(line)
        return line

    def _read_until(self, done, timeout):
        """Read lines until ``done(lines)`` is true or ``timeout`` runs out; return them."""
        lines = []
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
        return lines

    def request(self, message, timeout=None):
        """Send a request and return its reply line (the one with the same id).

        Lines that arrive first and are not the reply (say, a notification from
        the server) are kept in :attr:`received`. Raises :class:`ServerError`
        when no reply comes within ``timeout`` seconds.
        """
        request_id = message.get("id") if isinstance(message, dict) else None
        if classify(message)[0] != "request":
            raise ValueError("request() is for requests; use probe() to send anything else")
        self.send(message)
        timeout = self.timeout if timeout is None else timeout
        lines = self._read_until(
            lambda got: bool(got) and same_id(reply_id(got[-1]), request_id), timeout
        )
        if lines and same_id(reply_id(lines[-1]), request_id):
            return lines[-1]
        state = "still running" if self.running else f"exited with code {self.process.poll()}"
        raise ServerError(
            f"no reply with id {json.dumps(request_id)} within {timeout:g} s (the server is {state})"
        )

    def probe(self, message, grace=None):
        """Send anything, and return the list of lines the server sends back for it.

        An empty list means the server stayed silent. Silence cannot be seen
        directly, so the probe proves it: right after ``message`` it sends a
        ``ping`` request and reads until the ping's reply arrives (the server
        reads its input in order, so by then it has read ``message``; but it
        handles requests concurrently, so replies may come out of order), then
        listens ``grace`` seconds more for a late answer. When ``message`` has
        a method and a string or integer id, the probe waits for the reply
        with that id instead (up to the timeout): the SDK answers such a
        message, with a result or an error, even where this package would call
        it invalid (``"params": null``).
        A line already on its way before the probe (a late reply to an earlier
        request) would be counted too, so await every request before probing.
        """
        grace = self.grace if grace is None else grace
        owed = _owed_id(message)
        self.send(message)
        ping_id = f"probe-{next(self._probe_ids)}"
        self.send({"jsonrpc": "2.0", "id": ping_id, "method": "ping"})

        def answered(lines):
            ids = [reply_id(line) for line in lines]
            pinged = any(same_id(i, ping_id) for i in ids)
            return pinged and (owed is None or any(same_id(i, owed) for i in ids))

        lines = self._read_until(answered, self.timeout)
        if not any(same_id(reply_id(line), ping_id) for line in lines):
            raise ServerError(f"the server did not answer the follow-up ping within {self.timeout:g} s")
        if owed is None:  # a valid request is owed one reply, and it came: no need to wait
            lines += self._read_until(lambda got: False, grace)
        return [line for line in lines if not same_id(reply_id(line), ping_id)]


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
