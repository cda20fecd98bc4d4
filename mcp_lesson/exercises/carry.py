"""Later lessons use the learner's own functions where they pass (:func:`carry_forward`),
and graduation runs the course's own tests on the learner's package (:func:`graduate`).
"""

import os
from pathlib import Path
import re

from mcp_lesson.exercises import registry
from mcp_lesson.exercises.calling import NOT_YET
from mcp_lesson.exercises.inputs import SAMPLE_VALUES, SAMPLES
from mcp_lesson.exercises.agreement import agrees
from mcp_lesson.exercises.cells import MARKER
from mcp_lesson.exercises.learner_package import NO_NESTED_RUNS, PACKAGE, package_dir


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
        name, init, submodule_search_locations=[str(init.parent)])
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
        if not registry.BY_NAME[name].table:
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
        else:
            namespace[name] = course[name]
            why = (NOT_YET if report.not_implemented
                   else f"{report.passed}/{report.total} cases pass")
            print(f"{name}: the course's until yours passes (yours: {why})")


def _small_check(theirs, course):
    """True when ``theirs`` answers like ``course`` on a few sample values (for helpers)."""
    from mcp_lesson.exercises.calling import call_safely

    for value in SAMPLES:
        got, exc = call_safely(theirs, (value,))
        if exc is not None or type(got) is not bool or got != course(value):
            return False
    return True


#: The test files of the course that graduation runs (tests/conftest.py agrees).
GRADUATION_FILES = ("test_classification.py", "test_messages.py", "test_cases.py",
                    "test_properties.py", "test_each_case.py")


def tests_folder():
    """The course's ``tests/`` folder, when the course is checked out (else None)."""
    folder = Path(__file__).resolve().parents[2] / "tests"
    return folder if (folder / "conftest.py").exists() else None


def graduation_command(package, extra=()):
    """The pytest command that runs the course's tests against ``package``
    (``extra``: more pytest arguments, such as ``-k`` to pick some)."""
    import sys

    folder = tests_folder()
    # The package itself is only ever imported in the judge's sandbox, and no
    # conftest.py but the course's is loaded: none beside the package, none in
    # a folder above the course (--confcutdir), whatever the current folder.
    files = [str(path) for name in GRADUATION_FILES for path in sorted(folder.rglob(name))]
    return [sys.executable, "-m", "pytest", *files,
            # One word, "--graduate=DIR": pytest reads its command line before it
            # knows this option, and would take a separate DIR for a test folder
            # and load the conftest.py files in it and above it.
            f"--graduate={package}", "-q", "--tb=no", "-rN", "--no-header", "--color=no",
            "-p", "no:cacheprovider", "-o", "addopts=", "--rootdir", str(folder.parent),
            "--confcutdir", str(folder.parent), "-c", str(folder.parent / "pyproject.toml"),
            *extra]


def graduate(package=None, quiet=True, extra=()):
    """Run the course's tests against the learner's package and print the summary.

    Returns True when every test passes. ``quiet`` keeps only the summary lines
    (a lesson cell wants those); the process's output otherwise. Under a test
    run (:data:`NO_NESTED_RUNS` set) it prints one line and returns None.
    """
    import subprocess

    if os.environ.get(NO_NESTED_RUNS):
        print("graduate() runs the course's tests on your package when you run this cell "
              "yourself; here the notebook is itself being tested or graded, so it only says so.")
        return None
    package = Path(package) if package else package_dir()
    if not (package / "__init__.py").exists():
        print(f"There is no package at {package} yet: run the cells marked {MARKER} "
              "in lessons 02 to 04 first.")
        return False
    if tests_folder() is None:
        print("The course's tests are not here (they come with a checkout of the course): "
              "run `make graduate` there.")
        return False
    run = subprocess.run(graduation_command(package, extra), capture_output=True, text=True,
                         cwd=tests_folder().parent, timeout=900)
    lines = run.stdout.splitlines()
    if quiet:
        start = next((i for i, line in enumerate(lines)
                      if line.startswith(("your package passes", "Your package at"))), len(lines))
        timing = re.compile(r"\b(passed|failed|skipped|error)\b.* in [\d.]+s")
        lines = [line for line in lines[start:]
                 if not line.startswith(("=", "FAILED")) and not timing.search(line)]
    print("\n".join(lines) if lines else run.stderr[-2000:])
    return run.returncode == 0
