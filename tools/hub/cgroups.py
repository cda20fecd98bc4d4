"""A person's cgroups on a class's hub, given to that person: the spawner makes them (root),
gives their folders to the person (:func:`delegate`), so that the person may make cgroups
inside them, and on stop removes all the person made inside (:func:`end_inside`).
"""

import os
from pathlib import Path

from tools.judge.sandbox import end_cgroup

#: The files of a cgroup its delegate owns (v1 and v2): to move processes in, and (v2) to
#: give its children controllers. Its limits stay root's.
DELEGATED = ("cgroup.procs", "tasks", "cgroup.threads", "cgroup.subtree_control")


def delegate(path, uid, gid):
    """Give the cgroup folder ``path`` (and the files that move processes) to ``uid``."""
    os.chown(path, uid, gid)
    for name in DELEGATED:
        if (Path(path) / name).exists():
            os.chown(Path(path) / name, uid, gid)


def end_inside(path, rounds=50):
    """Kill every process of the cgroups made inside ``path`` and remove them, deepest first."""
    inner = sorted(
        (Path(folder) for folder, _, _ in os.walk(path) if Path(folder) != Path(path)),
        key=lambda folder: len(folder.parts),
        reverse=True,
    )
    for folder in inner:
        end_cgroup(folder, rounds)
