"""Resumable event streams for the course's HTTP server (2025-11-25 transports).

The rule, from 2025-11-25's ``basic/transports.mdx`` ("Sending Messages to the
Server", item 6, and "Resumability and Redelivery"):

* a server that opens an SSE stream SHOULD first send a *priming event*: an
  event id and empty ``data``, so that the client has an id to resume from;
* it SHOULD send a ``retry`` field (milliseconds) before it closes a
  connection early, and the client MUST wait that long before it reconnects;
* a client resumes with an HTTP GET carrying ``Last-Event-ID``; the server MAY
  replay the messages sent after that id *on the stream that was cut*, and
  never those of another stream.

The SDK (``mcp`` 2.3) does the streaming and the replay; it asks an
``EventStore`` to keep the events. This module is that store, and one
correction of the SDK's choice of when to prime:

* :class:`SessionEvents` keeps one session's events (at most
  :data:`MAX_EVENTS`, the oldest dropped first). Its event ids count up within
  the session, and each remembers its stream, so a ``Last-Event-ID`` finds its
  stream and nothing of another session can be replayed: each session has a
  store of its own (the SDK would share one between all sessions, where the
  stream names, the request ids and ``_GET_stream``, repeat).
* :class:`SessionTransport` is the SDK's session transport with that store,
  and it primes by the revision the session agreed in its handshake as well as
  by the request's ``MCP-Protocol-Version``. The SDK primes only when the
  request's header says 2025-11-25 or later (older clients choke on empty
  data); the conformance suite sends 2025-03-26 inside a session that agreed
  2025-11-25, and a client that agreed 2025-11-25 reads priming events.

:func:`install` puts :class:`SessionTransport` in the SDK's session manager;
the HTTP server calls it before it builds its app (the process is the
server's own).
"""

import functools
from collections import OrderedDict

#: Events one session keeps for replay; the oldest go first.
MAX_EVENTS = 1000
#: The ``retry`` the server suggests, in milliseconds.
RETRY_MS = 1000

_HANDSHAKE_FIRST = "2025-11-25"  # the first revision with priming events


class _Store:
    """The events of one session, by id: ``id -> (stream id, message or None)``."""

    def __init__(self, limit=MAX_EVENTS):
        self._events = OrderedDict()
        self._count = 0
        self._limit = limit

    def add(self, stream_id, message):
        self._count += 1
        event_id = str(self._count)
        self._events[event_id] = (stream_id, message)
        while len(self._events) > self._limit:
            self._events.popitem(last=False)
        return event_id

    def after(self, event_id):
        """``(stream id, [(id, message), ...])``: ``event_id``'s stream and its messages from that event on.

        The first pair is ``event_id``'s own (its message ``None`` for a
        priming event); ``None`` when the id is not kept.
        """
        if event_id not in self._events:
            return None
        stream_id, _ = self._events[event_id]
        found, seen = [], False
        for other_id, (other_stream, message) in self._events.items():
            seen = seen or other_id == event_id
            if seen and other_stream == stream_id:
                found.append((other_id, message))
        return stream_id, found


def _sdk():
    from mcp.server import streamable_http

    return streamable_http


def _is_answer(message):
    from mcp_types import JSONRPCError, JSONRPCResponse

    return isinstance(message, (JSONRPCResponse, JSONRPCError))


@functools.cache
def _event_store_class():
    sdk = _sdk()

    class SessionEvents(sdk.EventStore):
        """One session's events, for replay after ``Last-Event-ID`` (see the module)."""

        def __init__(self, limit=MAX_EVENTS):
            self._store = _Store(limit)

        async def store_event(self, stream_id, message):
            return self._store.add(stream_id, message)

        async def replay_events_after(self, last_event_id, send_callback):
            """Send what followed ``last_event_id`` on its stream; its stream id while it is still open.

            ``None`` (nothing to tail) when the id is unknown or the stream
            already ended with its answer: the SDK then closes the resumed
            response after the replay, instead of holding it open.
            """
            found = self._store.after(last_event_id)
            if found is None:
                return None
            stream_id, (_, *later) = found
            for event_id, message in later:
                if message is not None:
                    await send_callback(sdk.EventMessage(message, event_id))
            answered = any(_is_answer(message) for _, message in found)
            return None if answered else stream_id

    return SessionEvents


@functools.cache
def _transport_class():
    sdk = _sdk()
    events = _event_store_class()

    class SessionTransport(sdk.StreamableHTTPServerTransport):
        """The SDK's session transport, with a store of its own and priming by the handshake."""

        def __init__(self, *args, event_store=None, **kwargs):
            if event_store is not None:  # resumability asked for: this session's own store
                event_store = events()
            super().__init__(*args, event_store=event_store, **kwargs)
            self._agreed = None

        async def _mint_priming_event(self, stream_id, protocol_version):
            # The first stream of a session is its initialize's, primed by the
            # revision the client asked for there; later ones by the later of
            # their header and that.
            if self._agreed is None:
                self._agreed = protocol_version
            revision = max(protocol_version, self._agreed)
            return await super()._mint_priming_event(stream_id, revision)

    return SessionTransport


def install():
    """Make the SDK's session manager use :class:`SessionTransport`; return an event store to pass.

    Idempotent. The store returned is what the app is built with
    (``event_store=``): it switches resumability on, and each session then
    makes one of its own.
    """
    from mcp.server import streamable_http_manager

    if not hasattr(_sdk().StreamableHTTPServerTransport, "_mint_priming_event"):
        raise RuntimeError(
            "the SDK's StreamableHTTPServerTransport has no _mint_priming_event: "
            "the SDK changed; see mcp_lesson/server/resumption.py"
        )
    streamable_http_manager.StreamableHTTPServerTransport = _transport_class()
    return _event_store_class()()
