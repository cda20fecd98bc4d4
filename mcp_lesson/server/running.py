"""The course's calculator over HTTP, for a notebook or a test: start it, find it, stop it.

:class:`HttpServer` runs ``python -m mcp_lesson.server --http --port 0`` (the
system picks a free port), waits until the server writes the line
``listening on http://127.0.0.1:PORT/mcp`` to its stderr, and gives that
address as :attr:`HttpServer.url`. Then any HTTP client can talk to it;
``httpx``, which the SDK brings, is the one the course uses.
:meth:`HttpServer.stop` ends the server (SIGTERM to its process group,
SIGKILL after :data:`STOP_TIMEOUT` seconds) and waits until nothing listens
on its port. It is a context manager; ``stop`` is safe to call twice; a
server still running when Python exits is stopped then.

Its stderr (the SDK's warnings, such as "Invalid Origin header") is read all
the time, so that a chatty server never blocks on a full pipe, and only its
last :data:`KEEP_STDERR_LINES` lines are kept (:meth:`HttpServer.stderr_text`).

    >>> from mcp_lesson.server.running import HttpServer
    >>> with HttpServer() as server:                         # doctest: +SKIP
    ...     httpx.post(server.url, headers=..., json=...)

Importing this module starts nothing and imports neither the SDK nor httpx.
"""

import atexit
import collections
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse

from mcp_lesson.server.calculator import HTTP_HOST
from mcp_lesson.shared.processes import signal_group as _signal_group

#: The command that serves the calculator over HTTP on a free port.
DEFAULT_COMMAND = (sys.executable, "-m", "mcp_lesson.server", "--http", "--port", "0")
#: Longest wait, in seconds, for the server to announce its address.
START_TIMEOUT = 30.0
#: Longest wait, in seconds, for the server to end after SIGTERM (then SIGKILL).
STOP_TIMEOUT = 10.0
#: How many of the last lines of the server's stderr are kept.
KEEP_STDERR_LINES = 200
#: The start of the line that gives the server's address.
ANNOUNCEMENT = "listening on "

_LIVE: set = set()  # servers started and not yet stopped, for the atexit hook
_LIVE_LOCK = threading.Lock()


class ServerError(RuntimeError):
    """The server did not start, or did not tell its address in time."""


def port_is_free(port, host=HTTP_HOST):
    """Whether nothing listens on ``host:port``: a new socket can bind it.

    ``SO_REUSEADDR`` lets the bind pass over connections of the server's that
    are only waiting out TCP's ``TIME_WAIT``; it never passes a listening socket.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return False
        return True


class HttpServer:
    """``python -m mcp_lesson.server --http --port 0``, started and its address read.

    ``command`` replaces the default one (it must announce its address the
    same way); ``start`` is how it is started: a function taking the command
    and ``subprocess.Popen``'s keyword arguments and returning a ``Popen``
    (tests pass their guard, ``tests/processes.start_guarded``). The server
    runs in a session (and process group) of its own. ``timeout`` bounds the
    wait for its address; ``cwd`` is the folder it starts in; ``announcement`` the words its
    address follows on stderr (the HTTP tap: ``mcp_lesson.tap: listening on ``).
    """

    def __init__(
        self,
        command=DEFAULT_COMMAND,
        timeout=START_TIMEOUT,
        start=None,
        cwd=None,
        announcement=ANNOUNCEMENT,
    ):
        self.command = list(command)
        self._announcement = announcement
        self.url = None
        self.port = None
        self._stderr = collections.deque(maxlen=KEEP_STDERR_LINES)
        self._announced = threading.Event()
        start = start or subprocess.Popen
        self._process = start(
            self.command,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
            cwd=cwd,
        )
        with _LIVE_LOCK:
            _LIVE.add(self)
        self._reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._reader.start()
        try:
            self._wait_for_address(timeout)
        except BaseException:
            self.stop()
            raise

    def _read_stderr(self):
        for raw in self._process.stderr:
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            self._stderr.append(line)
            if self.url is None and line.startswith(self._announcement):
                said = line[
                    len(self._announcement) :
                ].split()  # the address, and maybe words after it
                self.url = said[0] if said else ""
                self.port = urllib.parse.urlsplit(self.url).port
                self._announced.set()
        self._announced.set()  # stderr closed: the server is gone, stop waiting

    def _wait_for_address(self, timeout):
        if not self._announced.wait(timeout) or self.url is None:
            try:  # stderr closed: the process is ending, if it has not yet
                status = self._process.wait(1) if not self._reader.is_alive() else None
            except subprocess.TimeoutExpired:
                status = None
            why = (
                f"it ended with status {status}"
                if status is not None
                else f"it gave no address within {timeout:g} seconds"
            )
            raise ServerError(f"the HTTP server did not start: {why}\n{self.stderr_text()}")

    @property
    def running(self):
        """Whether the server process is still running."""
        return self._process.poll() is None

    @property
    def pgid(self):
        """The server's process group (and session): the process started leads it."""
        return self._process.pid

    def wait(self, timeout=None):
        """Wait until the process ends (``subprocess.TimeoutExpired`` after ``timeout`` seconds); its status."""
        return self._process.wait(timeout)

    @property
    def returncode(self):
        """The server's exit status once it ended (negative: the signal that ended it), else None."""
        return self._process.poll()

    def stderr_text(self):
        """The last lines the server wrote to its stderr."""
        return "\n".join(self._stderr)

    def stop(self, timeout=STOP_TIMEOUT):
        """End the server and its process group, then wait until its port is free.

        SIGTERM first (the server shuts down in order), SIGKILL after
        ``timeout`` seconds. Safe to call twice.
        """
        with _LIVE_LOCK:
            _LIVE.discard(self)
        process = self._process
        if process.poll() is None:
            _signal_group(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                _signal_group(process.pid, signal.SIGKILL)
                process.wait(timeout)
        _signal_group(process.pid, signal.SIGKILL)  # whatever the server left in its group
        end = getattr(process, "end", None)  # a guard's own clean-up (tests/processes.py)
        if end is not None:
            end()
        self._reader.join(timeout)
        if process.stderr is not None:
            process.stderr.close()
        if self.port is not None:
            deadline = time.monotonic() + timeout
            while not port_is_free(self.port) and time.monotonic() < deadline:
                time.sleep(0.05)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.stop()
        return None

    def __repr__(self):
        state = "running" if self.running else f"ended ({self.returncode})"
        return f"<HttpServer {self.url or '(no address)'} {state}>"


def stop_all():
    """Stop every HTTP server this process started (the ``atexit`` hook)."""
    with _LIVE_LOCK:
        servers = list(_LIVE)
    for server in servers:
        server.stop()


atexit.register(stop_all)
