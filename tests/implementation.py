"""The implementation the course's tests run against.

By default that is :mod:`mcp_lesson`. With ``pytest --graduate DIR`` (``make
graduate PKG=DIR``) it is the package in ``DIR``, a learner's own (see
:mod:`mcp_lesson.exercises.learner_package`): the functions the lessons build come from
there, and a function the package lacks is a stand-in that says so. Tests of
what no lesson builds carry the ``course_only`` mark and are skipped then.

Test modules import the functions from here, so one set of tests serves both.

Any ordinary package folder can graduate: the one the lessons export, or one
written by hand whose ``__init__.py`` imports its modules (``from .core import
*``). While graduating, every call a test makes to the package is remembered
(:data:`CALLS`), so that a failure can say in plain words what was called
and what came back (tests/conftest.py writes the report).
"""

import collections
import copy
import functools
import itertools
import re
import reprlib
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from processes import patience

import mcp_lesson
from mcp_lesson.exercises.refusals import names_what_was_wrong as _names_what_was_wrong
from mcp_lesson.exercises.registry import GRADUATED

#: None, or the folder of the package being graduated.
GRADUATING = None
#: Why the package could not be read, or read only in part (None when all is well).
PROBLEM = None
#: True when the package could not be imported at all.
UNREADABLE = False
#: The last calls a test made to the graduating package's functions (:class:`Call`\ s),
#: the latest last; tests/conftest.py empties it before each test.
CALLS: collections.deque = collections.deque(maxlen=20)


class NotInPackage(NotImplementedError):
    """Raised by the stand-in of a function the package does not have."""

    def __init__(self, name, why):
        super().__init__(f"{name} {why}")
        self.function = name


class Unmet(AssertionError):
    """A check of the tests that failed, already said in plain words."""


class CourseFault(AssertionError):
    """A case the course's own reference fails too: an error of the course, to report, and
    no verdict on the package."""


# --- showing values in plain words ----------------------------------------------------


class _Short(reprlib.Repr):
    """reprlib's short texts, with a dict's keys in their own order (the lessons
    care about that order; reprlib sorts them)."""

    def repr_dict(self, x, level):
        if not x:
            return "{}"
        if level <= 0:
            return "{...}"
        pieces = [
            f"{self.repr1(key, level - 1)}: {self.repr1(value, level - 1)}"
            for key, value in itertools.islice(x.items(), self.maxdict)
        ]
        if len(x) > self.maxdict:
            pieces.append("...")
        return "{" + ", ".join(pieces) + "}"


_SHORT = _Short()
_SHORT.maxlevel, _SHORT.maxdict, _SHORT.maxlist, _SHORT.maxtuple = 4, 8, 8, 8
_SHORT.maxstring, _SHORT.maxother, _SHORT.maxlong = 50, 50, 50


def _describe(value):
    """Python's words for a value that cannot be printed whole (or at all)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"<an int of about {int(value.bit_length() * 0.30103) + 1:,} digits>"
    return f"<a {type(value).__name__}>"


def shown(value):
    """A short text for ``value`` as Python writes it; never raises, stays short."""
    try:
        return _SHORT.repr(value)
    except Exception:  # an int too long to print, a hostile __repr__...
        try:
            return _describe(value)
        except Exception:
            return "<a value that cannot be shown>"


def full_text(value, limit=20_000):
    """The whole ``repr`` of ``value`` when it can be made and is not huge, else :func:`shown`."""
    try:
        text = repr(value)
    except Exception:
        return shown(value)
    return text if len(text) <= limit else shown(value)


def around_difference(got, expected, width=70, before=30):
    """``got`` and ``expected`` (texts) cut to the part around their first difference."""
    if len(got) <= width and len(expected) <= width:
        return got, expected
    first = next(
        (i for i, (a, b) in enumerate(zip(got, expected)) if a != b), min(len(got), len(expected))
    )
    start = max(0, first - before)
    gap = got.rfind(", ", max(0, start - 20), start)  # start at a member or an item if one is near
    if gap != -1:
        start = gap + 2

    def cut(text):
        part = text[start : start + width]
        return ("..." if start else "") + part + ("..." if start + width < len(text) else "")

    return cut(got), cut(expected)


# --- the calls a test makes ---------------------------------------------------------


class Call:
    """One call of the package's function: what was asked, what came back."""

    def __init__(self, name, args, kwargs):
        self.name, self.args, self.kwargs = name, args, kwargs
        self.returned = False
        self.result = None
        self.raised = None
        #: The first change the call made to an argument it was given: ``(which argument,
        #: where in it, before, after)``, or None.
        self.changed = None

    def change_in_words(self):
        """ "reply_for({...}) changed the message it was given: message['id'] was 1.5 and is None
        after the call; ..." """
        which, where, before, after = self.changed
        place = f"{which.split()[-1] if which.startswith('argument') else which}{where}"
        return (
            f"{self} changed the {which} it was given: {place} was {full_text(before)} and is "
            f"{full_text(after)} after the call; the course gives a function a value to read, "
            "and the caller still needs it as it was"
        )

    def __str__(self):
        parts = [shown(arg) for arg in self.args]
        parts += [f"{key}={shown(value)}" for key, value in self.kwargs.items()]
        return f"{self.name}({', '.join(parts)})"

    def outcome(self):
        """ "returned {...}" or "raised KeyError ('id')"."""
        if self.raised is not None:
            return f"raised {exception_in_words(self.raised)}"
        if self.returned:
            return f"returned {shown(self.result)}"
        return "did not finish"


