"""How many pytest-xdist workers a run has, and the order the test files go to them: the
longest first.

``-n auto`` asks :func:`workers`: one worker per core the run may use (the cores it may run
on, and no more than its cgroup's CPU quota allows), at least two, and one more. Much of the
suite waits (on servers, clients, kernels, browsers and the time limits of the judge), and
with a worker per core a core sits idle through each wait: on two cores, the fast tier took
112 s with three workers against 135 s with two (2026-12-06), and the full tier 477 s against
640 s (2026-12-07, one run after the other on an idle machine; the machine's CPU was busy for
96% of the run with three), and passed with three beside a load of 4 (four busy loops). (The
full tier kept two workers for a while, as in two of five runs at three a class's hub outlived
the SIGTERM to `make hub` by two minutes; `make hub` now ends whatever JupyterHub leaves:
tests/classroom/test_hub_lifetime.py.)
``PYTEST_XDIST_AUTO_NUM_WORKERS`` (pytest-xdist's own variable) or ``-n N`` choose another
number.

``--dist loadfile`` hands a worker a whole file at a time, in the order of the collection
(``--no-loadscope-reorder`` keeps it). A long file handed out last keeps one worker busy
after the other has finished, so the files go out longest first, by their seconds in the
last run that ran them (test-artifacts/file-seconds.json, one table for each ``-m``
expression: the fast tier's files are not the full tier's). A clone that has no such run
yet (a fresh clone, as CI's) takes the tables committed beside this module
(tests/file-seconds.json, a copy of one run's on a 2-core machine): without them a fresh
clone's files went out in the order of the collection, where a long file (the site's tests,
about 115 s) could start last while the other worker sat idle. Files neither table knows (a
new file) are taken as long when they hold a test of the full tier (a hub, a graded class, a
browser, a graduation), as short otherwise. After a change that moves a file's seconds much, copy the run's table over the
committed one (``cp test-artifacts/file-seconds.json tests/``): only the order depends on it.

The controller reads the table once and hands it to each worker, so every worker sorts alike
whatever another run writes meanwhile (pytest-xdist stops a run whose workers collected in
different orders). The table is written (whole, by a rename) at the end of a run that ran
its files whole (no ``-k``, no test named alone, not stopped early), from what each file
took: its tests' setup, call and teardown.
"""

import contextlib
import json
import math
import os
import tempfile
from pathlib import Path

import pytest

TABLE = Path(__file__).resolve().parents[1] / "test-artifacts" / "file-seconds.json"
#: The tables of one run, committed: the order of a clone that has run no test yet.
SEED = Path(__file__).resolve().parent / "file-seconds.json"
#: What the controller hands a worker (pytest-xdist's workerinput).
HANDED = "mcp_lesson_file_seconds"

#: The cgroup v2 file that holds this process's CPU quota ("max 100000", or "200000 100000":
#: two cores' worth of time in each 0.1 s).
CPU_MAX = Path("/sys/fs/cgroup/cpu.max")


def usable_cores(affinity=None, cpu_max=None):
    """The cores this process may keep busy: those it may run on, capped by its cgroup's
    quota (rounded up). ``affinity`` and ``cpu_max`` (the quota file's text) are for tests."""
    if affinity is None:
        affinity = (
            len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        ) or 1
    if cpu_max is None:
        try:
            cpu_max = CPU_MAX.read_text(encoding="ascii")
        except OSError:
            cpu_max = ""
    quota, _, period = cpu_max.strip().partition(" ")
    if quota.isdigit() and period.isdigit() and int(period) > 0:
        return max(1, min(affinity, math.ceil(int(quota) / int(period))))
    return affinity


def workers(cores=None):
    """pytest-xdist's ``-n auto``: a worker per usable core, at least two, and one more (see
    the module's docstring)."""
    cores = usable_cores() if cores is None else cores
    return max(2, cores) + 1


def _key(config):
    return config.getoption("markexpr") or "every test"


def _read(path):
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def _tables():
    """This clone's tables (TABLE), each ``-m`` expression's falling back to SEED's."""
    return _read(SEED) | _read(TABLE)


def _file(nodeid):
    return nodeid.split("::")[0]


def known_seconds(config):
    """{file: seconds} of the last run, as the controller read it; {} without a table."""
    handed = getattr(config, "workerinput", None)
    if handed is not None:
        return handed.get(HANDED, {})
    found = _tables().get(_key(config), {})
    if not isinstance(found, dict):
        return {}
    return {k: v for k, v in found.items() if isinstance(v, (int, float))}


def hand_to_worker(node):
    """pytest-xdist's pytest_configure_node: the controller's table, for that worker."""
    node.workerinput[HANDED] = known_seconds(node.config)


def longest_first(items, seconds):
    """Sort ``items`` file by file, the longest file first (each file's tests keep their order)."""
    full = {}
    for item in items:
        file = _file(item.nodeid)
        full[file] = full.get(file, False) or item.get_closest_marker("full") is not None
    longest = max(seconds.values(), default=0.0)

    def estimate(file):
        if file in seconds:
            return seconds[file]
        return longest + 1 if full[file] else 0.0

    items.sort(key=lambda item: -estimate(_file(item.nodeid)))


class Timer:
    """Adds up each file's seconds in the controller, and keeps them in the table at the end
    (with those of the files this run left out, as long as they are still there)."""

    def __init__(self, config):
        self.config = config
        self.seconds = {}

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report):
        file = _file(report.nodeid)
        self.seconds[file] = self.seconds.get(file, 0.0) + report.duration

    @pytest.hookimpl
    def pytest_sessionfinish(self, session, exitstatus):
        if self.config.getoption("keyword") or not self.seconds:
            return
        if any("::" in arg for arg in self.config.args):  # some of a file's tests only
            return
        if exitstatus not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
            return
        if session.shouldfail or session.shouldstop:  # stopped early (-x): files cut short
            return
        tables = _read(TABLE)
        table = {
            file: spent
            for file, spent in known_seconds(self.config).items()
            if (TABLE.parents[1] / file).exists()
        }
        table.update({file: round(spent, 1) for file, spent in self.seconds.items()})
        tables[_key(self.config)] = table
        with contextlib.suppress(OSError):  # a folder it cannot write: the next run is unsorted
            TABLE.parent.mkdir(exist_ok=True)
            handle, name = tempfile.mkstemp(dir=TABLE.parent, suffix=".tmp")
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump(tables, out, indent=1, sort_keys=True)
            os.replace(name, TABLE)


def start_timing(config):
    """In the controller (or a run without workers): time the files for the next run."""
    if getattr(config, "workerinput", None) is None:
        config.pluginmanager.register(Timer(config), "mcp_lesson_file_timer")
