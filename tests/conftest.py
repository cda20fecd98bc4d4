"""Shared pytest settings, and graduation: the course's tests run against a
learner's own package (``pytest --graduate DIR``; see tests/implementation.py).

A graduation's report is for a learner, not for a maintainer: pytest's own
output is silenced, and the summary says, for each failure, what was called,
what was expected and what came back, in plain words (the real failures
first, then the functions not written yet; ``--all-failures`` lists every
failure).
"""

import operator
import os
import re
from pathlib import Path

import implementation
import pytest
import scheduling
from hypothesis import HealthCheck, Phase, settings

# Shared machines are noisy: a slow example is not a failure (speed is the
# benchmark's business, never a test's), so hypothesis gets no deadline.
settings.register_profile(
    "course", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.load_profile("course")

from mcp_lesson.exercises.graduation import GRADUATION_FILES  # noqa: E402  (what graduation runs)
from mcp_lesson.exercises.registry import GRADUATED  # noqa: E402  (after the profile)

SHOWN_FAILURES = 5


#: The failing comparison of the test that runs now (graduation only): (op, left, right).
_COMPARED = None


def pytest_addoption(parser):
    parser.addoption(
        "--graduate",
        metavar="DIR",
        default=None,
        help="run the course's tests of the functions the lessons build "
        "against the package in DIR instead of mcp_lesson",
    )
    parser.addoption(
        "--all-failures",
        action="store_true",
        default=False,
        help="with --graduate: list every failure, not only the first few",
    )
    parser.addoption(
        "--every-lesson",
        action="store_true",
        default=False,
        help="with --graduate: pass only when every lesson's functions are written and "
        "pass (by default, a package complete up to a lesson passes)",
    )


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "course_only: tests mcp_lesson itself only (no lesson builds it); "
        "skipped when graduating a learner's package",
    )
    implementation.use(config.getoption("--graduate"))
    if implementation.GRADUATING is None:
        scheduling.start_timing(config)  # the order of the next run's files (tests/scheduling.py)
    else:
        # A learner's package fails often: say so at once, without hypothesis
        # spending seconds per test shrinking the example. And one verdict per
        # package: the same examples on every run and every machine (drawn from a
        # seed fixed by each test, no database of earlier runs), so the same
        # package gets the same lines; what a property test once found is kept
        # as a stored example (@example) beside it.
        settings.register_profile(
            "graduation",
            parent=settings.get_profile("course"),
            phases=[Phase.explicit, Phase.generate],
            derandomize=True,
            database=None,
            print_blob=False,
        )
        settings.load_profile("graduation")
        # The learner reads the summary below, not pytest's dots, sections and counts.
        config.option.verbose = -2
        config.option.no_summary = True


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config):
    """pytest-xdist's ``-n auto``: tests/scheduling.py's count (its own variable wins)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # pytest-xdist's own hook reads it
    return scheduling.workers()


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """pytest-xdist's controller, as it starts a worker: the files' seconds, for its order."""
    scheduling.hand_to_worker(node)


def pytest_unconfigure(config):
    implementation.use(None)  # ends the judge's sandbox, if one runs


@pytest.hookimpl(trylast=True)  # after the root conftest.py has marked the full tier
def pytest_collection_modifyitems(config, items):
    if implementation.GRADUATING is None:
        scheduling.longest_first(items, scheduling.known_seconds(config))
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


_OPERATORS = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "is": operator.is_,
    "is not": operator.is_not,
    "in": lambda a, b: a in b,
    "not in": lambda a, b: a not in b,
}


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
    show, full, cut = (
        implementation.shown,
        implementation.full_text,
        implementation.around_difference,
    )
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


def _one_line(exc, limit=300):
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _failure_in_words(exc):
    """What went wrong in a test of a graduating package, in plain words: first, a call
    that changed what it was given (the test's later checks read the changed value, so
    they would blame another call), then the call that raised, then the comparison."""
    calls = list(implementation.CALLS)
    call = calls[-1] if calls else None
    if isinstance(exc, implementation.CourseFault):
        return str(exc)
    changer = next((c for c in calls if c.changed), None)
    if changer is not None:
        return changer.change_in_words()
    if isinstance(exc, implementation.Unmet):
        return str(exc)
    raiser = next((c for c in reversed(calls) if c.raised is exc), None)
    if raiser is not None and type(exc).__name__ == "DidNotFinish":
        return f"{raiser} {implementation.no_answer_in_words(exc)}"
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
            return f"{call} {call.outcome()}; the test expected otherwise ({_one_line(exc)})"
        return f"the test's check did not hold: {_one_line(exc)}"
    if isinstance(exc, KeyError) and call is not None and call.returned and exc.args:
        return (
            f"{call} {call.outcome()}; expected it to hold the key {implementation.shown(exc.args[0])}, "
            f"which the test reads ({type(exc).__name__})"
        )
    where = f" after {call} {call.outcome()}" if call is not None else ""
    return f"the test stopped at {implementation.exception_in_words(exc)}{where}"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if implementation.GRADUATING is None or report.when not in ("setup", "call"):
        return report
    # The package's functions the test called: its lesson is the latest that builds one.
    names = {c.name for c in implementation.CALLS}
    params = getattr(getattr(item, "callspec", None), "params", {})
    if isinstance(params.get("name"), str):  # a case of one function (test_each_case.py)
        names.add(params["name"])
    report.unwritten, report.in_words, report.course_fault = None, None, False
    if report.failed and call.excinfo is not None:
        leaves = _leaves(call.excinfo.value)
        unwritten = next((name for name in map(_unwritten, leaves) if name), None)
        if unwritten:
            report.unwritten = unwritten
            names.add(unwritten)
        else:
            report.course_fault = isinstance(leaves[0], implementation.CourseFault)
            report.in_words = _failure_in_words(leaves[0])
    report.lesson = implementation.lesson_of(names)
    report.functions = sorted(names & set(GRADUATED))
    return report


def _in_words(nodeid):
    """ "tests/test_x.py::test_bool_is_not_an_integer_id[True]" -> "bool is not an integer id [True]";
    a case of one function's (test_each_case.py) is its own name: "classify: a bool id" """
    name = nodeid.split("::")[-1]
    case = re.match(r"test_(?:table|hidden|more_hidden)_case\[(.*)\]$", name)
    if case:
        return case.group(1)
    match = re.match(r"test_(\w+?)(\[.*\])?$", name)
    if not match:
        return name
    words = match.group(1).replace("_", " ")
    return words + (f" {match.group(2)}" if match.group(2) else "")


