"""A person's cgroups on a class's hub, given to that person: the spawner makes them (root),
gives their folders to the person (:func:`delegate`), so that the person may make cgroups
inside them, and on stop removes all the person made inside (:func:`end_inside`).

Each person's cgroups are also written down in the class's state folder while their server
runs (:func:`record`, root's alone), so that ``make hub`` can end whatever JupyterHub did not
(:func:`end_recorded`): a JupyterHub stopped before it stopped each server (killed after its
time to stop ran out, on a busy machine) leaves those servers' processes behind otherwise,
and a server ended by its parent-death signal leaves what it started detached.
"""

import contextlib
import os
from pathlib import Path

from tools.judge.sandbox import CGROUP_PREFIX, CGROUPS, end_cgroup

#: The files of a cgroup its delegate owns (v1 and v2): to move processes in, and (v2) to
#: give its children controllers. Its limits stay root's.
DELEGATED = ("cgroup.procs", "tasks", "cgroup.threads", "cgroup.subtree_control")


def delegate(path, uid, gid):
    """Give the cgroup folder ``path`` (and the files that move processes) to ``uid``."""
    os.chown(path, uid, gid)
    for name in DELEGATED:
        if (Path(path) / name).exists():
            os.chown(Path(path) / name, uid, gid)


def record(folder, name, paths):
    """Write down ``name``'s cgroups (``paths``) in ``folder``: one file a person, a path a line."""
    folder = Path(folder)
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    (folder / name).write_text("".join(f"{path}\n" for path in paths), encoding="utf-8")


def forget(folder, name):
    """Cross out ``name``'s cgroups (their server has stopped and they are gone)."""
    with contextlib.suppress(OSError):
        (Path(folder) / name).unlink()


def end_recorded(folder):
    """End every cgroup written down in ``folder`` (all that is in them and inside them), and
    cross each out: what is left of the people's servers once JupyterHub has ended."""
    folder = Path(folder)
    for file in sorted(folder.glob("*")) if folder.is_dir() else ():
        for line in file.read_text(encoding="utf-8").splitlines():
            path = Path(line)
            if path.is_relative_to(CGROUPS) and path.name.startswith(CGROUP_PREFIX):
                end_whole(path)
        forget(folder, file.name)


def end_whole(path):
    """Kill every process of the cgroup at ``path`` and of those made inside it; remove them."""
    end_inside(path)
    end_cgroup(path)


def end_inside(path, rounds=50):
    """Kill every process of the cgroups made inside ``path`` and remove them, deepest first."""
    inner = sorted(
        (Path(folder) for folder, _, _ in os.walk(path) if Path(folder) != Path(path)),
        key=lambda folder: len(folder.parts),
        reverse=True,
    )
    for folder in inner:
        end_cgroup(folder, rounds)
