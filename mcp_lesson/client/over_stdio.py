"""The course's client over stdio: the server a subprocess (:class:`.stdio.StdioServer`, which
bounds every wait and ends the server's whole process tree), one JSON-RPC message a line.

``with StdioClient(["uvx", "mcp-server-time"]) as client: client.list_tools()``. The same
first look as over HTTP (:class:`.common.ClientBase`): the handshake (or, at 2026-07-28,
``server/discover`` with every request's ``_meta``), the lists, the calls. The server's
requests that come while the client waits for an answer are answered as over HTTP
(:func:`.common.reply_to`), its notifications kept, and a line that is no valid message
noted, never answered. A line longer than ``max_message`` bytes is refused (the rest of it
read and dropped); a request with no answer within ``timeout`` is cancelled
(``notifications/cancelled``), and a late answer to it passed over.
"""

import json

from mcp_lesson.client.common import (
    HANDSHAKE,
    MAX_MESSAGE,
    TIMEOUT,
    ClientBase,
    ServerError,
    reply_to,
)
from mcp_lesson.client.stdio import LongLine, StdioServer
from mcp_lesson.core.classification import classify_json
from mcp_lesson.core.messages import create_request
from mcp_lesson.exercises.calling import one_line
from mcp_lesson.protocol.revisions import REVISIONS
from mcp_lesson.shared.stdio_lines import ServerError as LineError

#: Most characters of a server's line kept in a note.
SHOWN = 200


class StdioClient(ClientBase):
    """One client of the server that ``command`` starts; see the module. ``timeout`` is how long
    it waits for the server's next line while an answer is owed; ``env`` adds variables to the
    server's environment."""

    def __init__(
        self,
        command,
        revision=HANDSHAKE,
        timeout=TIMEOUT,
        on_notification=None,
        max_message=MAX_MESSAGE,
        env=None,
    ):
        if revision not in REVISIONS:
            raise ValueError(f"the revisions are {', '.join(REVISIONS)}, not {revision!r}")
        if not command:
            raise ValueError("a command to start the server is needed")
        self.command = list(command)
        self.revision = revision
        self.server = None
        self.notifications = []
        self.notes = []
        self._timeout = timeout
        self._on_notification = on_notification
        self.max_message = max_message
        self._process = StdioServer(
            self.command, timeout=timeout, revision=revision, max_line=max_message, env=env
        )
        self._next_id = 0
        self._given_up = set()  # ids of the requests cancelled: a late answer to one is passed over

    def open(self):
        """Start the server; then the handshake (or, at 2026-07-28, ``server/discover``)."""
        try:
            self._process.start()
        except OSError as exc:
            raise ServerError(f"cannot start {self.command[0]}: {exc.strerror or exc}") from None
        self._first_look(REVISIONS)
        return self

    def request(self, method, params=None):
        """Send a request and return its result; :class:`ServerError` for an error, for no answer
        within the timeout, or for a server that ended."""
        self._next_id += 1
        request_id = self._next_id
        self._send(create_request(method, self._with_meta(params), request_id=request_id))
        while True:
            line = self._process.read_line(self._timeout)
            if line is None:
                if self._process.at_eof or not self._process.running:
                    why = "the server ended before it answered"
                else:
                    why = (
                        f"no answer within --timeout {self._timeout:g} s (the server is still running; "
                        "the request was cancelled)"
                    )
                    self._given_up.add(request_id)
                    self._cancelled(request_id, method, f"no answer within {self._timeout:g} s")
                raise ServerError(f"{method}: {why}{self._last_words()}")
            if isinstance(line, LongLine):
                raise ServerError(
                    f"{method}: the server wrote a line of {line.size:,} bytes, over the "
                    f"client's limit of {self.max_message:,} (--max-message)"
                )
            answer = self._take(line)
            if answer is not None and type(answer.get("id")) is int and answer["id"] == request_id:
                if "error" in answer:
                    error = answer["error"]
                    raise ServerError(
                        f"{method}: error {error.get('code')}: {error.get('message')}", error
                    )
                return answer["result"]
            if answer is not None and answer.get("id") not in self._given_up:
                self.notes.append(
                    f"an answer to the id {json.dumps(answer.get('id'))}, which the client "
                    "is not waiting for"
                )

    def notify(self, method, params=None):
        self._send(create_request(method, self._with_meta(params)))

    def close(self):
        """End the server (its input closed, then its whole process tree)."""
        self._process.stop()

    def __enter__(self):
        try:
            return self.open()
        except BaseException:
            self.close()
            raise

    def __exit__(self, *exc_info):
        self.close()

    def _send(self, message):
        try:
            self._process.send(message)
        except LineError as exc:
            raise ServerError(f"{message.get('method', 'an answer')}: {exc}") from None

    def _take(self, line):
        """A response (as a dict) for the caller; a notification kept, a request answered, a
        line that is no valid message noted; None for all but a response."""
        kind, code = classify_json(line)
        if kind == "response":
            return json.loads(line)
        if kind == "notification":
            message = json.loads(line)
            self.notifications.append(message)
            if self._on_notification is not None:
                self._on_notification(message)
        elif kind == "request":
            self._send(reply_to(json.loads(line)))
        else:
            self.notes.append(
                f"the server wrote a line that is no valid message ({code}): "
                f"{one_line(line, SHOWN)}"
            )
        return None

    def _last_words(self):
        """What the server said that may tell why: its last line that was no message, its stderr's end."""
        said = one_line(self._process.stderr_text(400).strip()[-SHOWN:], SHOWN)
        words = f"; {self.notes[-1]}" if self.notes else ""
        return words + (f"; its stderr ends: {said}" if said else "")


def connect_stdio(command, revision=HANDSHAKE, **options):
    """A :class:`StdioClient` of the server ``command`` starts, not yet open: use it in a ``with``
    block, which starts it and ends it."""
    return StdioClient(command, revision, **options)
