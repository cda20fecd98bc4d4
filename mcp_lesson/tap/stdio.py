"""The stdio tap: a server's stdin and stdout passed on byte for byte, each line
recorded with its verdict and time (:func:`record`).
"""

import base64
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
from json.encoder import encode_basestring_ascii as _quote

from mcp_lesson.shared.processes import end_group
from mcp_lesson.shared.processes import signal_group as _signal_group
from mcp_lesson.tap._settings import (
    CHUNK,
    GRACE,
    LOOK,
    MAX_LINE,
    MAX_WAITING,
    PROG,
    TAIL,
    TERM_WAIT,
)
from mcp_lesson.tap.judge import CourseJudge
from mcp_lesson.version import __version__


class Recorder:
    """The recording file, written in the order things happened.

    Each chunk read (and each event) takes a ticket first (:meth:`ticket`),
    with its time; its entries, once made, are written in ticket order, one
    ``os.write`` each, so an answer is never written before the request it
    answers (each direction has a thread of its own). Entries that wait for an
    earlier ticket are kept in memory up to ``waiting`` bytes (by default
    :data:`MAX_WAITING` and room for three lines of :data:`MAX_LINE`); past
    that (a chunk stuck on its way to a reader that reads nothing), they are
    written as they come, and their ``t`` still tells the order.

    A failure to write (a full disk, say) is said once on stderr; the
    traffic passes on, unrecorded. The file still ends with a whole line: a
    line written only in part is taken back (the file is cut back to where
    that line began, which needs no room on the disk), unless the recording
    appends (``--append``), where another tap may be writing the same file.
    """

    def __init__(self, path, append=False, waiting=MAX_WAITING + 3 * MAX_LINE):
        self.waiting = waiting
        flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else os.O_TRUNC)
        self._fd = os.open(path, flags, 0o644)
        self._end = os.lseek(self._fd, 0, os.SEEK_END)  # where the last whole line ends
        self._append = append
        self._lock = threading.Lock()
        self.start = time.monotonic()
        self.failed = None
        self._closed = False
        self._issued = 0  # tickets handed out
        self._next = 0  # the ticket whose entries are written next
        self._waiting = {}  # ticket -> its entries, written after the tickets before it
        self._waiting_size = 0

    def now(self):
        return time.monotonic() - self.start

    def ticket(self):
        """``(ticket, time)``: a place in the file, taken when something is read."""
        with self._lock:
            self._issued += 1
            return self._issued - 1, time.monotonic()

    def write(self, ticket, text):
        """Write ``text`` (entries, possibly none) in ``ticket``'s turn."""
        with self._lock:
            if ticket < self._next:  # its turn was given up: write it now
                self._put(text)
                return
            self._waiting[ticket] = text
            self._waiting_size += len(text)
            if self._waiting_size > self.waiting:  # do not wait any longer for the late ones
                self._next = min(self._waiting)
            while self._next in self._waiting:
                text = self._waiting.pop(self._next)
                self._waiting_size -= len(text)
                self._next += 1
                self._put(text)

    def _put(self, text):
        if not text or self.failed or self._closed:  # after the end: the recording is over
            return
        data = text.encode("ascii")  # JSON with \u escapes is ASCII
        try:
            _write_all(self._fd, data)
            self._end += len(data)
        except OSError as exc:
            self.failed = exc
            try:  # take back the part of a line that was written (the file is this tap's alone)
                if not self._append:
                    os.ftruncate(self._fd, self._end)
            except OSError:
                pass
            _say(f"cannot write the recording any more ({exc}); passing on unrecorded")

    def event(self, name, **fields):
        ticket, when = self.ticket()
        entry = {"t": round(when - self.start, 6), "event": name, **fields}
        self.write(ticket, json.dumps(entry, ensure_ascii=True, default=str) + "\n")

    def close(self):
        with self._lock:
            for ticket in sorted(self._waiting):  # whatever still waits for a stuck chunk
                self._put(self._waiting.pop(ticket))
            self._closed = True
            try:
                os.close(self._fd)
            except OSError:
                pass


