"""The HTTP tap's side toward the server: HTTP/1.1 over kept connections, on asyncio streams.

The tap used httpx here, which cost about 1.7 ms of CPU a request on the course's
machines (its pool, anyio's cancel scopes, its header models), five times what uvicorn
costs on the client's side; a request through the tap took 1.9x a bare TCP relay's time.
h11 in its place still cost some 300 us a request. This is only what a proxy needs, on
what uvicorn has already read and checked on the client's side (the method, target and
headers passed on are the ones its parser, httptools, accepted): a request is written in
one write (head and body); its answer's head is read whole (at most :data:`MAX_HEAD`
bytes), and its body framed as RFC 9112 section 6 says (no body for HEAD, 1xx, 204 and
304; chunked; a Content-Length; else until the server closes), handed on as it arrives, or
read whole first when it is short and has a length (:meth:`Answer.whole`) (transfer coding
removed, content coding kept: the bytes as they travelled). The connection is kept for
the next request when the answer was read whole, its length was known and neither side
said ``Connection: close``.
"""

import asyncio
import socket
import time

#: The longest answer head (status line and headers) the tap reads, in bytes.
MAX_HEAD = 65536
#: Bytes read at a time.
CHUNK = 65536


class UpstreamError(Exception):
    """The server could not be reached (:attr:`reached` false), or it was and its answer broke
    off, never came or was not HTTP."""

    def __init__(self, words, reached=True):
        super().__init__(words)
        self.reached = reached


class _NotHTTP(Exception):
    pass


class Answer:
    """One answer of the server: :attr:`status`, :attr:`headers` (``(name, value)`` text
    pairs, names in lower case, repeats kept), and its body as it arrives (:meth:`chunks`).
    :meth:`close` gives the connection back, or closes it if the answer was not read whole."""

    def __init__(self, pool, connection, status, headers, rest, framing, reusable):
        self._pool, self._connection = pool, connection
        self.status, self.headers = status, headers
        self._rest, self._framing, self._reusable = rest, framing, reusable
        self._done = False

    def header(self, name):
        for key, value in self.headers:
            if key == name:
                return value
        return None

    async def whole(self, limit):
        """The whole body of an answer with a length of at most ``limit`` bytes (most JSON
        answers), read at once (a server often writes the head and the body apart), else
        None; then :meth:`chunks` need not be read. None too when the answer breaks off:
        :meth:`chunks` gives what came, then says so."""
        kind, length = self._framing
        if kind != "length" or length > limit:
            return None
        if len(self._rest) < length:
            rest = bytearray(self._rest)
            try:
                while len(rest) < length:
                    rest += await self._more()
            except (OSError, UpstreamError):
                return None
            finally:
                self._rest = bytes(rest)
        if len(self._rest) > length:  # more than the answer: no HTTP server sends that
            self._reusable = False
        self._done = True
        return self._rest[:length] if len(self._rest) > length else self._rest

    async def _more(self):
        data = await self._connection[0].read(CHUNK)
        if not data:
            raise UpstreamError("the server closed the connection before its answer ended")
        return data

    async def chunks(self):
        """The body's bytes as they come; raises :class:`UpstreamError` when it breaks off."""
        try:
            kind, length = self._framing
            if kind == "length":
                left, rest = length, self._rest
                while left:
                    data = rest or await self._more()
                    rest = b""
                    if len(data) > left:  # more than the answer: no HTTP server sends that
                        self._reusable = False
                        data = data[:left]
                    left -= len(data)
                    yield data
            elif kind == "close":
                if self._rest:
                    yield self._rest
                reader = self._connection[0]
                while data := await reader.read(CHUNK):
                    yield data
            elif kind == "chunked":
                async for data in self._chunked():
                    yield data
            self._done = True
        except OSError as exc:
            raise UpstreamError(str(exc) or type(exc).__name__) from None
        except _NotHTTP as exc:
            raise UpstreamError(f"the server's answer is not HTTP: {exc}") from None

    async def _chunked(self):
        buffer = bytearray(self._rest)
        self._rest = b""

        async def line():
            while True:
                end = buffer.find(b"\r\n")
                if end >= 0:
                    found = bytes(buffer[:end])
                    del buffer[: end + 2]
                    return found
                if len(buffer) > MAX_HEAD:
                    raise _NotHTTP("a chunk's size line is too long")
                buffer.extend(await self._more())

        while True:
            size_line = (await line()).split(b";", 1)[0].strip()
            try:
                size = int(size_line, 16)
            except ValueError:
                raise _NotHTTP(
                    f"a chunk size that is no hexadecimal number: {size_line[:40]!r}"
                ) from None
            if size < 0:
                raise _NotHTTP("a negative chunk size")
            if size == 0:
                while await line():  # trailer fields, up to the empty line
                    pass
                return
            while size:
                if not buffer:
                    buffer.extend(await self._more())
                piece = bytes(buffer[:size])
                del buffer[: len(piece)]
                size -= len(piece)
                yield piece
            while len(buffer) < 2:
                buffer.extend(await self._more())
            if buffer[:2] != b"\r\n":
                raise _NotHTTP("a chunk not followed by CRLF")
            del buffer[:2]

    def close(self):
        connection, self._connection = self._connection, None
        if connection is not None:
            self._pool.give_back(connection, self._done and self._reusable)


