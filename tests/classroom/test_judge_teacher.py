"""The judge on a teacher's own account.

``RLIMIT_NPROC`` counts every task of a user: set on the account of a teacher
who is not root, with a terminal and a kernel open, it failed every sandbox,
and every student got 0 for the course's failure. Here, as a user who is not
root (a uid of no account, through ``setpriv``) and who already runs 20
processes (the teacher's terminal, kernels and JupyterLab):

* a sandbox still starts, its code answers, and its own process limit still
  holds (counted in the sandbox's own user namespace, never the teacher's);
* a sandbox that cannot start (bubblewrap failing as it did) is the run's
  error: ``NotStarted``, which no ``except Exception`` of a test counts as an
  answer.

The class itself (the full tier, tests/classroom/test_judge_teacher_class.py) checks the
same through ``make autograde``'s command and formgrader's Autograde button.
"""

import json
import os
import pwd
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from processes import patience, run_to_end

from tools.judge import sandbox
from tools.judge.learner import Submission

ROOT = Path(__file__).resolve().parents[2]
SYSTEM_PYTHON = "/usr/bin/python3"  # the course's venv may live in root's home (mode 700)
#: The processes the teacher already runs (a terminal, a kernel, JupyterLab...).
TEACHERS_OWN = 20


def free_uid():
    """A uid of no account that runs nothing."""
    busy = {
        os.stat(f"/proc/{pid}").st_uid
        for pid in os.listdir("/proc")
        if pid.isdigit()
        if os.path.exists(f"/proc/{pid}")
    }
    for uid in range(47_000, 48_000):
        try:
            pwd.getpwuid(uid)
        except KeyError:
            if uid not in busy:
                return uid
    pytest.skip("no free uid between 47000 and 48000")


@pytest.fixture
def teacher():
    """A uid that is not root and already runs :data:`TEACHERS_OWN` processes; ended after."""
    if os.geteuid() != 0:
        pytest.skip("acting as another user needs root (run the tests as root, as CI does)")
    if not Path(SYSTEM_PYTHON).exists() or not shutil.which("setpriv"):
        pytest.skip(f"{SYSTEM_PYTHON} and setpriv (util-linux) are needed to act as a teacher")
    uid = free_uid()
    sleepers = [
        subprocess.Popen(
            ["sleep", "3600"],
            user=uid,
            group=uid,
            extra_groups=[],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
        )
        for _ in range(TEACHERS_OWN)
    ]
    try:
        yield uid
    finally:
        for process in sleepers:
            process.kill()
            process.wait()


def as_user(uid, python, code, limit=120, env=None, checkout=ROOT):
    """Run Python ``code`` as ``uid`` (never root), with ``checkout`` first on its path (a copy
    the account can read, tests/conftest.py's ``readable_checkout``: this checkout may sit in a
    folder only its owner can enter)."""
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": "/tmp",
        "LANG": "C.UTF-8",
        "PYTHONPATH": str(checkout),
        **(env or {}),
    }
    return run_to_end(
        [
            "setpriv",
            f"--reuid={uid}",
            f"--regid={uid}",
            "--clear-groups",
            "env",
            "-i",
            *(f"{key}={value}" for key, value in env.items()),
            python,
            "-c",
            code,
        ],
        limit,
        cwd="/tmp",
    )


JUDGED = """
import json
from tools.judge import sandbox
from tools.judge.learner import Submission

with Submission() as learner:
    printed, error = learner.run_cell(
        "def build(method, request_id):\\n"
        "    return {'jsonrpc': '2.0', 'method': method, 'id': request_id}\\n", "<cell 1>", %(limit)r)
    answer = learner.function("build")("ping", 7)
    printed, error = learner.run_cell(
        "import os, time\\n"
        "children = []\\n"
        "try:\\n"
        "    for _ in range(%(many)d):\\n"
        "        pid = os.fork()\\n"
        "        if pid == 0:\\n"
        "            time.sleep(30)\\n"
        "            os._exit(0)\\n"
        "        children.append(pid)\\n"
        "except OSError:\\n"
        "    pass\\n"
        "print(len(children))\\n", "<cell 2>", %(limit)r)
    print(json.dumps({"kind": learner.kind, "cgroups": sorted(learner.sandbox.cgroup.controllers),
                      "answer": answer, "forked": printed, "error": error}))
"""


