"""`make hub` and its hub end together, however `make hub` ends (tools/hub/hub.py).

Each run starts `make hub` as a teacher does (its own process group, as a terminal gives
it), logs a student in through the hub's login page so that a person's server runs, then
ends it with one signal: SIGINT, SIGTERM, SIGHUP or SIGKILL, sent to `make`'s whole group
or to `hub.py` alone. Then it polls until no process of the class is left anywhere on the
machine, in any session: not `make`, not `hub.py`, not JupyterHub, not its proxy, not the
student's server (every process of the class's accounts, every process whose command line
or environment names the run's folder). The SIGINT to the group is sent to a `make hub`
that inherited SIGINT ignored, as a background job of a script does.

A JupyterHub killed outright while `make hub` goes on leaves nothing either: its people's
servers end by their parent-death signal, and `make hub` ends what they started detached
(the cgroups the spawner wrote down).

A second `make hub` on the port of a running one says so in one line and starts nothing.

Needs root (system accounts), the proxy (make venv) and the system's Python; full tier.
"""

import contextlib
import http.cookiejar
import json
import os
import pwd
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from chromium import free_ports, listening, missing
from processes import patience, wait_for

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from mcp_lesson.shared import process_tree  # noqa: E402  (after sys.path is set)
from tools.hub import accounts, environment  # noqa: E402  (after sys.path is set)
from tools.hub import hub as hub_program  # noqa: E402  (after sys.path is set)
from tools.hub.settings import PERSON_MEMORY, PERSON_TASKS, PROXY, Settings  # noqa: E402  (after sys.path is set)

pytestmark = pytest.mark.full

PREFIX = f"mcl{os.getpid() % 100000}"
TEACHER, STUDENT = f"{PREFIX}t", f"{PREFIX}s"
NAMES = [TEACHER, STUDENT]


@pytest.fixture(scope="module")
def folder():
    """The class's folder (students file, state, exchange); its accounts and files removed
    after, whatever happens."""
    if os.geteuid() != 0:
        pytest.skip("make hub needs root, to make its system accounts (run the full tier as root)")
    if not PROXY.exists():
        missing(f"JupyterHub's proxy is not installed ({PROXY}): make venv installs it with npm")
    if not Path(environment.SYSTEM_PYTHON).exists():
        missing(f"{environment.SYSTEM_PYTHON} is missing: the users' environment is made from it")
    environment.build(Settings().env)
    made = Path(tempfile.mkdtemp(prefix=f"{PREFIX}-hub-", dir="/tmp"))
    made.chmod(0o755)  # the exchange inside it is every account's
    (made / "students.txt").write_text(f"{STUDENT}\n")
    try:
        yield made
    finally:
        for pid in class_processes(made):  # what a failed run left: never left running
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        accounts.remove_accounts(NAMES)
        shutil.rmtree(made, ignore_errors=True)


def hub_port():
    return free_ports(3)  # the login page's, the hub's own, the proxy's API


def make_hub(folder, port, ignore_sigint=False):
    """`make hub` for the class of ``folder`` on ``port``, in a process group of its own."""

    def child():
        if ignore_sigint:  # as every background job of a script starts
            signal.signal(signal.SIGINT, signal.SIG_IGN)

    return subprocess.Popen(
        [
            "make",
            "--no-print-directory",
            "-C",
            str(ROOT),
            "hub",
            f"HUB_PORT={port}",
            f"HUB_TEACHER={TEACHER}",
            f"HUB_STUDENTS={folder / 'students.txt'}",
            f"HUB_EXCHANGE={folder / 'exchange'}",
        ],
        env=dict(os.environ, MCP_LESSON_HUB_STATE=str(folder / "state")),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
        preexec_fn=child,
    )


def read_until(process, text, log, limit=300):
    """The output of ``process`` up to the line holding ``text``; fails with it (and the end
    of JupyterHub's ``log``) if it ends."""
    import selectors

    seen = []
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        wait_for(
            lambda: _read_line(process, selector, seen, text, log),
            f"a line with {text!r}",
            limit=limit,
            every=0,
        )
    return "".join(seen)


def _read_line(process, selector, seen, text, log):
    if selector.select(timeout=1):
        line = process.stdout.readline()
        if not line:
            logged = log.read_text(errors="replace")[-6000:] if log.exists() else "(no log)"
            pytest.fail(
                "make hub ended:\n" + "".join(seen[-40:]) + "\nJupyterHub's log ends:\n" + logged
            )
        seen.append(line)
        return text in line
    return False


def uid_of(pid):
    try:
        return os.stat(f"/proc/{pid}").st_uid
    except OSError:
        return None


def class_processes(folder):
    """{pid: command line} of every live process of the class, in any session: those of its
    accounts, and those whose command line or environment names its folder (make, hub.py,
    JupyterHub, the proxy)."""
    uids = {pwd.getpwnam(name).pw_uid for name in NAMES if accounts.exists(name)}
    mark = str(folder).encode()
    found = {}
    for process in process_tree.process_table() or ():
        if process.pid == os.getpid():
            continue
        command = process.command()
        if uid_of(process.pid) in uids or str(folder) in command or mark in process.environ():
            found[process.pid] = command
    return found


