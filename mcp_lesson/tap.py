"""The tap: a stdio (or HTTP) pass-through that records and judges live MCP traffic, and audits it.

Record: put the tap in front of any stdio MCP server, in a host's server
configuration or on the command line, in place of the server's command::

    python -m mcp_lesson.tap --record talk.jsonl -- python -m mcp_lesson.server

Or in front of a Streamable HTTP server, as a reverse proxy on 127.0.0.1 (the
client is given the address the tap announces on stderr instead)::

    python -m mcp_lesson.tap --record talk.jsonl --http --port 8001 --to http://127.0.0.1:8000/mcp

Audit what was recorded, in plain words, one line per problem::

    python -m mcp_lesson.tap --report talk.jsonl

**What passes through.** The tap starts the server (``COMMAND [ARGS...]``)
and copies the bytes of its client (whoever started the tap) to the server's
stdin and the server's stdout back to the client, unchanged and in order.
Each chunk is passed on the moment it is read; nothing waits for a line to
end. The server's stderr is the tap's own, so its logs reach the host as
they would without the tap. The tap's own complaints go to stderr too, never
to stdout, which belongs to the protocol.

**What is recorded.** Every line, in each direction, becomes one JSON object
on a line of ``FILE`` (JSON Lines), written as soon as the line is complete::

    {"t":0.012345,"direction":"to_server","kind":"request","code":null,"text":"{...}"}

* ``t``: seconds since the tap started (monotonic clock), taken when the read
  that completed the line returned; the ``start`` event below gives the wall time;
* ``direction``: ``"to_server"`` (the client's lines) or ``"from_server"``;
* ``kind`` and ``code``: the verdict of ``classify_json`` on the line: the
  course's (:func:`mcp_lesson.classify_json`), or with ``--judge my_mcp`` the
  user's own package's. A line that is not JSON (a log line on the server's
  stdout, the classic stdio bug) is ``"invalid"`` with ``-32700``, a parse error;
* ``text``: the line as it travelled, without its newline (a ``"\\r"`` before
  it stays);
* only when it applies: ``"bytes"``, the line's exact bytes in Base64 when
  they are not valid UTF-8 (``text`` then shows them with U+FFFD in place of
  what could not be read, so the record stays lossless); ``"newline": false``
  for a last line that ended without one; ``"truncated": true`` and
  ``"size"`` for a line longer than ``--max-line`` bytes (``text`` holds its
  beginning, ``kind`` and ``code`` are null: it was passed on whole, but
  not judged); ``"judge_error"`` when the user's judge raised or answered
  something that is not a verdict (``kind`` and ``code`` are then null).

Joining the lines of one direction with newlines (and one after each line
but a ``"newline": false`` one) gives back the bytes that travelled.

The tap also records what happened to the connection, as entries with an
``event`` key instead of ``direction``: ``start`` (with ``wall``, the Unix
time, ``command``, the server's ``pid`` and the ``judge``), ``client_closed``
(end of the client's input), ``client_gone`` (the client stopped reading),
``server_closed`` (end of the server's output), ``server_stopped_reading``,
``signal`` (the tap was asked to stop, and passed the signal on),
``stopping`` (the tap ended the server itself), ``server_exited`` (with its
``status``), ``tap_error`` and ``end`` (with the tap's peak memory,
``max_rss_kb``). ``--append`` adds a recording to the
end of ``FILE`` (a host that restarts its server keeps every session); each
starts with its ``start`` event.

**How it ends.** When either side ends: the client's end of input is passed
on (the server's stdin is closed) and the server gets ``--grace`` seconds to
exit; the end of the server's output is passed on to the client at once. A
server that has not exited by then gets SIGTERM, and SIGKILL a second later.
The server runs in a process group of its own, and when it has exited the
tap ends whatever is left in that group, so nothing it started stays behind
(on Linux the server is also killed if the tap itself is killed). SIGTERM,
SIGINT or SIGHUP sent to the tap are passed on to the server's group the same
way. The tap's exit status is the server's (128 + N when signal N ended it).

**Bad input.** Whatever the two sides send, the tap passes on what it can,
records what happened, and never hangs or crashes: a 10 MB line passes on in
chunks and is recorded whole; a line longer than ``--max-line`` (default 16
MiB) is passed on whole but only its beginning is kept; invalid UTF-8 is
recorded with its bytes; a flooding server is held back by its client's
reading (the tap keeps at most one chunk and one line per direction); a
client that stops reading, a server that dies or stops reading, and a last
line with no newline are each recorded and end the session cleanly.

**Over HTTP** (``--http``; :class:`HttpTap` says how): each request body and
each answer body, or each event of an answer's event stream, is an entry of
the same format, with ``"http"`` (the method, path and MCP headers of a
request; the status and headers of an answer) and, for a stream's event,
``"sse"``. A request or answer with no body (a GET that opens a stream, the
202 that accepts a notification) is an ``http_request`` or ``http_response``
event. It runs until SIGINT or SIGTERM.

**The audit.** :func:`audit` takes a recorded conversation (the entries, as
dicts) and returns its problems; ``--report`` prints them, with the revision
the two sides agreed on and the time each request took to be answered. The
rules are those of JSON-RPC 2.0 as MCP uses it:

* every request (a message with a method and an id) is answered exactly
  once, by a response with the same id (an id is a string or an integer:
  ``1`` and ``"1"`` are different ids); a request the requester cancelled
  (``notifications/cancelled``) may go unanswered;
* a notification gets no answer at all, not even an error;
* no response carries an id the other side never sent;
* no id is reused while the request that first carried it is unanswered;
* the server's stdout carries JSON-RPC messages only (no log lines);
* every message is valid under the revision the two sides agreed on: the
  ``protocolVersion`` of the server's answer to ``initialize``, or, from
  2026-07-28, the ``io.modelcontextprotocol/protocolVersion`` in a request's
  ``params._meta`` (judged by :func:`mcp_lesson.classify` with that
  ``revision``; a revision the course does not know is judged by the
  course's own rules, and the report says so).

Each side numbers its own requests: the client's ids and the server's ids
(a server may ask too, say ``sampling/createMessage``) are kept apart.
"""

