"""The lines of a stdio conversation: a message as the text it travels as
(:func:`wire_text`), the ids that match a reply to its request (:func:`same_id`,
:func:`reply_id`), and the bounded logs a client keeps of what it read
(mcp_lesson.client.stdio, whose names these are too).
"""

import collections.abc
import json
import os
import select
import sys
import threading

from mcp_lesson.rules.classification import parse
from mcp_lesson.rules.messages import is_integer

#: How many of the latest lines :attr:`StdioServer.received` and :attr:`StdioServer.sent` keep.
KEEP_LINES = 1000
#: How many characters, at most, those latest lines may hold together (the newest line is always kept).
KEEP_CHARS = 8_000_000


#: How many bytes of the start of the server's stderr (its log) are kept.
STDERR_HEAD_BYTES = 64 * 1024
#: How many bytes of the end of the server's stderr are kept; the bytes between are read and dropped.
STDERR_TAIL_BYTES = 64 * 1024


POLL_SECONDS = 0.1  # seconds between looks at a stop request, for the reader and for stop()


class ServerError(RuntimeError):
    """The server did not answer or read in time, or it is not running; or a message cannot be sent."""


class RecentLines(collections.abc.Sequence):
    """The latest lines, oldest first: at most ``limit`` of them and ``char_limit`` characters.

    A list to read (``len``, indexing, iteration); :meth:`append` drops the
    oldest lines beyond either bound, and :attr:`dropped` counts them.
    """

    def __init__(self, limit=KEEP_LINES, char_limit=KEEP_CHARS):
        self.limit = limit
        self.char_limit = char_limit
        self.dropped = 0
        self._lines = collections.deque()
        self._chars = 0

    def append(self, line):
        """Keep ``line`` as the newest, dropping the oldest lines that no longer fit."""
        self._lines.append(line)
        self._chars += len(line)
        while len(self._lines) > 1 and (
            len(self._lines) > self.limit or self._chars > self.char_limit
        ):
            self._chars -= len(self._lines.popleft())
            self.dropped += 1

    def __getitem__(self, index):
        if isinstance(index, slice):
            return list(self._lines)[index]
        return self._lines[index]

    def __len__(self):
        return len(self._lines)

    def __iter__(self):
        return iter(self._lines)

    def __repr__(self):
        dropped = f"; {self.dropped} earlier lines dropped" if self.dropped else ""
        return f"RecentLines({list(self._lines)!r}{dropped})"


def wire_text(message):
    """The line :meth:`StdioServer.send` writes for ``message`` (without the newline).

    Text is sent as it is; anything else as compact JSON (no spaces), the way
    most MCP programs write it.
    """
    if isinstance(message, str):
        return message
    return json.dumps(message, separators=(",", ":"))


def json_line(message):
    """:func:`wire_text` of ``message``, or :class:`ServerError` saying why it cannot be JSON."""
    try:
        return wire_text(message)
    except RecursionError:
        why = "it is nested too deeply"
    except (ValueError, TypeError, OverflowError) as exc:
        text = str(exc)
        if "integer string conversion" in text:
            why = (
                f"it holds an integer of more than {sys.get_int_max_str_digits():,} digits, "
                "more than Python writes as text (and more than the SDK's parser reads)"
            )
        elif "Circular reference" in text:
            why = "it holds itself (a circular reference)"
        else:
            why = f"{type(exc).__name__}: {text[:200]}"
    raise ServerError(f"the message cannot be written as JSON, so nothing was sent: {why}")


class BoundedLog:
    """The start and the end of what a process writes to a pipe, read by a thread of its own.

    The first ``head`` bytes and the last ``tail`` bytes are kept; the bytes
    between are read (so the writer never waits long) and dropped, and
    :attr:`dropped` counts them. Memory stays within ``head + 2 * tail``
    bytes, whatever the writer sends.
    """

    def __init__(self, fd, head=STDERR_HEAD_BYTES, tail=STDERR_TAIL_BYTES):
        self._fd = fd
        self._head_limit = head
        self._tail_limit = tail
        self._head = bytearray()
        self._tail = bytearray()
        self.dropped = 0
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._drain, name="stdio-stderr", daemon=True)
        self._thread.start()

    def _drain(self):
        """Read until end of output; once asked to finish, read only what is already there."""
        late_reads = 0
        try:
            while True:
                finishing = self._stopping.is_set()
                if not ready(self._fd, select.POLLIN, 0 if finishing else POLL_SECONDS):
                    if finishing:
                        return
                    continue
                chunk = os.read(self._fd, 1 << 16)
                if not chunk:
                    return
                self._keep(chunk)
                if finishing:
                    late_reads += 1
                    if late_reads > 16:  # a writer still flooding: stop here all the same
                        return
        except (OSError, ValueError):
            pass

    def _keep(self, chunk):
        with self._lock:
            room = self._head_limit - len(self._head)
            if room > 0:
                self._head += chunk[:room]
                chunk = chunk[room:]
            if chunk:
                self._tail += chunk
                excess = len(self._tail) - self._tail_limit
                if excess > 0:
                    del self._tail[:excess]
                    self.dropped += excess

    def finish(self, timeout):
        """Ask the thread to finish; True once it has (then nobody reads the pipe any more)."""
        self._stopping.set()
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def text(self):
        """What is kept, as text; a line in brackets stands for the bytes dropped."""
        with self._lock:
            head, tail, dropped = bytes(self._head), bytes(self._tail), self.dropped
        if not dropped:
            return (head + tail).decode("utf-8", errors="replace")
        gap = f"\n[{dropped:,} bytes of the log not kept]\n"
        return head.decode("utf-8", errors="replace") + gap + tail.decode("utf-8", errors="replace")


def same_id(a, b):
    """True when two JSON-RPC ids are the same id: same type, same value.

    Python says ``1 == True`` and ``1 == 1.0``; JSON-RPC does not, so a bool or
    a float never matches, and the string ``"1"`` is not the integer ``1``.
    """
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    return is_integer(a) and is_integer(b) and a == b


def reply_id(line):
    """The id of a response line, or None (for other lines, or text that is not JSON)."""
    value, _ = parse(line)
    if isinstance(value, dict) and "method" not in value:
        return value.get("id")
    return None


def ready(fd, events, timeout):
    """True when ``fd`` is ready for ``events`` (``select.POLLIN``/``POLLOUT``) within ``timeout`` s."""
    poller = select.poll()
    poller.register(fd, events)
    return bool(poller.poll(max(0.0, timeout) * 1000))
