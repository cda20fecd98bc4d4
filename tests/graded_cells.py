"""The hidden cases of the lesson masters' graded cells, read for graduation's tests: each
graded test cell (nbgrader's grade_id "<function>-tests") declares its hidden cases once,
and graduation runs them as the grader does (tests/exercises/test_each_case.py).

The cells are the course's own code, run here with the course's versions of the functions
they grade; the visible part of a cell (try_it, expect) prints nothing while they run.
"""

import contextlib
import io
from typing import NamedTuple

import mcp_lesson.course as course
import mcp_lesson.exercises.hidden_tests as loop
from mcp_lesson.exercises import declared


class Graded(NamedTuple):
    """The hidden cases of one graded cell of a master, for one function."""

    #: The function the cell grades, and the lesson whose master holds the cell.
    name: str
    lesson: str
    #: The cell's code (run whole when ``cases`` is empty).
    source: str
    #: ``(case, options)`` pairs: each case as :func:`hidden_tests` takes it, and the keyword
    #: arguments the cell gave it (spread, unchanged, compare, limit).
    cases: tuple


def _graded_sources(folder):
    """``{function name: (lesson, source)}`` of the graded test cells with hidden tests (the
    masters read as mcp_lesson.exercises.declared reads them)."""
    found = {}
    for filename, grade_id, _, source in declared.graded_cells(folder):
        grade_id = str(grade_id or "")
        if grade_id.endswith("-tests") and declared.HIDDEN in source:
            found[grade_id[: -len("-tests")]] = (filename[:2], source)
    return found


def _nothing(*args, **kwargs):
    """try_it and expect, where the hidden tests are read or run: the visible part of a
    graded cell shows things to the learner, and the self-check's table holds its cases."""


@contextlib.contextmanager
def _quiet_visible_part():
    saved = {name: getattr(course, name, None) for name in ("try_it", "expect")}
    for name in saved:
        setattr(course, name, _nothing)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(course, name, value)


def run_cell(source, functions, checker=None):
    """Run a graded cell's ``source`` with ``functions`` ({name: function}) as the names it
    grades; ``checker`` stands for :func:`hidden_tests` while it runs (None: the real one)."""

    namespace = {"__name__": "__graded_cell__", "try_it": _nothing, "expect": _nothing, **functions}
    module = loop
    real = module.hidden_tests
    with _quiet_visible_part(), contextlib.redirect_stdout(io.StringIO()):
        if checker is not None:
            module.hidden_tests = checker
        try:
            exec(compile(source, "<graded cell>", "exec"), namespace)
        finally:
            module.hidden_tests = real


def graded_cases(names, reference, folder=None):
    """``{name: Graded}`` for the functions ``names`` ({name: lesson}) that a master grades
    with hidden tests; ``reference(name)`` is the course's version, which the cells are run
    with while their cases are read."""
    folder = folder or declared.masters_folder()
    if folder is None:
        return {}
    found = {}
    for name, (lesson, source) in _graded_sources(folder).items():
        if name not in names:
            continue
        collected = []

        def collect(function, cases, **options):
            if getattr(function, "__name__", None) == name:  # noqa: B023  (called at once)
                collected.extend(  # noqa: B023  (called at once)
                    (case, options) for case in cases
                )

        run_cell(source, {name: reference(name)}, collect)
        found[name] = Graded(name, lesson, source, tuple(collected))
    return found
