"""Later lessons use the learner's own functions where they pass (:func:`carry_forward`),
read from the learner's package, imported fresh (:func:`load`).
"""

from pathlib import Path

from mcp_lesson.exercises import registry
from mcp_lesson.exercises.agreement import agrees
from mcp_lesson.exercises.calling import NOT_YET
from mcp_lesson.exercises.inputs import SAMPLE_VALUES, SAMPLES
from mcp_lesson.exercises.learner_package import PACKAGE, package_dir


def load(folder=None, package=None):
    """Import the learner's package, fresh; None if there is none.

    ``package`` is the package's own folder; by default it is
    :func:`package_dir` of ``folder``.
    """
    import importlib.util
    import sys

    init = Path(package or package_dir(folder)) / "__init__.py"
    if not init.exists():
        return None
    name = f"_learner_{PACKAGE}_{abs(hash(str(init)))}"
    for loaded in [key for key in sys.modules if key == name or key.startswith(name + ".")]:
        del sys.modules[loaded]  # fresh: the modules as they are on disk now
    spec = importlib.util.spec_from_file_location(
        name, init, submodule_search_locations=[str(init.parent)]
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # a package: its modules import each other relatively
    try:
        spec.loader.exec_module(module)
    except BaseException:  # the loader records problems itself; this is a last resort
        sys.modules.pop(name, None)
        return None
    return module


def carry_forward(namespace, *names, folder=None):
    """Put the learner's own ``names`` into ``namespace`` where they pass their
    check, and the course's otherwise; print one line per name saying which."""
    from mcp_lesson.exercises.selfcheck import run_check

    course = {name: registry.reference(name) for name in names}
    missing = [name for name, version in course.items() if version is None]
    if missing:
        raise ValueError(f"the course has no version of {', '.join(missing)} to fall back on")
    package = load(folder)
    for name in names:
        theirs = getattr(package, name, None) if package is not None else None
        if theirs is None or not callable(theirs):
            namespace[name] = course[name]
            print(f"{name}: the course's (yours is not in {PACKAGE} yet)")
            continue
        if registry.BY_NAME[name].agree_on is not None:
            if registry.BY_NAME[name].agree_on is SAMPLE_VALUES:  # a lesson's small helper
                right = _small_check(theirs, course[name])
            else:  # no table of its own: it must agree with the course's on its inputs
                right = agrees(theirs, name)
            namespace[name] = theirs if right else course[name]
            print(f"{name}: yours" if right else f"{name}: the course's until yours passes")
            continue
        report = run_check(theirs, name)
        if report.all_pass:
            namespace[name] = theirs
            print(f"{name}: yours ({report.passed}/{report.total} cases pass)")
        elif any(row.raised == "Interrupted" or "you stopped" in row.got for row in report.rows):
            namespace[name] = course[name]
            print(f"{name}: the course's (you stopped the check of yours)")
        else:
            namespace[name] = course[name]
            why = (
                NOT_YET if report.not_implemented else f"{report.passed}/{report.total} cases pass"
            )
            print(f"{name}: the course's until yours passes (yours: {why})")


def _small_check(theirs, course):
    """True when ``theirs`` answers like ``course`` on a few sample values (for helpers)."""
    from mcp_lesson.exercises.calling import call_safely

    for value in SAMPLES:
        got, exc = call_safely(theirs, (value,))
        if exc is not None or type(got) is not bool or got != course(value):
            return False
    return True
