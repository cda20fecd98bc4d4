"""The HTTP tap: a reverse proxy on 127.0.0.1 in front of a Streamable HTTP server,
recording each message of each POST, GET and event stream (:func:`serve_http`).

uvicorn listens (HTTP parsing with httptools, chunked bodies, keep-alive, HTTP/1.0 and
header limits are its; :mod:`.listener` adds the tap's own touches), and :mod:`.upstream`
passes each request on and streams its answer back, over kept connections. Every
connection has ``TCP_NODELAY``, and an answer with a length leaves with its head in one
write: without them a request through the tap took some 40 ms more than without it. On
a request's way the tap does only what passing it on needs: the request is judged and
recorded once it is on its way to the server (while the server works), and an answer
once it has left for the client. The tap's own part is what it records, and three rules:
a request body its client did not finish is never passed on; a server that cannot be
reached, or whose answer breaks off, is a 502 (or a cut answer) and a ``tap_error``; and
no request body is held past :data:`MAX_BODY`.
"""

import base64
import itertools
import json

from mcp_lesson.shared.sse import SSE
from mcp_lesson.tap._settings import MAX_LINE, PROG, TAIL
from mcp_lesson.tap.answered import Awaited
from mcp_lesson.tap.decoding import Decoder
from mcp_lesson.tap.listener import CORK
from mcp_lesson.tap.stdio import judged, truncated

#: The request headers an HTTP entry records: those of MCP's Streamable HTTP transport, and
#: those that decide the form of the answer.
REQUEST_HEADERS = (
    "host",
    "content-type",
    "accept",
    "origin",
    "mcp-protocol-version",
    "mcp-session-id",
    "mcp-method",
    "mcp-name",
    "last-event-id",
)
#: Headers that belong to one hop (RFC 9110, 7.6.1), or that the tap sets itself; never passed on.
#: (``Host`` is passed on as the client sent it; see :class:`HttpTap`.)
HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "content-length",
    }
)
#: Seconds to reach the server (reading an answer may take as long as the server takes).
CONNECT_TIMEOUT = 10.0
#: Seconds a connection to the server is kept for the next request (below the servers' 5 s).
KEEP_ALIVE = 2.0
#: The longest request body the tap takes (it holds a body whole before passing it on):
#: the longest line a recording keeps whole. A longer one gets 413 from the tap.
MAX_BODY = MAX_LINE
#: The longest answer with a length the tap reads whole before passing it on: past that, an
#: answer passes on as it arrives.
WHOLE = 1 << 20


def _recorded_headers(pairs, names=None):
    found = {}
    for name, value in pairs:
        lower = name.lower()
        if (lower in names) if names else (lower.startswith("mcp-") or lower == "content-type"):
            found[lower] = value
    return found


def _text(value):
    return value.decode("latin-1") if isinstance(value, bytes) else value