def no_answer_in_words(exc):
    """What a call that gave no answer (tools/judge's DidNotFinish) did, after the call:
    "did not finish in 10 s: a loop that never ends?" or "gave no answer: its process ended"."""
    text = " ".join(str(exc).split())
    why = text.partition(" gave no answer: ")[2]
    late = re.fullmatch(r"it did not finish within ([\d.]+) s", why)
    if late:
        return f"did not finish in {late.group(1)} s: a loop that never ends?"
    return f"gave no answer: {why}" if why else f"gave no answer ({text})"


def exception_in_words(exc):
    """ "KeyError ('id')": an exception's type and its text, short."""
    try:
        text = str(exc)
    except Exception:
        text = ""
    text = " ".join(text.split())
    if len(text) > 150:
        text = text[:147] + "..."
    return f"{type(exc).__name__} ({text})" if text else type(exc).__name__


def _as_given(values):
    """A copy of ``values`` (a call's arguments) as they were given, or ``values`` itself."""
    try:
        return copy.deepcopy(values)
    except Exception:
        return values


def _first_change(before, after, path=""):
    """Where ``after`` first differs from ``before`` (the same value before and after a
    call): ``("['id']", 1.5, None)``, or None when it is the same (exact types)."""
    if type(before) is not type(after):
        return path, before, after
    if type(before) is dict:
        for key in list(before) + [key for key in after if key not in before]:
            where = f"{path}[{key!r}]"
            if key not in after:
                return where, before[key], "(gone)"
            if key not in before:
                return where, "(absent)", after[key]
            found = _first_change(before[key], after[key], where)
            if found:
                return found
        return None
    if type(before) in (list, tuple):
        for index, (one, other) in enumerate(zip(before, after)):
            found = _first_change(one, other, f"{path}[{index}]")
            if found:
                return found
        return None if len(before) == len(after) else (path, before, after)
    return None if _same(before, after) else (path, before, after)


def _same(a, b):
    try:
        return bool(a == b) or (a != a and b != b)  # NaN stays NaN
    except Exception:
        return False


def _recorded(name, fn):
    """``fn``, remembering each call in :data:`CALLS`: its arguments as they were given,
    what came back, and the first change it made to an argument (a dict or list it was
    given and changed, which the judge sees: tools/judge writes it back)."""

    @functools.wraps(fn)
    def call(*args, **kwargs):
        record = Call(name, _as_given(args), _as_given(kwargs))
        CALLS.append(record)
        try:
            record.result = fn(*args, **kwargs)
        except BaseException as exc:
            record.raised = exc
            raise
        finally:
            record.changed = _changed(record, args, kwargs)
        record.returned = True
        return record.result

    call.__name__ = call.__qualname__ = name
    return call


