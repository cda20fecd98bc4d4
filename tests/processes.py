"""Processes for tests: the live processes of this machine (mcp_lesson/shared/process_tree.py
reads them), and servers that die with the test run however it ends.

A server a test starts (JupyterLab, Voila through ``make app``, the site's web
server, a nested pytest) runs in a session of its own, so that a test can stop
it and everything it started with one ``killpg``. That same session also puts
it out of reach of the signals that end the run: when a CI time limit, ``kill``
or a SIGTERM ends pytest before its ``finally`` runs, such a server would run on
as an orphan. :func:`start_guarded` closes that gap. It starts the command under
a guard (this file, run as a script): the guard holds the read end of a pipe
whose write end only the test process holds. However the test process ends
(finished, killed, crashed), the pipe reaches end of file, and the guard ends
the command's whole tree: every descendant it can find, then the session's
process group, SIGTERM first and SIGKILL after a grace period. The guard also
ends when the command ends by itself.
"""

import os
import signal
import subprocess
import sys
import threading
import time
from typing import NamedTuple

#: Seconds between SIGTERM and SIGKILL when the guard ends a tree.
GRACE = 10.0

#: How much slower than an idle 2-core machine this one may be: every hang
#: guard and wait of the tests is multiplied by it (MCP_LESSON_TEST_SLACK=3 on a
#: loaded CI machine). The guards are generous already; none is a speed limit.
SLACK = max(1.0, float(os.environ.get("MCP_LESSON_TEST_SLACK", "1") or 1))


def patience(seconds):
    """``seconds`` of a hang guard or a wait, scaled by :data:`SLACK`."""
    return seconds * SLACK


def run_to_end(command, limit, **popen_kwargs):
    """Run ``command`` to its end under the guard of :func:`start_guarded`, with
    ``limit`` seconds (scaled by :data:`SLACK`) as a hang guard; returns a
    ``subprocess.CompletedProcess`` (stdout and stderr as text). A run that
    outlives the limit is ended, tree and all, and raises ``TimeoutExpired``."""
    popen_kwargs.setdefault("stdout", subprocess.PIPE)
    popen_kwargs.setdefault("stderr", subprocess.PIPE)
    popen_kwargs.setdefault("text", True)
    proc = start_guarded(command, **popen_kwargs)
    try:
        out, err = proc.communicate(timeout=patience(limit))
    except BaseException:
        proc.end(grace=1)
        raise
    proc.end()
    return subprocess.CompletedProcess(command, proc.returncode, out, err)


class LiveProcess(NamedTuple):
    """A process of :func:`live_processes`: its command line read as text."""

    pid: int
    ppid: int
    pgid: int
    command: str


