"""Graduation: the course's own tests, run on a learner's package (:func:`graduate`, the
command :func:`graduation_command` gives; ``make graduate`` and lesson 04's last cells).
The tests judge the package through the judge's sandbox (tools/judge), never in this process.
"""

import os
import re
from pathlib import Path

from mcp_lesson.exercises.cells import MARKER
from mcp_lesson.exercises.learner_package import NO_NESTED_RUNS, package_dir

#: The test files of the course that graduation runs (tests/conftest.py agrees).
GRADUATION_FILES = (
    "test_classification.py",
    "test_messages.py",
    "test_cases.py",
    "test_properties.py",
    "test_each_case.py",
)


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
    return [
        sys.executable,
        "-m",
        "pytest",
        *files,
        # One word, "--graduate=DIR": pytest reads its command line before it
        # knows this option, and would take a separate DIR for a test folder
        # and load the conftest.py files in it and above it.
        f"--graduate={package}",
        "-q",
        "--tb=no",
        "-rN",
        "--no-header",
        "--color=no",
        "-p",
        "no:cacheprovider",
        # Plugins a graduation has no use for (one process, no notebook): nbval alone costs
        # about a fifth of a small graduation's start (it imports jupyter_client and nbformat).
        *("-p", "no:nbval", "-p", "no:xdist", "-p", "no:xdist.looponfail", "-p", "no:anyio"),
        "-o",
        "addopts=",
        "--rootdir",
        str(folder.parent),
        "--confcutdir",
        str(folder.parent),
        "-c",
        str(folder.parent / "pyproject.toml"),
        *extra,
    ]


def graduate(package=None, quiet=True, extra=()):
    """Run the course's tests against the learner's package and print the summary.

    Returns True when every test passes. ``quiet`` keeps only the summary lines
    (a lesson cell wants those); the process's output otherwise. Under a test
    run (:data:`NO_NESTED_RUNS` set) it prints one line and returns None.
    """
    import subprocess

    if os.environ.get(NO_NESTED_RUNS):
        print(
            "graduate() runs the course's tests on your package when you run this cell "
            "yourself; here the notebook is itself being tested or graded, so it only says so."
        )
        return None
    package = Path(package) if package else package_dir()
    if not (package / "__init__.py").exists():
        print(
            f"There is no package at {package} yet: run the cells marked {MARKER} "
            "in lessons 01 to 04 first."
        )
        return False
    if tests_folder() is None:
        print(
            "The course's tests are not here (they come with a checkout of the course): "
            "run `make graduate` there."
        )
        return False
    run = subprocess.run(
        graduation_command(package, extra),
        capture_output=True,
        text=True,
        cwd=tests_folder().parent,
        timeout=900,
    )
    lines = run.stdout.splitlines()
    if quiet:
        start = next(
            (
                i
                for i, line in enumerate(lines)
                if line.startswith(("your package passes", "Your package at"))
            ),
            len(lines),
        )
        timing = re.compile(r"\b(passed|failed|skipped|error)\b.* in [\d.]+s")
        lines = [
            line
            for line in lines[start:]
            if not line.startswith(("=", "FAILED")) and not timing.search(line)
        ]
    print("\n".join(lines) if lines else run.stderr[-2000:])
    return run.returncode == 0