def start_a_server(port, name, password):
    """Log ``name`` in through the hub's login page (which starts their server) and wait
    until the server answers through the proxy."""
    opener = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
    )
    base = Settings(port=port).hub_url
    with opener.open(f"{base}/hub/login", timeout=patience(30)) as page:
        xsrf = re.search(r'name="_xsrf" value="([^"]+)"', page.read().decode()).group(1)
    form = urllib.parse.urlencode({"username": name, "password": password, "_xsrf": xsrf}).encode()
    # The login starts the server; its redirects end at NAME.localhost, a name only
    # browsers resolve (server_answers asks 127.0.0.1 with that name as the host).
    with (
        contextlib.suppress(OSError),
        opener.open(f"{base}/hub/login", data=form, timeout=patience(120)),
    ):
        pass
    wait_for(lambda: server_answers(port, name), f"{name}'s server to answer", limit=180, every=0.5)


def server_answers(port, name):
    """Whether ``name``'s Jupyter server answers its API's version (no login needed)."""
    url = urllib.parse.urlsplit(Settings(port=port).server_url(name))
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{url.path}/api", headers={"Host": url.netloc}
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as reply:
            return "version" in json.loads(reply.read())
    except (OSError, ValueError):
        return False


def hub_py(make):
    """The pid of `hub.py` under ``make`` (in make's session)."""
    found = []

    def seen():
        found[:] = [
            p.pid
            for p in process_tree.process_table() or ()
            if "tools/hub/hub.py" in p.command() and _session(p.pid) == make.pid
        ]
        return found

    wait_for(seen, "hub.py under make")
    return found[0]


def _session(pid):
    try:
        return os.getsid(pid)
    except OSError:
        return None


def _proc_text(pid, name):
    try:
        return Path(f"/proc/{pid}/{name}").read_bytes().decode(errors="replace")
    except OSError:
        return ""


def what_is_left(folder, left):
    """The failure's words: each process left and everything under it (a process that is
    ending has no command line or environment to be found by), with its state and what it
    waits in (``/proc/PID/wchan``), then the end of JupyterHub's log."""
    table = process_tree.process_table() or ()
    under, todo = set(), list(left)
    while todo:
        pid = todo.pop()
        if pid not in under:
            under.add(pid)
            todo += [process.pid for process in table if process.ppid == pid]
    lines = ["left running (pid, state, waiting in, command):"]
    for pid in sorted(under):
        state = _proc_text(pid, "stat").rpartition(")")[2].split()[:1] or ["?"]
        wchan = _proc_text(pid, "wchan") or "-"
        command = _proc_text(pid, "cmdline").replace("\0", " ").strip() or "(no command line)"
        lines.append(f"  {pid} {state[0]} {wchan} {command}")
    log = folder / "state" / "jupyterhub.log"
    tail = log.read_text(errors="replace").splitlines()[-25:] if log.exists() else []
    return "\n".join([*lines, f"the end of {log}:", *tail])


def the_class_ends(folder, what):
    """Wait (two minutes, scaled) until no process of the class is left; else fail with
    :func:`what_is_left`."""
    left = {}

    def ended():
        left.clear()
        left.update(class_processes(folder))
        return not left

    with contextlib.suppress(AssertionError):
        wait_for(ended, what, limit=120, every=0.5)
    assert not left, f"{what}: " + what_is_left(folder, left)


CASES = [
    (target, sig)
    for target in ("make's group", "hub.py")
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGKILL)
]


@pytest.mark.parametrize(
    "target, sig", CASES, ids=[f"{sig.name} to {target}" for target, sig in CASES]
)
def test_the_hub_ends_with_make_hub_however_it_ends(folder, target, sig):
    port = hub_port()
    make = make_hub(folder, port, ignore_sigint=(target == "make's group" and sig == signal.SIGINT))
    try:
        read_until(make, "is up", folder / "state" / "jupyterhub.log")
        passwords = accounts.read_passwords(folder / "state" / "passwords.txt")
        start_a_server(port, STUDENT, passwords[STUDENT])
        assert hub_program.hub_processes(port), "JupyterHub and its proxy are found by their port"
        if target == "hub.py":
            os.kill(hub_py(make), sig)
        else:
            os.killpg(make.pid, sig)
        the_class_ends(folder, "every process of the class to end")
        assert not listening(port)
    finally:
        with contextlib.suppress(OSError):
            os.killpg(make.pid, signal.SIGKILL)
        make.wait()
        make.stdout.close()


def test_a_second_make_hub_on_the_port_names_the_first_and_starts_nothing(folder):
    port = hub_port()
    first = make_hub(folder, port)
    try:
        read_until(first, "is up", folder / "state" / "jupyterhub.log")
        running = hub_program.hub_processes(port)
        second = make_hub(folder, port)
        out, _ = second.communicate(timeout=patience(120))
        said = [line for line in out.splitlines() if line.strip() and not line.startswith("make")]
        assert second.returncode != 0 and len(said) == 1, out
        jupyterhub = [
            pid for pid, command in running.items() if "configurable-http-proxy" not in command
        ]
        assert str(jupyterhub[0]) in said[0], out
        assert hub_program.hub_processes(port) == running and first.poll() is None
        os.killpg(first.pid, signal.SIGINT)
        first.wait(patience(120))
        the_class_ends(folder, "every process of the class to end")
    finally:
        with contextlib.suppress(OSError):
            os.killpg(first.pid, signal.SIGKILL)
        first.wait()
        first.stdout.close()


