"""Calling a learner's function, and comparing and showing what it returns, safely.

The course runs code it did not write (the learner's ``classify``), on values
it must not lose (the shared case table). Everything here holds whatever that
code does:

* :func:`call_safely` gives the function its own deep copy of every argument,
  so a function that mutates its input cannot change the case table; it
  catches any exception (``sys.exit``, ``GeneratorExit`` and other
  ``BaseException`` subclasses too) and returns it; it keeps what
  the function prints, up to :data:`MAX_PRINTED` characters, so a function
  that prints a megabyte per call cannot flood a notebook; it stops a call
  that runs past :data:`CALL_LIMIT` seconds (:class:`DidNotFinish`: a loop that
  never ends costs one call, and the check goes on); and the stop button
  (``KeyboardInterrupt``) stops the call and every later call of the same
  cell (:class:`Interrupted`, :class:`NotRun`), so that a check says so in one
  line instead of a traceback through the course's own code.
* :func:`same_verdict` and :func:`same_message` compare by exact type and
  value, so an object whose ``==`` always says True (or raises) is not a
  right answer.
* :func:`shown` and :func:`python_text` render any value on one short line as
  Python writes it (a learner reads ``None`` and ``False``, never JSON's words)
  and never raise.
"""

import contextlib
import copy
import io
import json
import signal
import sys
import threading

from mcp_lesson.protocol.values import show_value

#: What a function the learner has not written yet (it raises NotImplementedError)
#: is said to be, everywhere the course shows one.
NOT_YET = "not implemented yet"
#: How many printed characters are kept per check; the rest is only counted.
MAX_PRINTED = 2_000


class PrintedOutput(io.TextIOBase):
    """A write-only text stream that keeps the first characters and counts the rest; one
    check's calls share one (it also counts those that ran out of time)."""

    def __init__(self, limit=MAX_PRINTED):
        super().__init__()
        self.limit = limit
        self.kept = []
        self.size = 0  # characters written in all
        self._kept_size = 0
        self.stuck = 0  # calls of this check that ran out of time (call_safely counts them)
        self._lock = threading.Lock()

    def writable(self):
        return True

    def write(self, text):
        if not isinstance(text, str):
            text = str(text)
        with self._lock:
            room = self.limit - self._kept_size
            if room > 0:
                self.kept.append(text[:room])
                self._kept_size += min(room, len(text))
            self.size += len(text)
        return len(text)

    @property
    def text(self):
        return "".join(self.kept)

    @property
    def dropped(self):
        return self.size - self._kept_size


def _own_copy(args, kwargs):
    try:
        return copy.deepcopy(args), copy.deepcopy(kwargs)
    except Exception:  # something that cannot be copied (a generator...): pass it as it is
        return args, kwargs


#: Seconds one call of a learner's function may run in a check in the kernel (a check's
#: cases each take microseconds: a call this long is a loop that never ends).
CALL_LIMIT = 5
#: How many calls of one check may run out of time before the check stops calling
#: the function (each costs :data:`CALL_LIMIT` seconds).
MAX_STUCK = 3


class DidNotFinish(Exception):
    """A call of the learner's function that ran past its time limit and was stopped."""

    def __init__(self, seconds):
        super().__init__(f"did not finish in {seconds:g} s: a loop that never ends?")
        self.seconds = seconds


class Interrupted(Exception):
    """A call of the learner's function that the learner stopped (the kernel's stop button)."""

    def __init__(self):
        super().__init__("was stopped: you interrupted it")


class NotRun(Exception):
    """A call that was not made: the learner stopped the check, or the function ran out of
    time too often in it."""


class _Alarm(BaseException):
    """Raised inside the learner's function when its time is up (a BaseException, so that
    the learner's ``except Exception`` does not swallow it)."""


_ARMED = threading.local()


