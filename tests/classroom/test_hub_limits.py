"""What one person of a class's hub may use, without a hub: the private /dev/shm and IPC
namespace each server gets (tools/hub/shared_memory.py), the cgroups the teacher owns, in
which the judge's sandboxes and the grading runs of formgrader's buttons get limits of their
own (spawner.py's delegation, tools/hub/apart.py), the modes of a submission in the exchange
(submit.py), and the class's settings for its accounts' login shells (login_shell.py).

Run as root, on a machine with v1 memory and pids cgroups (as the course's CI): each test
plays the part of the hub (root) and of one person (the system's ``nobody`` or ``daemon``).
The hub itself, end to end, is tests/classroom/test_hub.py's.
"""

import contextlib
import os
import pwd
import subprocess
import tempfile
from pathlib import Path

import pytest
from processes import patience, wait_for

from tools.hub import apart, login_shell, shared_memory
from tools.hub.settings import Settings
from tools.hub.submit import close_to_the_group
from tools.judge.sandbox import Cgroup, Limits

PERSON = "nobody"
CGROUPS = Path("/sys/fs/cgroup")
#: The person's Python: the system's, as the hub's users' environment is made from it (the
#: course's .venv may be where other accounts cannot run it).
PYTHON = "/usr/bin/python3"


def as_root_only():
    if os.geteuid() != 0:
        pytest.skip("needs root: it plays the hub, which is root")
    if not Path(PYTHON).exists():
        pytest.skip(f"{PYTHON} is missing: the hub's people run the system's Python")


@pytest.fixture
def shared():
    """A folder every account can read (pytest's own are root's alone)."""
    as_root_only()
    made = Path(tempfile.mkdtemp(prefix="mcp-hub-limits-", dir="/tmp"))
    made.chmod(0o755)
    yield made
    subprocess.run(["rm", "-rf", str(made)], check=False)


def mount_namespace(pid):
    return os.stat(f"/proc/{pid}/ns/mnt").st_ino


def holders(namespace):
    """The pids of the processes in the mount namespace of inode ``namespace``."""
    found = []
    for entry in os.listdir("/proc"):
        with contextlib.suppress(OSError):
            if entry.isdigit() and os.stat(f"/proc/{entry}/ns/mnt").st_ino == namespace:
                found.append(int(entry))
    return found


#: What the person runs in their server's place: it fills /dev/shm and asks for SysV segments,
#: says what it got (a line of JSON), and waits (to be looked at) until its stdin closes.
GREEDY = r"""
import ctypes, json, sys
written, refused = 0, ""
try:
    with open("/dev/shm/big", "wb") as out:
        for _ in range(64):
            out.write(b"x" * 2**20)
            out.flush()
            written += 2**20
except OSError as error:
    refused = error.strerror
libc = ctypes.CDLL(None, use_errno=True)
big, small = libc.shmget(0, 32 * 2**20, 0o1600), libc.shmget(0, 4 * 2**20, 0o1600)
print(json.dumps([written, refused, big, small]), flush=True)
sys.stdin.read()
"""


def test_a_servers_shared_memory_is_its_own_bounded_and_gone_with_it():
    as_root_only()
    if not shared_memory.possible():
        pytest.skip("this machine gives root no mount or IPC namespace")
    import json

    account = pwd.getpwnam(PERSON)

    def become():  # as the spawner does: the namespaces as root, then the person
        shared_memory.make_private(16 * 2**20)
        os.setgid(account.pw_gid)
        os.setuid(account.pw_uid)

    before = set(os.listdir("/dev/shm"))
    server = subprocess.Popen(
        [PYTHON, "-c", GREEDY],
        preexec_fn=become,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd="/",
    )
    try:
        written, refused, big, small = json.loads(server.stdout.readline())
        # refused at the size, in the server's own /dev/shm and SysV namespace
        assert 15 * 2**20 <= written <= 16 * 2**20 and refused, (written, refused)
        assert big == -1 and small >= 0
        assert set(os.listdir("/dev/shm")) == before  # nothing of it in the machine's /dev/shm
        namespace = mount_namespace(server.pid)
        assert namespace != mount_namespace(os.getpid())
        shared_segments = Path("/proc/sysvipc/shm").read_text().splitlines()[1:]
        assert not [line for line in shared_segments if int(line.split()[7]) == account.pw_uid]
    finally:
        server.stdin.close()
        server.wait(patience(30))
    # the server's last process gone: its namespace, and the tmpfs with it, are gone
    wait_for(lambda: not holders(namespace), "the server's namespace to end")


