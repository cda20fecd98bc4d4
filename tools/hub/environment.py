"""The users' environment of a class on JupyterHub: JupyterHub, JupyterLab, nbgrader and the
course's other needs, in a Python every account can run.

The course's own `.venv` will not do: on many machines its Python lives in root's home
(pyenv's, mode 700), and another account's JupyterLab then fails with "Permission denied".
This one is made from the system's own Python (Debian's ``/usr/bin/python3``) in a folder
every account can read, by default /opt/mcp_lesson/hub-env. It holds the packages only:
each person's server finds the course itself in this checkout (settings.py puts it on
PYTHONPATH), so it is made again only when what it installs changes (its stamp is the
digest of that list), not when a lesson does.
"""

import fcntl
import hashlib
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from tools.hub.settings import HERE, ROOT

SYSTEM_PYTHON = "/usr/bin/python3"
STAMP = ".mcp_lesson_hub"


#: What a class needs of pyproject.toml's test extras: nbgrader, and matplotlib for the charts
#: of the page of what the class missed, which the teacher builds in their own server
#: (formgrader's "What the class missed", or ``python -m tools.insight`` in a terminal).
FROM_THE_TEST_EXTRAS = ("nbgrader", "matplotlib")


def requirements():
    """What the environment installs: tools/hub/requirements.txt, pyproject.toml's
    dependencies, and what a class needs of its test extras (:data:`FROM_THE_TEST_EXTRAS`)."""
    pins = [
        line.strip()
        for line in (HERE / "requirements.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = [
        spec
        for spec in project["optional-dependencies"]["test"]
        if re.match(r"[A-Za-z0-9_.-]+", spec)[0].lower() in FROM_THE_TEST_EXTRAS
    ]
    return pins + list(project["dependencies"]) + extras


def digest(python=SYSTEM_PYTHON):
    """The stamp of an environment: what it installs, the Python and the course's Jupyter
    settings (tools/course_jupyter.sh and the files it copies)."""
    parts = [
        "\n".join(requirements()),
        python,
        (ROOT / "tools" / "course_jupyter.sh").read_text(),
        (ROOT / "tools" / "overrides.json").read_text(),
    ]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def ready(env, python=SYSTEM_PYTHON):
    stamp = Path(env) / STAMP
    return stamp.is_file() and stamp.read_text().strip() == digest(python)


def build(env, python=SYSTEM_PYTHON, say=print):
    """Make the environment ``env`` unless it is up to date (one maker at a time: a lock
    beside it); return its path. The stamp is written last, so a build cut short is made
    again next time."""
    env = Path(env)
    if ready(env, python):
        return env
    if not Path(python).exists():
        raise SystemExit(
            f"{python} not found: the users' environment is made from the system's "
            "Python (apt-get install python3-venv), or name one: HUB_PYTHON=..."
        )
    env.parent.mkdir(parents=True, exist_ok=True)
    with open(env.parent / f".{env.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if ready(env, python):
            return env
        say(
            f"Making the users' environment in {env} from {python} (JupyterHub, JupyterLab, "
            "nbgrader; about a minute)..."
        )
        shutil.rmtree(env, ignore_errors=True)
        subprocess.run([python, "-m", "venv", str(env)], check=True)
        subprocess.run(
            [
                str(env / "bin" / "python"),
                "-m",
                "pip",
                "install",
                "-qq",
                "--disable-pip-version-check",
                *requirements(),
            ],
            check=True,
        )
        subprocess.run(
            ["bash", str(ROOT / "tools" / "course_jupyter.sh"), str(env / "bin"), "--hub"],
            check=True,
        )
        subprocess.run(["chmod", "-R", "a+rX", str(env)], check=True)
        (env / STAMP).write_text(digest(python) + "\n")
    return env


if __name__ == "__main__":
    print(build(sys.argv[1] if len(sys.argv) > 1 else "/opt/mcp_lesson/hub-env"))