@contextlib.contextmanager
def time_limit(seconds):
    """Stop the code run inside with :class:`_Alarm` after ``seconds``, and again every
    quarter of a second after that (a loop that catches one still stops). Only on the main
    thread of a Python that has ``SIGALRM`` (a kernel on Linux or macOS); elsewhere (a
    thread, Windows, the in-browser kernel) the code runs with no limit. Inside another
    time limit, the outer one holds."""
    timer = getattr(signal, "setitimer", None)
    if (
        not seconds
        or timer is None
        or sys.platform == "emscripten"
        or getattr(_ARMED, "on", False)
        or threading.current_thread() is not threading.main_thread()
    ):
        yield
        return
    state = {"armed": True}

    def alarm(signum, frame):
        if state["armed"]:
            raise _Alarm()

    try:
        previous = signal.signal(signal.SIGALRM, alarm)
        timer(signal.ITIMER_REAL, seconds, 0.25)
    except (ValueError, OSError):  # no signals or timers here after all: no limit
        try:
            signal.signal(signal.SIGALRM, previous)
        except (NameError, UnboundLocalError, ValueError, OSError):
            pass
        yield
        return
    _ARMED.on = True
    try:
        yield
    finally:
        state["armed"] = False
        timer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        _ARMED.on = False


#: The cell in which the learner pressed the stop button during a call (IPython's
#: execution count), while that cell still runs: its later calls are not made.
_STOPPED = {"cell": None}


def _cell_now():
    """The execution count of the IPython cell that runs now (IPython's ``run_code`` is on the
    stack), or None: outside IPython, or in a process that has a shell but runs no cell of it."""
    try:
        if "IPython" not in sys.modules:
            return None
        from IPython import get_ipython

        shell = get_ipython()
        if shell is None:
            return None
        frame = sys._getframe(1)
        while frame is not None:
            code = frame.f_code
            if code.co_name == "run_code" and "IPython" in code.co_filename:
                return shell.execution_count
            frame = frame.f_back
        return None
    except Exception:
        return None


def call_safely(fn, args, kwargs=None, printed=None, limit=None):
    """Run ``fn(*args, **kwargs)`` on deep copies; return ``(value, exception)``.

    What ``fn`` prints goes to ``printed`` (a :class:`PrintedOutput`; a new one,
    thrown away, when not given), never to the notebook. The call may run
    ``limit`` seconds (default: :data:`CALL_LIMIT` in a notebook, no limit elsewhere):
    past it, it is stopped and the exception is a :class:`DidNotFinish`. After :data:`MAX_STUCK` of those with
    the same ``printed`` (one check), and after the stop button in this cell, later
    calls are not made (:class:`NotRun`); the stop button itself gives
    :class:`Interrupted` in a notebook (outside one, ``KeyboardInterrupt`` goes through).
    """
    sink = printed if printed is not None else PrintedOutput()
    cell = _cell_now()
    if cell is not None and _STOPPED["cell"] == cell:
        return None, NotRun("you stopped the check")
    if sink.stuck >= MAX_STUCK:
        return None, NotRun(f"it did not finish {MAX_STUCK} times, so the check stopped calling it")
    args, kwargs = _own_copy(tuple(args), dict(kwargs or {}))
    # In a notebook's kernel, :data:`CALL_LIMIT`; elsewhere (a script, the judge's process,
    # whose calls go to its sandbox under a limit of its own), none unless asked for.
    seconds = (CALL_LIMIT if cell is not None else None) if limit is None else limit
    try:
        with (
            contextlib.redirect_stdout(sink),
            contextlib.redirect_stderr(sink),
            time_limit(seconds),
        ):
            return fn(*args, **kwargs), None
    except _Alarm:
        sink.stuck += 1
        return None, DidNotFinish(seconds)
    except KeyboardInterrupt:  # the stop button: this call, and the rest of the cell's
        if cell is None:  # not in a notebook (a script, a terminal): Ctrl-C stops it all
            raise
        _STOPPED["cell"] = cell
        return None, Interrupted()
    except BaseException as exc:  # anything else is reported, never re-raised
        return None, exc