@pytest.fixture
def delegated():
    """A memory and a pids cgroup of the person's own, as the hub gives the teacher (root's
    limits of 256 MiB and 64 tasks; the folders the person's); removed after, with all inside."""
    as_root_only()
    from tools.hub.cgroups import delegate, end_inside

    cgroup = Cgroup(Limits(memory=256 * 2**20, processes=64))
    if {"memory", "pids"} - cgroup.controllers or any(
        not str(path).startswith(str(CGROUPS / kind))
        for path, kind in zip(cgroup.paths, ("pids", "memory"))
    ):
        cgroup.end()
        pytest.skip("this machine gives no v1 memory and pids cgroups")
    account = pwd.getpwnam(PERSON)
    for path in cgroup.paths:
        delegate(path, account.pw_uid, account.pw_gid)
    try:
        yield cgroup
    finally:
        for path in cgroup.paths:
            end_inside(path)
        cgroup.end()


def as_person_in(cgroup, code, checkout):
    """Run Python ``code`` as the person, inside ``cgroup``, from ``checkout`` (a copy of the
    course's code the person can read: conftest.py's ``readable_checkout``)."""
    account = pwd.getpwnam(PERSON)

    def become():
        cgroup.enter()
        os.setgid(account.pw_gid)
        os.setuid(account.pw_uid)

    return subprocess.run(
        [PYTHON, "-c", code],
        preexec_fn=become,
        capture_output=True,
        text=True,
        cwd="/",
        env={"PYTHONPATH": str(checkout), "PATH": "/usr/bin:/bin"},
        timeout=patience(120),
    )


def test_the_teachers_sandboxes_get_memory_and_pids_cgroups_of_their_own(
    delegated, readable_checkout
):
    run = as_person_in(
        delegated,
        "from tools.judge.sandbox import Cgroup, Limits\n"
        "made = Cgroup(Limits())\n"
        "print(*sorted(made.controllers), *made.paths)\n"
        "made.end()",
        readable_checkout,
    )
    assert run.returncode == 0, run.stderr
    memory, pids, *paths = run.stdout.split()
    assert (memory, pids) == ("memory", "pids"), run.stdout
    assert len(paths) == 2 and all(Path(path).parent in delegated.paths for path in paths), paths
    assert not any(Path(path).exists() for path in paths)  # ended: removed


def test_a_grading_run_apart_is_held_to_its_own_limits_and_leaves_nothing(
    delegated, readable_checkout
):
    memory = next(path for path in delegated.paths if "memory" in path.parts)
    hungry = "b = bytearray(240 * 2**20); b[::4096] = b'x' * len(b[::4096]); print('all of it')"
    run = as_person_in(
        delegated,
        "import subprocess, sys\n"
        "from tools.hub import apart\n"
        f"code = apart.run([sys.executable, '-c', {hungry!r}])\n"
        "print('the server goes on', code)",
        readable_checkout,
    )
    # the run's own limit (a share of the person's 256 MiB) stopped it, and said so; the
    # person's process that started it went on
    assert "the server goes on 137" in run.stdout and "all of it" not in run.stdout, run
    assert "memory limit" in run.stderr
    report = 'grep -E "memory|pids" /proc/self/cgroup; exit 3'
    fine = as_person_in(
        delegated,
        f"import sys\nfrom tools.hub import apart\nsys.exit(apart.run(['sh', '-c', '{report}']))",
        readable_checkout,
    )
    assert fine.returncode == 3
    inside = [line.split(":", 2)[2] for line in fine.stdout.splitlines()]
    assert len(inside) == 2 and all(path.count("/") == 2 for path in inside), inside  # one deeper
    assert not [entry for entry in memory.iterdir() if entry.is_dir()]  # removed after


def test_what_jupyterhub_left_of_a_server_ends_with_make_hub(delegated, tmp_path):
    """A server's cgroups, written down while it runs, are ended whole by ``make hub`` once
    JupyterHub has ended (tools/hub/cgroups.py): a process detached from the server and one in
    a cgroup the person made inside; a path written down outside the machine's cgroups is
    left alone."""
    from tools.hub import cgroups

    account = pwd.getpwnam(PERSON)

    def person_in(*inner):
        def become():
            delegated.enter()
            for path in inner:
                (path / "cgroup.procs").write_text(str(os.getpid()))
            os.setgid(account.pw_gid)
            os.setuid(account.pw_uid)

        return become

    inner = [Path(path) / "made-by-the-person" for path in delegated.paths]
    for path in inner:
        path.mkdir()
    detached = subprocess.Popen(["sleep", "100000"], preexec_fn=person_in(), start_new_session=True)
    nested = subprocess.Popen(
        ["sleep", "100000"], preexec_fn=person_in(*inner), start_new_session=True
    )
    records = tmp_path / "cgroups"
    elsewhere = tmp_path / "not-a-cgroup"
    elsewhere.mkdir()
    cgroups.record(records, "student1", delegated.paths)
    cgroups.record(records, "student2", [elsewhere])
    cgroups.end_recorded(records)
    assert detached.wait(patience(30)) and nested.wait(patience(30))
    assert not any(Path(path).exists() for path in delegated.paths)
    assert elsewhere.is_dir() and not list(records.iterdir())


