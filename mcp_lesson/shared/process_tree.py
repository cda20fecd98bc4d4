"""The operating system's process table, read in one place (``/proc`` on Linux, psutil
elsewhere): :func:`process_table` for every live process, :func:`alive` for one; and the
processes a server started (every process whose environment carries a server's mark), so
that a server's whole tree can be stopped (mcp_lesson.client.stdio). The tests' guard
(tests/processes.py) reads the table here too, loading this file by its path: it imports
the standard library only, and nothing of the package.
"""

import collections
import os
from collections.abc import Callable
from typing import NamedTuple


class Process(NamedTuple):
    """One live process. ``environ()`` gives its environment as bytes and ``command()``
    its command line as text (each read only when asked; empty when it cannot be read)."""

    pid: int
    ppid: int
    pgid: int
    environ: Callable[[], bytes]
    command: Callable[[], str]


def process_table():
    """Every live process as a :class:`Process`, zombies left out: read from ``/proc`` on
    Linux, with ``psutil`` elsewhere; None when neither is there."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return _process_table_psutil()
    table = []
    for entry in entries:
        if not entry.isdigit():
            continue
        fields = _stat(entry)
        if fields is not None and len(fields) > 2 and fields[0] not in ("Z", "X"):
            table.append(
                Process(
                    int(entry),
                    int(fields[1]),
                    int(fields[2]),
                    _proc_file(entry, "environ"),
                    _proc_command(entry),
                )
            )
    return table


def alive(pid):
    """Whether process ``pid`` is there and not a zombie (Linux's ``/proc``; elsewhere,
    whether a signal could reach it)."""
    if os.path.isdir("/proc"):
        fields = _stat(pid)
        return fields is not None and bool(fields) and fields[0] not in ("Z", "X")
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


def _stat(pid):
    """The fields of ``/proc/PID/stat`` after the command's name (the state first), or None
    when the process ended while we looked."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _proc_file(pid, name):
    def read():
        try:
            with open(f"/proc/{pid}/{name}", "rb") as handle:
                return handle.read()
        except OSError:
            return b""

    return read


def _proc_command(pid):
    cmdline = _proc_file(pid, "cmdline")
    return lambda: cmdline().rstrip(b"\0").replace(b"\0", b" ").decode(errors="replace")


def _process_table_psutil():
    try:
        import psutil
    except ImportError:
        return None
    table = []
    for process in psutil.process_iter():
        try:
            if process.status() == psutil.STATUS_ZOMBIE:
                continue
            table.append(
                Process(
                    process.pid,
                    process.ppid(),
                    os.getpgid(process.pid),
                    _psutil_environ(process),
                    _psutil_command(process),
                )
            )
        except (psutil.Error, OSError):
            continue
    return table


def _psutil_environ(process):
    def environ():
        try:
            return (
                b"\0".join(f"{key}={value}".encode() for key, value in process.environ().items())
                + b"\0"
            )
        except Exception:
            return b""

    return environ


def _psutil_command(process):
    def command():
        try:
            return " ".join(process.cmdline())
        except Exception:
            return ""

    return command


def server_tree(leader, mark):
    """The pids of the live processes a server started, and whether any is left at all.

    The tree is every process of the leader's group, every process whose
    environment holds ``mark`` (``NAME=1``: a grandchild that left the group
    with ``setsid`` keeps it), and every descendant of those. Without a
    process table, only the group can be seen: the answer is then an empty
    set, and whether the group is alive.
    """
    table = process_table()
    if table is None:
        try:
            os.killpg(leader, 0)
        except ProcessLookupError:
            return set(), False
        except PermissionError:
            pass
        return set(), True
    needle = b"\0" + mark + b"\0"
    found = {
        process.pid
        for process in table
        if leader in (process.pgid, process.pid) or needle in b"\0" + process.environ()
    }
    children = collections.defaultdict(list)
    for process in table:
        children[process.ppid].append(process.pid)
    todo = list(found)
    while todo:
        for child in children.pop(todo.pop(), ()):
            if child not in found:
                found.add(child)
                todo.append(child)
    found -= {os.getpid(), 1}
    return found, bool(found)