def in_a_notebook():
    """True when a cell of IPython (a notebook's kernel) runs now."""
    return _cell_now() is not None


def exception_text(exc, limit=80):
    """``"TypeError: what it says"``: an exception's type and its text cut to
    ``limit`` characters (only the type when it has no text). Never raises,
    even when the exception's ``__str__`` does."""
    try:
        name = type(exc).__name__
    except Exception:
        name = "an exception"
    try:
        text = str(exc)
        if type(text) is not str:
            text = str.__str__(text)
    except Exception:
        return f"{name} (whose message could not be shown)"
    if len(text) > limit:
        text = text[: max(limit - 3, 0)] + "..."
    return f"{name}: {text}" if text else name


def is_verdict(value):
    """True for a real verdict: a 2-tuple of a ``str`` and an ``int`` or None (exact types)."""
    return (
        type(value) is tuple
        and len(value) == 2
        and type(value[0]) is str
        and (value[1] is None or type(value[1]) is int)
    )


def same_verdict(got, expected):
    """``got`` is exactly the verdict ``expected``: same types, same values; never raises."""
    return is_verdict(got) and got[0] == expected[0] and got[1] == expected[1]


def same_message(got, expected):
    """Equal as JSON text, so key order and 1 vs 1.0 vs true matter; never raises."""
    try:
        return json.dumps(got) == json.dumps(expected)
    except Exception:  # not JSON (a learner's odd value)
        return False


def same_json(a, b):
    """Equal as JSON whatever the order of an object's keys (1, 1.0 and true stay apart);
    False for what is not JSON, never raises."""
    try:
        return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    except Exception:
        return False


def safe_equal(a, b):
    """``a == b`` as a plain bool, False when ``==`` raises or returns something odd."""
    try:
        result = a == b
        return result if type(result) is bool else False
    except Exception:
        return False


def shown(value, limit=90):
    """A value on one line as Python writes it (``None``, ``False``, a dict with its keys
    in their order), cut to ``limit`` characters; never raises (a value whose repr fails,
    or is too big to make, is described instead)."""
    try:
        if isinstance(value, (bytes, bytearray)):
            text = repr(bytes(value[: limit + 1]))
        else:
            text = _text_of(value)
            if text is None:
                text = show_value(value)
        return text if len(text) <= limit else text[: limit - 3] + "..."
    except Exception:
        return show_value(value)


def _text_of(value):
    """``repr(value)`` as a plain str, or None when there is none (a repr that raises, returns
    something else, or an int too long for Python to write)."""
    try:
        text = repr(value)
        return str.__str__(text) if isinstance(text, str) else None
    except Exception:
        return None


def shown_apart(got, expected, limit=90):
    """``(got, expected)`` as :func:`shown` writes them, but when either is too
    long, both are cut around their first difference, so that two long values
    that differ late do not show as the same prefix. Never raises."""
    try:
        a, b = _text_of(got), _text_of(expected)
        if a is None or b is None:
            return shown(got, limit), shown(expected, limit)
        return cut_apart(a, b, limit)
    except Exception:
        return shown(got, limit), shown(expected, limit)


#: What a number or a word is made of: a cut between two of these would split one.
_TOKEN = frozenset("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_.+-")
#: A number or a word longer than this may be cut inside: it is plainly a piece of something.
_LONG_TOKEN = 24


def _token_around(text, place):
    """``(start, end)`` of the number or word that a cut at ``place`` would split, or None
    when the cut falls between two, or inside one longer than :data:`_LONG_TOKEN`."""
    if not (0 < place < len(text) and text[place - 1] in _TOKEN and text[place] in _TOKEN):
        return None
    start, end = place, place
    while start > 0 and text[start - 1] in _TOKEN and place - start <= _LONG_TOKEN:
        start -= 1
    while end < len(text) and text[end] in _TOKEN and end - place <= _LONG_TOKEN:
        end += 1
    return (start, end) if end - start <= _LONG_TOKEN else None