def _changed(record, args, kwargs):
    """The first change the call of ``record`` made to its arguments (see :attr:`Call.changed`)."""
    given = [
        (f"argument {index + 1}" if len(args) > 1 else "value", before, after)
        for index, (before, after) in enumerate(zip(record.args, args))
    ]
    given += [
        (f"argument {key}", record.kwargs[key], kwargs[key])
        for key in kwargs
        if key in record.kwargs
    ]
    for which, before, after in given:
        if before is after or type(after) not in (dict, list):
            continue
        found = _first_change(before, after)
        if found:
            if which == "value" and type(after) is dict:
                which = "message"
            return (which, *found)
    return None


# --- what a refusal must say ---------------------------------------------------------


def names_what_was_wrong(text, value):
    """True when ``text`` (a TypeError's words) names the offending ``value``: the rule of
    :func:`mcp_lesson.exercises.refusals.names_what_was_wrong`, which the self-check holds a
    lesson's builders to as well (with this module's short texts of a value besides)."""
    return _names_what_was_wrong(text, value, more=(_SHORT.repr,))


def refusal(fn, *args, **kwargs):
    """Call ``fn``; return the TypeError it raises. Anything else fails in plain words."""
    call = Call(getattr(fn, "__name__", "the function"), args, kwargs)
    try:
        result = fn(*args, **kwargs)
    except TypeError as exc:
        return exc
    except NotImplementedError:
        raise
    except Exception as exc:
        call.raised = exc
        raise Unmet(f"{call} {call.outcome()}; expected it to refuse with a TypeError") from exc
    call.result, call.returned = result, True
    raise Unmet(f"{call} {call.outcome()}; expected it to refuse with a TypeError")


def refuses(offender, fn, *args, **kwargs):
    """Call ``fn``: it must raise a TypeError that names ``offender`` (see
    :func:`names_what_was_wrong`). Returns the TypeError."""
    error = refusal(fn, *args, **kwargs)
    if not names_what_was_wrong(error, offender):
        call = Call(getattr(fn, "__name__", "the function"), args, kwargs)
        raise Unmet(
            f"{call} rightly raised {exception_in_words(error)}, but its words do not "
            f"say what was wrong; expected them to name the type "
            f"({type(offender).__name__}) or the value ({shown(offender)})"
        )
    return error


# --- reading the package ----------------------------------------------------------------


def _stand_in(name, why):
    def missing(*args, **kwargs):
        raise NotInPackage(name, why)

    missing.__name__ = name
    missing.not_written = True  # graduation says "not written yet", never a failure
    return missing


def not_written(name):
    """True when the graduating package lacks ``name`` (it is a stand-in here)."""
    return bool(getattr(globals().get(name), "not_written", False))


def lesson_of(names):
    """The latest lesson that builds one of ``names`` (functions the lessons build), or None."""
    lessons = [GRADUATED[name] for name in names if name in GRADUATED]
    return max(lessons) if lessons else None


def _load_problem(failure, folder):
    """Why importing the package failed, in words (``failure`` as the judge's
    worker reports it): "my_mcp/__init__.py could not be imported: SyntaxError
    at line 3 of my_mcp/x.py (invalid syntax)"."""
    init = f"{folder.name}/__init__.py"
    if not isinstance(failure, dict):  # it did not finish, or its process ended
        return f"{init} could not be imported: {failure}"  # "it did not finish within 30 s"
    kind, text = (
        failure.get("type") or "Exception",
        " ".join(str(failure.get("text") or "").split()),
    )
    file, line = failure.get("file"), failure.get("line")
    at = ""
    if file and line:
        where = folder.name + file[file.index("/") :] if "/" in file else file
        at = f" at line {line}" + ("" if where == init else f" of {where}")
    return f"{init} could not be imported: {kind}{at}" + (f" ({text[:150]})" if text else "")


#: The package's folder name inside the sandbox (any folder may graduate, even
#: one whose name is not a Python name).
SANDBOXED_NAME = "my_mcp"
#: The judge's sandbox of the graduating package (None when not graduating).
SUBMISSION = None


