"""mcp_lesson/shared/process_tree.py, the course's one reader of the process table: every live
process with its parent, group, environment and command line; whether one is alive; and
the tree a server started, found by its group and by the mark in its environment."""

import os
import subprocess
import sys

from processes import patience, wait_for

from mcp_lesson.shared import process_tree

SLEEPER = [sys.executable, "-c", "import time; time.sleep(600)"]


def _entry(pid):
    found = [process for process in process_tree.process_table() if process.pid == pid]
    return found[0] if found else None


def test_the_table_holds_each_process_with_its_parent_group_command_and_environment():
    me = _entry(os.getpid())
    assert (me.ppid, me.pgid) == (os.getppid(), os.getpgid(0))
    child = subprocess.Popen(SLEEPER, env=dict(os.environ, MCP_LESSON_TEST_SEEN="yes"))
    try:
        wait_for(lambda: _entry(child.pid) is not None, "the child is in the table", 30)
        seen = _entry(child.pid)
        assert (seen.ppid, seen.pgid) == (os.getpid(), os.getpgid(0))
        assert seen.command() == " ".join(SLEEPER)
        assert b"MCP_LESSON_TEST_SEEN=yes" in seen.environ().split(b"\0")
    finally:
        child.kill()
        child.wait(patience(30))


def test_a_child_is_alive_until_it_ends_and_its_zombie_is_left_out():
    child = subprocess.Popen(SLEEPER)
    try:
        wait_for(lambda: _entry(child.pid) is not None, "the child is in the table", 30)
        assert process_tree.alive(child.pid)
        assert _entry(child.pid).ppid == os.getpid()
        child.kill()
        # Not yet reaped: a zombie, which is no live process.
        wait_for(lambda: not process_tree.alive(child.pid), "the killed child is not alive", 30)
        assert _entry(child.pid) is None
    finally:
        child.kill()
        child.wait(patience(30))
    assert not process_tree.alive(child.pid)


def test_a_server_s_tree_is_its_group_and_what_carries_its_mark():
    mark = b"MCP_LESSON_TEST_MARK_%d=1" % os.getpid()
    marked = dict(os.environ, **dict([mark.decode().split("=")]))
    leader = subprocess.Popen(SLEEPER, start_new_session=True)
    # Left the group at once (its own session), but carries the mark.
    away = subprocess.Popen(SLEEPER, start_new_session=True, env=marked)
    unrelated = subprocess.Popen(SLEEPER, start_new_session=True)
    try:

        def tree():
            return process_tree.server_tree(leader.pid, mark)[0]

        wait_for(lambda: {leader.pid, away.pid} <= tree(), "the leader and the marked process", 30)
        assert unrelated.pid not in tree()
    finally:
        for process in (leader, away, unrelated):
            process.kill()
            process.wait(patience(30))
    assert process_tree.server_tree(leader.pid, mark) == (set(), False)
