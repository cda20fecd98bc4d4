"""Child processes that cannot outlive the process that started them.

A server, a grader or a sandbox that the course starts runs in a process group
(or a session) of its own, so that one signal ends its whole tree. That same
group puts it out of reach of a Ctrl-C or a ``kill`` aimed at its parent: if the
parent ends without its ``finally`` (SIGKILL, a crash), the child would run on
as an orphan. On Linux the kernel can close that gap: a child that asked for a
*parent-death signal* (``prctl(PR_SET_PDEATHSIG)``) gets that signal the moment
its parent ends, however it ends.

:func:`die_with_parent` is that request, made in the child before it runs its
program (``preexec_fn=die_with_parent``); elsewhere it does nothing.
:func:`stop_on_signals` turns SIGTERM and SIGHUP into ``SystemExit``, so that a
``finally`` of the parent's runs and ends its children as Ctrl-C would.
"""

import signal
import sys

_PR_SET_PDEATHSIG = 1


def _prctl():
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _prctl()


def die_with_parent(sig=signal.SIGKILL):
    """Ask the kernel to send ``sig`` to this process when its parent ends (Linux;
    a no-op elsewhere). Safe to call between fork and exec."""
    if _PRCTL is not None:
        _PRCTL(_PR_SET_PDEATHSIG, int(sig))


def stop_on_signals(signals=(signal.SIGTERM, signal.SIGHUP)):
    """Make each of ``signals`` raise ``SystemExit`` (128 + its number) in the main
    thread, so that cleanup in ``finally`` blocks runs as it does on Ctrl-C."""

    def stop(number, frame):
        raise SystemExit(128 + number)

    for sig in signals:
        try:
            signal.signal(sig, stop)
        except (ValueError, OSError):  # not the main thread, or not this platform
            pass


def kill_session(process):
    """End ``process`` (a ``subprocess.Popen`` started in a session or process group
    of its own) and everything in its group at once (SIGKILL), wait for it, and
    close its pipes. For processes that hold nothing worth a grace period: the
    judge's worker, its course host."""
    import os

    try:
        os.killpg(process.pid, signal.SIGKILL)
    except OSError:
        pass
    try:
        process.kill()
    except OSError:
        pass
    process.wait()
    for pipe in (process.stdin, process.stdout, process.stderr):
        try:
            if pipe is not None:
                pipe.close()
        except OSError:
            pass


def signal_group(pgid, sig):
    """Send ``sig`` to the process group ``pgid``; False when it has no process (or
    none of ours) any more. ``sig`` 0 only asks whether it has."""
    import os

    try:
        os.killpg(pgid, sig)
        return True
    except (ProcessLookupError, PermissionError):
        return False


def end_group(pgid, wait=1.0):
    """End what is left of a process group: SIGTERM, then SIGKILL if any of it is
    still there after ``wait`` seconds (polled, never a fixed sleep)."""
    import time

    if not signal_group(pgid, signal.SIGTERM):
        return
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if not signal_group(pgid, 0):
            return
        time.sleep(0.01)
    signal_group(pgid, signal.SIGKILL)
