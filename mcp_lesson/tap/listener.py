"""The HTTP tap's side toward its clients: its listening socket and uvicorn's protocol for it.

uvicorn reads the requests with httptools (llhttp, in C): uvicorn's h11 protocol, in
pure Python, cost more of the tap's time a request than all the rest of the tap together
(some 300 us of about 850 us of CPU on the course's machines). Two things of the tap's own
on top of uvicorn's protocol (:func:`protocol`):

- HTTP/1.0 has no chunked coding: an answer without a length goes to an HTTP/1.0 client
  as it came, its end the connection's close (uvicorn's httptools protocol would chunk it).
- A connection's writes can be held and sent as one (:class:`Corked`): uvicorn writes an
  answer's head and each part of its body with writes of their own, and a ``send`` on
  loopback costs a few hundred microseconds of the kernel's time. The tap finds the cork
  in its request's scope (:data:`CORK`) and holds the head of an answer with a length
  until its body is there; the cork's ``lost``, when set, is called as the client leaves.
"""

import socket

#: Connections waiting to be accepted (uvicorn's own default).
BACKLOG = 2048
#: The key of a request's scope that holds its connection's :class:`Corked` transport.
CORK = "mcp_lesson.tap.cork"


class Corked:
    """A connection's transport whose writes are held between :meth:`hold` and
    :meth:`flush` and then leave in one ``send`` (one packet, where it fits)."""

    def __init__(self, transport):
        self._transport = transport
        self._held = None  # a list while held
        self.lost = None  # called when the connection is lost, if set

    def hold(self):
        if self._held is None:
            self._held = []

    def flush(self):
        held, self._held = self._held, None
        if held and not self._transport.is_closing():
            self._transport.write(held[0] if len(held) == 1 else b"".join(held))

    def write(self, data):
        if self._held is None:
            self._transport.write(data)
        elif data:
            self._held.append(bytes(data))

    def writelines(self, pieces):
        for piece in pieces:
            self.write(piece)

    def get_write_buffer_size(self):
        return self._transport.get_write_buffer_size() + sum(map(len, self._held or ()))

    def close(self):
        self.flush()
        self._transport.close()

    def write_eof(self):
        self.flush()
        self._transport.write_eof()

    def abort(self):
        self._held = None
        self._transport.abort()

    def __getattr__(self, name):
        return getattr(self._transport, name)


def _close_delimited(cycle):
    """``cycle.send`` for an HTTP/1.0 request: an answer without a length is sent as it
    comes and ended by closing the connection (RFC 9112 6.3, 8), never chunked."""
    send = cycle.send
    whole = True  # until an answer without a length starts

    async def send_10(message):
        nonlocal whole
        kind = message["type"]
        if kind == "http.response.start":
            names = {name.lower() for name, _ in message.get("headers", ())}
            status = message["status"]
            if (
                b"content-length" not in names
                and cycle.scope["method"] != "HEAD"
                and status not in (204, 304)
            ):
                whole = False
                cycle.chunked_encoding = False  # uvicorn's marks: a body with no coding...
        elif kind == "http.response.body" and not whole:
            cycle.expected_content_length = len(message.get("body", b""))  # ...of any length
        await send(message)

    return send_10


def protocol():
    """uvicorn's httptools protocol, each connection's transport :class:`Corked` and in its
    requests' scope (:data:`CORK`), HTTP/1.0 answers never chunked."""
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class TapProtocol(HttpToolsProtocol):
        def connection_made(self, transport):
            super().connection_made(Corked(transport))

        def connection_lost(self, exc):
            lost = self.transport.lost
            super().connection_lost(exc)
            if lost is not None:
                lost()

        def on_message_begin(self):
            super().on_message_begin()
            self.scope[CORK] = self.transport

        def _start_asgi_task(self, cycle, app):
            if cycle.scope.get("http_version") == "1.0":
                cycle.send = _close_delimited(cycle)
            super()._start_asgi_task(cycle, app)

    return TapProtocol


def listen(port):
    """The tap's listening socket on 127.0.0.1:``port``, each connection it accepts with
    ``TCP_NODELAY``.

    asyncio sets ``TCP_NODELAY`` on a connection only when its socket's ``proto`` is
    ``IPPROTO_TCP`` (a socket made with ``proto`` 0 is left as it is); without it, an answer
    written in two parts (its head, then its body) waits for the client's delayed ACK,
    some 40 ms on Linux. So the socket says its protocol, and the option is set on it too
    (Linux passes it on to the connections accepted).
    """
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        listener.bind(("127.0.0.1", port))
        listener.listen(BACKLOG)
    except OSError:
        listener.close()
        raise
    return listener
