"""The HTTP tap's side toward the server: HTTP/1.1 over kept connections, on asyncio and h11.

The tap used httpx here, which cost about 1.7 ms of CPU a request on the course's
machines (its pool, anyio's cancel scopes, its header models), five times what uvicorn
costs on the client's side; a request through the tap took 1.9x a bare TCP relay's time.
This is only what a proxy needs: a request is written in one write (head and body), its
answer read with h11 (the parser uvicorn uses on the other side), its body handed on as
it arrives (transfer coding removed, content coding kept: the bytes as they travelled),
and the connection kept for the next request when both sides allow it.
"""

import asyncio
import socket
import time

import h11


class UpstreamError(Exception):
    """The server could not be reached, or its answer broke off or was not HTTP."""


class Answer:
    """One answer of the server: :attr:`status`, :attr:`headers` (``(name, value)`` text
    pairs, names in lower case, repeats kept), and its body as it arrives (:meth:`chunks`).
    :meth:`close` gives the connection back, or closes it if the answer was not read whole."""

    def __init__(self, pool, connection, response):
        self._pool, self._connection = pool, connection
        self.status = response.status_code
        self.headers = [(name.decode("latin-1"), value.decode("latin-1"))
                        for name, value in response.headers]
        self._done = False

    def header(self, name):
        for key, value in self.headers:
            if key == name:
                return value
        return None

    async def chunks(self):
        """The body's bytes as they come; raises :class:`UpstreamError` when it breaks off."""
        reader, _writer, state = self._connection
        while True:
            try:
                event = state.next_event()
            except h11.RemoteProtocolError as exc:  # also: closed before the answer's end
                raise UpstreamError(f"the server's answer broke off: {exc}") from None
            if event is h11.NEED_DATA:
                try:
                    data = await reader.read(65536)
                except OSError as exc:
                    raise UpstreamError(str(exc) or type(exc).__name__) from None
                try:
                    state.receive_data(data)
                except h11.RemoteProtocolError as exc:
                    raise UpstreamError(f"the server's answer is not HTTP: {exc}") from None
            elif isinstance(event, h11.Data):
                if event.data:
                    yield bytes(event.data)
            elif isinstance(event, (h11.EndOfMessage, h11.ConnectionClosed)):
                self._done = True
                return

    def close(self):
        connection, self._connection = self._connection, None
        if connection is not None:
            self._pool.give_back(connection, self._done)


class Upstream:
    """Connections to one server (``host``, ``port``), each kept ``keep_alive`` seconds after
    its last answer; a connect that fails is tried once more, within ``connect_timeout`` s."""

    def __init__(self, host, port, keep_alive, connect_timeout):
        self.host, self.port = host, port
        self.keep_alive, self.connect_timeout = keep_alive, connect_timeout
        self._idle = []  # (reader, writer, h11 state, since)

    async def _connect(self):
        why = None
        for _ in range(2):
            try:
                reader, writer = await asyncio.wait_for(
                    asyncio.open_connection(self.host, self.port), self.connect_timeout)
            except (OSError, asyncio.TimeoutError) as exc:
                why = exc
                continue
            sock = writer.get_extra_info("socket")
            if sock is not None:  # each part written at once (see http.listen)
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            return reader, writer, h11.Connection(h11.CLIENT)
        raise UpstreamError(str(why) or type(why).__name__)

    def _kept(self):
        now = time.monotonic()
        while self._idle:
            reader, writer, state, since = self._idle.pop()
            if now - since < self.keep_alive and not reader.at_eof() and not writer.is_closing():
                return reader, writer, state
            writer.close()
        return None

    async def request(self, method, target, headers, body):
        """Send one request (``headers``: text pairs, ``body``: bytes or None) and read its
        answer's head; returns an :class:`Answer`."""
        head = h11.Request(method=method, target=target, headers=[
            *headers, *([("content-length", str(len(body)))] if body is not None else [])])
        kept = self._kept()
        for attempt in (0, 1):
            connection = kept if kept is not None and attempt == 0 else await self._connect()
            reader, writer, state = connection
            try:
                data = state.send(head) + (state.send(h11.Data(data=body)) if body else b"") + \
                    state.send(h11.EndOfMessage())
            except h11.LocalProtocolError as exc:
                writer.close()
                raise UpstreamError(f"the request cannot be passed on: {exc}") from None
            heard = False
            try:
                writer.write(data)
                while True:
                    event = state.next_event()
                    if event is h11.NEED_DATA:
                        more = await reader.read(65536)
                        heard = heard or bool(more)
                        state.receive_data(more)
                    elif isinstance(event, h11.Response):
                        return Answer(self, connection, event)
                    elif isinstance(event, h11.ConnectionClosed):
                        raise ConnectionResetError("the server closed the connection without answering")
                    # an InformationalResponse (1xx) is passed over: the final one follows
            except (OSError, h11.RemoteProtocolError) as exc:
                writer.close()
                if kept is not None and attempt == 0 and not heard:
                    continue  # a kept connection the server had just closed: a fresh one
                raise UpstreamError(str(exc) or type(exc).__name__) from None
            except BaseException:
                writer.close()
                raise
        raise AssertionError("unreachable")

    def give_back(self, connection, whole):
        reader, writer, state = connection
        if whole and state.our_state is h11.DONE and state.their_state is h11.DONE:
            state.start_next_cycle()
            self._idle.append((reader, writer, state, time.monotonic()))
        else:
            writer.close()

    def close(self):
        while self._idle:
            self._idle.pop()[1].close()