def _read_head(data):
    """``(status, version, headers)`` of an answer's head (the bytes before its blank line)."""
    lines = data.split(b"\r\n")
    parts = lines[0].split(b" ", 2)
    if (
        len(parts) < 2
        or not parts[0].startswith(b"HTTP/1.")
        or len(parts[1]) != 3
        or not parts[1].isdigit()
    ):
        raise _NotHTTP(f"its status line is {lines[0][:80]!r}")
    headers = []
    for raw in lines[1:]:
        name, colon, value = raw.partition(b":")
        if not colon or not name or name != name.strip() or raw[:1] in (b" ", b"\t"):
            raise _NotHTTP(f"a header line is {raw[:80]!r}")
        headers.append((name.decode("latin-1").lower(), value.strip(b" \t").decode("latin-1")))
    return int(parts[1]), parts[0], headers


def _framing(method, status, version, headers):
    """How the body is framed, and whether the connection may be kept after it."""
    connection = ",".join(value for name, value in headers if name == "connection").lower()
    reusable = version == b"HTTP/1.1" and "close" not in connection
    if method == "HEAD" or status in (204, 304):
        return ("length", 0), reusable
    coding = ",".join(value for name, value in headers if name == "transfer-encoding").lower()
    if coding:
        if coding.replace(" ", "").split(",")[-1] == "chunked":
            return ("chunked", None), reusable
        return ("close", None), False
    lengths = {value.strip() for name, value in headers if name == "content-length"}
    if lengths:
        if len(lengths) > 1 or not all(value.isdigit() for value in lengths):
            raise _NotHTTP(f"its Content-Length is {', '.join(sorted(lengths))[:80]!r}")
        return ("length", int(lengths.pop())), reusable
    return ("close", None), False


class Upstream:
    """Connections to one server (``host``, ``port``), each kept ``keep_alive`` seconds after
    its last answer; a connect that fails is tried once more, within ``connect_timeout`` s."""

    def __init__(self, host, port, keep_alive, connect_timeout):
        self.host, self.port = host, port
        self.keep_alive, self.connect_timeout = keep_alive, connect_timeout
        self._idle = []  # (reader, writer, since)

    async def _connect(self):
        why = None
        for _ in range(2):
            try:
                reader, writer = await asyncio.wait_for(
                    asyncio.open_connection(self.host, self.port, limit=MAX_HEAD),
                    self.connect_timeout,
                )
            except (TimeoutError, OSError) as exc:
                why = exc
                continue
            sock = writer.get_extra_info("socket")
            if sock is not None:  # each part written at once (see http.listen)
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            return reader, writer
        raise UpstreamError(str(why) or type(why).__name__, reached=False)

    def _kept(self):
        now = time.monotonic()
        while self._idle:
            reader, writer, since = self._idle.pop()
            if now - since < self.keep_alive and not reader.at_eof() and not writer.is_closing():
                return reader, writer
            writer.close()
        return None

    async def request(self, method, target, headers, body, sent=None):
        """Send one request (``headers``: text pairs, as uvicorn read them; ``body``: bytes or
        None) and read its answer's head; returns an :class:`Answer`. ``sent``, if given, is
        called once the request has been written (the tap records it while the server works)."""
        head = [f"{method} {target} HTTP/1.1\r\n"]
        head += [f"{name}: {value}\r\n" for name, value in headers]
        if body is not None:
            head.append(f"content-length: {len(body)}\r\n")
        head.append("\r\n")
        data = "".join(head).encode("latin-1") + (body or b"")
        kept = self._kept()
        for attempt in (0, 1):
            connection = kept if kept is not None and attempt == 0 else await self._connect()
            reader, writer = connection
            heard = b""
            try:
                writer.write(data)
                if sent is not None:
                    sent, told = None, sent
                    told()
                while True:
                    while (end := heard.find(b"\r\n\r\n")) < 0:
                        if len(heard) > MAX_HEAD:
                            raise _NotHTTP(f"its head is longer than {MAX_HEAD:,} bytes")
                        more = await reader.read(CHUNK)
                        if not more:
                            raise ConnectionResetError(
                                "the server closed the connection without answering"
                            )
                        heard += more
                    status, version, fields = _read_head(heard[:end])
                    rest, heard = heard[end + 4 :], b""
                    if (
                        100 <= status < 200 and status != 101
                    ):  # an interim answer: the final one follows
                        heard = rest
                        continue
                    framing, reusable = _framing(method, status, version, fields)
                    return Answer(self, connection, status, fields, rest, framing, reusable)
            except OSError as exc:
                writer.close()
                if kept is not None and attempt == 0 and not heard:
                    continue  # a kept connection the server had just closed: a fresh one
                raise UpstreamError(str(exc) or type(exc).__name__) from None
            except _NotHTTP as exc:
                writer.close()
                raise UpstreamError(f"the server's answer is not HTTP: {exc}") from None
            except BaseException:
                writer.close()
                raise
        raise AssertionError("unreachable")

    def give_back(self, connection, reusable):
        reader, writer = connection
        if reusable and not writer.is_closing():
            self._idle.append((reader, writer, time.monotonic()))
        else:
            writer.close()

    def close(self):
        while self._idle:
            self._idle.pop()[1].close()
