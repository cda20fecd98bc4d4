"""Each person's server of a class on one machine, within limits of that person's own.

JupyterHub's ``LocalProcessSpawner`` starts each person's Jupyter server as their own
account, and nothing else: one student's 300 processes or 3 GiB of memory are the whole
class's problem. :class:`PersonSpawner` starts the server the same way, in a ``memory``
cgroup and a ``pids`` cgroup of that person's own (the judge's cgroups, tools/judge/
sandbox.py: v1 or v2, where root may make them here), so the server and everything it
starts (kernels, terminals, whatever they start, detached with ``setsid`` or not) share
:attr:`Spawner.mem_limit` bytes and :attr:`PersonSpawner.processes` tasks (settings.py's
PERSON_MEMORY and PERSON_TASKS). When the server
stops, whatever is still in its cgroups is killed: nothing a student started outlives
their server. The server also gets a parent-death SIGTERM: if JupyterHub itself is killed
outright, each server stops.

What this does not limit: disk (a student writes into their home until the disk is full;
a real deployment uses disk quotas on /home, or a volume per person) and CPU time (shared
as the kernel's scheduler shares it). Where the machine gives no cgroup, the server runs
without these limits and JupyterHub's log says so.
"""

import signal

from jupyterhub.spawner import LocalProcessSpawner
from traitlets import Integer

from mcp_lesson.shared.processes import die_with_parent
from tools.hub.settings import PERSON_MEMORY, PERSON_TASKS
from tools.judge.sandbox import Limits, Cgroup


class PersonSpawner(LocalProcessSpawner):
    processes = Integer(PERSON_TASKS, config=True,
                        help="Tasks (processes and threads) a person's server and all it starts "
                             "may run at once.")

    _cgroup = None

    def memory(self):
        return int(self.mem_limit or PERSON_MEMORY)

    def make_preexec_fn(self, name):
        as_person = super().make_preexec_fn(name)
        cgroup = self._cgroup

        def preexec():
            if cgroup is not None:
                cgroup.enter()  # as root, before the server becomes the person
            as_person()
            die_with_parent(signal.SIGTERM)  # after setuid, which clears it

        return preexec

    async def start(self):
        self._end_cgroup()
        self._cgroup = Cgroup(Limits(memory=self.memory(), processes=self.processes))
        missing = [name for name in ("memory", "pids") if name not in self._cgroup.controllers]
        if missing:
            self.log.warning("%s's server runs without a %s limit: this machine gives no %s "
                             "cgroup", self.user.name, " or ".join(missing), " or ".join(missing))
        return await super().start()

    async def stop(self, now=False):
        try:
            await super().stop(now=now)
        finally:
            self._end_cgroup()

    def _end_cgroup(self):
        """Kill what is left in the person's cgroups (detached processes too); remove them."""
        if self._cgroup is not None:
            self._cgroup.end()
            self._cgroup = None