def test_a_command_is_run_apart_only_where_the_hub_says_so():
    command = ["python", "classroom.py", "autograde", "03_classifying"]
    assert apart.wrapped(command, environ={}) == command
    on_hub = apart.wrapped(command, environ={"MCP_LESSON_HUB_APART": "1"})
    assert on_hub[-len(command) :] == command and on_hub[: -len(command)] != []
    assert Settings().environment_for("teacher").get("MCP_LESSON_HUB_APART") == "1"
    assert "MCP_LESSON_HUB_APART" not in Settings().environment_for("someone")


def test_a_submission_is_its_owners_and_the_teachers_group_alone(shared):
    inbound = shared / "inbound"
    inbound.mkdir()
    os.chown(inbound, 0, pwd.getpwnam("daemon").pw_gid)  # the teacher's group
    inbound.chmod(0o3733)
    submission = inbound / f"{PERSON}+03+stamp+random"
    # as nbgrader's submit leaves it: a copy (its folder's mode copied last, which drops the
    # set-group-id bit), then a time stamp written after, of the student's group; 0777, 0644
    made = subprocess.run(
        [
            "runuser",
            "-u",
            PERSON,
            "--",
            "sh",
            "-c",
            f"umask 022 && mkdir '{submission}' '{submission}/sub' && "
            f"echo work > '{submission}/03.ipynb' && echo more > '{submission}/sub/x' && "
            f"chmod 777 '{submission}' && echo 2000 > '{submission}/timestamp.txt'",
        ]
    )
    assert made.returncode == 0
    account = pwd.getpwnam(PERSON)
    child = os.fork()
    if child == 0:  # as the student, who runs nbgrader's submit
        try:
            os.setgid(account.pw_gid)
            os.setuid(account.pw_uid)
            os._exit(0 if close_to_the_group(str(submission), str(inbound)) else 1)
        finally:
            os._exit(2)
    assert os.waitpid(child, 0)[1] == 0
    assert (
        submission.stat().st_mode & 0o777 == 0o770
        and (submission / "sub").stat().st_mode & 0o777 == 0o770
    )
    assert (submission / "03.ipynb").stat().st_mode & 0o777 == 0o640

    def reads(name, file):
        return subprocess.run(
            ["runuser", "-u", name, "--", "cat", str(submission / file)],
            capture_output=True,
            text=True,
        ).stdout

    for file, text in (("03.ipynb", "work\n"), ("sub/x", "more\n"), ("timestamp.txt", "2000\n")):
        assert reads("daemon", file) == text and reads("bin", file) == "", (
            file
        )  # the teacher, another


def test_a_login_shell_of_the_class_gets_its_servers_settings(shared):
    (shared / "students.txt").write_text("bin\n")
    settings = Settings(teacher="daemon", students_file=shared / "students.txt", port=8123)
    path = login_shell.install(settings, shared)
    assert path == shared / "mcp_lesson_hub_8123.sh" and path.stat().st_mode & 0o777 == 0o644

    def shell_of(name):
        reply = subprocess.run(
            [
                "runuser",
                "-u",
                name,
                "--",
                "env",
                "-i",
                "PATH=/usr/bin:/bin",
                "sh",
                "-c",
                f". '{path}'; echo \"$PATH|${{JUPYTER_CONFIG_PATH-}}|${{PYTHONPATH-}}\"",
            ],
            capture_output=True,
            text=True,
            cwd="/",
        )
        return reply.stdout.strip().split("|")

    for name in ("daemon", "bin"):
        found_path, config, python = shell_of(name)
        wanted = settings.environment_for(name)
        assert found_path == f"{settings.env / 'bin'}:/usr/bin:/bin"
        assert (config, python) == (wanted["JUPYTER_CONFIG_PATH"], wanted["PYTHONPATH"])
    assert shell_of("nobody") == ["/usr/bin:/bin", "", ""]  # not of the class: nothing
    login_shell.remove(settings, shared)
    assert not path.exists()
    # a hub killed outright leaves its file: the next make hub removes those of hubs not running
    for port in (8124, 8125):
        login_shell.install(Settings(port=port, students_file=shared / "students.txt"), shared)
    login_shell.sweep(lambda port: port == 8125, shared)
    assert sorted(found.name for found in shared.glob("*.sh")) == ["mcp_lesson_hub_8125.sh"]
