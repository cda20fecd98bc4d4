"""Voila settings for the classroom page (`make app`).

Voila reads this file because `make app` passes
``--Voila.config_file_paths=tools/classroom``. It does four jobs:

1. **No kernel outlives its page for long.** Voila starts one kernel per page
   request. When a page closes, its browser posts a shutdown request that
   carries the ``_xsrf`` cookie's value; Voila never set that cookie, so the
   request failed with 403 ("'_xsrf' argument missing") and the kernel stayed
   (voila-dashboards/voila#1458, open). :func:`give_page_its_xsrf_cookie` sets
   the cookie when the page is served, so the shutdown passes the XSRF check
   (which stays on). A kernel whose page never opened (a plain GET, an
   ``<img>`` on another site) or whose browser died without saying goodbye has
   no connection, and is culled after ``cull_idle_timeout`` seconds of
   idleness; a kernel with an open page is never culled.
2. **A limited number of kernels.** Neither Voila nor jupyter_server can cap
   the kernel count (voila-dashboards/voila#617, open), so
   :class:`ClassroomKernelManager` does: at ``max_kernels`` it first replaces
   the longest-idle kernel that has no page connected, and otherwise answers
   503 with a sentence saying what to do.
3. **Only what the classroom should see.** Cells tagged ``notebook-only`` (run
   instructions, links to other lessons, code demos) are left out of the page
   and not run; code is hidden.
4. **Nothing from the network.** The ``classroom`` template (in ``share/``,
   put on the Jupyter data path below) is Voila's ``lab`` template without the
   icon font it fetches from a CDN, with a ``<main>`` landmark; only the
   widget extensions are loaded, so no other JupyterLab extension can log
   errors in the page's console.
"""

import os
from datetime import timedelta
from pathlib import Path

from jupyter_server._tz import utcnow
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from tornado import web
from traitlets import Integer

c = get_config()  # type: ignore[name-defined]  # noqa: F821  (given by traitlets when it loads this file)

HERE = Path(__file__).resolve().parent

# The classroom template lives in share/voila/templates/classroom; Voila looks
# for templates on the Jupyter data path.
os.environ["JUPYTER_PATH"] = os.pathsep.join(
    [str(HERE / "share"), *filter(None, os.environ.get("JUPYTER_PATH", "").split(os.pathsep))]
)


def give_page_its_xsrf_cookie(handler, notebook, cwd):
    """Set the ``_xsrf`` cookie on the page's response (Voila's prelaunch hook).

    Reading ``handler.xsrf_token`` makes tornado add the cookie. The page's
    script sends it back with its shutdown request when the page closes, and
    the server's XSRF check (unchanged) then accepts the request.
    """
    handler.xsrf_token  # noqa: B018 (read for its side effect: the cookie)
    return notebook


class ClassroomKernelManager(AsyncMappingKernelManager):
    """A kernel manager with at most ``max_kernels`` kernels.

    Before refusing a page, it shuts down the kernel idle the longest among
    those with no page connected and idle for ``replace_after`` seconds or
    more (a page that is still loading has no connection yet, so it is given
    that long to connect).
    """

    max_kernels = Integer(
        8, config=True, help="The most kernels (open classroom pages) at one time."
    )
    replace_after = Integer(
        10,
        config=True,
        help="Seconds of idleness after which a kernel with no page connected may be replaced.",
    )

    async def start_kernel(self, *, kernel_id=None, path=None, **kwargs):
        if kernel_id is None or kernel_id not in self:
            if len(self) >= self.max_kernels:
                await self._replace_an_unused_kernel()
            if len(self) >= self.max_kernels:
                raise web.HTTPError(
                    503,
                    reason=f"{self.max_kernels} classroom pages are open already; "
                    "close one, then reload this page",
                )
        return await super().start_kernel(kernel_id=kernel_id, path=path, **kwargs)

    async def _replace_an_unused_kernel(self):
        oldest = utcnow() - timedelta(seconds=self.replace_after)
        unused = [
            (kernel.last_activity, kernel_id)
            for kernel_id, kernel in list(self._kernels.items())
            if not self._kernel_connections.get(kernel_id, 0)
            and getattr(kernel, "execution_state", None) != "busy"
            and getattr(kernel, "last_activity", oldest) <= oldest
        ]
        if unused:
            _, kernel_id = min(unused)
            self.log.info("Replacing kernel %s: no page is connected to it.", kernel_id)
            await self.shutdown_kernel(kernel_id)


c.VoilaConfiguration.multi_kernel_manager_class = ClassroomKernelManager
c.VoilaConfiguration.prelaunch_hook = give_page_its_xsrf_cookie
# About 55 MB each: eight pages are plenty for one projector.
c.ClassroomKernelManager.max_kernels = 8
c.ClassroomKernelManager.replace_after = 10

# Kernels with no page connected are shut down after 30 s of idleness, checked
# every 10 s; kernels with a page connected (cull_connected) or still running
# the notebook (cull_busy) are kept.
c.ClassroomKernelManager.cull_idle_timeout = 30
c.ClassroomKernelManager.cull_interval = 10
c.ClassroomKernelManager.cull_connected = False
c.ClassroomKernelManager.cull_busy = False
# Kernel traffic encrypted, as in the course's JupyterLab (no "running over TCP
# without encryption" warning per page).
c.ClassroomKernelManager.transport_encryption = "auto"

c.VoilaConfiguration.template = "classroom"
c.VoilaConfiguration.strip_sources = True
c.TagRemovePreprocessor.remove_cell_tags = {"notebook-only"}
c.VoilaConfiguration.extension_allowlist = [
    "@jupyter-widgets/jupyterlab-manager",
    "@voila-dashboards/widgets-manager8",
]

c.Voila.ip = "127.0.0.1"
# A pasted message may be bigger than the web socket's default 10 MiB limit.
c.Voila.tornado_settings = {"websocket_max_message_size": 100 * 1024 * 1024}
