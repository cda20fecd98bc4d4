"""tests/scheduling.py: a worker per usable core (one more for the fast tier); the files go
to the workers longest first, each file's tests kept together and in their order; without
a table, the files with a full-tier test first."""

import os
import sys
from pathlib import Path

import pytest
import scheduling
from processes import run_to_end

#: The mark expression of the fast tier (the Makefile's `make test`).
FAST_TIER = "not full"


class Item:
    """What longest_first reads of a collected test: its node id and its ``full`` mark."""

    def __init__(self, nodeid, full=False):
        self.nodeid, self.full = nodeid, full

    def get_closest_marker(self, name):
        return object() if name == "full" and self.full else None


def ids(items):
    return [item.nodeid for item in items]


def collected():
    return [
        Item("tests/a.py::one"),
        Item("tests/a.py::two"),
        Item("tests/b.py::one", full=True),
        Item("tests/c.py::one"),
        Item("tests/c.py::two", full=True),
        Item("tests/d.py::one"),
    ]


def test_by_the_last_runs_seconds_longest_first():
    items = collected()
    scheduling.longest_first(items, {"tests/a.py": 3.0, "tests/b.py": 1.0, "tests/c.py": 9.5})
    assert ids(items) == [
        "tests/c.py::one",
        "tests/c.py::two",
        "tests/a.py::one",
        "tests/a.py::two",
        "tests/b.py::one",
        "tests/d.py::one",
    ]


def test_a_file_the_table_does_not_know_is_long_when_it_holds_a_full_test():
    items = collected()
    scheduling.longest_first(items, {"tests/a.py": 3.0, "tests/c.py": 9.5})
    assert ids(items)[0] == "tests/b.py::one" and ids(items)[-1] == "tests/d.py::one"


def test_without_a_table_the_files_with_a_full_test_go_first_in_their_order():
    items = collected()
    scheduling.longest_first(items, {})
    assert ids(items) == [
        "tests/b.py::one",
        "tests/c.py::one",
        "tests/c.py::two",
        "tests/a.py::one",
        "tests/a.py::two",
        "tests/d.py::one",
    ]


class Config:
    def __init__(self, keyword="", args=("tests",), markexpr=""):
        self.args = list(args)
        self.options = {"keyword": keyword, "markexpr": markexpr}

    def getoption(self, name):
        return self.options[name]


class Session:
    shouldfail = shouldstop = False


class Report:
    def __init__(self, nodeid, duration):
        self.nodeid, self.duration = nodeid, duration


@pytest.mark.parametrize(
    "config, kept",
    [
        (Config(), True),
        (Config(markexpr="not full"), True),
        (Config(keyword="classify"), False),
        (Config(args=["tests/a.py::one"]), False),
    ],
    ids=["a whole run", "the fast tier", "-k", "one test named"],
)
def test_a_run_of_whole_files_keeps_their_seconds_for_the_next(tmp_path, monkeypatch, config, kept):
    monkeypatch.setattr(scheduling, "TABLE", tmp_path / "file-seconds.json")
    monkeypatch.setattr(scheduling, "SEED", tmp_path / "no-committed-table.json")
    timer = scheduling.Timer(config)
    for nodeid, duration in [("tests/a.py::one", 1.25), ("tests/a.py::two", 2.0), ("t.py::x", 4)]:
        timer.pytest_runtest_logreport(Report(nodeid, duration))
    timer.pytest_sessionfinish(Session(), pytest.ExitCode.TESTS_FAILED)
    found = scheduling.known_seconds(config)
    assert found == ({"tests/a.py": 3.2, "t.py": 4} if kept else {})


def test_the_table_keeps_the_files_a_run_left_out_while_they_are_there(tmp_path, monkeypatch):
    table = tmp_path / "test-artifacts" / "file-seconds.json"
    monkeypatch.setattr(scheduling, "TABLE", table)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "kept.py").write_text("")
    table.parent.mkdir()
    table.write_text('{"every test": {"tests/kept.py": 7.5, "tests/gone.py": 3.0}}')
    timer = scheduling.Timer(Config())
    timer.pytest_runtest_logreport(Report("tests/a.py::one", 1.0))
    timer.pytest_sessionfinish(Session(), pytest.ExitCode.OK)
    assert scheduling.known_seconds(Config()) == {"tests/kept.py": 7.5, "tests/a.py": 1.0}


def test_a_clone_that_ran_nothing_orders_by_the_committed_tables(tmp_path, monkeypatch):
    """A fresh clone (CI's) has no table of its own: the committed one orders its files; a
    clone's own table, once written, wins for its ``-m`` expression only."""
    monkeypatch.setattr(scheduling, "TABLE", tmp_path / "test-artifacts" / "file-seconds.json")
    seed = tmp_path / "seed.json"
    seed.write_text('{"every test": {"tests/a.py": 9.0}, "not full": {"tests/a.py": 1.0}}')
    monkeypatch.setattr(scheduling, "SEED", seed)
    assert scheduling.known_seconds(Config()) == {"tests/a.py": 9.0}
    scheduling.TABLE.parent.mkdir()
    scheduling.TABLE.write_text('{"every test": {"tests/b.py": 5.0}}')
    assert scheduling.known_seconds(Config()) == {"tests/b.py": 5.0}
    assert scheduling.known_seconds(Config(markexpr="not full")) == {"tests/a.py": 1.0}


def test_the_committed_tables_hold_both_tiers_seconds():
    """tests/file-seconds.json, as a run writes it: a table for each tier, of files of the
    suite (a file renamed since is only left unsorted, as a new one is)."""
    tables = scheduling._read(scheduling.SEED)
    assert set(tables) == {"every test", FAST_TIER}
    for table in tables.values():
        assert len(table) > 20, table
        assert all(file.startswith(("tests/", "notebooks/")) for file in table), table
        assert all(isinstance(seconds, (int, float)) for seconds in table.values()), table


@pytest.mark.parametrize(
    "affinity, cpu_max, cores",
    [
        (2, "", 2),  # no cgroup file
        (4, "max 100000", 4),  # no quota
        (8, "200000 100000", 2),  # two cores' worth of time
        (8, "150000 100000", 2),  # a core and a half: rounded up
        (2, "800000 100000", 2),  # a quota above the cores it may run on
        (2, "50000 100000", 1),  # half a core
        (3, "nonsense", 3),
    ],
)
def test_the_usable_cores_are_the_affinity_capped_by_the_cgroups_quota(affinity, cpu_max, cores):
    assert scheduling.usable_cores(affinity, cpu_max) == cores


@pytest.mark.parametrize("cores, count", [(1, 3), (2, 3), (4, 5), (8, 9)])
def test_a_worker_per_core_at_least_two_and_one_more(cores, count):
    assert scheduling.workers(cores) == count


@pytest.mark.full  # (a pytest run that starts its workers: seconds of the fast tier's CPU)
def test_n_auto_starts_the_workers_scheduling_counts():
    """pyproject.toml's ``-n auto`` reaches tests/scheduling.py's count (through the hook in
    tests/conftest.py; pytest-xdist's own variable, when set, is left to pytest-xdist)."""
    wanted = scheduling.workers()
    run = run_to_end(
        [sys.executable, "-m", "pytest", "tests/test_scheduling.py", "-m", "not full"]
        + ["-k", "nothing at all"],
        300,
        cwd=Path(__file__).resolve().parents[1],
        env={k: v for k, v in os.environ.items() if k != "PYTEST_XDIST_AUTO_NUM_WORKERS"},
    )
    assert f"created: {wanted}/{wanted} workers" in run.stdout, run.stdout[-2000:]