import argparse
import base64
import json
import os
import select
import shlex
import signal
import subprocess
import sys
import threading
import time
from json.encoder import encode_basestring_ascii as _quote

from . import __version__
from .classification import REVISIONS, classify, classify_json, explain, parse
from .recording import sessions, time_order as in_time_order  # noqa: F401  (the report and audit use both)

PROG = "mcp_lesson.tap"

#: Bytes read at a time, in each direction.
CHUNK = 65536
#: The longest line kept whole in a recording, in bytes (``--max-line``); a
#: longer one is passed on whole but recorded as its beginning, not judged.
MAX_LINE = 16 * 1024 * 1024
#: Bytes of entries kept waiting for an earlier chunk's (see :class:`Recorder`), beyond
#: room for three lines of ``--max-line`` bytes (so that one long line keeps its turn).
MAX_WAITING = 4 * 1024 * 1024
#: Seconds the server gets to exit after one side has ended (``--grace``).
GRACE = 5.0
#: Seconds between SIGTERM (or a signal passed on) and SIGKILL.
TERM_WAIT = 1.0
#: Seconds between two looks for a signal the tap was sent (a signal handler
#: only notes it: waking a thread from a handler could deadlock on a lock).
LOOK = 0.05

DIRECTIONS = ("to_server", "from_server")
#: Who sends in each direction, for plain words.
SENDER = {"to_server": "client", "from_server": "server"}


# --- judging a line ------------------------------------------------------------------------

def _no_constant(name):
    raise ValueError(name)


#: The scanner of the parser ``classify_json`` uses (strict JSON: no NaN or
#: Infinity), built once (``json.loads`` with a keyword builds a new decoder on
#: every call). It reads one JSON value from a place in a text.
_scan = json.JSONDecoder(parse_constant=_no_constant).scan_once


def _verdict_field(verdict):
    kind, code = verdict
    return f'"kind":{json.dumps(kind)},"code":{json.dumps(code)},'


class CourseJudge:
    """The course's verdict on a line: :func:`mcp_lesson.classify_json`'s.

    A line that is exactly one JSON value, with nothing before or after it,
    is read by the same strict parser's scanner and handed to
    :func:`mcp_lesson.classify` directly; any other line (whitespace around
    the value, a parse error, nesting too deep, a long integer) goes to
    ``classify_json`` itself. So every verdict is exactly that function's
    (tests/test_tap.py holds the two to it on the course's text cases).
    """

    name = "mcp_lesson"

    def __init__(self):
        self._fields = {}

    def fields(self, text, raw):
        """The record's ``"kind":...,"code":...,`` for a line (``text``, or ``raw`` bytes that
        are not UTF-8)."""
        if text is None:
            verdict = classify_json(raw)
        else:
            try:
                value, end = _scan(text, 0)
            except Exception:  # not JSON, too deep, a long integer...: classify_json decides
                verdict = classify_json(text)
            else:
                verdict = classify(value) if end == len(text) else classify_json(text)
        fields = self._fields.get(verdict)
        if fields is None:
            fields = self._fields[verdict] = _verdict_field(verdict)
        return fields


class UserJudge:
    """The verdict of a user's own ``classify_json`` (``--judge``), whatever it does.

    It gets the line as text (as bytes when they are not UTF-8). An exception,
    or an answer that is not a ``(kind, code)`` pair with a string or null
    kind and an integer or null code, is recorded as ``judge_error`` with a
    null verdict; the traffic passes on regardless.
    """

    def __init__(self, name, function):
        self.name = name
        self._function = function

    def fields(self, text, raw):
        try:
            verdict = self._function(raw if text is None else text)
            kind, code = verdict
            if not (kind is None or isinstance(kind, str)) or not (
                    code is None or (isinstance(code, int) and not isinstance(code, bool))):
                raise TypeError(f"returned {_short(repr(verdict), 80)}, not a (kind, code) pair")
        except (Exception, SystemExit) as exc:
            problem = f"{type(exc).__name__}: {_short(str(exc), 200)}"
            return f'"kind":null,"code":null,"judge_error":{_quote(problem)},'
        return _verdict_field((kind, code))


def _short(text, limit):
    return text if len(text) <= limit else text[:limit - 3] + "..."


def load_judge(name, complain=None):
    """The judge named by ``--judge NAME``: the ``classify_json`` of the package in the folder
    ``NAME``, of the ``my_mcp`` package inside the folder ``NAME``, or of the module ``NAME``.

    When it cannot be loaded, has no ``classify_json``, or fails on a plain
    request, ``complain`` (by default: a line on stderr) is told why, and the
    course's judge is returned instead.
    """
    complain = complain or (lambda words: print(f"{PROG}: {words}", file=sys.stderr, flush=True))
    fallback = "; judging with the course's classify_json instead"
    try:
        function, where = _find_classify_json(name)
    except Exception as exc:  # an import that fails, a SyntaxError, anything
        complain(f"--judge {name}: {exc}{fallback}")
        return CourseJudge()
    probe = {}

    def try_it():
        try:
            probe["verdict"] = function('{"jsonrpc": "2.0", "id": 1, "method": "ping"}')
        except BaseException as exc:
            probe["error"] = exc

    tried = threading.Thread(target=try_it, daemon=True)
    tried.start()
    tried.join(2.0)
    if tried.is_alive():
        complain(f"--judge {name}: its classify_json has not answered a ping request in "
                 f"2 s{fallback}")
        return CourseJudge()
    if "error" in probe:
        exc = probe["error"]
        complain(f"--judge {name}: its classify_json raised {type(exc).__name__} on a ping "
                 f"request ({_short(str(exc), 120)}){fallback}")
        return CourseJudge()
    return UserJudge(where, function)


