"""The live processes of this machine, read from /proc (Linux), for tests that
check that nothing was left running."""

import os
from typing import NamedTuple


class Process(NamedTuple):
    pid: int
    ppid: int
    pgid: int
    command: str


def live_processes():
    """Every live process (zombies left out), with its parent, group and command line."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry}/cmdline", "rb") as cmd:
                command = cmd.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # it ended while we looked
            continue
        if fields[0] not in ("Z", "X"):
            found.append(Process(int(entry), int(fields[1]), int(fields[2]), command))
    return found