@pytest.mark.parametrize("kind", ["bwrap", "fallback"])
def test_a_teachers_own_processes_do_not_stop_the_sandbox(teacher, kind, readable_checkout):
    """As the teacher, with 20 processes of theirs running, a sandbox
    starts, answers, and still stops the 40 processes its code tries to start
    (bubblewrap: counted in its own user namespace; the fallback: the teacher's
    count when it started plus its own)."""
    if kind == "bwrap" and sandbox.kind() != "bwrap":
        pytest.skip("bubblewrap is not installed (Debian: apt-get install bubblewrap)")
    many = sandbox.Limits().processes + 24
    run = as_user(
        teacher,
        SYSTEM_PYTHON,
        JUDGED % {"limit": patience(10), "many": many},
        env={sandbox.FORCE_VARIABLE: kind},
        checkout=readable_checkout,
    )
    assert run.returncode == 0, (run.stdout + run.stderr)[-3000:]
    seen = json.loads(run.stdout.strip().splitlines()[-1])
    assert seen["kind"] == kind, seen
    assert seen["answer"] == {"jsonrpc": "2.0", "method": "ping", "id": 7}, seen
    assert seen["error"] is None, seen
    if "pids" not in seen["cgroups"]:  # no cgroup for the teacher: the limit is still there
        assert 0 < int(seen["forked"]) < sandbox.Limits().processes, seen


@pytest.fixture
def failing_bwrap(tmp_path, monkeypatch):
    """bubblewrap as it failed on the teacher's account: it passes the judge's first
    look (kind()), then cannot make the sandbox's namespaces."""
    real = shutil.which("bwrap")
    if real is None or sandbox.kind() != "bwrap":
        pytest.skip("bubblewrap is not installed (Debian: apt-get install bubblewrap)")
    folder = tmp_path / "bin"
    folder.mkdir()
    fake = folder / "bwrap"
    fake.write_text(
        "#!/bin/sh\n"
        f'case " $* " in *" -c pass "*) exec {real} "$@";; esac\n'
        'echo "bwrap: Creating new namespace failed: Resource temporarily unavailable" >&2\n'
        "exit 1\n"
    )
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}:{os.environ['PATH']}")
    return folder


def test_a_sandbox_that_cannot_start_is_the_runs_error(failing_bwrap):
    """A sandbox that does not start raises NotStarted (one line, naming
    the course), which a test's own ``except Exception`` cannot take for an answer;
    nothing is retried into a verdict."""
    learner = Submission(call_limit=patience(5))
    try:
        with pytest.raises(sandbox.NotStarted) as failed:
            try:
                learner.run_cell("def build():\n    return 1\n", "<cell 1>", patience(5))
            except Exception:  # what a test's own code may do
                pytest.fail("a sandbox that did not start was caught as an ordinary error")
        line = str(failed.value)
        assert "\n" not in line and "course" in line and "Resource temporarily unavailable" in line
        with pytest.raises(sandbox.NotStarted):  # every later call too, at once
            learner.function("build")()
    finally:
        learner.close()


def test_graduation_with_a_sandbox_that_cannot_start_is_the_runs_error(failing_bwrap, tmp_path):
    """Make graduate's command with a sandbox that cannot start: one line
    naming the course's judge, exit status not 0, and no verdict on the package."""
    package = tmp_path / "my_mcp"
    package.mkdir()
    (package / "__init__.py").write_text(
        "def build_request(method, params=None, request_id=None):\n    return {}\n"
    )
    run = run_to_end(
        [sys.executable, str(ROOT / "tools" / "graduate.py"), str(package)], 600, cwd=ROOT
    )
    lines = run.stdout.strip().splitlines()
    assert run.returncode != 0, run.stdout + run.stderr
    assert len(lines) == 1 and "could not start its sandbox" in lines[0], run.stdout + run.stderr
    assert "passes" not in run.stdout and "Traceback" not in run.stdout + run.stderr


def test_a_limit_the_sandbox_cannot_start_under_is_the_runs_error():
    """A limit of the course's that Python cannot even start under (4 MB of
    memory) is NotStarted, not a crash of the learner's."""
    learner = Submission(call_limit=patience(5), limits=sandbox.Limits(memory=4 * 2**20))
    try:
        with pytest.raises(sandbox.NotStarted, match="could not start its sandbox"):
            learner.run_cell("x = 1\n", "<cell 1>", patience(5))
    finally:
        learner.close()
