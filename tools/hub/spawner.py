"""Each person's server of a class on one machine, within limits of that person's own.

JupyterHub's ``LocalProcessSpawner`` starts each person's Jupyter server as their own
account, and nothing else: one student's 300 processes or 3 GiB of memory are the whole
class's problem. :class:`PersonSpawner` starts the server the same way, in a ``memory``
cgroup and a ``pids`` cgroup of that person's own (the judge's cgroups, tools/judge/
sandbox.py: v1 or v2, where root may make them here), so the server and everything it
starts (kernels, terminals, whatever they start, detached with ``setsid`` or not) share
:attr:`Spawner.mem_limit` bytes and :attr:`PersonSpawner.processes` tasks (settings.py's
PERSON_MEMORY and PERSON_TASKS). Shared memory is part of it: the server gets a ``/dev/shm``
and an IPC namespace of its own, of at most :attr:`PersonSpawner.shared_memory` bytes
(shared_memory.py), gone when the server's last process ends. When the server stops,
whatever is still in its cgroups is killed: nothing a student started outlives their
server. The server also gets a parent-death SIGTERM: if JupyterHub itself is killed
outright, each server stops; and as its cgroups are written down in
:attr:`PersonSpawner.records` while it runs, ``make hub`` ends whatever of it JupyterHub
left (cgroups.py).

A person whose settings say :attr:`PersonSpawner.delegate` (the teacher) owns their cgroups'
folders, and so may make cgroups inside them: each of the judge's sandboxes, and each grading
run of formgrader's buttons (apart.py), gets limits of its own within the teacher's. The
limits themselves stay root's: no one raises their own.

What this does not limit: disk (a student writes into their home until the disk is full;
a real deployment uses disk quotas on /home, or a volume per person) and CPU time (shared
as the kernel's scheduler shares it). Where the machine gives no cgroup, or no namespaces,
the server runs without those limits and JupyterHub's log says so.
"""

import pwd
import signal

from jupyterhub.spawner import LocalProcessSpawner
from traitlets import Bool, Integer, Unicode

from mcp_lesson.shared.processes import die_with_parent
from tools.hub import shared_memory
from tools.hub.cgroups import delegate, end_whole, forget, record
from tools.hub.settings import PERSON_MEMORY, PERSON_TASKS, SHARED_MEMORY_SHARE
from tools.judge.sandbox import Cgroup, Limits


class PersonSpawner(LocalProcessSpawner):
    processes = Integer(
        PERSON_TASKS,
        config=True,
        help="Tasks (processes and threads) a person's server and all it starts may run at once.",
    )
    shared_memory = Integer(
        0,
        config=True,
        help="Bytes the server's private /dev/shm (and its SysV shared memory) "
        "may hold; 0: a SHARED_MEMORY_SHARE-th of its memory.",
    )
    delegate = Bool(
        False, config=True, help="Whether the person may make cgroups within their own."
    )
    records = Unicode(
        "",
        config=True,
        help="A folder of root's where each running server's cgroups are written down "
        "(make hub ends them when JupyterHub has ended); empty: nowhere.",
    )

    _cgroup = None
    _private = False

    def memory(self):
        return int(self.mem_limit or PERSON_MEMORY)

    def shared_memory_size(self):
        return int(self.shared_memory or self.memory() // SHARED_MEMORY_SHARE)

    def make_preexec_fn(self, name):
        as_person = super().make_preexec_fn(name)
        cgroup, private, size = self._cgroup, self._private, self.shared_memory_size()

        def preexec():
            if cgroup is not None:
                cgroup.enter()  # as root, before the server becomes the person
            if private:
                shared_memory.make_private(size)  # as root too
            as_person()
            die_with_parent(signal.SIGTERM)  # after setuid, which clears it

        return preexec

    async def start(self):
        self._end_cgroup()
        self._cgroup = Cgroup(Limits(memory=self.memory(), processes=self.processes))
        missing = [name for name in ("memory", "pids") if name not in self._cgroup.controllers]
        if missing:
            self.log.warning(
                "%s's server runs without a %s limit: this machine gives no %s cgroup",
                self.user.name,
                " or ".join(missing),
                " or ".join(missing),
            )
        if self.records:
            record(self.records, self.user.name, self._cgroup.paths)
        if self.delegate:
            account = pwd.getpwnam(self.user.name)
            for path in self._cgroup.paths:
                delegate(path, account.pw_uid, account.pw_gid)
        self._private = shared_memory.possible()
        if not self._private:
            self.log.warning(
                "%s's server shares the machine's /dev/shm and SysV shared memory: "
                "this machine gives no mount or IPC namespace",
                self.user.name,
            )
        return await super().start()

    async def stop(self, now=False):
        try:
            await super().stop(now=now)
        finally:
            self._end_cgroup()

    def _end_cgroup(self):
        """Kill what is left in the person's cgroups and those they made inside them
        (detached processes too); remove them all."""
        if self._cgroup is not None:
            for path in self._cgroup.paths:
                end_whole(path)
            self._cgroup = None
            if self.records:
                forget(self.records, self.user.name)