class HttpTap:
    """A reverse proxy on 127.0.0.1 in front of a Streamable HTTP MCP server, recording each
    message as the stdio tap does; an ASGI application, served by uvicorn.

    Every request is passed on to ``to`` (same method, path and query, body
    and headers but those of :data:`HOP_BY_HOP`; ``Host`` is the one the
    client sent, so that the server's DNS-rebinding check sees what it would
    see directly; ``Accept-Encoding`` is the client's, and only the client's, so a
    server compresses only for a client that asked), once its body is complete; a client that goes away before
    that is recorded (``client_gone``) and nothing is passed on. Every answer
    comes back as it arrives, status, headers and body; a client that leaves during it is
    recorded too (``client_gone``), unless the answer was whole for it: a POST's stream
    that has carried the response to each of its requests (the SDKs close it then, before
    the server ends it). Each request body is
    an entry ``to_server`` with ``"http": {"method", "path", "headers"}``;
    each answer body, and each event of a stream, an entry ``from_server``
    with ``"http": {"status", "headers"}`` (and ``"sse": {"event", "id"}``
    for an event). A request or answer without a body is an ``http_request``
    or ``http_response`` event with the same members. Each HTTP exchange is
    numbered (``"exchange"``, from 1, in both its request's and its answer's
    members), so the audit knows which request an answer came back for. A
    server that cannot be reached gets the client a 502 and the recording a
    ``tap_error``; an answer that breaks off is cut off for the client too
    (the connection closes) and recorded as a ``tap_error``.

    A compressed answer (``Content-Encoding`` gzip or deflate; br where the brotli
    package is installed) passes on as it came; its entry is judged on the decoded
    message (``text``), and says ``"content_encoding"`` with the bytes as they
    travelled (``"travelled"``, Base64, for an answer with a length); one the tap
    cannot decode is recorded ``"undecoded": true`` with its size, and not judged.
    """

    def __init__(self, to, recorder, judge, max_line=MAX_LINE, max_body=MAX_BODY):
        import urllib.parse

        target = urllib.parse.urlsplit(to)
        if target.scheme != "http" or not target.hostname:
            raise ValueError(
                f"--to takes an http:// address, such as http://127.0.0.1:8000/mcp; not {to!r}"
            )
        self.to = to
        self._target = target
        self.origin = f"http://{target.netloc}"
        self.path = target.path or "/"
        self.recorder, self.judge, self.max_line, self.max_body = (
            recorder,
            judge,
            max_line,
            max_body,
        )
        self._exchanges = itertools.count(1)  # next() is atomic: one number per request
        self._client = None

    def _entry(self, direction, data, when, size=None, tail=b"", **members):
        """The entry of one message, ``data`` (its first bytes when ``size``, its whole size,
        is more than the tap keeps; ``tail`` its last bytes then)."""
        head = '{"t":%.6f,"direction":"%s",' % (when - self.recorder.start, direction)
        extra = "".join(
            f",{json.dumps(name)}:{json.dumps(value, ensure_ascii=True)}"
            for name, value in members.items()
        )
        size = len(data) if size is None else size
        if size > self.max_line:
            return head + truncated(data[: self.max_line], size, extra, tail)
        return head + judged(self.judge, data, extra)

    def _event(self, when, name, **fields):
        entry = {"t": round(when - self.recorder.start, 6), "event": name, **fields}
        return json.dumps(entry, ensure_ascii=True, default=str) + "\n"

    def _record(self, name, **fields):
        ticket, when = self.recorder.ticket()
        self.recorder.write(ticket, self._event(when, name, **fields))

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
        elif scope["type"] == "http":
            await self.handle(scope, receive, send)

    async def _lifespan(self, receive, send):
        from mcp_lesson.tap.upstream import Upstream

        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                # A kept connection is dropped after KEEP_ALIVE s, before a server's own
                # limit (uvicorn's is 5 s): reused just as the server closes it, a request
                # would be lost. A connect that fails is tried once more (nothing has been
                # sent then).
                self._client = Upstream(
                    self._target.hostname, self._target.port or 80, KEEP_ALIVE, CONNECT_TIMEOUT
                )
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                self._client.close()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def handle(self, scope, receive, send):
        """Pass one HTTP request on, its answer back, and record both."""
        exchange = next(self._exchanges)
        path = _text(scope.get("raw_path") or scope["path"].encode("utf-8"))
        if scope.get("query_string"):
            path += "?" + _text(scope["query_string"])
        pairs = [(_text(name), _text(value)) for name, value in scope["headers"]]
        body, why = await self._read_body(receive)
        # The ticket is taken once the body is whole: a body still arriving (or one that
        # never ends) holds back nothing recorded after it.
        ticket, when = self.recorder.ticket()

        def asked():
            return {
                "method": scope["method"],
                "path": path,
                "headers": _recorded_headers(pairs, REQUEST_HEADERS),
                "exchange": exchange,
            }

        if why is not None:  # never passed on: the client did not finish, or sent too much
            status, words = why
            self.recorder.write(
                ticket,
                self._event(
                    when, "client_gone" if status is None else "tap_error", detail=words, **asked()
                ),
            )
            if status is not None:
                await _plain_answer(send, status, f"{PROG}: {words}")
            return
        recorded = False

        def record():  # once the request is on its way: the tap judges it while the server works
            nonlocal recorded
            if not recorded:
                recorded = True
                self.recorder.write(
                    ticket,
                    self._entry("to_server", body, when, http=asked())
                    if body
                    else self._event(when, "http_request", **asked()),
                )

        headers = [(name, value) for name, value in pairs if name.lower() not in HOP_BY_HOP]
        if not any(name.lower() == "host" for name, _ in headers):  # an HTTP/1.0 client's
            headers.append(("host", self._target.netloc))
        from mcp_lesson.tap.upstream import UpstreamError

        try:
            answer = await self._client.request(
                scope["method"],
                path,
                headers,
                body if body or scope["method"] in ("POST", "PUT", "PATCH") else None,
                record,
            )
        except UpstreamError as exc:
            record()
            words = (
                f"the server at {self.to} took the request, then gave no answer: {exc}"
                if exc.reached
                else f"cannot reach {self.to}: {exc}"
            )
            self._record("tap_error", detail=words, exchange=exchange, reached=exc.reached, size=0)
            await _plain_answer(send, 502, f"{PROG}: {words}")
            return
        finally:
            record()
        try:
            if not await self._pass_whole(scope, send, answer, exchange):
                awaited = Awaited(body, scope["method"])
                await self._pass_answer(scope, receive, send, answer, exchange, awaited)
        finally:
            answer.close()

    async def _pass_whole(self, scope, send, answer, exchange):
        """Pass on an answer with a length of at most :data:`WHOLE` bytes, not compressed and
        not a stream (plain JSON, most often): its body read whole, head and body in one write,
        and recorded after; False for any other answer (and one that breaks off)."""
        kind, coding = answer.header("content-type") or "", answer.header("content-encoding")
        length = answer.header("content-length")
        if (
            length is None
            or "text/event-stream" in kind
            or (coding and coding.strip().lower() != "identity")
        ):
            return False
        import asyncio

        cork, main, gone = scope.get(CORK), asyncio.current_task(), False

        def lost():  # the client leaving ends the answer at once, recorded when it happens
            nonlocal gone
            gone = True
            self._record(
                "client_gone",
                detail="the client went away during the answer",
                path=scope["path"],
                exchange=exchange,
            )
            main.cancel()

        if cork is not None:  # a callback, not a task watching: a task costs a share of a request
            if cork.is_closing():  # gone already
                self._record(
                    "client_gone",
                    detail="the client went away during the answer",
                    path=scope["path"],
                    exchange=exchange,
                )
                return True
            cork.lost = lost
        try:
            body = await answer.whole(WHOLE)
        except asyncio.CancelledError:
            if not gone:  # not the client leaving: the tap is stopping
                raise
            if hasattr(main, "uncancel"):
                main.uncancel()
            return True
        finally:
            if cork is not None:
                cork.lost = None
        if body is None:
            return False
        headers = [
            (name.encode("latin-1"), value.encode("latin-1"))
            for name, value in answer.headers
            if name not in HOP_BY_HOP
        ]
        headers.append((b"content-length", length.encode("latin-1")))
        ticket, when = self.recorder.ticket()
        try:
            if cork is not None:
                cork.hold()
            try:
                await send(
                    {"type": "http.response.start", "status": answer.status, "headers": headers}
                )
                await send({"type": "http.response.body", "body": body, "more_body": False})
            finally:
                if cork is not None:
                    cork.flush()
        finally:
            said = {
                "status": answer.status,
                "headers": _recorded_headers(answer.headers),
                "exchange": exchange,
            }
            tail = body[-TAIL:] if len(body) > self.max_line + 1 else b""
            self.recorder.write(
                ticket,
                self._entry("from_server", body, when, len(body), tail, http=said)
                if body
                else self._event(when, "http_response", **said),
            )
        return True

    def _came(self, events, body, size, plain, plain_size, decoder):
        """What came of an answer that broke off, for its ``tap_error``: ``size`` (its bytes) and
        ``arrived`` (their first ``max_line``, as text; decoded where it came compressed; of an
        event stream, the event it was in the middle of, the events before it being entries)."""
        if events is not None:
            data = events.pending()
            return {"size": len(data), "arrived": data[: self.max_line].decode("utf-8", "replace")}
        data, total = (plain, plain_size) if decoder is not None else (body, size)
        return {"size": total, "arrived": bytes(data[: self.max_line]).decode("utf-8", "replace")}

    async def _read_body(self, receive):
        """``(body, None)``, or ``(None, (status, words))``: status None when the client went away."""
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None, (
                    None,
                    "the client went away before its request's body was complete; "
                    "nothing was passed on",
                )
            body += message.get("body", b"")
            if len(body) > self.max_body:
                return None, (
                    413,
                    f"the request's body is longer than the tap takes "
                    f"({self.max_body:,} bytes); nothing was passed on",
                )
            if not message.get("more_body", False):
                return bytes(body), None

    async def _pass_answer(self, scope, receive, send, answer, exchange, awaited):
        """Pass a streamed answer on as it comes, and record it; a client that leaves once it
        is whole (``awaited``, answered.py) is no ``client_gone``."""
        import asyncio

        from mcp_lesson.tap.upstream import UpstreamError

        said = {
            "status": answer.status,
            "headers": _recorded_headers(answer.headers),
            "exchange": exchange,
        }
        kind = answer.header("content-type") or ""
        length = answer.header("content-length")
        stream = "text/event-stream" in kind or length is None
        headers = [
            (name.encode("latin-1"), value.encode("latin-1"))
            for name, value in answer.headers
            if name not in HOP_BY_HOP
        ]
        if not stream:
            headers.append((b"content-length", length.encode("latin-1")))
        start = {"type": "http.response.start", "status": answer.status, "headers": headers}
        events = SSE(self.max_line) if "text/event-stream" in kind else None
        finished = gone = False
        main = asyncio.current_task()

        async def watch():
            nonlocal gone
            # The client leaving ends the answer at once, recorded when it happens; what
            # the server sends after that is not passed on (nobody reads it).
            while (await receive())["type"] != "http.disconnect":
                pass
            if finished or awaited.whole:  # it left after the whole answer: nothing to say
                return
            self._record(
                "client_gone",
                detail="the client went away during the answer",
                path=scope["path"],
                exchange=exchange,
            )
            gone = True
            main.cancel()

        coding = answer.header("content-encoding")
        decoder = Decoder(coding) if coding and coding.strip().lower() != "identity" else None
        coded = {"content_encoding": coding} if decoder is not None else {}
        body, size = bytearray(), 0  # the body as it travelled: its first bytes, its size
        plain, plain_size = bytearray(), 0  # decoded, when it came compressed
        tail = b""  # the last bytes of the message, once it is longer than is kept
        keep = self.max_line + 1
        # The watcher is a plain task (anyio's task group cost a tenth of the tap's time a request).
        watcher = asyncio.get_running_loop().create_task(watch())
        try:
            if stream:  # its head at once: the first event may be long in coming
                await send(start)
                start = None
                self._record("http_response", stream=True, **said)
            cut = None
            try:
                async for chunk in answer.chunks():
                    ticket, when = self.recorder.ticket()
                    try:
                        if (
                            start is not None
                        ):  # an answer with a length: its head goes with its body
                            cork = scope.get(CORK)
                            if cork is not None:
                                cork.hold()
                            try:
                                await send(start)
                                start = None
                                await send(
                                    {"type": "http.response.body", "body": chunk, "more_body": True}
                                )
                            finally:
                                if cork is not None:
                                    cork.flush()
                        else:
                            await send(
                                {"type": "http.response.body", "body": chunk, "more_body": True}
                            )
                    except (
                        BaseException
                    ):  # its turn is given up, so that later entries are not held
                        self.recorder.write(ticket, "")
                        raise
                    pieces = (chunk,) if decoder is None else decoder.feed(chunk)
                    if events is not None:
                        came = [event for piece in pieces for event in events.feed(piece)]
                        for data, length, _ in came:
                            if length <= self.max_line:  # (a longer one was cut: unread)
                                awaited.strike(data)
                        self.recorder.write(
                            ticket,
                            "".join(
                                self._entry(
                                    "from_server",
                                    data,
                                    when,
                                    length,
                                    http=said,
                                    sse=fields,
                                    **coded,
                                )
                                for data, length, fields in came
                            ),
                        )
                        continue
                    size += len(chunk)
                    if len(body) < keep:
                        body += chunk[: keep - len(body)]
                    if decoder is None and size > keep:
                        tail = (tail + chunk)[-TAIL:]
                    for piece in pieces:
                        plain_size += len(piece)
                        if len(plain) < keep:
                            plain += piece[: keep - len(plain)]
                        if plain_size > keep:
                            tail = (tail + piece)[-TAIL:]
                    self.recorder.write(ticket, "")
            except UpstreamError as exc:
                cut = f"reading the answer failed: {exc}"
            if start is not None:
                await send(start)
            ticket, when = self.recorder.ticket()
            if cut is not None:  # the client's answer breaks off too: the connection is closed
                self.recorder.write(
                    ticket,
                    self._event(
                        when,
                        "tap_error",
                        detail=cut,
                        exchange=exchange,
                        reached=True,
                        **self._came(events, body, size, plain, plain_size, decoder),
                    ),
                )
                raise _Cut
            finished = True
            try:  # the answer's end leaves before its entry is made
                await send({"type": "http.response.body", "body": b"", "more_body": False})
            finally:
                if events is not None:
                    self.recorder.write(
                        ticket,
                        self._undecoded(when, size, said, decoder)
                        if decoder and decoder.failed
                        else "",
                    )
                elif not size:
                    self.recorder.write(
                        ticket, "" if stream else self._event(when, "http_response", **said)
                    )
                elif decoder is None:
                    self.recorder.write(
                        ticket, self._entry("from_server", bytes(body), when, size, tail, http=said)
                    )
                elif decoder.failed:
                    self.recorder.write(ticket, self._undecoded(when, size, said, decoder, body))
                else:
                    travelled = (
                        {"travelled": base64.b64encode(body).decode("ascii")}
                        if size <= self.max_line
                        else {"travelled_size": size}
                    )
                    self.recorder.write(
                        ticket,
                        self._entry(
                            "from_server",
                            bytes(plain),
                            when,
                            plain_size,
                            tail,
                            http=said,
                            **coded,
                            **travelled,
                        ),
                    )
        except asyncio.CancelledError:
            if not gone:  # not the client leaving: the tap is stopping
                raise
            if hasattr(main, "uncancel"):  # the cancel was the watcher's, and is over
                main.uncancel()
        finally:
            watcher.cancel()

    def _undecoded(self, when, size, said, decoder, body=b""):
        """The entry of an answer whose ``Content-Encoding`` the tap could not decode: not judged."""
        entry = {
            "t": round(when - self.recorder.start, 6),
            "direction": "from_server",
            "kind": None,
            "code": None,
            "undecoded": True,
            "size": size,
            "content_encoding": decoder.coding,
            "detail": f"compressed with {decoder.failed}",
            "text": "",
            "http": said,
        }
        if body and size <= self.max_line:
            entry["travelled"] = base64.b64encode(body).decode("ascii")
        return json.dumps(entry, ensure_ascii=True) + "\n"


class _Cut(Exception):
    """An answer that broke off on its way from the server: uvicorn closes the connection."""


async def _plain_answer(send, status, words):
    data = (words + "\n").encode("utf-8", "replace")
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(data)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": data, "more_body": False})
