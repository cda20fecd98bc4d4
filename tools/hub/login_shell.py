"""A login shell of the class's accounts gets their server's settings: the teacher's guide,
typed in a terminal of the hub's own JupyterLab, works as written.

A JupyterLab terminal is a login shell, and a login shell reads ``/etc/profile``, which sets
PATH afresh (Debian's: /usr/local/bin:/usr/bin:/bin...): the users' environment is gone from
it, and ``python`` is the system's (without nbgrader) and ``nbgrader`` is "command not found".
A login by ``su -l`` or SSH has none of the server's settings at all.

`make hub` (hub.py) writes :func:`script` to ``/etc/profile.d/mcp_lesson_hub_PORT.sh`` as the
hub starts, and removes it as the hub stops: every login shell (``/etc/profile`` reads
``/etc/profile.d/*.sh``) of an account of the class gets what that person's server gets
(settings.py's ``environment_for``: the users' Python first on PATH, the course on the module
path, the role's Jupyter settings, the exchange), and other accounts nothing. A hub killed
outright (SIGKILL) leaves its file; the next `make hub` removes the files of hubs that no
longer run (:func:`sweep`).
"""

import contextlib
import os
import shlex
from pathlib import Path

PROFILE_D = Path("/etc/profile.d")


def path_of(settings, folder=PROFILE_D):
    return Path(folder) / f"mcp_lesson_hub_{settings.port}.sh"


def _exports(environment):
    lines = []
    for name, value in environment.items():
        if name == "PATH":  # the users' Python first, before what /etc/profile set
            first = value.split(":", 1)[0]
            lines.append(f'PATH={shlex.quote(first)}:"$PATH"; export PATH')
        else:
            lines.append(f"export {name}={shlex.quote(value)}")
    return lines


def script(settings):
    """The profile script of the class of ``settings``: each account's server settings."""
    people = {}
    for name in [settings.teacher, *settings.students()]:
        people.setdefault(tuple(sorted(settings.environment_for(name).items())), []).append(name)
    lines = [
        f"# The class of mcp_lesson's hub on port {settings.port} (make hub): a login shell of",
        "# one of its accounts (a terminal of their JupyterLab) gets their server's settings.",
        "# Written as the hub starts, removed as it stops (tools/hub/login_shell.py).",
        'case "$(id -un 2>/dev/null)" in',
    ]
    for environment, names in people.items():
        lines.append("  " + "|".join(shlex.quote(name) for name in names) + ")")
        lines += ["    " + line for line in _exports(dict(environment))]
        lines.append("    ;;")
    lines.append("esac")
    return "\n".join(lines) + "\n"


def install(settings, folder=PROFILE_D):
    """Write the class's profile script (root's, readable by all); its path."""
    path = path_of(settings, folder)
    if not Path(folder).is_dir():
        return None
    made = path.with_name(f".{path.name}.{os.getpid()}")
    made.write_text(script(settings), encoding="utf-8")
    made.chmod(0o644)
    made.replace(path)  # (a link put at the path is replaced, never followed)
    return path


def sweep(running, folder=PROFILE_D):
    """Remove the profile scripts of hubs that no longer run (``running(port)`` is false)."""
    for path in Path(folder).glob("mcp_lesson_hub_*.sh"):
        port = path.stem.rsplit("_", 1)[-1]
        if port.isdigit() and not running(int(port)):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()


def remove(settings, folder=PROFILE_D):
    with contextlib.suppress(FileNotFoundError):
        path_of(settings, folder).unlink()
