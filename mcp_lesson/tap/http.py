"""The HTTP tap: a reverse proxy on 127.0.0.1 in front of a Streamable HTTP server,
recording each message of each POST, GET and event stream (:func:`serve_http`).
"""

import itertools
import json
import signal
import threading
import time

from .. import __version__
from ..sse import SSE
from ._settings import CHUNK, LOOK, MAX_LINE, MAX_WAITING, PROG
from .judge import CourseJudge
from .stdio import Recorder, _is_stdout, _peak_memory, _say, judged, truncated


#: The request headers an HTTP entry records: those of MCP's Streamable HTTP transport, and
#: those that decide the form of the answer.
REQUEST_HEADERS = ("host", "content-type", "accept", "origin", "mcp-protocol-version", "mcp-session-id",
                   "mcp-method", "mcp-name", "last-event-id")
#: Headers that belong to one hop (RFC 9110, 7.6.1), or that the tap sets itself; never passed on.
HOP_BY_HOP = frozenset({"connection", "keep-alive", "proxy-authenticate", "proxy-authorization",
                        "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade",
                        "host", "content-length", "accept-encoding"})
#: Seconds to reach the server (reading an answer may take as long as the server takes).
CONNECT_TIMEOUT = 10.0


def _recorded_headers(pairs, names=None):
    found = {}
    for name, value in pairs:
        lower = name.lower()
        if (lower in names) if names else (lower.startswith("mcp-") or lower == "content-type"):
            found[lower] = value
    return found


