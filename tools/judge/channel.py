"""One line of JSON each way, over a pair of pipes, and no wait without a limit.

The judge talks to two kinds of process it must never wait on for ever: the
sandboxed worker, which runs a learner's code, and the course host, which runs
the course's own functions on a learner's values (course_host.py). Either may
stop reading (a learner's cell can write a course request straight onto the
judge's channel and then sleep), stop writing, or write without end.
:class:`Channel` sends and receives with a deadline on every step: a write
waits for room in the pipe at most until the deadline, a read at most until
the deadline, and an answer larger than ``max_line`` ends it. Whatever goes
wrong is one :class:`Broken`, whose ``why`` says what in a few words; the
caller ends the process.
"""

import os
import select
import time

from .wire import dumps, loads


class Broken(Exception):
    """The other side did not keep to the protocol in time. ``why``: "late" (no
    answer by the deadline), "unread" (it did not read what was sent), "ended"
    (end of file), "big" (an answer over the limit), "garbage" (not a message)."""

    def __init__(self, why):
        super().__init__(why)
        self.why = why


class Channel:
    def __init__(self, to_fd, from_fd, max_line):
        self.to_fd, self.from_fd, self.max_line = to_fd, from_fd, max_line
        os.set_blocking(to_fd, False)
        self.buffer = b""
        self.received = 0  # bytes of the lines received, in all

    def send(self, message, deadline):
        """Write ``message`` as one line, by ``deadline`` (a ``time.monotonic()``)."""
        view = memoryview((dumps(message) + "\n").encode("ascii"))
        while view:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Broken("unread")
            try:
                _, ready, _ = select.select([], [self.to_fd], [], left)
            except (OSError, ValueError):
                raise Broken("ended") from None
            if not ready:
                continue
            try:
                view = view[os.write(self.to_fd, view) :]
            except BlockingIOError:
                continue
            except OSError:  # a broken pipe: the other side has gone
                raise Broken("ended") from None

    def receive(self, deadline):
        """The next line, as a dict, by ``deadline``."""
        chunks, size = [self.buffer], len(self.buffer)
        while b"\n" not in chunks[-1]:
            left = deadline - time.monotonic()
            if left <= 0:
                self.buffer = b"".join(chunks)
                raise Broken("late")
            try:
                ready, _, _ = select.select([self.from_fd], [], [], left)
            except (OSError, ValueError):
                raise Broken("ended") from None
            if not ready:
                continue
            try:
                chunk = os.read(self.from_fd, 1 << 20)
            except OSError:
                raise Broken("ended") from None
            if not chunk:
                raise Broken("ended")
            chunks.append(chunk)
            size += len(chunk)
            if size > self.max_line:
                raise Broken("big")
        line, _, self.buffer = b"".join(chunks).partition(b"\n")
        self.received += len(line) + 1
        try:
            return loads(line.decode("ascii"))
        except (ValueError, UnicodeDecodeError):
            raise Broken("garbage") from None
