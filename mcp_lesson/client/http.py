"""An MCP client for any Streamable HTTP server, built on the course's own functions.

The command line (``python -m mcp_lesson.client URL``) is :mod:`.cli`; the same client
over stdio is :mod:`.over_stdio`. From a notebook:
``with connect(url) as client: client.call_tool("add", {"a": 1, "b": 2})``.

Every message is built by ``create_request`` (lesson 02) and ``error_response``
(lesson 04), posted as ``http_request_for`` (lesson 09) says, and every line
that comes back is judged by ``classify_json`` (lesson 03) before it is used.
What the transport asks of a client (2025-11-25 ``basic/transports.mdx``):

* **Two generations.** Up to 2025-11-25, ``initialize`` first; the server's
  ``Mcp-Session-Id`` then goes on every later request, with the revision the
  handshake agreed in ``MCP-Protocol-Version``; ``close`` ends the session with a
  DELETE. With ``revision="2026-07-28"`` there is no handshake and no session:
  each request carries the revision and the client's capabilities in
  ``params._meta`` (and the headers that mirror them), and ``server/discover``
  says who the server is.
* **Answers as JSON or as a stream.** A POST is answered with one JSON object or
  with an SSE stream (:mod:`mcp_lesson.shared.sse`) that may carry the server's requests
  and notifications before the response.
* **Resuming.** A stream that ends before its response is resumed with a GET
  carrying ``Last-Event-ID``, after the ``retry`` the stream asked for (the
  client MUST wait that long), at most :data:`MAX_RESUMES` times in a row.
* **Giving up.** A request with no more of its answer within ``timeout`` is given up: its
  connection is closed (at 2026-07-28 that alone is the cancellation) and, up to
  2025-11-25, ``notifications/cancelled`` is posted for it (never for ``initialize``).
* **The server's requests**, on a POST's stream or on the session's GET stream
  (opened after the handshake; a 405 means the server offers none), are
  answered with a POST: ``ping`` with ``{}``, ``roots/list`` with no roots,
  ``elicitation/create`` (form mode) by accepting with the defaults its schema
  gives, or declining when a required field has none; anything else with
  -32601.

Not here: OAuth (a server that answers 401 is refused with that status), the
2024-11-05 HTTP+SSE transport, and stdio (:mod:`.over_stdio`).
Importing this module imports httpx only when a client is made.
"""

import json
import threading
import time

from mcp_lesson.client.common import (
    HANDSHAKE,
    MAX_MESSAGE,
    TIMEOUT,
    ClientBase,
    ServerError,
    reply_to,
)
from mcp_lesson.core.classification import classify_json
from mcp_lesson.core.messages import create_request
from mcp_lesson.core.transport import HTTP_REVISIONS, STATELESS, http_request_for
from mcp_lesson.exercises.calling import one_line
from mcp_lesson.shared.sse import SSE

#: The wait before resuming a stream that gave no ``retry``, in milliseconds.
DEFAULT_RETRY_MS = 1000
#: Resumptions of one request's stream in a row before the client gives up.
MAX_RESUMES = 5
#: Most characters of a server's text the command line prints on one line.
SHOWN = 200

_PROTOCOL_HEADER = "MCP-Protocol-Version"
_SESSION_HEADER = "Mcp-Session-Id"