class HttpTap:
    """A reverse proxy on 127.0.0.1 in front of a Streamable HTTP MCP server, recording each
    message as the stdio tap does.

    Every request is passed on to ``to`` (same method, path and query, body
    and headers but those of :data:`HOP_BY_HOP`; ``Host`` is the one the
    client sent, so that the server's DNS-rebinding check sees what it would
    see directly (the server's own address only when the client sent none),
    and ``Accept-Encoding`` is left out so that bodies come back readable), and every answer back (status, headers, body). A JSON answer
    is passed on whole; an event stream (``text/event-stream``), or any answer
    without a length, chunk by chunk as it arrives. Each request body is an
    entry ``to_server`` with ``"http": {"method", "path", "headers"}``; each
    answer body, and each event of a stream, an entry ``from_server`` with
    ``"http": {"status", "headers"}`` (and ``"sse": {"event", "id"}`` for an
    event). A request or answer without a body is an ``http_request`` or
    ``http_response`` event with the same members. Each HTTP exchange is
    numbered (``"exchange"``, from 1, in both its request's and its answer's
    members), so the audit knows which request an answer came back for. A
    server that cannot be reached gets the client a 502 and the recording a
    ``tap_error``.
    """

    def __init__(self, to, recorder, judge, max_line=MAX_LINE):
        import urllib.parse

        target = urllib.parse.urlsplit(to)
        if target.scheme != "http" or not target.hostname:
            raise ValueError(f"--to takes an http:// address, such as "
                             f"http://127.0.0.1:8000/mcp; not {to!r}")
        self.to = to
        self.host, self.port = target.hostname, target.port or 80
        self.netloc = target.netloc
        self.path = target.path or "/"
        self.recorder, self.judge, self.max_line = recorder, judge, max_line
        self._exchanges = itertools.count(1)  # next() is atomic: one number per request

    def _entry(self, direction, data, when, **members):
        head = '{"t":%.6f,"direction":"%s",' % (when - self.recorder.start, direction)
        extra = "".join(f",{json.dumps(name)}:{json.dumps(value, ensure_ascii=True)}"
                        for name, value in members.items())
        if len(data) > self.max_line:
            return head + truncated(data[:self.max_line], len(data), extra)
        return head + judged(self.judge, data, extra)

    def _event(self, when, name, **fields):
        entry = {"t": round(when - self.recorder.start, 6), "event": name, **fields}
        return json.dumps(entry, ensure_ascii=True, default=str) + "\n"

    def handle(self, request):
        """Pass one HTTP request on, its answer back, and record both."""
        import http.client

        ticket, when = self.recorder.ticket()
        exchange = next(self._exchanges)
        asked = {"method": request.command, "path": request.path,
                 "headers": _recorded_headers(request.headers.items(), REQUEST_HEADERS),
                 "exchange": exchange}
        try:
            body = self._read_body(request)
        except (ValueError, OSError) as exc:
            self.recorder.write(ticket, self._event(when, "tap_error", detail=str(exc), **asked))
            self._plain_answer(request, 400, f"{PROG}: {exc}")
            return
        self.recorder.write(ticket, self._entry("to_server", body, when, http=asked) if body
                            else self._event(when, "http_request", **asked))
        headers = [(name, value) for name, value in request.headers.items()
                   if name.lower() not in HOP_BY_HOP]
        headers.append(("Host", request.headers.get("Host") or self.netloc))
        upstream = http.client.HTTPConnection(self.host, self.port, timeout=CONNECT_TIMEOUT)
        try:
            upstream.connect()
            upstream.sock.settimeout(None)  # an event stream may stay quiet for long
            upstream.putrequest(request.command, request.path, skip_host=True,
                                skip_accept_encoding=True)
            for name, value in headers:
                upstream.putheader(name, value)
            if body or request.command in ("POST", "PUT", "PATCH"):
                upstream.putheader("Content-Length", str(len(body)))
            upstream.endheaders(body or None)
            answer = upstream.getresponse()
        except (OSError, http.client.HTTPException) as exc:
            upstream.close()
            ticket, when = self.recorder.ticket()
            words = f"cannot reach {self.to}: {exc}"
            self.recorder.write(ticket, self._event(when, "tap_error", detail=words))
            self._plain_answer(request, 502, f"{PROG}: {words}")
            return
        try:
            self._pass_answer(request, answer, exchange)
        finally:
            upstream.close()

    def _read_body(self, request):
        length = request.headers.get("Content-Length")
        if request.headers.get("Transfer-Encoding", "").lower() == "chunked":
            body = bytearray()
            while True:
                size = int(request.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if not size:
                    while request.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return bytes(body)
                body += request.rfile.read(size)
                request.rfile.readline()
        if length is None:
            return b""
        if not length.strip().isdigit():
            raise ValueError(f"the request's Content-Length is not a number: {length!r}")
        return request.rfile.read(int(length))

    def _plain_answer(self, request, status, words):
        data = (words + "\n").encode("utf-8", "replace")
        try:
            request.send_response_only(status)
            request.send_header("Content-Type", "text/plain; charset=utf-8")
            request.send_header("Content-Length", str(len(data)))
            request.end_headers()
            request.wfile.write(data)
        except OSError:
            pass

    def _pass_answer(self, request, answer, exchange):
        said = {"status": answer.status, "headers": _recorded_headers(answer.getheaders()),
                "exchange": exchange}
        kind = answer.getheader("Content-Type", "")
        stream = "text/event-stream" in kind or (
            answer.getheader("Content-Length") is None and answer.status not in (204, 304)
            and request.command != "HEAD")
        try:
            request.send_response_only(answer.status, answer.reason)
            for name, value in answer.getheaders():
                if name.lower() not in HOP_BY_HOP:
                    request.send_header(name, value)
            if not stream:
                data = answer.read()
                request.send_header("Content-Length", str(len(data)))
                request.end_headers()
                request.wfile.write(data)
                request.wfile.flush()
                ticket, when = self.recorder.ticket()
                self.recorder.write(ticket, self._entry("from_server", data, when, http=said)
                                    if data else self._event(when, "http_response", **said))
                return
            request.send_header("Transfer-Encoding", "chunked")
            request.end_headers()
            request.wfile.flush()
        except OSError as exc:
            self._gone(request, exc)
            return
        events = SSE(self.max_line) if "text/event-stream" in kind else None
        ticket, when = self.recorder.ticket()
        self.recorder.write(ticket, self._event(when, "http_response", stream=True, **said))
        body = bytearray()  # an answer without a length that is no event stream
        while True:
            try:
                chunk = answer.read1(CHUNK)
            except (OSError, ValueError) as exc:
                ticket, when = self.recorder.ticket()
                self.recorder.write(ticket, self._event(when, "tap_error",
                                                        detail=f"reading the answer failed: {exc}"))
                chunk = b""
            ticket, when = self.recorder.ticket()
            try:
                request.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk) if chunk
                                    else b"0\r\n\r\n")
                request.wfile.flush()
            except OSError as exc:
                self.recorder.write(ticket, "")
                self._gone(request, exc)
                return
            if events is None:
                if len(body) <= self.max_line:
                    body += chunk
                self.recorder.write(ticket, "" if chunk or not body else
                                    self._entry("from_server", bytes(body), when, http=said))
            else:
                self.recorder.write(ticket, "".join(
                    self._entry("from_server", data, when, http=said, sse=fields)
                    if size <= self.max_line else
                    self._truncated_event(data, size, when, said, fields)
                    for data, size, fields in events.feed(chunk)))
            if not chunk:
                return

    def _truncated_event(self, data, size, when, said, fields):
        head = '{"t":%.6f,"direction":"from_server",' % (when - self.recorder.start)
        extra = f',"http":{json.dumps(said)},"sse":{json.dumps(fields)}'
        return head + truncated(data, size, extra)

    def _gone(self, request, exc):
        ticket, when = self.recorder.ticket()
        self.recorder.write(ticket, self._event(when, "client_gone", detail=str(exc),
                                                path=request.path))
        request.close_connection = True


