"""A Jupyter server with the teacher's settings of a class on JupyterHub
(tools/hub/roles/teacher and common: formgrader and the course's extensions of it), on a course
folder of a test's own: what formgrader's pages and the page of what the class missed are
checked in, without a hub."""

import contextlib
import os
import sys
from pathlib import Path

from chromium import AS_ROOT, answers, free_port
from processes import start_guarded, wait_for

ROOT = Path(__file__).resolve().parents[2]
ROLES = ROOT / "tools" / "hub" / "roles"


@contextlib.contextmanager
def teachers_server(course, token):
    """The server on ``course`` (its parent folder the server's root, its log beside it): its
    address once it answers ``token``; ended on the way out."""
    port = free_port()
    env = dict(
        os.environ,
        PYTHONPATH=str(ROOT),
        MCP_LESSON_COURSE=str(course),
        MCP_LESSON_EXCHANGE=str(course.parent / "exchange"),
        JUPYTER_CONFIG_PATH=os.pathsep.join([str(ROLES / "teacher"), str(ROLES / "common")]),
        JUPYTER_CONFIG_DIR=str(course.parent / "jupyter"),
        JUPYTER_DATA_DIR=str(course.parent / "data"),
        JUPYTER_RUNTIME_DIR=str(course.parent / "runtime"),
    )
    command = [
        sys.executable,
        "-m",
        "jupyter",
        "server",
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={course.parent}",
    ] + (["--allow-root"] if AS_ROOT else [])
    base = f"http://127.0.0.1:{port}"
    with open(course.parent / "server.log", "w") as log:
        server = start_guarded(command, cwd=course, env=env, stdout=log, stderr=log)
        try:
            wait_for(
                lambda: answers(f"{base}/api/status?token={token}") or server.poll() is not None,
                "the Jupyter server",
                limit=90,
            )
            assert server.poll() is None, (course.parent / "server.log").read_text()[-3000:]
            yield base
        finally:
            server.end()