def load_package(folder):
    """Import the package in ``folder`` in the judge's sandbox (tools/judge); return
    ``(submission, names, problem)``: the :class:`~tools.judge.learner.Submission`
    (None when the package could not be read), its callables, and what went wrong."""
    import tempfile

    from tools.judge import stand_in
    from tools.judge.learner import Submission

    folder = Path(folder)
    init = folder / "__init__.py"
    if not init.is_file():
        return (
            None,
            [],
            (
                f"no package at {folder}: a package is a folder with an __init__.py "
                "(run the cells marked #| export in lessons 01 to 04 to make yours)"
            ),
        )
    lib = Path(tempfile.mkdtemp(prefix="graduate-lib-"))
    stand_in.write(lib)
    files = Path(tempfile.mkdtemp(prefix="graduate-files-"))
    import shutil

    from mcp_lesson.exercises.calling import one_line
    from tools.judge.files import copy_tree

    # Regular files only, never through a link: nothing outside the package enters the sandbox.
    left_out = copy_tree(folder, files / SANDBOXED_NAME)
    if left_out:
        shutil.rmtree(files, ignore_errors=True)
        shutil.rmtree(lib, ignore_errors=True)
        path, what = left_out[0]
        more = f" (and {len(left_out) - 1} more)" if len(left_out) > 1 else ""
        return (
            None,
            [],
            (
                f"{folder.name}/{one_line(path, 80)} is {what}{more}: graduation takes a "
                "package of regular files only, so nothing of it was judged"
            ),
        )
    limit = _limit()
    # A call that does not finish costs that call: the calls after it go to a fresh worker, and
    # only a function stuck STRIKES times is not called again (a loop on every input).
    submission = Submission(files, lib, call_limit=limit, budget=patience(900.0), strikes=STRIKES)
    shutil.rmtree(files, ignore_errors=True)
    shutil.rmtree(lib, ignore_errors=True)
    submission.refused = "all"  # a package does its own work: none of the course's
    names, problems = submission.import_package(SANDBOXED_NAME, limit=3 * limit)
    if submission.load_failure:
        problem = _load_problem(submission.load_failure, folder)
        submission.close()
        return None, [], problem
    if problems:
        return submission, names, "; ".join(f"{file}: {why}" for file, why in problems.items())
    return submission, names, None


#: How many calls of one function may give no answer before its later calls fail at once.
STRIKES = 3
#: Seconds a call of the package's function may take (an import: three times
#: as long); the environment variable sets another, MCP_LESSON_TEST_SLACK scales it.
LIMIT_VARIABLE = "MCP_LESSON_JUDGE_LIMIT"


def _limit():
    import os

    try:
        return patience(float(os.environ.get(LIMIT_VARIABLE, "")))
    except ValueError:
        return patience(10.0)


def _functions(submission, names):
    found = {}
    for name in GRADUATED:
        if submission is None:
            found[name] = _stand_in(name, "could not be read: your package did not import")
            continue
        found[name] = (
            _recorded(name, submission.function(name))
            if name in names
            else _stand_in(name, f"is not in your package yet (lesson {GRADUATED[name]} builds it)")
        )
    return found


def _course_version(name):
    """The course's own ``name``: the package root's, else the master's export (lesson 08's
    ``classify_at``), else, for a lesson whose cells are not the course's core (lesson 06's
    ``is_reply_to``), the master's solution as the masters' package holds it (conftest.py
    exports it before the tests run)."""
    from mcp_lesson.exercises import registry

    found = getattr(mcp_lesson, name, None) or registry.reference(name)
    if found is None:
        from mcp_lesson.exercises.carry import load

        found = getattr(load(), name, None)
    return found


def use(folder):
    """Point the names of this module at the package in ``folder`` (None: mcp_lesson)."""
    global GRADUATING, PROBLEM, UNREADABLE, SUBMISSION
    GRADUATING, PROBLEM, UNREADABLE = folder, None, False
    CALLS.clear()
    if SUBMISSION is not None:
        SUBMISSION.close()
        SUBMISSION = None
    if folder is None:
        chosen = {name: _course_version(name) for name in GRADUATED}
    else:
        SUBMISSION, names, PROBLEM = load_package(folder)
        UNREADABLE = SUBMISSION is None
        chosen = _functions(SUBMISSION, names)
    globals().update(chosen)
    IMPLEMENTATION.__dict__.update(chosen)


IMPLEMENTATION = SimpleNamespace()
use(None)


if TYPE_CHECKING:
    # The graded functions are set by use() above, one global each, by name: the type
    # checker is told that any name may be one.
    def __getattr__(name: str) -> Any: ...