def serve_http(to, path, port=0, judge=None, max_line=MAX_LINE, append=False, announce=None):
    """The HTTP tap: listen on 127.0.0.1:``port`` (0: a free one), pass everything on to ``to``,
    record to ``path``, until SIGINT or SIGTERM; returns the exit status (0 when stopped so).

    Once it listens, ``announce`` (by default a line on stderr) is called with its address:
    ``to``'s path on the tap's port, which is what a client is given instead of ``to``.
    """
    import http.server

    judge = judge or CourseJudge()
    if _is_stdout(path):
        _say(f"the recording cannot go to {path}: name a file")
        return 2
    try:
        recorder = Recorder(path, append, MAX_WAITING + 3 * max_line)
        tap = HttpTap(to, recorder, judge, max_line)
    except (OSError, ValueError) as exc:
        _say(str(exc))
        return 2

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, and chunked answers for event streams

        def handle_one_request(self):
            try:
                super().handle_one_request()
            except OSError:  # the client went away mid-request
                self.close_connection = True

        def _pass(self):
            tap.handle(self)

        do_GET = do_POST = do_DELETE = do_PUT = do_PATCH = do_HEAD = do_OPTIONS = _pass

        def log_message(self, *args):  # the recording is the log
            pass

    class Server(http.server.ThreadingHTTPServer):
        daemon_threads = True

    try:
        server = Server(("127.0.0.1", port), Handler)
    except OSError as exc:
        _say(f"cannot listen on 127.0.0.1:{port}: {exc}")
        recorder.close()
        return 2
    url = f"http://127.0.0.1:{server.server_address[1]}{tap.path}"
    recorder.event("start", wall=round(time.time(), 6), transport="http", listen=url, to=to,
                   judge=judge.name, tap=__version__)
    (announce or (lambda address: _say(f"listening on {address} (passing on to {to})")))(url)
    signals = []
    previous = {}
    for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        try:
            previous[number] = signal.signal(number, lambda number, _frame: signals.append(number))
        except (ValueError, OSError):
            pass
    serving = threading.Thread(target=server.serve_forever, name="http", daemon=True)
    serving.start()
    try:
        while not signals and serving.is_alive():
            serving.join(LOOK)
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        server.shutdown()
        server.server_close()
        if signals:
            recorder.event("signal", signal=signal.Signals(signals[0]).name)
        recorder.event("end", status=0, **_peak_memory())
        recorder.close()
    return 0
