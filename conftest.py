"""Settings for the whole suite, notebooks included (this file sits at the root
so that it is loaded before nbval starts any kernel)."""

import os
import signal
import sys
from pathlib import Path

import pytest

# nbval compares everything a cell prints, stderr too. A library that starts
# printing a DeprecationWarning must not turn a lesson red at random, so the
# kernels (and the servers the lessons start) inherit "ignore warnings". Only
# child processes read this variable; the pytest process itself is unchanged.
os.environ.setdefault("PYTHONWARNINGS", "ignore")
# A lesson's graduate() cell, run by nbval or a learner-copy test, prints one
# line instead of running this suite inside itself (tests/exercises/test_graduation.py
# graduates the lessons' package; mcp_lesson.exercises.learner_package.NO_NESTED_RUNS).
os.environ["MCP_LESSON_NO_NESTED_RUNS"] = "1"

#: The full tier (`make test-all`, which CI runs), beside the fast one (`make
#: test`, which leaves out what is marked "full"), said here once: whole files (by
#: name) that need a browser, nbgrader's grading day, the JupyterLite site, Node.js, or
#: pytest run inside pytest, and single tests (by name and parameter). A test that is
#: slow for a reason of its own (a flood, a time limit waited out) carries
#: @pytest.mark.full where it is written.
FULL_TIER = {
    "test_browser.py",
    "test_grading.py",
    "test_judge_class.py",
    "test_site.py",
    "test_ts_peer.py",
    "test_graduation.py",
    "test_graduation_verdicts.py",  # (graduations: pytest inside pytest, several each)
    "test_formgrade_csp.py",  # (formgrader's page in Chromium)
    "test_grading_hostile.py",  # (nbgrader's collect and release, a hostile student's files)
    "test_conformance.py",
    "test_real_servers.py",
    "test_hub.py",
    # (their masters run real servers and the SDK's clients live; 11's the suite too)
    "10_live_traffic.ipynb",
    "11_your_own_server.ipynb",
    # the learner copies that start servers and clients (the SDK's, the course's over
    # HTTP, the official conformance suite), as tests/lessons/test_lessons.py runs them
    *(
        f"test_learner_copy_runs[{name}]"
        for name in (
            "06_real_server.ipynb",
            "07_disagreements.ipynb",
            "09_http.ipynb",
            "10_live_traffic.ipynb",
            "11_your_own_server.ipynb",
        )
    ),
}


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "full: slow or heavy (a browser, a grading day, the site, Node.js, a nested "
        "pytest run); only `make test-all` runs it, `make test` leaves it out",
    )
    _die_with_the_parent()
    # A graduation (--graduate, tests/conftest.py) runs no lesson: it needs no package of the
    # masters' (a quarter of a second of each graduation's start).
    if config.getoption("--graduate", default=None) is None:
        _export_the_masters()


def _die_with_the_parent():
    """Ask Linux for a SIGTERM when the process that started this one ends, so
    that `kill` of `make test` (or of the xdist controller) ends the run too,
    and with it the servers its tests started (tests/processes.py)."""
    from mcp_lesson.shared.processes import die_with_parent

    die_with_parent(signal.SIGTERM)
    if sys.platform.startswith("linux") and os.getppid() == 1:  # the parent is already gone
        os.kill(os.getpid(), signal.SIGTERM)


def pytest_collection_modifyitems(session, config, items):
    """Mark the items of FULL_TIER "full" (the order the files run in is
    tests/scheduling.py's; nbval needs a notebook's cells in sequence, which it keeps)."""
    for item in items:
        if Path(str(item.fspath)).name in FULL_TIER or item.name in FULL_TIER:
            item.add_marker(pytest.mark.full)


# The lessons export the learner's functions into a package of their own (see
# mcp_lesson.exercises.learner_package). While the suite runs, the masters' kernels use a
# private one, exported from the masters first, so what a lesson prints about
# "your" functions is the same on every run and no real package is touched.
import atexit  # noqa: E402  (after the setup above)
import shutil  # noqa: E402  (after the setup above)
import tempfile  # noqa: E402  (after the setup above)

from mcp_lesson.exercises.learner_package import ENVIRONMENT, export_notebook, package_dir  # noqa: E402  (after the setup above)
from mcp_lesson.exercises.lessons import FILES as LESSONS  # noqa: E402  (after the setup above)

_PACKAGES = Path(tempfile.mkdtemp(prefix="mcp-lesson-packages-"))
atexit.register(shutil.rmtree, _PACKAGES, ignore_errors=True)
os.environ[ENVIRONMENT] = str(_PACKAGES / "masters" / "my_mcp")


def _export_the_masters():
    for lesson in LESSONS:
        path = Path(__file__).parent / "notebooks" / lesson
        if path.exists():
            export_notebook(path, package_dir())
