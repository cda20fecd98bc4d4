"""A lesson's hidden tests: one loop, one way of saying what went wrong.

Each graded test cell of a master ends with hidden tests (nbgrader's ``### BEGIN
HIDDEN TESTS``): cases in none of the lesson's tables, so that fitting the
tables is not enough. They run where the grader runs the test cell (outside the
judge's sandbox, on the student's function through it) and in the master under
nbval. :func:`hidden_tests` is their loop: it calls the function on each case,
and the first case whose answer is not the one wanted fails with an
``AssertionError`` that a student reads on their feedback page:

    a bool is not an id:
      is_valid_id(True)
      gave True,
      but it should be False

An exception is an answer too, said in words in place of "gave ...": "raised
TypeError: ..." or, for the released stub, "raised NotImplementedError (not
written yet)". Values are
shown as Python writes them, cut at ``limit`` characters, and a value whose
text cannot be written (an int of 5,000 digits, a list nested 5,000 deep) is
described instead.
"""

import contextlib
import copy

from mcp_lesson.exercises.calling import python_text


class _Raised:
    """What a call that raised gave: its exception, in words."""

    def __init__(self, exc):
        self.exc = exc

    def __repr__(self):
        name = type(self.exc).__name__
        if isinstance(self.exc, NotImplementedError):
            return f"raised {name} (not written yet)"
        try:
            text = str(self.exc)
        except Exception:
            text = ""
        return f"raised {name}: {python_text(text, 200)[1:-1]}" if text else f"raised {name}"


def raised(exc):
    """An exception as an answer: its repr says "raised <type>: <text>"."""
    return _Raised(exc)


def answer_of(function, *args):
    """What ``function(*args)`` gives: its value, or the exception it raised (as an
    object whose repr says so in words)."""
    try:
        return function(*args)
    except Exception as exc:
        return _Raised(exc)


def shown(value, limit=300):
    """What a failure message says ``value`` was: "gave <value>" (see the module's
    docstring), or "raised ..." for an exception."""
    return repr(value) if isinstance(value, _Raised) else "gave " + python_text(value, limit)


def same(got, want):
    """The default comparison: the same value written the same way (so ``1`` is not
    ``True``, a tuple is not a list, and ``1.0`` is not ``1``); an exception is never
    a value."""
    if isinstance(got, _Raised):
        return False
    try:
        return repr(got) == repr(want)
    except Exception:
        return False


#: Who is told each case's verdict as data, while grading (tools/insight/records.py): each is
#: called as ``watcher(function name, why, call, passed, what it gave)`` (None when it passed).
#: While one watches, the loop judges every case, then raises the first failure (the same one
#: as without a watcher).
_watchers: list = []


@contextlib.contextmanager
def watched(watcher):
    """Tell ``watcher`` each case's verdict while the block runs (see :data:`_watchers`)."""
    _watchers.append(watcher)
    try:
        yield watcher
    finally:
        _watchers.remove(watcher)


def hidden_tests(function, cases, *, spread=False, unchanged=False, compare=same, limit=300):
    """Check ``function`` on ``cases``, each ``(argument, want, why)``: with
    ``spread``, ``argument`` is a tuple of the arguments. With ``unchanged``, each
    argument must also be left as it was given (the function gets a copy). The
    first case that fails raises an ``AssertionError`` (see the module's docstring)."""
    name = getattr(function, "__name__", "the function")
    first = None
    for argument, want, why in cases:
        args = tuple(argument) if spread else (argument,)
        given = copy.deepcopy(args) if unchanged else args
        got = answer_of(function, *given)
        call = f"{name}({', '.join(python_text(arg, limit) for arg in args)})"
        failure = said = None
        if not compare(got, want):
            said = shown(got, limit)
            failure = AssertionError(
                f"{why}:\n  {call}\n  {said},\n  but it should be {python_text(want, limit)}"
            )
        elif unchanged and not same(given, args):
            said = f"changed what it was given into {', '.join(python_text(arg, limit) for arg in given)}"
            failure = AssertionError(f"{why}:\n  {call}\n  {said}")
        for watcher in list(_watchers):
            watcher(name, why, call, failure is None, said)
        if failure is not None and not _watchers:
            raise failure
        first = first or failure
    if first is not None:
        raise first


# --- the graded cells' cases, for graduation -------------------------------------------------
#
# Graduation (tests/exercises/test_each_case.py) runs, for every function a lesson builds into the
# package, the same hidden cases as the grader: it reads them from the graded test cells of
# the lesson masters (nbgrader's grade_id "<function>-tests"), where they are declared once.
# A cell whose hidden tests go through :func:`hidden_tests` gives its cases one by one; a cell
# with a loop of its own is run whole, as the grader runs it.