def _find_classify_json(name):
    import importlib
    import importlib.util

    folder = os.path.abspath(name)
    for package in (folder, os.path.join(folder, "my_mcp")):
        init = os.path.join(package, "__init__.py")
        if os.path.isfile(init):
            # Imported under a name of its own, as a package (its modules import each other
            # relatively), and fresh; an error on the way propagates with its own words.
            unique = f"_tap_judge_{abs(hash(init))}"
            spec = importlib.util.spec_from_file_location(
                unique, init, submodule_search_locations=[package])
            module = importlib.util.module_from_spec(spec)
            sys.modules[unique] = module
            try:
                spec.loader.exec_module(module)
            except BaseException as exc:
                sys.modules.pop(unique, None)
                where = ""
                if isinstance(exc, SyntaxError):
                    where = f" ({os.path.basename(exc.filename or '')}, line {exc.lineno})"
                raise ImportError(f"importing {package} failed: {type(exc).__name__}: "
                                  f"{_short(str(exc), 200)}{where}") from None
            shown = os.path.basename(package)
            break
    else:
        if os.path.isdir(folder):
            raise ImportError(f"{folder} is a folder without a package (no __init__.py, "
                              "and no my_mcp/__init__.py in it)")
        if os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())
        module = importlib.import_module(name)
        package, shown = getattr(module, "__file__", name), name
    function = getattr(module, "classify_json", None)
    if not callable(function):
        problems = getattr(module, "PROBLEMS", None)
        said = f" (its problems: {problems})" if problems else ""
        raise ImportError(f"{package} has no classify_json{said}")
    return function, f"{shown} ({package})"


# --- recording -----------------------------------------------------------------------------

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
    traffic passes on, unrecorded.
    """

    def __init__(self, path, append=False, waiting=MAX_WAITING + 3 * MAX_LINE):
        self.waiting = waiting
        flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else os.O_TRUNC)
        self._fd = os.open(path, flags, 0o644)
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
        try:
            _write_all(self._fd, text.encode("ascii"))  # JSON with \u escapes is ASCII
        except OSError as exc:
            self.failed = exc
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
                self._partial.clear()
                self._size = 0
                if truncated:
                    out.append(head + self._truncated(pieces.pop(0), truncated, True))
            entry = self.entry
            for line in pieces:
                if len(line) > self.max_line:
                    out.append(head + self._truncated(line[:self.max_line], len(line), True))
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
            line, size = bytes(self._partial), self._size
            self._partial.clear()
            self._size = 0
        head = '{"t":%.6f,"direction":"%s",' % (when - self.start, self.direction)
        if size > len(line):
            return head + self._truncated(line, size, False)
        return head + self.entry(line, ',"newline":false')

    def _keep(self, data):
        room = self.max_line - len(self._partial)
        self._partial += data if len(data) <= room else data[:max(room, 0)]
        self._size += len(data)

    def entry(self, line, extra=""):
        """The rest of a line's entry, after its time and direction."""
        return judged(self.judge, line, extra)

    def _truncated(self, kept, size, newline):
        return truncated(kept, size, "" if newline else ',"newline":false')


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


def truncated(kept, size, extra=""):
    """The rest of the entry of a message too long to keep: ``kept``, its beginning, not judged."""
    text = kept.decode("utf-8", "replace")
    return (f'"kind":null,"code":null,"truncated":true,"size":{size},'
            f'"text":{_quote(text)}{extra}}}\n')


# --- passing bytes on ----------------------------------------------------------------------

def _write_all(fd, data):
    """Write every byte of ``data`` to ``fd``, waiting when it is non-blocking and full."""
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view):]
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
    from .processes import die_with_parent

    return subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0,
                            process_group=0, preexec_fn=die_with_parent)


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


def _signal_group(pgid, sig):
    """Send ``sig`` to the group; False when it has no process any more."""
    try:
        os.killpg(pgid, sig)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return False


def _end_group(pgid, wait=TERM_WAIT):
    """End what is left of the server's process group: SIGTERM, then SIGKILL after ``wait``."""
    if not _signal_group(pgid, signal.SIGTERM):
        return
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if not _signal_group(pgid, 0):
            return
        time.sleep(0.01)
    _signal_group(pgid, signal.SIGKILL)


def record(command, path, judge=None, grace=GRACE, max_line=MAX_LINE, append=False):
    """Run ``command`` behind the tap, recording to ``path``; returns the exit status.

    The rules are the module docstring's: everything passes through, every
    line is recorded, the session ends when either side ends, and the
    server's whole process group is gone when this returns.
    """
    judge = judge or CourseJudge()
    if _is_stdout(path):
        _say(f"the recording cannot go to {path}: that is the tap's stdout, which belongs to "
             "the protocol; name a file")
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
        recorder.event("tap_error", detail=f"cannot start the server: {exc}",
                       command=command, wall=round(time.time(), 6))
        recorder.close()
        return 127 if isinstance(exc, FileNotFoundError) else 126
    recorder.event("start", wall=round(time.time(), 6), command=command, pid=server.pid,
                   judge=judge.name, tap=__version__)

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
    up = Pump(0, server.stdin.fileno(), Lines("to_server", judge, start, max_line), recorder,
              client_ended, lambda exc: note("server_stopped_reading", detail=str(exc)))
    down = Pump(server.stdout.fileno(), 1, Lines("from_server", judge, start, max_line),
                recorder, server_ended, lambda exc: note("client_gone", detail=str(exc)))

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
        recorder.event("tap_error", detail="the server's output is still open (held by a process "
                                           "that left its group); stopped reading it")
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
                timeout = max(0.0, moment - now) if timeout is None else min(timeout,
                                                                             moment - now)
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
            note("stopping", signal="SIGTERM",
                 why=f"the server had not exited {grace:g} s after {news[0].replace('_', ' ')}")
            _signal_group(server.pid, signal.SIGTERM)
            kill_at = now + TERM_WAIT
        if kill_at is not None and now >= kill_at:
            note("stopping", signal="SIGKILL", why=f"still running {TERM_WAIT:g} s after SIGTERM")
            _signal_group(server.pid, signal.SIGKILL)
            server.wait()
    server.wait()


