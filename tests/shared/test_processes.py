"""tests/processes.py: a server a test starts dies with the test run, however the
run ends (finished, SIGTERM, SIGKILL), grandchildren that left through setsid included."""

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import processes
import pytest
from processes import descendants, live_processes, start_guarded, wait_for

HERE = Path(__file__).resolve().parents[1]  # tests/, where processes.py is

#: A "server" that starts a child in a session of its own (as Jupyter starts
#: kernels) and a double-forked setsid grandchild, writes their pids, and waits.
SERVER = textwrap.dedent("""
    import os, subprocess, sys, time
    kernel = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"],
                              start_new_session=True)
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            open(sys.argv[2], "w").write(str(os.getpid()))
            time.sleep(3600)
        os._exit(0)
    open(sys.argv[1], "w").write(f"{os.getpid()} {kernel.pid}")
    time.sleep(3600)
""")

#: A test run that starts the server under the guard, says so, and waits to be ended.
RUN = textwrap.dedent("""
    import sys, time
    sys.path.insert(0, {here!r})
    from processes import start_guarded
    start_guarded([sys.executable, "-c", {server!r}, {pids!r}, {orphan!r}])
    time.sleep(3600)
""")


def alive(pid):
    return any(p.pid == pid for p in live_processes())


@pytest.mark.parametrize("ending", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_a_guarded_server_dies_with_the_run(tmp_path, ending):
    pids, orphan = tmp_path / "pids", tmp_path / "orphan"
    run = subprocess.Popen(
        [
            sys.executable,
            "-c",
            RUN.format(here=str(HERE), server=SERVER, pids=str(pids), orphan=str(orphan)),
        ]
    )
    try:
        wait_for(
            lambda: (
                pids.exists()
                and orphan.exists()
                and pids.read_text().count(" ") == 1
                and orphan.read_text()
            ),
            "the server and its children",
        )
        server, kernel = map(int, pids.read_text().split())
        grandchild = int(orphan.read_text())
        assert all(map(alive, (server, kernel, grandchild)))
        run.send_signal(ending)  # the run ends before any finally of its own
        run.wait()
        wait_for(
            lambda: not any(map(alive, (server, kernel, grandchild))),
            "the server's tree to end after the run ended",
        )
    finally:
        run.kill()
        run.wait()


def test_end_stops_the_tree_and_keeps_nothing(tmp_path):
    pids, orphan = tmp_path / "pids", tmp_path / "orphan"
    proc = start_guarded([sys.executable, "-c", SERVER, str(pids), str(orphan)])
    try:
        wait_for(
            lambda: (
                orphan.exists()
                and orphan.read_text()
                and pids.exists()
                and pids.read_text().count(" ") == 1
            ),
            "the server and its children",
        )
        tree = set(descendants(proc.pid))
        assert int(orphan.read_text()) in tree | set(descendants(os.getpid()))
    finally:
        proc.end()
    assert proc.poll() is not None
    server, kernel = map(int, pids.read_text().split())
    wait_for(
        lambda: not any(map(alive, (server, kernel, int(orphan.read_text())))), "the tree to end"
    )


def test_a_guarded_command_that_ends_by_itself_ends_its_guard():
    proc = start_guarded([sys.executable, "-c", "raise SystemExit(3)"])
    assert proc.wait(timeout=120) == 3  # a hang guard, not a speed limit
    proc.end()


def test_a_long_wait_looks_less_often_and_a_short_one_at_once(monkeypatch):
    pauses = []
    monkeypatch.setattr(processes.time, "sleep", pauses.append)
    looks = iter([False] * 12 + [True])
    wait_for(lambda: next(looks), "the thirteenth look")
    assert len(pauses) == 12 and pauses[0] == 0.05
    assert pauses == sorted(pauses) and pauses[-1] == processes.LONGEST_POLL
    pauses.clear()
    looks = iter([False, False, True])
    wait_for(lambda: next(looks), "the third look", every=2)
    assert pauses == [2, 2]  # a pause asked for is never shortened