def _process_tree():
    """mcp_lesson/shared/process_tree.py, the course's one reader of /proc, loaded from its file
    (it imports only the standard library): the guard runs in the command's environment,
    which may hold a stand-in mcp_lesson, or none."""
    global _TREE
    if _TREE is None:
        import importlib.util

        path = os.path.join(
            os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
            "mcp_lesson",
            "shared",
            "process_tree.py",
        )
        spec = importlib.util.spec_from_file_location("_course_process_tree", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _TREE = module
    return _TREE


_TREE = None


def live_processes():
    """Every live process (zombies left out), with its parent, group and command line."""
    return [
        LiveProcess(p.pid, p.ppid, p.pgid, p.command())
        for p in _process_tree().process_table() or ()
    ]


#: The longest pause between two looks of :func:`wait_for` (unless it is asked for longer).
LONGEST_POLL = 0.5


def wait_for(condition, what, limit=120, every=0.05):
    """Poll ``condition`` until it holds: first after ``every`` seconds, then after pauses
    half as long again each time, up to :data:`LONGEST_POLL` (a condition that reads every
    process of the machine costs milliseconds a look: a long wait looks twice a second, a
    short one is seen at once). The limit (scaled by :data:`SLACK`) only stops a broken test."""
    deadline = time.monotonic() + patience(limit)
    pause = every
    while not condition():
        assert time.monotonic() < deadline, f"still waiting after {patience(limit):g} s: {what}"
        time.sleep(pause)
        pause = min(pause * 1.5, max(every, LONGEST_POLL))


def descendants(pid, processes=None):
    """The pids of every live descendant of ``pid`` (children, their children...)."""
    processes = live_processes() if processes is None else processes
    children = {}
    for process in processes:
        children.setdefault(process.ppid, []).append(process.pid)
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


class Guarded(subprocess.Popen):
    """A command started by :func:`start_guarded`. ``pid`` is the guard's, which
    leads the command's session: ``os.killpg(proc.pid, ...)`` reaches the command.
    :meth:`end` stops the whole tree and waits for it."""

    def end(self, grace=GRACE):
        if self._lifeline is not None:
            os.close(self._lifeline)  # the guard's signal: end everything, now
            self._lifeline = None
        try:
            self.wait(timeout=grace * 3)
        except subprocess.TimeoutExpired:
            _signal_group(self.pid, signal.SIGKILL)
            self.wait(timeout=grace * 3)
        _signal_group(self.pid, signal.SIGKILL)  # whatever is left of the session


def start_guarded(command, **popen_kwargs):
    """Start ``command`` (a list) in a session of its own, under a guard that ends
    its whole tree when the calling process ends, however it ends. Takes
    ``subprocess.Popen``'s keyword arguments (but ``stdin``, which the guard uses,
    and ``start_new_session``, which is always on); returns a :class:`Guarded`."""
    if "stdin" in popen_kwargs:
        raise ValueError("the guard uses stdin: a guarded command reads nothing")
    popen_kwargs.pop("start_new_session", None)
    read_end, write_end = os.pipe()  # both non-inheritable: no other child holds them
    try:
        proc = Guarded(
            [sys.executable, os.path.abspath(__file__), "--guard", "--", *command],
            stdin=read_end,
            start_new_session=True,
            **popen_kwargs,
        )
    except BaseException:
        os.close(write_end)
        raise
    finally:
        os.close(read_end)
    proc._lifeline = write_end
    return proc


def _signal_group(pgid, sig):
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _signal_all(pids, sig):
    for pid in pids:
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass


def _end_tree(root, grace=GRACE):
    """SIGTERM to ``root``'s descendants and session, then SIGKILL to what is left."""
    me = os.getpid()
    tree = set(descendants(root))
    _signal_all(tree, signal.SIGTERM)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the guard outlives its own group's TERM
    _signal_group(me, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        tree |= set(descendants(root))  # a child may still have started one
        alive = [pid for pid in tree if _process_tree().alive(pid)]
        group = [p.pid for p in live_processes() if p.pgid == me and p.pid != me]
        if not alive and not group:
            return
        time.sleep(0.1)
    tree |= set(descendants(root))
    _signal_all(tree, signal.SIGKILL)
    _signal_group(me, signal.SIGKILL)


def _adopt_orphans():
    """Make this process the one that orphaned descendants are handed to (Linux's
    child subreaper), so that one that left through ``setsid`` is still found."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass


def _guard(command):
    """Run ``command``; end its tree when stdin reaches end of file (the test
    process is gone) or when the guard is asked to stop (SIGTERM)."""
    _adopt_orphans()
    lost = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: lost.set())
    # Ctrl-C for the group reaches the command itself; the guard stays to clean up.
    # (Handlers, not SIG_IGN: the command would inherit SIG_IGN through exec.)
    signal.signal(signal.SIGINT, lambda *_: None)
    child = subprocess.Popen(command, stdin=subprocess.DEVNULL)

    def watch():
        try:
            while os.read(0, 4096):
                pass
        except OSError:
            pass
        lost.set()

    threading.Thread(target=watch, daemon=True).start()
    while child.poll() is None and not lost.wait(0.2):
        pass
    _end_tree(os.getpid())
    return child.wait() if child.poll() is not None else -signal.SIGKILL


if __name__ == "__main__" and sys.argv[1:2] == ["--guard"]:
    sys.exit(_guard(sys.argv[sys.argv.index("--") + 1 :]))
