"""Self-checks: run a learner's function on the shared case table.

``check(classify)`` prints a short, deterministic verdict such as
``classify: 55/55 cases pass`` followed by the first few failures in plain
words. Whatever the learner's function does (raise ``NotImplementedError``,
raise anything else, return the wrong type, mutate its input, print a flood,
return an object whose ``==`` lies, loop forever, be stopped with the kernel's stop
button) is reported in words, never re-raised, so a lesson always runs on to the end
and no frame of the course's own code is shown; see
:mod:`mcp_lesson.exercises.calling` for how.
"""

from mcp_lesson.exercises.calling import PrintedOutput, in_a_notebook
from mcp_lesson.exercises.learner_package import current_lesson
from mcp_lesson.exercises.on_screen import stale_note, watch
from mcp_lesson.exercises.registry import BY_NAME, CHECKED
from mcp_lesson.exercises.tables import CheckReport
from mcp_lesson.protocol.values import python_value


def _target_of(fn, target):
    targets = CHECKED
    if target is not None:
        if target not in targets:
            raise ValueError(f"target must be one of {targets}, got {target!r}")
        return target
    name = getattr(fn, "__name__", "")
    if name in BY_NAME and name not in targets:  # a lesson builds it, and declares no case for it
        raise ValueError(f"{name}: {NO_CHECK}")
    return name if name in targets else "classify"


#: What a check says of a function a lesson builds that the course has no case for.
NO_CHECK = "the course has no check for this function"


def run_check(fn, target=None):
    """Check ``fn`` against the case table and return a :class:`CheckReport`.

    ``target`` says what ``fn`` is meant to be: the name of a function a lesson builds
    that has a table (:data:`mcp_lesson.exercises.registry.CHECKED`, derived from the
    masters); by default it is read from the function's name, falling back to "classify".
    """
    if not callable(fn):
        raise TypeError(f"run_check() needs a function, got {python_value(fn)}")
    target = _target_of(fn, target)
    printed = PrintedOutput()
    rows = BY_NAME[target].table.rows(fn, printed)
    not_implemented = all(row.raised == "NotImplementedError" for row in rows)
    return CheckReport(target, rows, not_implemented, printed.size)


def _likelier(fn, name):
    """Words for a function that passes none of classify's cases: the other function's table on
    which it passes the most (say, a builder's), among the functions of the lessons up to the
    one that runs (none is named before its lesson), or how to name one."""
    best = None
    lesson = current_lesson()
    for target in CHECKED:
        if target == "classify" or (lesson is not None and BY_NAME[target].lesson > lesson):
            continue
        try:
            report = run_check(fn, target)
        except Exception:  # a table the function cannot even be called on
            continue
        answered = sum(
            row.ok and not row.raised for row in report.rows
        )  # a wrong signature's TypeError is no pass
        if answered and (best is None or answered / report.total > best[0] / best[1].total):
            best = answered, report
    if best is None:
        return f'if {name} does another function\'s job, name that one: check({name}, target="<its name>")'
    return (
        f"it answers {best[0]}/{best[1].total} cases of {best[1].target}'s table right: "
        f'check({name}, target="{best[1].target}")'
    )


def check(fn, target=None, show=3):
    """Print how ``fn`` does on the case table, e.g. ``classify: 55/55 cases pass``.

    The report names ``fn`` itself, so ``check(rough_kind, target="classify")`` (held to
    classify's verdicts) prints ``rough_kind: 29/55 cases pass``. When the cell that defines
    ``fn`` was edited and stopped before its ``def`` ran, a first line says that the check
    judges the version that ran before (:mod:`mcp_lesson.exercises.on_screen`).
    """
    if not callable(fn):
        print(f"check() needs the function you wrote, got {python_value(fn)}")
        return
    name = getattr(fn, "__name__", "")
    if target is None and name in BY_NAME and name not in CHECKED:  # never another function's table
        print(f"{name}: {NO_CHECK}")
        return
    watch()  # from now on, a cell that stops before its def is seen
    note = stale_note(fn)
    if note:  # the cell on screen did not run: say whose code is judged
        print(note)
    try:
        report = run_check(fn, target)
        if name.isidentifier() and name != report.target:
            report = report._replace(target=name)
        print(report.text(show))
        gave_up = any(
            row.raised in ("DidNotFinish", "NotRun", "Interrupted") for row in report.rows
        )
        if (
            target is None
            and name not in BY_NAME
            and report.passed == 0
            and not report.not_implemented
            and not gave_up
        ):
            print(
                f"  (check knows no function called {name}, so it held it to classify's verdicts; "
                + _likelier(fn, name)
                + ")"
            )
    except KeyboardInterrupt:  # the stop button between two calls: one line, no course frames
        if not in_a_notebook():  # a script or a terminal: Ctrl-C stops it all
            raise
        print("check stopped: you interrupted it")
