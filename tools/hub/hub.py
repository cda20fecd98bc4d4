"""`make hub`: a class of the course on a real JupyterHub, on this machine (127.0.0.1).

    python tools/hub/hub.py [--port 8000] [--teacher NAME] [--students FILE]
                            [--exchange DIR] [--state DIR] [--env DIR]

Each option's default is the environment's setting of that name when given (settings.py:
MCP_LESSON_HUB_STATE for --state, for example), else the class's default. As root: makes
(or checks) the users' environment (environment.py), the teacher's and the students'
accounts (accounts.py; the students file holds one name a line, and is made with an example
when missing), nbgrader's exchange, the class's settings for its accounts' login shells
(login_shell.py: a JupyterLab terminal is one), then runs JupyterHub with its proxy
(jupyterhub_config.py) until Ctrl-C, which stops it and every person's server.

However this program ends, the hub ends with it: SIGTERM (a service manager, ``kill``) and
SIGHUP (the terminal closed) are taken as Ctrl-C, and so is SIGINT even when it was
inherited ignored (a background job of a script); JupyterHub is started with a parent-death
signal, so that if this program is killed outright (SIGKILL, a crash) the kernel sends
JupyterHub SIGTERM, on which it stops every person's server and its proxy as on Ctrl-C.
This program asks the same of its own parent (``make``). A hub of this checkout still
running on the port (an earlier one's) is found and named, with how to stop it.
"""

import argparse
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from mcp_lesson.shared import process_tree  # noqa: E402  (after sys.path is set)
from mcp_lesson.shared.processes import die_with_parent, signal_group  # noqa: E402  (after sys.path is set)
from tools.hub import accounts, cgroups, environment, login_shell  # noqa: E402  (after sys.path is set)
from tools.hub.settings import HERE, NAMES, PROXY, Settings  # noqa: E402  (after sys.path is set)

EXAMPLE_STUDENTS = """\
# The class: one account name a line (letters, digits, - and _). make hub makes each
# missing account, with a password it writes to the hub's passwords.txt.
student1
student2
"""


def readable_by_all(path):
    """Whether every account can reach ``path``: each folder above it searchable by all."""
    path = Path(path).resolve()
    return all(os.stat(folder).st_mode & 0o001 for folder in [path, *path.parents])


def hub_processes(port):
    """{pid: command line} of the live processes of a hub of this checkout on ``port``:
    its JupyterHub and its proxy, wherever they run (both carry the hub's settings in their
    environment, and this checkout's path in their command line)."""
    mark = f"\0{NAMES['port']}={port}\0".encode()
    found = {}
    for process in process_tree.process_table() or ():
        command = process.command()
        if (
            process.pid != os.getpid()
            and str(HERE) in command
            and ("jupyterhub" in command or "configurable-http-proxy" in command)
            and mark in b"\0" + process.environ()
        ):
            found[process.pid] = command
    return found


def already_running(port):
    """One line naming a hub of this checkout that runs on ``port`` and how to stop it, or
    None."""
    found = hub_processes(port)
    if not found:
        return None
    hubs = sorted(pid for pid, command in found.items() if "configurable-http-proxy" not in command)
    if hubs:
        return (
            f"A hub of this checkout is already running on port {port} (JupyterHub, pid "
            f"{hubs[0]}): stop it with `sudo kill -INT {hubs[0]}` (it stops every person's "
            "server and its proxy), or use it; then make hub again"
        )
    proxies = " ".join(str(pid) for pid in sorted(found))
    return (
        f"The proxy of an earlier hub of this checkout still holds port {port} (pid "
        f"{proxies}, its JupyterHub gone): stop it with `sudo kill {proxies}`, then make hub again"
    )


def ports_in_use(settings):
    """The hub's ports (the login page's and the two after it) that something listens on."""
    busy = []
    for port in (settings.port, settings.hub_port, settings.proxy_api_port):
        with socket.socket() as probe:
            probe.settimeout(2)
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                busy.append(port)
    return busy


def problems(settings):
    """What stops a hub here, one line each (nothing: it can start)."""
    found = []
    running = already_running(settings.port)
    if running:
        return [running]
    busy = ports_in_use(settings)
    if busy:
        found.append(
            f"port{'s' * (len(busy) > 1)} {', '.join(map(str, busy))} of 127.0.0.1 "
            f"{'are' if len(busy) > 1 else 'is'} in use by another program (the hub takes "
            f"its port and the two after it): choose others, make hub HUB_PORT=..."
        )
    if os.geteuid() != 0:
        found.append(
            "make hub runs as root: it makes the class's accounts, and JupyterHub "
            "starts each person's server as them (sudo make hub)"
        )
    if not PROXY.exists():
        found.append(
            f"JupyterHub's proxy is not installed in {PROXY.parents[2]} (make venv "
            "installs it with npm: apt-get install npm)"
        )
    if not readable_by_all(ROOT):
        found.append(
            f"the course's folder {ROOT} cannot be reached by other accounts: put the "
            "checkout where every account can read it (for example under /srv or /opt)"
        )
    return found


def login_page(settings):
    return f"{settings.hub_url}/hub/login"