# --- the HTTP tap --------------------------------------------------------------------------

#: The request headers an HTTP entry records: those of MCP's Streamable HTTP transport, and
#: those that decide the form of the answer.
REQUEST_HEADERS = ("content-type", "accept", "origin", "mcp-protocol-version", "mcp-session-id",
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


class SSE:
    """Cuts a ``text/event-stream`` into its events, as the bytes arrive.

    :meth:`feed` returns the events completed so far, each ``(data, fields)``:
    its ``data`` lines joined with newlines (as bytes), and ``{"event": ...,
    "id": ...}`` where the stream gave them. An event without data (a comment,
    a retry, a priming event with only an id) is no message and is left out.
    Keeps at most ``max_line`` bytes of one event's data (the rest is counted,
    and the event comes with its ``size``).
    """

    def __init__(self, max_line=MAX_LINE):
        self.max_line = max_line
        self._rest = b""
        self._data, self._size, self._fields = [], 0, {}

    def feed(self, chunk):
        data, held = self._rest + chunk, b""
        if data.endswith(b"\r"):  # perhaps the first half of a CRLF: wait for the next byte
            data, held = data[:-1], b"\r"
        lines = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
        self._rest = lines.pop() + held
        if len(self._rest) > self.max_line:  # one endless line: keep its start only
            self._rest = self._rest[:self.max_line]
        events = []
        for line in lines:
            if not line:
                if self._size or self._data:
                    events.append((b"\n".join(self._data), self._size, self._fields))
                self._data, self._size, self._fields = [], 0, {}
                continue
            name, _, value = line.partition(b":")
            value = value[1:] if value.startswith(b" ") else value
            if name == b"data":
                kept = sum(len(part) + 1 for part in self._data)
                if kept + len(value) <= self.max_line:
                    self._data.append(value)
                self._size += len(value) + (1 if self._size else 0)
            elif name in (b"event", b"id"):
                self._fields[name.decode("ascii")] = value.decode("utf-8", "replace")
        return events


class HttpTap:
    """A reverse proxy on 127.0.0.1 in front of a Streamable HTTP MCP server, recording each
    message as the stdio tap does.

    Every request is passed on to ``to`` (same method, path and query, body
    and headers but those of :data:`HOP_BY_HOP`; ``Host`` becomes the
    server's, and ``Accept-Encoding`` is left out so that bodies come back
    readable), and every answer back (status, headers, body). A JSON answer
    is passed on whole; an event stream (``text/event-stream``), or any answer
    without a length, chunk by chunk as it arrives. Each request body is an
    entry ``to_server`` with ``"http": {"method", "path", "headers"}``; each
    answer body, and each event of a stream, an entry ``from_server`` with
    ``"http": {"status", "headers"}`` (and ``"sse": {"event", "id"}`` for an
    event). A request or answer without a body is an ``http_request`` or
    ``http_response`` event with the same members. A server that cannot be
    reached gets the client a 502 and the recording a ``tap_error``.
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
        asked = {"method": request.command, "path": request.path,
                 "headers": _recorded_headers(request.headers.items(), REQUEST_HEADERS)}
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
        headers.append(("Host", self.netloc))
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
            self._pass_answer(request, answer)
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

    def _pass_answer(self, request, answer):
        said = {"status": answer.status, "headers": _recorded_headers(answer.getheaders())}
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


# --- the audit -----------------------------------------------------------------------------

def id_key(value):
    """An id as a key that keeps ``1``, ``"1"`` and ``True`` apart; None when it is no id
    (JSON-RPC ids are strings or integers, and a bool is not an integer)."""
    if isinstance(value, str):
        return ("string", value)
    if isinstance(value, int) and not isinstance(value, bool):
        return ("integer", value)
    return None


def show_id(value):
    """An id as JSON shows it: ``1``, ``"1"``, ``null``."""
    try:
        return _short(json.dumps(value, ensure_ascii=False), 60)
    except (TypeError, ValueError):
        return _short(repr(value), 60)


def message_of(entry):
    """``(value, reason)`` for a recorded line: its parsed JSON value, or why it is none."""
    if entry.get("truncated"):
        size = entry.get("size")
        long = f"{size:,} bytes long" if type(size) is int else "longer than the tap keeps"
        return None, f"it is {long}, more than the tap kept, so it was not judged"
    if "bytes" in entry:
        try:
            return parse(base64.b64decode(entry["bytes"], validate=True))
        except (ValueError, TypeError):
            return None, "its recorded bytes are not Base64"
    text = entry.get("text")
    if not isinstance(text, str):
        return None, "the recording holds no text for it"
    return parse(text)


def _protocol_version(value, where):
    """The revision a message names: an initialize request's (``"params"``), its answer's
    (``"result"``), or a request's ``params._meta`` (``"_meta"``); None when it names none."""
    try:
        if where == "params":
            found = value["params"]["protocolVersion"]
        elif where == "result":
            found = value["result"]["protocolVersion"]
        else:
            found = value["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"]
    except (KeyError, TypeError, IndexError):
        return None
    return found if isinstance(found, str) else None


def agreed_revision(conversation):
    """``(revision, words)``: the revision the two sides agreed on, and how it was agreed.

    The server's answer to ``initialize`` names it (``result.protocolVersion``);
    without a handshake (2026-07-28), a request's ``params._meta`` does
    (``io.modelcontextprotocol/protocolVersion``). ``revision`` is None when
    neither says, or when the course does not know the revision said (the
    words say which).
    """
    asked = initialize_id = None
    for entry in conversation:
        if entry.get("direction") not in DIRECTIONS:
            continue
        value, reason = message_of(entry)
        if reason or not isinstance(value, dict):
            continue
        if entry["direction"] == "to_server" and value.get("method") == "initialize":
            if initialize_id is None:
                initialize_id = id_key(value.get("id"))
                asked = _protocol_version(value, "params")
        elif (entry["direction"] == "from_server" and initialize_id is not None
              and "method" not in value and id_key(value.get("id")) == initialize_id):
            answered = _protocol_version(value, "result")
            if answered is None:
                return None, ("the server did not answer initialize with a protocolVersion; "
                              "judged by the course's rules")
            how = (f"the client asked for {answered} in initialize and the server agreed"
                   if asked == answered else
                   f"the client asked for {asked} in initialize and the server answered {answered}")
            return _known(answered, how)
        elif entry["direction"] == "to_server" and initialize_id is None:
            meta = _protocol_version(value, "_meta")
            if meta is not None:
                return _known(meta, f"the client's requests carry {meta} in params._meta "
                                    "(no handshake)")
    if initialize_id is not None:
        return None, "initialize was never answered; judged by the course's rules"
    return None, "no initialize and no params._meta name a revision; judged by the course's rules"


def _known(revision, how):
    if revision in REVISIONS:
        return revision, how
    return None, f"{how}; the course does not know {revision}, so judged by the course's rules"


def line_of(conversation, index, first_line=1):
    """Where the entry at ``index`` is: its line in the file when it was read from one
    (:func:`read_recording` notes it as ``_line``), else its place counted from ``first_line``."""
    line = conversation[index].get("_line")
    return line if isinstance(line, int) else index + first_line


def _problem(conversation, index, first_line, problem, detail, **extra):
    entry = conversation[index] if index is not None else {}
    found = {"line": line_of(conversation, index, first_line) if index is not None else None,
             "problem": problem, "direction": entry.get("direction"), "detail": detail}
    found.update(extra)
    return found


def audit(conversation, revision="agreed", first_line=1):
    """The problems of a recorded conversation, in the order of their lines: a list of dicts.

    ``conversation`` is the recorded entries (dicts, as the tap writes them;
    entries without a ``direction`` are events, and only ``server_exited`` is
    read from them). Each problem has ``line`` (the entry's place, counted
    from ``first_line``), ``problem`` (a name, below), ``direction`` and
    ``detail`` (plain words), and where it applies ``id``. The rules are
    those of the module docstring; the names:

    ``pollution`` (the server's stdout carries a line that is no JSON),
    ``not_json`` (so does the client's), ``invalid`` (a message invalid under
    ``revision``: by default the one the sides agreed on, see
    :func:`agreed_revision`; None for the course's rules), ``id_reused``,
    ``answered_twice``, ``unknown_id`` (a response to an id never sent),
    ``answer_to_notification``, ``unmatched`` (a response without a usable
    id that answers nothing), ``unanswered``, ``no_newline``, ``revision``
    (a request whose ``_meta`` names another revision than the earlier ones).

    Which request a response answers is decided by its id alone, as lesson
    06's ``is_reply_to`` decides it: a string or an integer, equal in type
    and value. A response with no usable id (null, missing, or no string or
    integer) can only be JSON-RPC's error for a message whose id could not be
    read, or a fault. It is matched with the other side's messages that no
    answer has shown to be dealt with yet (those after the latest request it
    answered): the first unreadable one, for an error with a null or missing
    id; else the first notification, and then it is an answer to that
    notification; else it answers nothing.
    """
    if revision == "agreed":
        revision = agreed_revision(conversation)[0]
    problems = []
    sides = {direction: {"in_flight": {}, "answered": {}, "cancelled": set(), "waiting": [],
                         "said_revision": None} for direction in DIRECTIONS}
    ended = None

    def found(index, problem, detail, **extra):
        problems.append(_problem(conversation, index, first_line, problem, detail, **extra))

    for index in in_time_order(conversation):
        entry = conversation[index]
        direction = entry.get("direction")
        if direction not in DIRECTIONS:
            if entry.get("event") == "server_exited":
                ended = entry
            continue
        sender, mine = SENDER[direction], sides[direction]
        value, reason = message_of(entry)
        if entry.get("newline") is False:
            found(index, "no_newline", f"the {sender}'s last line has no newline at its end: "
                                       "a reader of lines never sees it as a message")
        if reason is not None:
            why = f" ({reason})" if "bytes" in entry or entry.get("truncated") else ""
            said = entry.get("http") if isinstance(entry.get("http"), dict) else None
            if direction == "from_server" and said is not None:
                found(index, "pollution", f"the server answered with {_quoted(entry)} (HTTP "
                      f"{said.get('status', '?')}), which is not JSON{why}: an MCP client "
                      "cannot read it as a message")
            elif direction == "from_server":
                found(index, "pollution", f"the server wrote {_quoted(entry)} on stdout, which "
                      f"is not JSON{why}: stdout is for JSON-RPC messages only, logs belong on "
                      "stderr")
            else:
                found(index, "not_json", f"the client sent {_quoted(entry)}, which is not JSON"
                                         f"{why}")
            mine["waiting"].append((index, "unreadable"))
            continue
        verdict = classify(value, revision)
        batch = verdict[0] == "batch"
        if verdict[0] == "invalid":
            found(index, "invalid", f"the {sender} sent an invalid message{_under(revision)}: "
                  f"{_first_sentence(explain(value, revision))}")
        for member in value if batch else [value]:
            if batch and classify(member, revision)[0] == "invalid":
                found(index, "invalid", f"a member of the {sender}'s batch is invalid"
                      f"{_under(revision)}: {_first_sentence(explain(member, revision))}")
            _follow(member, index, direction, sides, conversation, first_line, found)
    for direction in DIRECTIONS:
        for request in sides[direction]["in_flight"].values():
            answerer = SENDER[_other(direction)]
            why = ""
            if ended is not None and direction == "to_server":
                why = (f" (the server exited with status {ended.get('status')} at "
                       f"{_seconds(ended.get('t'))})")
            found(request["index"], "unanswered", f"the {SENDER[direction]}'s request "
                  f"{show_id(request['id'])} ({request['method']}) was never answered by the "
                  f"{answerer}{why}", id=request["id"])
    problems.sort(key=lambda problem: (problem["line"] is None, problem["line"] or 0))
    return problems


def _other(direction):
    return "from_server" if direction == "to_server" else "to_server"


def _seconds(t):
    return f"{t:.3f} s" if isinstance(t, (int, float)) else "the end"


def _follow(member, index, direction, sides, conversation, first_line, found):
    """One message of the conversation: a request, a notification, a response or neither."""
    sender, mine = SENDER[direction], sides[direction]
    if not isinstance(member, dict):
        mine["waiting"].append((index, "unreadable"))
        return
    key = id_key(member.get("id"))
    if "method" not in member and ("result" in member or "error" in member):
        _answer(member, key, index, direction, sides, conversation, first_line, found)
    elif key is not None:  # a request (valid or not, its id can be read): owed one answer
        first = mine["in_flight"].get(key)
        if first is not None:
            found(index, "id_reused", f"the {sender} reused the id {show_id(member['id'])} "
                  f"while its request on line {first['line']} ({first['method']}) is still "
                  "unanswered", id=member["id"])
            return
        mine["in_flight"][key] = {"line": line_of(conversation, index, first_line), "index": index,
                                  "method": _method(member), "id": member["id"]}
        said = _protocol_version(member, "_meta")
        if said is not None:
            if mine["said_revision"] is None:
                mine["said_revision"] = said
            elif said != mine["said_revision"]:
                found(index, "revision", f"this request's params._meta names revision {said}, "
                      f"the {sender}'s earlier ones {mine['said_revision']}")
    elif isinstance(member.get("method"), str) and "id" not in member:
        mine["waiting"].append((index, "notification"))
        if member["method"] == "notifications/cancelled":
            params = member.get("params")
            cancelled = id_key(params.get("requestId")) if isinstance(params, dict) else None
            if cancelled is not None and mine["in_flight"].pop(cancelled, None) is not None:
                mine["cancelled"].add(cancelled)
    else:  # a method with an id that is no id, or no method and no result or error
        mine["waiting"].append((index, "unreadable"))


def _answer(member, key, index, direction, sides, conversation, first_line, found):
    """A response from ``direction``'s sender: match it with the other side's messages."""
    sender, other = SENDER[direction], _other(direction)
    theirs = sides[other]
    if key is not None:
        request = theirs["in_flight"].pop(key, None)
        if request is not None:
            theirs["answered"][key] = {**request, "answer": index}
            # the other side's messages up to this request have been dealt with
            theirs["waiting"] = [item for item in theirs["waiting"] if item[0] > request["index"]]
        elif key in theirs["answered"]:
            first = theirs["answered"][key]
            found(index, "answered_twice", f"a second answer to the {SENDER[other]}'s request "
                  f"{show_id(member['id'])} ({first['method']}, line {first['line']}), first "
                  f"answered on line {line_of(conversation, first['answer'], first_line)}",
                  id=member["id"])
        elif key not in theirs["cancelled"]:  # a late answer to a cancelled request is allowed
            found(index, "unknown_id", f"a response to the id {show_id(member['id'])}, which "
                  f"the {SENDER[other]} never sent", id=member["id"])
        return
    waiting = theirs["waiting"]
    if "error" in member and member.get("id") is None:
        for place, (at, kind) in enumerate(waiting):
            if kind == "unreadable":  # the error JSON-RPC prescribes for an unreadable message
                del waiting[place]
                return
    for place, (at, kind) in enumerate(waiting):
        if kind == "notification":
            del waiting[place]
            notice, _ = message_of(conversation[at])
            found(index, "answer_to_notification", f"the {sender} answered the notification "
                  f"{_method(notice)} (line {line_of(conversation, at, first_line)}): a "
                  "notification gets no answer, "
                  "not even an error", id=member.get("id"))
            return
    has = "no id" if "id" not in member else f"the id {show_id(member.get('id'))}"
    hint = ""
    if theirs["in_flight"]:
        oldest = min(theirs["in_flight"].values(), key=lambda request: request["index"])
        hint = (f"; was it meant for request {show_id(oldest['id'])} ({oldest['method']}, "
                f"line {oldest['line']}), which is still unanswered?")
    found(index, "unmatched", f"a response with {has} answers none of the "
          f"{SENDER[other]}'s messages{hint}", id=member.get("id"))


def _method(value):
    method = value.get("method") if isinstance(value, dict) else None
    return _short(method, 60) if isinstance(method, str) else "no method"


def _quoted(entry):
    text = entry.get("text")
    return _short(json.dumps(text if isinstance(text, str) else "", ensure_ascii=False), 80)


def _under(revision):
    return f" under revision {revision}" if revision else ""


def _first_sentence(text):
    first = str(text).strip().splitlines()[0] if str(text).strip() else ""
    return _short(first, 300)


def answer_times(conversation):
    """Each request of the conversation, in order, with how long its answer took: a list of
    dicts with ``line``, ``direction`` (the requester's), ``id``, ``method``, ``answer_line``
    and ``seconds`` (both None when it was never answered). The first answer with the same
    id from the other side counts."""
    times, waiting = [], {"to_server": {}, "from_server": {}}
    for index in in_time_order(conversation):
        entry = conversation[index]
        direction = entry.get("direction")
        if direction not in DIRECTIONS:
            continue
        value, reason = message_of(entry)
        if reason is not None:
            continue
        for member in value if isinstance(value, list) else [value]:
            if not isinstance(member, dict):
                continue
            key = id_key(member.get("id"))
            if key is None:
                continue
            if "method" in member or ("result" not in member and "error" not in member):
                if key not in waiting[direction]:
                    row = {"line": line_of(conversation, index), "direction": direction,
                           "id": member["id"],
                           "method": _method(member), "answer_line": None, "seconds": None,
                           "_t": entry.get("t")}
                    waiting[direction][key] = row
                    times.append(row)
            else:
                other = "from_server" if direction == "to_server" else "to_server"
                row = waiting[other].pop(key, None)
                if row is not None:
                    row["answer_line"] = line_of(conversation, index)
                    if isinstance(row["_t"], (int, float)) and isinstance(entry.get("t"),
                                                                          (int, float)):
                        row["seconds"] = max(0.0, entry["t"] - row["_t"])
    for row in times:
        del row["_t"]
    return sorted(times, key=lambda row: row["line"])


# --- the report ----------------------------------------------------------------------------

def read_recording(path):
    """``(entries, complaints)``: the entries of a recording file (each with ``_line``, its line
    in the file), and a plain sentence for each line that is no entry."""
    entries, complaints = [], []
    stream = sys.stdin.buffer if path == "-" else open(path, "rb")
    try:
        for number, raw in enumerate(stream, 1):
            if not raw.strip():
                continue
            try:
                entry = json.loads(raw)
            except (ValueError, RecursionError):
                complaints.append(f"line {number} of the recording is not JSON; left out")
                continue
            if not isinstance(entry, dict) or not ("direction" in entry or "event" in entry):
                complaints.append(f"line {number} of the recording is no entry (no direction "
                                  "and no event); left out")
                continue
            entry["_line"] = number
            entries.append(entry)
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()
    return entries, complaints


def _duration(seconds):
    if seconds is None:
        return "never answered"
    if seconds < 1:
        return f"{seconds * 1000:.2f} ms"
    return f"{seconds:.2f} s"


def report(path, show_all=False, revision="agreed", as_json=False, out=None):
    """Print the audit of the recording at ``path``; returns the exit status: 0 with no
    problem, 1 with problems, 2 when the file cannot be read."""
    out = out or sys.stdout
    try:
        entries, complaints = read_recording(path)
    except OSError as exc:
        print(f"{PROG}: cannot read {path}: {exc}", file=sys.stderr)
        return 2
    if not entries:
        print(f"{PROG}: {path} holds no recorded entries", file=sys.stderr)
        for complaint in complaints:
            print(f"{PROG}: {complaint}", file=sys.stderr)
        return 2
    cut = sessions(entries)
    total = 0
    if not as_json:
        print(f"recording {path}: {len(cut)} session{'s' if len(cut) > 1 else ''}", file=out)
        for complaint in complaints:
            print(f"  {complaint}", file=out)
    for number, session in enumerate(cut, 1):
        if revision == "agreed":
            chosen, how = agreed_revision(session)
        else:
            chosen = revision
            how = f"revision {revision} as asked" if revision else "the course's rules, as asked"
        problems = audit(session, chosen)
        disagreements = _judge_disagreements(session)
        total += len(problems)
        if as_json:
            for problem in problems:
                print(json.dumps({"session": number, **problem}, ensure_ascii=False), file=out)
            continue
        _print_session(out, number, session, chosen, how, problems, disagreements, show_all)
    return 1 if total else 0


def _print_session(out, number, session, revision, how, problems, disagreements, show_all):
    start = next((entry for entry in session if entry.get("event") == "start"), {})
    lines = [entry for entry in session if entry.get("direction") in DIRECTIONS]
    ends = [entry for entry in session if entry.get("event") in ("server_exited",)]
    command = start.get("command")
    wall = start.get("wall")
    began = (time.strftime(" at %Y-%m-%d %H:%M:%S UTC", time.gmtime(wall))
             if isinstance(wall, (int, float)) else "")
    shown = "a server"
    if isinstance(command, list):
        shown = _short(shlex.join(map(str, command)).replace("\n", "\\n"), 160)
    elif start.get("transport") == "http":
        shown = f"the HTTP tap at {start.get('listen')} in front of {start.get('to')}"
    print(f"session {number}: {shown}{began}", file=out)
    if ends:
        print(f"  the server exited with status {ends[-1].get('status')} at "
              f"{_seconds(ends[-1].get('t'))}", file=out)
    counts = {direction: sum(entry["direction"] == direction for entry in lines)
              for direction in DIRECTIONS}
    unit = "messages" if start.get("transport") == "http" else "lines"
    print(f"  {len(lines)} {unit}: {counts['to_server']} from the client, "
          f"{counts['from_server']} from the server; judged by {start.get('judge', '?')}", file=out)
    print(f"  revision: {revision or 'none'} ({how})", file=out)
    if problems:
        print(f"  {len(problems)} problem{'s' if len(problems) > 1 else ''}:", file=out)
        for problem in problems:
            where = f"line {problem['line']}" if problem["line"] is not None else "at the end"
            print(f"    {where}: {problem['detail']}", file=out)
    else:
        print("  no problems: every request answered once, nothing else answered, "
              f"{'only JSON-RPC' if unit == 'messages' else 'clean stdout'}, every message "
              "valid", file=out)
    if disagreements:
        print(f"  the judge ({start.get('judge')}) and the course's rules disagree on "
              f"{len(disagreements)} line{'s' if len(disagreements) > 1 else ''}:", file=out)
        for line in disagreements[:10 if not show_all else None]:
            print(f"    {line}", file=out)
    times = answer_times(session)
    if times:
        print(f"  time to each answer ({len(times)} request{'s' if len(times) > 1 else ''}):",
              file=out)
        if start.get("command"):  # a stdio server, whose client may write before it is ready
            print("    (the first answers include the server's start-up: a client that pipes its "
                  "requests sends them before the server reads)", file=out)
        shown = times if show_all or len(times) <= 30 else times[:30]
        for row in shown:
            print(f"    line {row['line']}: the {SENDER[row['direction']]}'s request "
                  f"{show_id(row['id'])} "
                  f"({row['method']}): {_duration(row['seconds'])}", file=out)
        if len(shown) < len(times):
            print(f"    ... {len(times) - len(shown)} more (--all lists every one)", file=out)
        spans = sorted(row["seconds"] for row in times if row["seconds"] is not None)
        if len(spans) > 1:
            import statistics

            print(f"    median {_duration(statistics.median(spans))}, slowest "
                  f"{_duration(spans[-1])}", file=out)


def _judge_disagreements(session):
    """Lines where the recorded verdict (a user's judge) is not the course's."""
    start = next((entry for entry in session if entry.get("event") == "start"), {})
    if start.get("judge", CourseJudge.name) == CourseJudge.name:
        return []
    found = []
    for entry in session:
        if entry.get("direction") not in DIRECTIONS or entry.get("truncated"):
            continue
        if "judge_error" in entry:
            found.append(f"line {entry['_line']}: the judge failed ({entry['judge_error']})")
            continue
        raw = base64.b64decode(entry["bytes"]) if "bytes" in entry else entry.get("text", "")
        course = list(classify_json(raw))
        theirs = [entry.get("kind"), entry.get("code")]
        if theirs != course:
            found.append(f"line {entry['_line']}: {_quoted(entry)}: the judge says "
                         f"({show_id(theirs[0])}, {show_id(theirs[1])}), the course's rules "
                         f"({show_id(course[0])}, {show_id(course[1])})")
    return found


# --- the command line ----------------------------------------------------------------------

def _arguments(argv):
    parser = argparse.ArgumentParser(
        prog=f"python -m {PROG}",
        description="Record and judge the stdio traffic of an MCP server, or audit a recording.",
        epilog="record: python -m mcp_lesson.tap --record FILE -- COMMAND [ARGS...]   "
               "audit:  python -m mcp_lesson.tap --report FILE")
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--record", metavar="FILE", help="run COMMAND behind the tap, recording "
                                                       "its traffic to FILE (JSON Lines)")
    what.add_argument("--report", metavar="FILE", help="audit the recording FILE ('-': stdin)")
    parser.add_argument("--http", action="store_true",
                        help="with --record: be a reverse proxy on 127.0.0.1 in front of the "
                             "Streamable HTTP server at --to, instead of running a command")
    parser.add_argument("--port", type=int, default=0, help="with --http: the port to listen on "
                                                            "(default 0: a free one)")
    parser.add_argument("--to", metavar="URL", help="with --http: the server's address, such as "
                                                    "http://127.0.0.1:8000/mcp")
    parser.add_argument("--judge", metavar="PACKAGE",
                        help="judge with this package's classify_json (a folder, a folder "
                             "holding my_mcp, or a module name) instead of the course's")
    parser.add_argument("--append", action="store_true", help="add to FILE instead of "
                                                              "replacing it")
    parser.add_argument("--grace", type=float, default=GRACE, metavar="SECONDS",
                        help=f"how long the server gets to exit after a side ended "
                             f"(default {GRACE:g})")
    parser.add_argument("--max-line", type=int, default=MAX_LINE, metavar="BYTES",
                        help=f"the longest line recorded whole (default {MAX_LINE})")
    parser.add_argument("--revision", metavar="REVISION",
                        help="with --report: judge under this revision ('none': the course's "
                             "rules) instead of the one the two sides agreed on")
    parser.add_argument("--all", action="store_true", help="with --report: list every request's "
                                                           "time")
    parser.add_argument("--json", action="store_true", help="with --report: the problems as "
                                                            "JSON Lines")
    if "--" in argv:
        cut = argv.index("--")
        options, command = argv[:cut], argv[cut + 1:]
    else:
        options, command = argv, []
    args, extra = parser.parse_known_args(options)
    if args.http:
        if not args.record:
            parser.error("--http goes with --record")
        if not args.to or command or extra:
            parser.error("--http passes on to a server's address, not a command: "
                         "python -m mcp_lesson.tap --record FILE --http --to URL [--port N]")
        if not 0 <= args.port <= 65535:
            parser.error("--port must be 0 to 65535")
        return args, command
    if args.to:
        parser.error("--to goes with --http")
    if extra and args.record:
        parser.error(f"give the server's command after --: python -m mcp_lesson.tap --record "
                     f"{args.record} -- {' '.join(extra)}")
    if extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    if args.record and not command:
        parser.error("give the server's command after --: "
                     "python -m mcp_lesson.tap --record FILE -- COMMAND [ARGS...]")
    if args.report and command:
        parser.error("--report reads a recording; it runs no command")
    if args.grace < 0 or args.max_line < 1:
        parser.error("--grace must be 0 or more, --max-line 1 or more")
    if args.revision is not None:
        if args.revision.lower() == "none":
            args.revision = None
        elif args.revision not in REVISIONS:
            parser.error(f"unknown revision {args.revision!r}; the known ones are "
                         f"{', '.join(REVISIONS)} (or 'none')")
    else:
        args.revision = "agreed"
    return args, command


def main(argv=None):
    """The command line (the module docstring says what it does); returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    args, command = _arguments(argv)
    if args.report:
        if args.judge:
            print(f"--judge {args.judge} is for recording: --report judges with the course's rules "
                  "(and shows where the recorded verdicts, of the judge the recording was made "
                  "with, disagree)", file=sys.stderr)
        try:
            return report(args.report, show_all=args.all, revision=args.revision,
                          as_json=args.json)
        except BrokenPipeError:  # its reader stopped early (| head): that is no failure
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            return 0
    # From here on stdout is the protocol's: anything printed (a judge's print, say) goes to
    # stderr instead.
    sys.stdout = sys.stderr
    judge = load_judge(args.judge) if args.judge else CourseJudge()
    if args.http:
        return serve_http(args.to, args.record, port=args.port, judge=judge,
                          max_line=args.max_line, append=args.append)
    return record(command, args.record, judge, grace=args.grace, max_line=args.max_line,
                  append=args.append)


if __name__ == "__main__":
    sys.exit(main())