class Lines:
    """Cuts one direction's chunks into lines and turns each into a recorded entry.

    Keeps at most one unfinished line, and of it at most ``max_line`` bytes
    (the rest is only counted).
    """

    def __init__(self, direction, judge, start, max_line=MAX_LINE):
        self.direction = direction
        self.judge = judge
        self.start = start
        self.max_line = max_line
        self._partial = bytearray()
        self._size = 0  # of the unfinished line, kept or not
        self._tail = b""  # the last bytes of the unfinished line, once it is longer than is kept
        self._lock = threading.Lock()

    def feed(self, data, when):
        """The entries (as one text) of the lines that ``data``, read at ``when``, completes."""
        with self._lock:
            if b"\n" not in data:
                self._keep(data)
                return ""
            head = '{"t":%.6f,"direction":"%s",' % (when - self.start, self.direction)
            pieces = data.split(b"\n")
            tail = pieces.pop()
            out = []
            if self._size:
                first = pieces[0]
                self._keep(first)
                pieces[0] = bytes(self._partial)
                truncated = self._size if self._size > len(self._partial) else 0
                end = self._tail
                self._partial.clear()
                self._size, self._tail = 0, b""
                if truncated:
                    out.append(head + self._truncated(pieces.pop(0), truncated, True, end))
            entry = self.entry
            for line in pieces:
                if len(line) > self.max_line:
                    out.append(
                        head + self._truncated(line[: self.max_line], len(line), True, line[-TAIL:])
                    )
                else:
                    out.append(head + entry(line))
            if tail:
                self._keep(tail)
            return "".join(out)

    def finish(self, when):
        """The entry of the unfinished last line, if there is one (it had no newline)."""
        with self._lock:
            if not self._size:
                return ""
            line, size, tail = bytes(self._partial), self._size, self._tail
            self._partial.clear()
            self._size, self._tail = 0, b""
        head = '{"t":%.6f,"direction":"%s",' % (when - self.start, self.direction)
        if size > len(line):
            return head + self._truncated(line, size, False, tail)
        return head + self.entry(line, ',"newline":false')

    def _keep(self, data):
        room = self.max_line - len(self._partial)
        self._partial += data if len(data) <= room else data[: max(room, 0)]
        self._size += len(data)
        if (
            self._size > self.max_line
        ):  # too long to keep: its end is kept too (its id may be there)
            self._tail = (self._tail + data)[-TAIL:]

    def entry(self, line, extra=""):
        """The rest of a line's entry, after its time and direction."""
        return judged(self.judge, line, extra)

    def _truncated(self, kept, size, newline, tail):
        return truncated(kept, size, "" if newline else ',"newline":false', tail)