def cut_apart(a, b, limit=90):
    """The texts ``a`` and ``b``, each cut to at most ``limit`` characters around
    the place where they first differ (as they are when both are short enough).
    A cut falls between numbers and words, not inside one (``-32600``, not
    ``-3260...``), unless the difference leaves no room or the word is very long."""
    if len(a) <= limit and len(b) <= limit:
        return a, b
    same = 0
    for x, y in zip(a, b):
        if x != y:
            break
        same += 1
    start = max(0, same - limit // 3)
    token = _token_around(a, start) or _token_around(b, start)  # the same text up to `same`
    if token and same - token[0] < limit - 12:
        start = token[0]
    elif token and token[1] < same:
        start = token[1]

    def cut(text):
        end = start + limit - 6
        around = _token_around(text, end)
        if around and around[0] > same + 1:
            end = around[0]
        return ("..." if start else "") + text[start:end] + ("..." if end < len(text) else "")

    return cut(a), cut(b)


def not_json_at(value, _path="", _depth=0):
    """Where ``value`` holds something that is not JSON: ``("error.data", "object()")``
    for ``{"error": {"data": object()}}``, or None when it is all JSON. Never raises."""
    try:
        if value is None or isinstance(value, (str, bool, int)):
            return None
        if isinstance(value, float):
            return (
                None
                if value == value and value not in (float("inf"), float("-inf"))
                else (_path or "the value", repr(value))
            )
        if _depth > 50:
            return None
        if isinstance(value, dict):
            for key, item in dict.items(value):
                if not isinstance(key, str):
                    return (
                        _path or "the value",
                        f"a key {python_text(key, 30)} that is not a string",
                    )
                found = not_json_at(item, f"{_path}.{key}" if _path else key, _depth + 1)
                if found:
                    return found
            return None
        if isinstance(value, (list, tuple)):
            for index, item in enumerate(value):
                found = not_json_at(item, f"{_path}[{index}]", _depth + 1)
                if found:
                    return found
            return None
        shown_value = "object()" if type(value) is object else python_text(value, 40)
        return (_path or "the value", f"{shown_value} (a Python {type(value).__name__}, not JSON)")
    except Exception:
        return None


def python_text(value, limit=90):
    """How Python writes ``value`` (its ``repr``), on one line of at most ``limit``
    characters: long text is cut inside its quotes, anything else too long is cut
    after ``limit - 3`` characters of its repr, and a value whose repr fails is
    shown as :func:`shown` writes it. Never raises."""
    try:
        if isinstance(value, (str, bytes, bytearray)) and len(value) > limit:
            head = repr(
                bytes(value[: limit - 10]) if isinstance(value, bytearray) else value[: limit - 10]
            )
            return head[:-1] + "..." + head[-1]
        text = repr(value)
        return text if len(text) <= limit else text[: limit - 3] + "..."
    except Exception:  # an int too long to print, a hostile __repr__, deep nesting...
        return shown(value, limit)


#: Unicode's direction controls (Cf), which can make a line read backwards.
_DIRECTION = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def one_line(text, limit=200, mark="..."):
    """``text`` safe to print on one line of a terminal or a log: each control
    character (newlines, ESC, BEL...) and direction control (U+202E...) as its
    escape (``\\n``, ``\\x1b``, ``\\u202e``), cut to ``limit`` characters with
    ``mark`` after. Never raises, whatever ``text`` is."""
    try:
        text = text if type(text) is str else str(text)
    except Exception:
        text = f"<a {type(text).__name__}>"
    out, size = [], 0
    for index, char in enumerate(text[: limit + 1]):
        if (
            char in _DIRECTION
            or ord(char) < 32
            or 0x7F <= ord(char) < 0xA0
            or char in "\u2028\u2029"
        ):
            char = char.encode("unicode_escape").decode("ascii")
        if size + len(char) > limit or index == limit:  # an escape is never cut in two
            return "".join(out) + mark
        out.append(char)
        size += len(char)
    return "".join(out)
