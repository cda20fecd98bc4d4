"""Reading a ``text/event-stream`` as its bytes arrive: the events, the last id, the retry.

The rules are the HTML standard's ("Server-sent events", "Interpreting an
event stream"), as MCP's Streamable HTTP uses them (2025-11-25
``basic/transports.mdx``):

* lines end with CRLF, LF or CR; a blank line ends an event;
* a line starting with ``:`` is a comment; otherwise it is ``field: value``
  (one space after the colon dropped), and a line without a colon is a field
  with an empty value;
* ``data`` lines are joined with newlines; ``event`` names the event; ``id``
  sets the *last event id* (unless it holds a NUL), even on an event that
  carries no data; ``retry`` (ASCII digits only) sets the reconnection time,
  in milliseconds;
* an event whose data is empty is no MCP message: a comment, a ``retry``, and
  the *priming event* that 2025-11-25 asks a server to send first (an id and
  an empty ``data`` line), so that its client has an id to resume from.

:class:`SSE` is the one reader of the course's live streams: the tap cuts the
server's answers with it, and :mod:`mcp_lesson.client.http` reads them and resumes
after :attr:`SSE.last_id`, waiting :attr:`SSE.retry`. (Lesson 09's
``read_sse`` reads a whole stream already received; this reads one that is
still arriving, with a limit on what it keeps.)
"""

#: Most bytes of one event's data kept (the rest is counted, not kept).
MAX_DATA = 1 << 20
_FIELD_ROOM = 64  # what a line holds beside its value ("data: "), kept with it


class SSE:
    """Cuts a ``text/event-stream`` into its events, as the bytes arrive.

    :meth:`feed` returns the events completed so far, each ``(data, size,
    fields)``: its ``data`` lines joined with newlines (as bytes, at most
    ``max_data`` of them kept), the size of the whole data, and ``{"event":
    ..., "id": ...}`` where the event gave them. The data kept is the first
    ``max_data`` bytes of the whole. Events with empty data are
    left out (see the module). :attr:`last_id` and :attr:`retry` follow the
    stream as the standard says.
    """

    def __init__(self, max_data=MAX_DATA):
        self.max_data = max_data
        #: The last event id the stream set (``None`` before any), as text.
        self.last_id = None
        #: The reconnection time the stream asked for, in milliseconds (``None`` before any).
        self.retry = None
        self._rest = b""
        self._more = []  # chunks after _rest that end no line, joined to it only when a line ends
        self._more_size = 0
        self._dropped = 0  # bytes of the unfinished line not kept
        self._clear()

    def pending(self):
        """The bytes of the event not yet complete, as its lines came (those kept), the line
        still arriving last: what a stream that breaks off leaves."""
        lines = [b"data:" + line for line in self._data] if self._data else []
        return b"\n".join(lines + ([self._rest] if self._rest else []))

    def _clear(self):
        self._data, self._size, self._lines, self._fields = [], 0, 0, {}

    def feed(self, chunk):
        """The events that ``chunk`` completes; ``b""`` at the end of the stream ends none."""
        if b"\n" not in chunk and b"\r" not in chunk and not self._rest.endswith(b"\r"):
            self._hold(chunk)  # inside a line: kept aside, not copied again with every chunk
            return []
        data, held = b"".join((self._rest, *self._more, chunk)), b""
        self._more, self._more_size = [], 0
        if data.endswith(b"\r"):  # perhaps the first half of a CRLF: wait for the next byte
            data, held = data[:-1], b"\r"
        lines = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
        dropped, self._dropped = self._dropped, 0  # bytes cut from the first line's start
        self._rest = lines.pop()
        if not lines:
            dropped, self._dropped = 0, dropped
        limit = self.max_data + _FIELD_ROOM
        if len(self._rest) > limit:  # one endless line: keep its start, count the rest
            self._dropped += len(self._rest) - limit
            self._rest = self._rest[:limit]
        self._rest += held  # a CR that may end the line is never cut off with the rest
        events = []
        for line in lines:
            if not line:
                if self._size:
                    events.append((b"\n".join(self._data), self._size, self._fields))
                self._clear()
            elif not line.startswith(b":"):
                self._field(*line.partition(b":")[::2], dropped)
            dropped = 0
        return events

    def _hold(self, chunk):
        """Keep ``chunk``, which ends no line, after the unfinished line, within the line's limit."""
        room = self.max_data + _FIELD_ROOM - len(self._rest) - self._more_size
        if len(chunk) > room:  # one endless line: keep its start, count the rest
            self._dropped += len(chunk) - max(room, 0)
            chunk = chunk[: max(room, 0)]
        if chunk:
            self._more.append(chunk)
            self._more_size += len(chunk)

    def _field(self, name, value, dropped=0):
        value = value[1:] if value.startswith(b" ") else value
        if name == b"data":
            joiner = 1 if self._lines else 0  # the newline that joins it to the line before
            room = self.max_data - self._size - joiner
            if room >= 0:  # keep the data's first max_data bytes, and nothing after a cut
                self._data.append(value[:room])
            self._size += joiner + len(value) + dropped
            self._lines += 1
        elif name == b"event":
            self._fields["event"] = value.decode("utf-8", "replace")
        elif name == b"id" and b"\0" not in value:
            self.last_id = self._fields["id"] = value.decode("utf-8", "replace")
        elif name == b"retry" and value.isdigit() and value.isascii():
            self.retry = int(value)
