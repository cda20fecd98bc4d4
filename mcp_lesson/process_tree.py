"""The processes a server started, found from the operating system's process table
(``/proc`` on Linux, psutil elsewhere): every process whose environment carries a
server's mark, so that a server's whole tree can be stopped (mcp_lesson.stdio_client).
"""

import collections.abc
import os


def _process_table():
    """Every live process as ``(pid, ppid, pgid, environ)``, zombies left out.

    ``environ()`` gives the process's environment as bytes (``b""`` when it
    cannot be read). Read from ``/proc`` on Linux, with ``psutil`` elsewhere;
    None when neither is there.
    """
    try:
        entries = os.listdir("/proc")
    except OSError:
        return _process_table_psutil()
    table = []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # it ended while we looked
        if len(fields) > 2 and fields[0] not in ("Z", "X"):
            table.append((int(entry), int(fields[1]), int(fields[2]), _proc_environ(entry)))
    return table


def _proc_environ(pid):
    def environ():
        try:
            with open(f"/proc/{pid}/environ", "rb") as handle:
                return handle.read()
        except OSError:
            return b""

    return environ


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
            table.append((process.pid, process.ppid(), os.getpgid(process.pid), _psutil_environ(process)))
        except (psutil.Error, OSError):
            continue
    return table


def _psutil_environ(process):
    def environ():
        try:
            return b"\0".join(f"{key}={value}".encode() for key, value in process.environ().items()) + b"\0"
        except Exception:  # noqa: BLE001 - psutil.AccessDenied, NoSuchProcess...
            return b""

    return environ


def _tree(leader, mark):
    """The pids of the live processes a server started, and whether any is left at all.

    The tree is every process of the leader's group, every process whose
    environment holds ``mark`` (``NAME=1``: a grandchild that left the group
    with ``setsid`` keeps it), and every descendant of those. Without a
    process table, only the group can be seen: the answer is then an empty
    set, and whether the group is alive.
    """
    table = _process_table()
    if table is None:
        try:
            os.killpg(leader, 0)
        except ProcessLookupError:
            return set(), False
        except PermissionError:
            pass
        return set(), True
    needle = b"\0" + mark + b"\0"
    found = {pid for pid, _, pgid, environ in table
             if pgid == leader or pid == leader or needle in b"\0" + environ()}
    children = collections.defaultdict(list)
    for pid, ppid, _, _ in table:
        children[ppid].append(pid)
    todo = list(found)
    while todo:
        for child in children.pop(todo.pop(), ()):
            if child not in found:
                found.add(child)
                todo.append(child)
    found -= {os.getpid(), 1}
    return found, bool(found)