def _reason(report):
    """The plain words of a failure (pytest_runtest_makereport wrote them)."""
    return getattr(report, "in_words", None) or "the test failed (the course has no words for how)"


def _names(names):
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _lessons_said(lessons):
    return f"lesson {lessons[0]}" if len(lessons) == 1 else f"lessons {lessons[0]} to {lessons[-1]}"


def _by_lesson(passed, failed):
    """{lesson: {"passed", "failed", "unwritten": {name: count}}} in the lessons' order."""
    lessons = {
        lesson: {"passed": 0, "failed": 0, "unwritten": {}}
        for lesson in sorted(set(GRADUATED.values()))
    }
    for report in passed + failed:
        lesson = getattr(report, "lesson", None)
        if lesson is None:
            continue  # a test that called none of the package's functions
        counts = lessons[lesson]
        if report in passed:
            counts["passed"] += 1
        elif getattr(report, "unwritten", None):
            counts["unwritten"][report.unwritten] = counts["unwritten"].get(report.unwritten, 0) + 1
        else:
            counts["failed"] += 1
    return lessons


def _lesson_line(lesson, counts):
    """ "lesson 03 (classify, classify_json): passed 150/150" or "...: not written yet" """
    builds = _names([name for name, at in GRADUATED.items() if at == lesson])
    written = counts["passed"] + counts["failed"]
    todo = counts["unwritten"]
    head = f"lesson {lesson} ({builds})"
    if not written and todo:
        return (
            f"{head}: not written yet (lesson {lesson} builds {'it' if len(todo) == 1 else 'them'})"
        )
    line = f"{head}: passed {counts['passed']}/{written}"
    if counts["failed"]:
        line += f", {counts['failed']} failed (above)"
    if todo:
        waiting = sum(todo.values())
        line += (
            f"; not written yet: {_names(sorted(todo))} (lesson {lesson} builds "
            f"{'it' if len(todo) == 1 else 'them'}; {waiting} more test{'s' * (waiting != 1)} wait)"
        )
    return line


def _outcomes(stats):
    """``(passed, failed, todo, faults, real)``: the reports of a graduation's tests, the
    failed ones split into "not written yet", errors of the course, and real failures."""
    failed = [
        r for r in stats.get("failed", []) + stats.get("error", []) if r.when in ("call", "setup")
    ]
    passed = [r for r in stats.get("passed", []) if r.when == "call"]
    todo = [r for r in failed if getattr(r, "unwritten", None)]
    faults = [r for r in failed if getattr(r, "course_fault", False)]
    real = [r for r in failed if r not in todo and r not in faults]
    return passed, failed, todo, faults, real


def graduation_passes(stats, every_lesson=False):
    """A graduation's verdict. With ``every_lesson``: every test passes. Else: everything the
    package has written passes (nothing fails but functions not written yet, and the package
    was read) and at least one lesson is complete (a package complete up to a lesson passes,
    as lesson 04 invites a learner to graduate)."""
    passed, failed, todo, faults, real = _outcomes(stats)
    if every_lesson or not failed:
        return bool(passed) and not failed and not implementation.PROBLEM
    if real or faults or implementation.UNREADABLE or implementation.PROBLEM:
        return False
    lessons = _by_lesson(passed, failed)
    return any(
        counts["passed"] and not counts["unwritten"] and not counts["failed"]
        for counts in lessons.values()
    )


def pytest_sessionfinish(session, exitstatus):
    """Under graduation, the run's exit status is graduation's verdict (:func:`graduation_passes`):
    0 when it passes, 1 when it does not."""
    if implementation.GRADUATING is None:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None or exitstatus not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
        return
    every = session.config.getoption("--every-lesson")
    session.exitstatus = (
        pytest.ExitCode.OK
        if graduation_passes(reporter.stats, every)
        else pytest.ExitCode.TESTS_FAILED
    )