def judged(judge, data, extra=""):
    """The rest of the entry of a message (``data``, bytes) after its time and direction: its
    verdict, its text (and its bytes when they are not UTF-8), then ``extra`` (JSON members,
    each after a comma)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("utf-8", "replace")
        extra += ',"bytes":"' + base64.b64encode(data).decode("ascii") + '"'
        return judge.fields(None, data) + '"text":' + _quote(text) + extra + "}\n"
    return judge.fields(text, None) + '"text":' + _quote(text) + extra + "}\n"


def truncated(kept, size, extra="", tail=b""):
    """The rest of the entry of a message too long to keep: ``kept``, its beginning, and
    ``tail``, its last bytes (where the report looks for its id), not judged."""
    text = kept.decode("utf-8", "replace")
    if tail:
        extra = f',"tail":{_quote(tail.decode("utf-8", "replace"))}' + extra
    return (
        f'"kind":null,"code":null,"truncated":true,"size":{size},"text":{_quote(text)}{extra}}}\n'
    )


def _write_all(fd, data):
    """Write every byte of ``data`` to ``fd``, waiting when it is non-blocking and full."""
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view) :]
        except BlockingIOError:
            select.select([], [fd], [])


def _read(fd):
    """The next chunk of ``fd`` (b"" at its end), waiting when it is non-blocking and empty."""
    while True:
        try:
            return os.read(fd, CHUNK)
        except BlockingIOError:
            select.select([fd], [], [])


def _say(words):
    """A line of the tap's own on stderr (never stdout: that is the protocol's)."""
    try:
        os.write(2, f"{PROG}: {words}\n".encode("utf-8", "replace"))
    except OSError:
        pass


class Pump(threading.Thread):
    """One direction: read a chunk, pass it on at once, then record the lines it completes.

    When the destination fails (its reader is gone), reading and recording go
    on, so the sender is never blocked by the tap; ``lost`` is called once.
    At the end of the source, ``ended`` is called.
    """

    def __init__(self, source, destination, lines, recorder, ended, lost):
        super().__init__(name=lines.direction, daemon=True)
        self.source, self.destination = source, destination
        self.lines, self.recorder = lines, recorder
        self.ended, self.lost = ended, lost
        self.delivering = True
        self.finished = threading.Event()

    def run(self):
        why = None
        try:
            while True:
                try:
                    data = _read(self.source)
                except OSError as exc:
                    why = f"reading failed: {exc}"
                    break
                if not data:
                    break
                ticket, when = self.recorder.ticket()  # before passing on: the file's order
                if self.delivering:
                    try:
                        _write_all(self.destination, data)
                    except OSError as exc:
                        self.delivering = False
                        self.lost(exc)
                self._record(ticket, self.lines.feed, data, when)
            ticket, when = self.recorder.ticket()
            self._record(ticket, self.lines.finish, when)
        finally:
            try:
                self.ended(why)  # its event is written before the tap may end the recording
            finally:
                self.finished.set()

    def _record(self, ticket, make, *args):
        text = ""
        try:
            text = make(*args)
        except Exception as exc:  # a bug of the tap's own must not stop the traffic
            if not self.recorder.failed:
                self.recorder.failed = exc
                _say(f"recording failed ({type(exc).__name__}: {exc}); passing on unrecorded")
        finally:
            self.recorder.write(ticket, text)  # even empty: the tickets after it wait for it


def _start_server(command):
    """Start the server in a process group of its own, killed with the tap on Linux."""
    from mcp_lesson.shared.processes import die_with_parent

    return subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        bufsize=0,
        process_group=0,
        preexec_fn=die_with_parent,
    )


def _is_stdout(path):
    """Whether ``path`` is the file the tap's stdout already goes to (``/dev/stdout``, say)."""
    try:
        return os.path.samestat(os.stat(path), os.fstat(1))
    except OSError:
        return False