#: Run by the student's own Jupyter settings as their server starts: as many processes as it
#: may start (of 300, each detached in a session of its own), counted to ~/started.txt; all
#: but one then ended, so the server can start. The one left is a student's detached
#: process, which must not outlive the server.
GREEDY_SETTINGS = """\
import os
import subprocess

started = []
for _ in range(300):
    try:
        started.append(subprocess.Popen(["sleep", "100000"], start_new_session=True))
    except OSError:
        break
for process in started[1:]:
    process.kill()
    process.wait()
with open(os.path.expanduser("~/started.txt"), "w") as out:
    out.write(str(len(started)))
"""


def cgroup_limits(pid):
    """{"pids": tasks, "memory": bytes}: the limits of the cgroups ``pid`` is in (v1 or v2)."""
    found = {}
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for controller, v1, v2 in (
            ("pids", "pids.max", "pids.max"),
            ("memory", "memory.limit_in_bytes", "memory.max"),
        ):
            if controller in controllers.split(","):
                files = [Path("/sys/fs/cgroup", controller, path.lstrip("/"), v1)]
            elif not controllers:  # v2: one hierarchy, at /sys/fs/cgroup or its unified/
                files = [
                    Path(base, path.lstrip("/"), v2)
                    for base in ("/sys/fs/cgroup/unified", "/sys/fs/cgroup")
                ]
            else:
                continue
            for file in files:
                value = file.read_text().strip() if file.is_file() else "max"
                if value != "max":
                    found[controller] = int(value)
    return found


@contextlib.contextmanager
def a_class_with_a_server(folder, settings):
    """`make hub` up, with the student's server started under their Jupyter ``settings``;
    yields (make, port, the student's home). After: make's group killed, the settings gone."""
    port = hub_port()
    make = make_hub(folder, port)
    home = None
    try:
        read_until(make, "is up", folder / "state" / "jupyterhub.log")
        home = accounts.home_of(STUDENT)
        (home / ".jupyter").mkdir(exist_ok=True)
        (home / ".jupyter" / "jupyter_server_config.py").write_text(settings)
        passwords = accounts.read_passwords(folder / "state" / "passwords.txt")
        start_a_server(port, STUDENT, passwords[STUDENT])
        yield make, port, home
    finally:
        with contextlib.suppress(OSError):
            os.killpg(make.pid, signal.SIGKILL)
        make.wait()
        make.stdout.close()
        if home is not None:
            shutil.rmtree(home / ".jupyter", ignore_errors=True)


def test_a_persons_server_is_held_to_its_limits_and_ends_whole(folder):
    """Each person's server runs in cgroups of that person's own (tools/hub/spawner.py): what
    it starts is bounded by the processes limit, and a process it leaves detached ends when
    the hub stops it."""
    with a_class_with_a_server(folder, GREEDY_SETTINGS) as (make, port, home):
        started = int((home / "started.txt").read_text())
        assert 0 < started < PERSON_TASKS, started  # (the server's own tasks count too)
        servers = [
            p.pid
            for p in process_tree.process_table() or ()
            if uid_of(p.pid) == pwd.getpwnam(STUDENT).pw_uid
            and "jupyterhub-singleuser" in p.command()
        ]
        limits = cgroup_limits(servers[0])
        assert (
            limits.get("pids") == PERSON_TASKS
            and abs(limits.get("memory", 0) - PERSON_MEMORY) < 2**20
        ), limits
        records = folder / "state" / "cgroups"  # what make hub ends after JupyterHub
        assert (records / STUDENT).is_file()
        os.killpg(make.pid, signal.SIGTERM)
        the_class_ends(folder, "every process of the class to end, the student's detached one too")
        assert not list(records.iterdir())


#: The student's Jupyter settings: one process started detached as the server starts.
DETACHED_SETTINGS = """\
import subprocess

subprocess.Popen(["sleep", "100000"], start_new_session=True)
"""


def test_what_a_killed_jupyterhub_left_ends_with_make_hub(folder):
    """JupyterHub killed outright (SIGKILL) stops no server itself; the server ends by its
    parent-death signal, and `make hub` (left running) ends what it started detached."""
    with a_class_with_a_server(folder, DETACHED_SETTINGS) as (_, port, _):
        jupyterhub = [
            pid
            for pid, command in hub_program.hub_processes(port).items()
            if "configurable-http-proxy" not in command
        ]
        assert len(jupyterhub) == 1, hub_program.hub_processes(port)
        os.kill(jupyterhub[0], signal.SIGKILL)
        the_class_ends(folder, "every process of the class to end, the student's detached one too")
        assert not list((folder / "state" / "cgroups").iterdir())
