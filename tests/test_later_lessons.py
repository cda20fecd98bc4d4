"""The course's tests of what lessons 06 to 11 build, on mcp_lesson's own versions (lesson
06's ``is_reply_to``: the master's) or, with ``pytest --graduate=DIR`` (``make graduate``),
on a learner's package: lesson 06's ``is_reply_to``, lesson 08's ``classify_at``, lesson 09's
four functions of the HTTP transport, lesson 10's ``audit`` and lesson 11's server
(``call_tool``, ``answer_request``, ``handle_message``).

Each case of a function's case table (mcp_lesson/exercises/cases.py, the one its self-check reads)
is a test, judged as the self-check judges it; a function with no table of its own
(``classify_at``) must answer as the course's does on the inputs its registry row holds.
A function not written yet fails its first case with the "not implemented yet" that
graduation reports (the call is made again outside the check, so that its exception
reaches the report).
"""

import pytest

import implementation
from mcp_lesson.exercises import agreement
from mcp_lesson.exercises import registry
from mcp_lesson.exercises.selfcheck import run_check

#: The rows of the registry this file tests: graduated, from lesson 06 on.
LATER = [row for row in registry.BUILT if row.graduates and row.lesson >= "06"]


def _cases(row):
    if row.table:
        return [(row.name, place) for place in range(len(row.table.cases))]
    return [(row.name, place) for place in range(len(agreement.inputs_for(row.name)))]


CASES = [case for row in LATER for case in _cases(row)]
_REPORTS = {}


def _theirs(name):
    return getattr(implementation.IMPLEMENTATION, name)


def _report(name):
    """The check of the function the tests now see, run once for all its cases (keyed by the
    function itself, which the cache keeps alive: an id could be reused by another)."""
    fn = _theirs(name)
    if (name, fn) not in _REPORTS:
        _REPORTS[name, fn] = run_check(fn, name)
    return _REPORTS[name, fn]


def _raise_if_not_written(name, args, kwargs):
    """Call the function once more outside the check: "not implemented yet" (the stub, or a
    function the package lacks) then reaches graduation's report as such."""
    try:
        _theirs(name)(*args, **kwargs)
    except NotImplementedError:
        raise
    except Exception:  # noqa: BLE001 - any other failure is the check's to say
        pass


@pytest.mark.parametrize("name, place", CASES, ids=[f"{name}-{place}" for name, place in CASES])
def test_each_case_of_the_function_s_table(name, place):
    row = registry.BY_NAME[name]
    if not row.table:
        args, kwargs = agreement.inputs_for(name)[place]
        mine = agreement.outcome(_theirs(name), args, kwargs)
        if mine[0] == "todo":
            _raise_if_not_written(name, args, kwargs)
        course = agreement.outcome(registry.reference(name), args, kwargs)
        assert agreement.same_outcome(mine, course), (
            f"{name}{args!r} should answer as the course's does: {course[1]!r}, not {mine[1]!r}")
        return
    report = _report(name)
    case = report.rows[place]
    if report.not_implemented:
        build = row.table.cases[place]  # the check's rows come in the table's order
        _raise_if_not_written(name, build.args, build.kwargs)
    assert case.ok, (f"{name}, {case.name}: {name}{case.shown_input} gave {case.got}, but it should be "
                     f"{case.expected} ({case.reason})")