def _peak_memory():
    """The tap's own peak resident memory, as ``{"max_rss_kb": n}`` (empty where unknown)."""
    try:
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    except (ImportError, OSError, ValueError):
        return {}
    return {"max_rss_kb": peak // 1024 if sys.platform == "darwin" else peak}


def _status_of(returncode):
    return returncode if returncode >= 0 else 128 - returncode


def _end_group(pgid, wait=TERM_WAIT):
    """End what is left of the server's process group: SIGTERM, then SIGKILL after ``wait``."""
    end_group(pgid, wait)


def record(command, path, judge=None, grace=GRACE, max_line=MAX_LINE, append=False):
    """Run ``command`` behind the tap, recording to ``path``; returns the exit status.

    The rules are the module docstring's: everything passes through, every
    line is recorded, the session ends when either side ends, and the
    server's whole process group is gone when this returns.
    """
    judge = judge or CourseJudge()
    if _is_stdout(path):
        _say(
            f"the recording cannot go to {path}: that is the tap's stdout, which belongs to "
            "the protocol; name a file"
        )
        return 2
    try:
        recorder = Recorder(path, append, MAX_WAITING + 3 * max_line)
    except OSError as exc:
        _say(f"cannot open the recording {path}: {exc}")
        return 2
    try:
        server = _start_server(command)
    except (OSError, ValueError, subprocess.SubprocessError) as exc:
        _say(f"cannot start {' '.join(command)}: {exc}")
        recorder.event(
            "tap_error",
            detail=f"cannot start the server: {exc}",
            command=command,
            wall=round(time.time(), 6),
        )
        recorder.close()
        return 127 if isinstance(exc, FileNotFoundError) else 126
    recorder.event(
        "start",
        wall=round(time.time(), 6),
        command=command,
        pid=server.pid,
        judge=judge.name,
        tap=__version__,
    )

    happened = threading.Event()
    news = []  # what happened, in order: (what, detail)
    news_lock = threading.Lock()

    def note(what, **fields):
        with news_lock:
            news.append(what)
        recorder.event(what, **fields)
        happened.set()

    def client_ended(why):
        try:
            server.stdin.close()  # pass the end of input on
        except OSError:
            pass
        note("client_closed", **({"detail": why} if why else {}))

    def server_ended(why):
        try:  # the client sees the end of the server's output at once
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.close(devnull)
        except OSError:
            pass
        note("server_closed", **({"detail": why} if why else {}))

    start = recorder.start
    up = Pump(
        0,
        server.stdin.fileno(),
        Lines("to_server", judge, start, max_line),
        recorder,
        client_ended,
        lambda exc: note("server_stopped_reading", detail=str(exc)),
    )
    down = Pump(
        server.stdout.fileno(),
        1,
        Lines("from_server", judge, start, max_line),
        recorder,
        server_ended,
        lambda exc: note("client_gone", detail=str(exc)),
    )

    def watch():
        server.wait()
        happened.set()

    signals = []

    def on_signal(number, _frame):  # no lock may be taken here: the supervisor looks often
        signals.append(number)

    previous = {}
    for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        try:
            previous[number] = signal.signal(number, on_signal)
        except (ValueError, OSError):  # not the main thread, or no such signal here
            pass
    watcher = threading.Thread(target=watch, name="server", daemon=True)
    for thread in (up, down, watcher):
        thread.start()
    try:
        _supervise(server, happened, news, signals, note, grace)
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    status = _status_of(server.returncode)
    down.finished.wait(4 * LOOK)  # its output ends with it, unless its group holds it open
    recorder.event("server_exited", status=status, returncode=server.returncode)
    _end_group(server.pid)  # whatever the server left in its group
    if not down.finished.wait(TERM_WAIT):  # its output held open by a process outside the group
        recorder.event(
            "tap_error",
            detail="the server's output is still open (held by a process "
            "that left its group); stopped reading it",
        )
    for lines in (up.lines, down.lines):  # an unfinished line that no end of input completed
        ticket, when = recorder.ticket()
        recorder.write(ticket, lines.finish(when))
    recorder.event("end", status=status, **_peak_memory())
    recorder.close()
    return status


def _supervise(server, happened, news, signals, note, grace):
    """Wait until the server has exited, ending it when a side ended ``grace`` seconds ago
    or a signal came."""
    deadline = kill_at = None
    passed_on = 0
    while server.poll() is None:
        timeout = None
        now = time.monotonic()
        for moment in (deadline, kill_at):
            if moment is not None:
                timeout = max(0.0, moment - now) if timeout is None else min(timeout, moment - now)
        happened.wait(LOOK if timeout is None else min(timeout, LOOK))
        happened.clear()
        now = time.monotonic()
        if server.poll() is not None:
            break
        while passed_on < len(signals):
            number = signals[passed_on]
            passed_on += 1
            name = signal.Signals(number).name
            if kill_at is not None and passed_on > 1:  # asked twice: no more waiting
                note("stopping", signal="SIGKILL", why=f"a second signal ({name})")
                _signal_group(server.pid, signal.SIGKILL)
            else:
                note("signal", signal=name)
                _signal_group(server.pid, number)
                kill_at = now + TERM_WAIT
        if deadline is None and news:
            deadline = now + grace
        if deadline is not None and now >= deadline and kill_at is None:
            note(
                "stopping",
                signal="SIGTERM",
                why=f"the server had not exited {grace:g} s after {news[0].replace('_', ' ')}",
            )
            _signal_group(server.pid, signal.SIGTERM)
            kill_at = now + TERM_WAIT
        if kill_at is not None and now >= kill_at:
            note("stopping", signal="SIGKILL", why=f"still running {TERM_WAIT:g} s after SIGTERM")
            _signal_group(server.pid, signal.SIGKILL)
            server.wait()
    server.wait()