def pytest_terminal_summary(terminalreporter):
    if implementation.GRADUATING is None:
        return
    stats = terminalreporter.stats
    passed, failed, todo, faults, real = _outcomes(stats)
    total = len(passed) + len(failed)
    everything = terminalreporter.config.getoption("--all-failures")
    write = terminalreporter.write_line
    if implementation.PROBLEM:
        write(
            f"Your package at {implementation.GRADUATING} has a problem: {implementation.PROBLEM}"
        )
    summary = f"your package passes {len(passed)}/{total} of the course's tests"
    if todo and not real and not implementation.UNREADABLE:
        summary += (
            f": every test of what it has written passes, and {len(todo)} wait for "
            "functions not written yet"
        )
    write(summary)
    shown = real if everything else real[:SHOWN_FAILURES]
    for report in shown:
        lesson = getattr(report, "lesson", None)
        where = f"lesson {lesson}, " if lesson else ""
        write(f"  x {where}{_in_words(report.nodeid)}: {_reason(report)}")
    if len(real) > len(shown):
        write(
            f"  ... and {len(real) - len(shown)} more like these "
            "(make graduate ALL=1 lists every failure)"
        )
    if todo and implementation.UNREADABLE:
        names = ", ".join(sorted({report.unwritten for report in todo}))
        write(
            f"  {len(todo)} of the failures need your functions ({names}), which could not "
            "be read: your package did not import (the problem above)"
        )
    lessons = _by_lesson(passed, failed)
    if not implementation.UNREADABLE:
        for lesson, counts in lessons.items():
            write(f"  {_lesson_line(lesson, counts)}")
            if everything and counts["unwritten"]:
                for report in todo:
                    if report.lesson == lesson:
                        write(f"      - waits for {report.unwritten}: {_in_words(report.nodeid)}")
    for report in faults:  # the course's own version fails this case too
        write(
            f"  ! an error of the course, not of your package (please report it): "
            f"{_in_words(report.nodeid)}: the course's own version fails this case too: {_reason(report)}"
        )
    unread = [r for r in stats.get("error", []) if getattr(r, "when", None) == "collect"]
    for report in unread:  # a fault of the course's tests, not of the package
        write(
            f"  ! the course's test file {report.nodeid.split('::')[0]} could not be read "
            f"(an error of the course, not of your package: please report it)"
        )
    if total and not failed:
        write("Congratulations: your package does everything the course's tests ask.")
        return
    if real or implementation.UNREADABLE or not todo:
        return
    done = [
        lesson for lesson, counts in lessons.items() if not counts["unwritten"] and counts["passed"]
    ]
    ahead = [lesson for lesson, counts in lessons.items() if counts["unwritten"]]
    if done and ahead and max(done) < min(ahead):
        nxt = ahead[0]
        write(
            f"Your package is complete up to lesson {done[-1]}: every test of "
            f"{_lessons_said(done)} passes. Next: lesson {nxt}, which builds "
            f"{_names(sorted(lessons[nxt]['unwritten']))}."
        )
    elif not done:
        write(
            f"Nothing of your package is written yet: lesson {ahead[0]} starts it, with "
            f"{_names(sorted(lessons[ahead[0]]['unwritten']))}."
        )
    else:
        write(
            f"Everything your package has written passes; still to write: "
            f"{_names([name for counts in lessons.values() for name in sorted(counts['unwritten'])])}."
        )


# --- a copy of the checkout that another account can read ----------------------------------

#: What a test that acts as another account runs of the checkout: the package and the tools
#: (the judge, grading), without the npm trees and caches.
FOR_ANOTHER_ACCOUNT = ("mcp_lesson", "tools")
_NOT_COPIED = ("node_modules", "__pycache__", ".pytest_cache")


@pytest.fixture(scope="session")
def readable_checkout(tmp_path_factory):
    """A copy of :data:`FOR_ANOTHER_ACCOUNT` in a folder of /tmp that every account can read
    (folders 755, files 644), for a test that runs code as another uid: the checkout itself
    may sit in a folder only its owner can enter (root's home is mode 700, a user's home 750
    on recent Ubuntu), and pytest's own temporary folders are its owner's alone. Removed at
    the end of the run."""
    import shutil
    import tempfile

    root = Path(__file__).resolve().parents[1]
    made = Path(tempfile.mkdtemp(prefix="mcp-lesson-readable-", dir="/tmp"))
    try:
        for name in FOR_ANOTHER_ACCOUNT:
            shutil.copytree(
                root / name, made / name, ignore=shutil.ignore_patterns(*_NOT_COPIED), symlinks=True
            )
        for path in [made, *made.rglob("*")]:
            if not path.is_symlink():
                path.chmod(0o755 if path.is_dir() or path.stat().st_mode & 0o100 else 0o644)
        yield made
    finally:
        shutil.rmtree(made, ignore_errors=True)