class Client(ClientBase):
    """One client of one server at ``url``; see the module. Use :func:`connect`, or ``open`` and ``close``.

    ``headers`` go on every request (an ``Authorization``, say); ``max_message`` is the longest
    answer (or event of a stream) read, in bytes."""

    def __init__(
        self,
        url,
        revision=HANDSHAKE,
        timeout=TIMEOUT,
        on_notification=None,
        listen=True,
        headers=None,
        max_message=MAX_MESSAGE,
    ):
        if revision not in HTTP_REVISIONS:
            raise ValueError(
                f"Streamable HTTP is in the revisions {', '.join(HTTP_REVISIONS)}, "
                f"not in {revision!r}"
            )
        import httpx

        self.url = url
        #: The revision asked for; after the handshake, the one the server agreed.
        self.revision = revision
        #: The ``initialize`` result (or ``server/discover``'s), once open.
        self.server = None
        self.session_id = None
        self.notifications = []
        #: What the server did that the transport does not allow, but the client could go on with.
        self.notes = []
        self._on_notification = on_notification
        self._given = dict(headers or {})
        self.max_message = max_message
        self._listen = listen
        self._timeout = timeout
        from urllib.parse import urlsplit

        # A proxy named in the environment never sits between this machine and its loopback.
        local = urlsplit(url).hostname in ("127.0.0.1", "localhost", "::1")
        self._http = httpx.Client(
            timeout=httpx.Timeout(timeout), follow_redirects=False, trust_env=not local
        )
        self._next_id = 0
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._listening = threading.Event()  # the GET stream was answered (or will never be)
        self._listener = None

    # --- the conversation ---------------------------------------------------------------

    def open(self):
        """The handshake (or, at 2026-07-28, ``server/discover``); then the session's GET stream."""
        self._first_look(HTTP_REVISIONS)
        if self.revision >= STATELESS:
            return self
        if self._listen:
            self._listener = threading.Thread(
                target=self._listen_for_requests,
                daemon=True,
                name="mcp_lesson.client.http GET stream",
            )
            self._listener.start()
            # Wait until the server has answered the GET: a request sent before then could have
            # its stream resumed on the GET stream instead of on the resuming GET.
            self._listening.wait(self._timeout)
        return self

    def request(self, method, params=None):
        """Send a request and return its result; :class:`ServerError` for an error or a broken answer."""
        with self._lock:
            self._next_id += 1
            request_id = self._next_id
        message = create_request(method, self._with_meta(params), request_id=request_id)
        try:
            answer = self._post(message, expect_answer=True)
        except (
            _timeouts()
        ):  # the connection is closed by now: at 2026-07-28 that is the cancellation
            if self.revision < STATELESS:
                self._cancelled(request_id, method, f"no answer within {self._timeout:g} s")
            raise
        if "error" in answer:
            error = answer["error"]
            raise ServerError(f"{method}: error {error.get('code')}: {error.get('message')}", error)
        return answer["result"]

    def notify(self, method, params=None):
        """Send a notification (the server answers 202 and nothing else)."""
        self._post(create_request(method, self._with_meta(params)), expect_answer=False)

    def close(self):
        """Stop listening and end the session (a DELETE; a server may answer 405)."""
        self._closing.set()
        if self.session_id is not None:
            try:
                self._http.delete(self.url, headers=self._headers({}))
            except Exception:
                pass
        self._http.close()
        if self._listener is not None:
            self._listener.join(timeout=1)

    def __enter__(self):
        return self.open()

    def __exit__(self, *exc_info):
        self.close()

    # --- HTTP --------------------------------------------------------------------------

    def _headers(self, headers):
        headers = {**self._given, **headers}
        if self.session_id is not None:
            headers[_SESSION_HEADER] = self.session_id
        if self.server is not None and self.revision >= "2025-06-18":
            headers[_PROTOCOL_HEADER] = self.revision
        return headers

    def _post(self, message, expect_answer):
        post = http_request_for(message, self.revision)
        with self._http.stream(
            "POST",
            self.url,
            headers=self._headers(post["headers"]),
            content=post["body"].encode("utf-8"),
        ) as answer:
            if message.get("method") == "initialize" and _SESSION_HEADER.lower() in answer.headers:
                self.session_id = answer.headers[_SESSION_HEADER.lower()]
            kind = answer.headers.get("content-type", "").split(";")[0].strip().lower()
            if not expect_answer:
                answer.read()
                what = message.get("method", f"the response to {message.get('id')!r}")
                if not 200 <= answer.status_code < 300:
                    raise ServerError(
                        f"{what}: the server answered {answer.status_code}",
                        status=answer.status_code,
                    )
                if answer.status_code != 202:  # taken, but not as the transport says
                    self.notes.append(
                        f"{what}: answered {answer.status_code}, where the transport "
                        "says 202 Accepted"
                    )
                return None
            if kind == "text/event-stream" and answer.status_code == 200:
                return self._read_stream(answer, message["id"])
            body = _read_at_most(answer, self.max_message, message["method"]).decode(
                "utf-8", "replace"
            )
        return self._json_answer(answer.status_code, kind, body, message)

    def _json_answer(self, status, kind, body, message):
        if kind == "application/json":
            verdict, reply = classify_json(body), None
            if verdict == ("response", None):
                reply = json.loads(body)
            if reply is not None and (reply.get("id") in (message["id"], None)):
                if "error" in reply or status == 200:
                    return reply
        words = one_line(body.strip(), SHOWN) or "no body"
        raise ServerError(
            f"{message['method']}: the server answered {status} ({kind or 'no type'}): {words}",
            status=status,
        )

    def _read_stream(self, answer, request_id):
        """Read a POST's stream until the response to ``request_id``, resuming it if it is cut."""
        reader, resumes = SSE(self.max_message), 0
        while True:
            try:
                for chunk in answer.iter_bytes():
                    for data, size, _ in reader.feed(chunk):
                        if size > self.max_message:
                            raise ServerError(
                                f"the stream of request {request_id} carried an event of "
                                f"{size:,} bytes, over the client's limit of "
                                f"{self.max_message:,} (--max-message)"
                            )
                        reply = self._take(data)
                        if reply is not None and reply.get("id") == request_id:
                            return reply
            except _timeouts():
                raise
            except _http_errors():  # a connection cut mid-stream is resumed below
                pass
            answer.close()
            resumes += 1
            if reader.last_id is None or resumes > MAX_RESUMES:
                why = (
                    "gave no event id to resume from"
                    if reader.last_id is None
                    else f"was cut {MAX_RESUMES} times"
                )
                raise ServerError(
                    f"the stream of request {request_id} ended without its response and {why}"
                )
            time.sleep((reader.retry if reader.retry is not None else DEFAULT_RETRY_MS) / 1000)
            answer = self._resume(reader.last_id)
            reader = _carry(reader)

    def _resume(self, last_id):
        headers = self._headers({"Accept": "text/event-stream", "Last-Event-ID": last_id})
        request = self._http.build_request("GET", self.url, headers=headers)
        answer = self._http.send(request, stream=True)
        if answer.status_code != 200:
            answer.read()
            answer.close()
            raise ServerError(
                f"resuming after event {last_id!r}: the server answered {answer.status_code}",
                status=answer.status_code,
            )
        return answer

    def _take(self, data):
        """Judge one message from the server; answer its request; keep its notification; return a response."""
        text = data.decode("utf-8", "replace")
        kind, code = classify_json(text)
        if kind == "response":
            return json.loads(text)
        if kind == "notification":
            message = json.loads(text)
            self.notifications.append(message)
            if self._on_notification is not None:
                self._on_notification(message)
        elif kind == "request":
            self._answer(json.loads(text))
        else:  # a client never answers an invalid message from a server: it notes it, and goes on
            self.notes.append(
                f"the server sent a message that is not valid ({code}): {one_line(text, SHOWN)}"
            )
        return None

    def _answer(self, message):
        try:
            self._post(reply_to(message), expect_answer=False)
        except ServerError:
            pass  # the server refused the answer: nothing more a client can do for it

    def _listen_for_requests(self):
        """The session's GET stream: the server's requests and notifications outside any POST."""
        try:
            self._listen_until_closed()
        finally:
            self._listening.set()

    def _listen_until_closed(self):
        reader, last_id = SSE(self.max_message), None
        while not self._closing.is_set():
            headers = self._headers(
                {"Accept": "text/event-stream", **({"Last-Event-ID": last_id} if last_id else {})}
            )
            try:
                with self._http.stream("GET", self.url, headers=headers) as answer:
                    self._listening.set()
                    if answer.status_code != 200:
                        return  # 405: the server offers no GET stream
                    for chunk in answer.iter_bytes():
                        for data, size, _ in reader.feed(chunk):
                            if size <= self.max_message:
                                self._take(data)
                            else:
                                self.notes.append(
                                    f"the GET stream carried an event of {size:,} bytes, "
                                    "left unread"
                                )
            except Exception:
                if self._closing.is_set():
                    return
            last_id = reader.last_id
            if last_id is None or self._closing.wait((reader.retry or DEFAULT_RETRY_MS) / 1000):
                return
            reader = _carry(reader)


def _http_errors():
    """The exceptions httpx raises for a connection or a stream that failed."""
    import httpx

    return (httpx.HTTPError, httpx.StreamError)


def _timeouts():
    """The exceptions httpx raises for an answer that did not come in time."""
    import httpx

    return (httpx.TimeoutException,)


def _read_at_most(answer, limit, what):
    """The body of ``answer``, or :class:`ServerError` when it is longer than ``limit`` bytes."""
    body = bytearray()
    for chunk in answer.iter_bytes():
        body += chunk
        if len(body) > limit:
            raise ServerError(
                f"{what}: the answer is longer than the client's limit of {limit:,} bytes "
                "(--max-message)",
                status=answer.status_code,
            )
    return bytes(body)


def _carry(reader):
    """A reader for the next connection of the same stream: it keeps the last id and the retry."""
    fresh = SSE(reader.max_data)
    fresh.last_id, fresh.retry = reader.last_id, reader.retry
    return fresh


def connect(url, revision=HANDSHAKE, **options):
    """A :class:`Client` of ``url``, not yet open: use it in a ``with`` block, which opens and closes it."""
    return Client(url, revision, **options)
