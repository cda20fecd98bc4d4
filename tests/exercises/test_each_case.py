"""Each case of every function a lesson builds into the package, judged as the lessons judge it:
the cases of its self-check's table (the visible cases and the shared table, judged by the
self-check's own comparison, mcp_lesson/exercises/selfcheck.py), then the hidden cases of its graded
cell in the lesson's master (nbgrader's ``### BEGIN HIDDEN TESTS``, judged by the cell's own
comparison). So graduation is never weaker than the grader: whatever the grader's hidden
tests fail, graduation fails too, in the same words.

On mcp_lesson (a plain test run) these are the course's own versions, which must pass every
case. Under ``pytest --graduate=DIR`` (``make graduate``) they are the learner's: a function
the package lacks, or that still raises the stub's ``NotImplementedError``, is "not written
yet"; a case the course's own version fails too is an error of the course, said as such.
"""

import functools

import implementation
import pytest
from graded_cells import graded_cases, run_cell

from mcp_lesson.exercises import agreement, registry
from mcp_lesson.exercises.hidden_tests import hidden_tests
from mcp_lesson.exercises.selfcheck import run_check

#: The rows of the registry that graduation runs: every public function a lesson builds.
GRADUATED = [row for row in registry.BUILT if row.graduates]
#: The hidden cases of their graded cells, read from the masters.
GRADED = graded_cases(registry.GRADUATED, implementation._course_version)


def _table_cases(row):
    count = len(row.table.cases) if row.table else len(agreement.inputs_for(row.name))
    return [(row.name, place) for place in range(count)]


def _case_name(row, place):
    if row.table:
        return row.table.cases[place].name
    args, kwargs = agreement.inputs_for(row.name)[place]
    return f"as the course's, case {place + 1}"


TABLE = [case for row in GRADUATED for case in _table_cases(row)]
HIDDEN = [
    (name, place) for name, graded in GRADED.items() for place in range(len(graded.cases) or 1)
]


def _theirs(name):
    return getattr(implementation.IMPLEMENTATION, name)


def _not_written_yet(name):
    """Raise "not written yet" for a function the package lacks (its stand-in says so)."""
    if implementation.not_written(name):
        _theirs(name)()


def _first_not_implemented(fn):
    """``fn``, and a list that gets each NotImplementedError it raises (the stub's)."""
    seen = []

    @functools.wraps(fn)
    def watched(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except NotImplementedError as exc:
            seen.append(exc)
            raise

    return watched, seen


_REPORTS: dict = {}
_STUBS: dict = {}


def _still_the_stub(name):
    """Raise the ``NotImplementedError`` that ``name`` raises on a case of its table, if any:
    a function that raises it anywhere (the released stub, or a helper's stub it calls) still
    holds the stub, and is "not written yet" on every case, not failed on some."""
    _not_written_yet(name)
    fn = _theirs(name)
    if (name, fn) not in _STUBS:
        watched, seen = _first_not_implemented(fn)
        row = registry.BY_NAME[name]
        if row.table:
            run_check(watched, name)
        else:
            for args, kwargs in agreement.inputs_for(name):
                agreement.outcome(watched, args, kwargs)
                if seen:
                    break
        _STUBS[name, fn] = seen[0] if seen else None
    if _STUBS[name, fn] is not None:
        # Raised afresh for each case: an exception raised again keeps the frames of every
        # earlier raise, and pytest reads them all (945 cases of a stub package: 11 s).
        raise _STUBS[name, fn].with_traceback(None)


def _report(name, fn):
    """The self-check of ``fn`` on its table, run once for all its cases (keyed by the function
    itself, which the cache keeps alive: an id could be reused by another)."""
    if (name, fn) not in _REPORTS:
        _REPORTS[name, fn] = run_check(fn, name)
    return _REPORTS[name, fn]


def _one_line(text):
    return " ".join(str(text).split())


@pytest.mark.parametrize(
    "name, place",
    TABLE,
    ids=[f"{name}: {_case_name(registry.BY_NAME[name], place)}" for name, place in TABLE],
)
def test_table_case(name, place):
    _still_the_stub(name)
    row = registry.BY_NAME[name]
    if not row.table:  # no table of its own: it must answer as the course's does
        args, kwargs = agreement.inputs_for(name)[place]
        mine = agreement.outcome(_theirs(name), args, kwargs)
        course = agreement.outcome(registry.reference(name), args, kwargs)
        if not agreement.same_outcome(mine, course):
            call = implementation.Call(name, args, kwargs)
            raise implementation.Unmet(
                f"{call} gave {implementation.shown(mine[1])}; expected "
                f"{implementation.shown(course[1])} (as the course's {name} answers)"
            )
        return
    report = _report(name, _theirs(name))
    case = report.rows[place]
    if not case.ok:
        course = _report(name, implementation._course_version(name)).rows[place]
        shown = case.called or (
            case.shown_input if case.shown_input.startswith("(") else f"({case.shown_input})"
        )
        if case.raised == "DidNotFinish":  # one line: the call, and that it gave no answer
            words = (
                f"{name}{shown} {implementation.no_answer_in_words(case.got.partition(': ')[2])}"
            )
        else:
            words = (
                f"{name}{shown} gave {case.got}; expected {case.expected} "
                f"({case.reason}{', inside ' + case.raised_in if case.raised_in else ''})"
            )
        if not course.ok:
            raise implementation.CourseFault(_one_line(words))
        raise implementation.Unmet(_one_line(words))


def _hidden_name(name, place):
    graded = GRADED[name]
    if not graded.cases:
        return f"{name}: the hidden tests of lesson {graded.lesson}'s graded cell"
    case, _ = graded.cases[place]
    return f"{name}: {case[-1]}"


def _run_hidden(name, fn, place):
    """Run hidden case ``place`` of ``name`` (the whole cell when it has no list of cases) on
    ``fn``; the AssertionError of the cell's own words when it fails."""
    graded = GRADED[name]
    try:
        if graded.cases:
            case, options = graded.cases[place]
            hidden_tests(fn, [case], **options)
        else:
            run_cell(graded.source, {name: fn})
    except AssertionError as exc:
        return exc
    return None


@pytest.mark.parametrize("name, place", HIDDEN, ids=[_hidden_name(*case) for case in HIDDEN])
def test_hidden_case(name, place):
    _still_the_stub(name)
    fn, seen = _first_not_implemented(_theirs(name))
    failure = _run_hidden(name, fn, place)
    if failure is None:
        return
    if seen:
        raise seen[0]  # the stub's NotImplementedError: "not written yet"
    words = _one_line(failure)
    said = _hidden_name(name, place)[len(name) + 2 :]
    if words.startswith(said + ":"):  # (the test's name says the rule already: not twice)
        words = words[len(said) + 1 :].lstrip()
    if _run_hidden(name, implementation._course_version(name), place) is not None:
        raise implementation.CourseFault(words)
    raise implementation.Unmet(words)
