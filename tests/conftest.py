"""Shared pytest settings, and graduation: the course's tests run against a
learner's own package (``pytest --graduate DIR``; see tests/implementation.py).

A graduation's report is for a learner, not for a maintainer: pytest's own
output is silenced, and the summary says, for each failure, what was called,
what was expected and what came back, in plain words (the real failures
first, then the functions not written yet; ``--all-failures`` lists every
failure).
"""

import operator
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, settings

import implementation

# Shared machines are noisy: a slow example is not a failure (speed is the
# benchmark's business, never a test's), so hypothesis gets no deadline.
settings.register_profile(
    "course", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.load_profile("course")

from mcp_lesson.exercises.learner_package import BUILT
from mcp_lesson.exercises.carry import GRADUATION_FILES  # noqa: E402  (what graduation runs)
SHOWN_FAILURES = 5


#: The failing comparison of the test that runs now (graduation only): (op, left, right).
_COMPARED = None


def pytest_addoption(parser):
    parser.addoption("--graduate", metavar="DIR", default=None,
                     help="run the course's tests of the functions the lessons build "
                          "against the package in DIR instead of mcp_lesson")
    parser.addoption("--all-failures", action="store_true", default=False,
                     help="with --graduate: list every failure, not only the first few")


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "course_only: tests mcp_lesson itself only (no lesson builds it); "
                   "skipped when graduating a learner's package")
    implementation.use(config.getoption("--graduate"))
    if implementation.GRADUATING is not None:
        # A learner's package fails often: say so at once, without hypothesis
        # spending seconds per test shrinking the example.
        settings.register_profile("graduation", parent=settings.get_profile("course"),
                                  phases=[Phase.explicit, Phase.reuse, Phase.generate])
        settings.load_profile("graduation")
        # The learner reads the summary below, not pytest's dots, sections and counts.
        config.option.verbose = -2
        config.option.no_summary = True


def pytest_unconfigure(config):
    implementation.use(None)  # ends the judge's sandbox, if one runs


def pytest_collection_modifyitems(config, items):
    if implementation.GRADUATING is None:
        return
    skip = pytest.mark.skip(reason="no lesson builds this: it tests mcp_lesson itself")
    kept = []
    for item in items:
        if item.path.name not in GRADUATION_FILES:
            continue
        if item.get_closest_marker("course_only"):
            item.add_marker(skip)
        kept.append(item)
    items[:] = kept


# --- a graduation's report ------------------------------------------------------------

@pytest.hookimpl(wrapper=True)
def pytest_report_teststatus(report, config):
    status = yield
    if implementation.GRADUATING is None or not status:
        return status
    return status[0], "", ""  # counted as before, but no letter and no word is printed


def pytest_runtest_setup(item):
    global _COMPARED
    implementation.CALLS.clear()
    _COMPARED = None


_OPERATORS = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
              ">": operator.gt, ">=": operator.ge, "is": operator.is_, "is not": operator.is_not,
              "in": lambda a, b: a in b, "not in": lambda a, b: a not in b}


def pytest_assertrepr_compare(config, op, left, right):
    """Remember the comparison that failed (pytest asks about the ones that held too)."""
    global _COMPARED
    if implementation.GRADUATING is None:
        return None
    try:
        held = bool(_OPERATORS[op](left, right))
    except Exception:  # an unknown operator, a comparison that raises...
        held = False
    if not held:
        _COMPARED = (op, left, right)
    return None