def wait_for_login(settings, process, limit=180):
    """Poll the login page until it answers (True), the hub ends or ``limit`` s pass (False)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline and process.poll() is None:
        try:
            with urllib.request.urlopen(login_page(settings), timeout=5) as reply:
                if reply.status == 200:
                    return True
        except OSError:
            pass
        time.sleep(0.2)
    return False


def prepare(settings, say=print):
    """The environment, the accounts and the exchange of a class; the settings to run with."""
    if not settings.students_file.exists():
        settings.students_file.parent.mkdir(parents=True, exist_ok=True)
        settings.students_file.write_text(EXAMPLE_STUDENTS, encoding="utf-8")
        say(f"Wrote an example students file, {settings.students_file}: edit it (one name a line).")
    environment.build(settings.env, say=say)
    settings.state.mkdir(parents=True, exist_ok=True)
    settings.state.chmod(0o700)
    accounts.ensure_accounts(
        [settings.teacher, *settings.students()], settings.state / "passwords.txt", say=say
    )
    accounts.make_exchange(settings.exchange, settings.teacher)
    login_shell.sweep(lambda port: bool(hub_processes(port) or ports_in_use(Settings(port=port))))
    login_shell.install(settings)
    return settings


def start(settings):
    """JupyterHub, started (in its own session) with the class's settings, and a SIGTERM
    from the kernel when this process ends, however it ends."""
    env = dict(os.environ, **settings.to_environment())
    env["PATH"] = f"{settings.env / 'bin'}:{env.get('PATH', '/usr/bin:/bin')}"
    log = open(settings.state / "jupyterhub.log", "a")
    return subprocess.Popen(
        [str(settings.env / "bin" / "jupyterhub"), "-f", str(HERE / "jupyterhub_config.py")],
        cwd=settings.state,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        preexec_fn=_hub_dies_with_parent,
    )


def _hub_dies_with_parent():
    die_with_parent(signal.SIGTERM)  # JupyterHub stops its servers and proxy on SIGTERM


STOPPING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def stop_as_ctrl_c(number, frame):
    raise KeyboardInterrupt


def take_signals():
    """SIGINT, SIGTERM and SIGHUP each stop the hub as Ctrl-C does (a SIGINT inherited
    ignored included); when this process's parent (make) ends, it gets SIGTERM. Returns
    False when that parent has ended already."""
    for number in STOPPING:
        signal.signal(number, stop_as_ctrl_c)
    parent = os.getppid()
    die_with_parent(signal.SIGTERM)
    return os.getppid() == parent


def stop(process, settings, limit=60):
    """Stop the hub as Ctrl-C does (it then stops every person's server and its proxy),
    then what JupyterHub left running (ended before it could stop it): its proxy, and each
    person's server with all it started (their cgroups, written down by the spawner).
    Further stop signals are ignored meanwhile: a second Ctrl-C does not cut it short."""
    for number in STOPPING:
        signal.signal(number, signal.SIG_IGN)
    if process is None:
        return
    login_shell.remove(settings)
    if process.poll() is None:
        signal_group(process.pid, signal.SIGINT)
        try:
            process.wait(limit)
        except subprocess.TimeoutExpired:
            signal_group(process.pid, signal.SIGKILL)
            process.wait()
    cgroups.end_recorded(settings.cgroup_records)
    for pid in hub_processes(settings.port):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)


def main(argv=None):
    default = (
        Settings.from_environment()
    )  # MCP_LESSON_HUB_STATE=... and the like, else the defaults
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=default.port)
    parser.add_argument("--teacher", default=default.teacher)
    parser.add_argument("--students", type=Path, default=default.students_file)
    parser.add_argument("--exchange", type=Path, default=default.exchange)
    parser.add_argument("--state", type=Path, default=default.state)
    parser.add_argument("--env", type=Path, default=default.env)
    args = parser.parse_args(argv)
    settings = Settings(
        state=args.state.resolve(),
        env=args.env,
        port=args.port,
        teacher=args.teacher,
        students_file=args.students.resolve(),
        exchange=args.exchange,
    )
    process = None
    try:
        if not take_signals():
            return 1
        found = problems(settings)
        if found:
            print("\n".join(found))
            return 1
        began = time.monotonic()
        prepare(settings)
        process = start(settings)
        if not wait_for_login(settings, process):
            print(f"JupyterHub did not start: its log is {settings.state / 'jupyterhub.log'}")
            return 1
        print(
            f"The class's JupyterHub is up ({time.monotonic() - began:.1f} s): log in at "
            f"{login_page(settings)}",
            flush=True,
        )
        print(
            f"  teacher: {settings.teacher}; students: {', '.join(settings.students()) or 'none'} "
            f"(passwords of the accounts made here: {settings.state / 'passwords.txt'})"
        )
        print("  Ctrl-C stops it and every person's server.", flush=True)
        process.wait()
        return process.returncode
    except KeyboardInterrupt:
        with contextlib.suppress(OSError):  # the terminal may be gone (SIGHUP)
            print("Stopping the hub and every person's server...", flush=True)
        return 0
    finally:
        stop(process, settings)


if __name__ == "__main__":
    sys.exit(main())