def _leaves(exc):
    """The exceptions inside an exception group (hypothesis raises one for several bugs)."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


def _unwritten(exc):
    """The name of the function not written yet that ``exc`` comes from, or None."""
    if isinstance(exc, implementation.NotInPackage):
        return exc.function
    if not isinstance(exc, NotImplementedError) or implementation.GRADUATING is None:
        return None
    # Raised in the judge's sandbox: the worker said which of the package's
    # functions it came from (the innermost, the stub's own).
    inside = (getattr(exc, "learner_where", None) or (None, None, None))[2]
    return inside if inside and inside != "<module>" else "a function"


def _same(a, b):
    try:
        return a is b or (type(a) is type(b) and bool(a == b))
    except Exception:
        return False


_WORDS = {"<": "less than", "<=": "at most", ">": "more than", ">=": "at least"}


def _call_that_returned(value, calls):
    """The latest of ``calls`` that returned ``value`` (itself, else an equal value)."""
    for same in (lambda a, b: a is b, _same):
        for call in reversed(calls):
            if call.returned and same(call.result, value):
                return call
    return None


def _comparison_in_words(op, left, right, calls):
    """ "classify({...}) returned ('request', None); expected ('invalid', -32600)" """
    show, full, cut = implementation.shown, implementation.full_text, implementation.around_difference
    last = calls[-1] if calls else None
    head = f"{last} {last.outcome()}; " if last is not None else ""
    if op in ("==", "!=", "is", "is not"):
        but = "anything but " if op in ("!=", "is not") else ""
        got = _call_that_returned(left, calls)
        if got is None and _call_that_returned(right, calls) is not None:  # expected == got
            left, right = right, left
            got = _call_that_returned(left, calls)
        if got is not None:
            found, expected = cut(full(left), full(right))
            return f"{got} returned {found}; expected {but}{expected}"
        found, expected = cut(full(left), full(right))
        return f"{head}expected {but}{expected}, found {found}"
    if op in ("in", "not in"):
        return f"{head}expected {show(left)} {'' if op == 'in' else 'not '}to be in {show(right)}"
    return f"{head}expected {show(left)} to be {_WORDS.get(op, op)} {show(right)}"


def _failure_in_words(exc):
    """What went wrong in a test of a graduating package, in plain words."""
    calls = list(implementation.CALLS)
    call = calls[-1] if calls else None
    if isinstance(exc, implementation.Unmet):
        return str(exc)
    raiser = next((c for c in reversed(calls) if c.raised is exc), None)
    if raiser is not None:
        return f"{raiser} raised {implementation.exception_in_words(exc)}"
    if isinstance(exc, AssertionError) and _COMPARED is not None:
        return _comparison_in_words(*_COMPARED, calls)
    if isinstance(exc, pytest.fail.Exception) and "DID NOT RAISE" in str(exc):
        if call is not None:
            return f"{call} {call.outcome()}; expected it to refuse with a TypeError"
        return "expected a TypeError, and none came"
    if isinstance(exc, AssertionError):
        if call is not None:
            return f"{call} {call.outcome()}, which is not what this test expects"
        return "the course's data did not pass this test (a fault of the course, not yours)"
    where = f" after {call} {call.outcome()}" if call is not None else ""
    return f"the test stopped at {implementation.exception_in_words(exc)}{where}"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if implementation.GRADUATING is not None and report.failed and call.excinfo is not None:
        leaves = _leaves(call.excinfo.value)
        unwritten = next((name for name in map(_unwritten, leaves) if name), None)
        if unwritten:
            report.unwritten, report.in_words = unwritten, None
        else:
            report.unwritten, report.in_words = None, _failure_in_words(leaves[0])
    return report


def _in_words(nodeid):
    """ "tests/test_x.py::test_bool_is_not_an_integer_id[True]" -> "bool is not an integer id [True]" """
    name = nodeid.split("::")[-1]
    match = re.match(r"test_(\w+?)(\[.*\])?$", name)
    if not match:
        return name
    words = match.group(1).replace("_", " ")
    return words + (f" {match.group(2)}" if match.group(2) else "")


def _reason(report):
    """The plain words of a failure (pytest_runtest_makereport wrote them)."""
    return getattr(report, "in_words", None) or "the test failed (the course has no words for how)"


def pytest_terminal_summary(terminalreporter):
    if implementation.GRADUATING is None:
        return
    stats = terminalreporter.stats
    failed = [r for r in stats.get("failed", []) + stats.get("error", []) if r.when in ("call", "setup")]
    passed = [r for r in stats.get("passed", []) if r.when == "call"]
    total = len(passed) + len(failed)
    everything = terminalreporter.config.getoption("--all-failures")
    write = terminalreporter.write_line
    if implementation.PROBLEM:
        write(f"Your package at {implementation.GRADUATING} has a problem: {implementation.PROBLEM}")
    write(f"your package passes {len(passed)}/{total} of the course's tests")
    real = [r for r in failed if not getattr(r, "unwritten", None)]
    todo = [r for r in failed if getattr(r, "unwritten", None)]
    shown = real if everything else real[:SHOWN_FAILURES]
    for report in shown:
        write(f"  x {_in_words(report.nodeid)}: {_reason(report)}")
    if len(real) > len(shown):
        write(f"  ... and {len(real) - len(shown)} more like these "
              "(make graduate ALL=1 lists every failure)")
    if todo and implementation.UNREADABLE:
        names = ", ".join(sorted({report.unwritten for report in todo}))
        write(f"  {len(todo)} of the failures need your functions ({names}), which could not "
              "be read: your package did not import (the problem above)")
    elif todo:
        needs = {}
        for report in todo:
            needs.setdefault(report.unwritten, []).append(report)
        write(f"  {len(todo)} of the failures meet a function that is not implemented yet:")
        for name, reports in sorted(needs.items()):
            count = f"{len(reports)} test{'s need' if len(reports) != 1 else ' needs'} it"
            lesson = f" (lesson {BUILT[name]} builds it)" if name in BUILT else ""
            write(f"  - {name} is not implemented yet{lesson}: {count}")
            if everything:
                for report in reports:
                    write(f"      x {_in_words(report.nodeid)}")
    unread = [r for r in stats.get("error", []) if getattr(r, "when", None) == "collect"]
    for report in unread:  # a fault of the course's tests, not of the package
        write(f"  ! the course's test file {report.nodeid.split('::')[0]} could not be read "
              f"(a fault of the course, not of your package)")
    if total and not failed:
        write("Congratulations: your package does everything the course's tests ask.")
