"""Run a command in a cgroup of its own, inside the caller's: the teacher's grading runs on a
class's hub (formgrader's Autograde and Generate Feedback buttons).

    python -m tools.hub.apart [--memory BYTES] [--processes N] -- COMMAND [ARGS...]

On a class's hub the teacher's server runs in a memory and a pids cgroup that the teacher
owns (spawner.py delegates them). A grading run started from that server shares the
server's limits: a submission that makes the run grow would have the kernel's out-of-memory
killer choose among the server, its kernels and the run. Started through this program, the
run (and all it starts) is in cgroups of its own, made inside the teacher's, of at most
:data:`SHARE` of the teacher's memory and tasks unless told otherwise; the out-of-memory
killer then chooses inside the run only, and the teacher's JupyterLab keeps answering. When
the command ends, whatever it left is killed and its cgroups removed. The exit status is the
command's (128 + the signal's number when a signal ended it), and a run ended by its memory
limit says so in one line on stderr.

Where no cgroup can be made (off a hub, as a user given none), the command runs as it is.

For another program (formgrader's buttons): :func:`wrapped` gives the command line to start,
which is the command itself unless the hub said, in the environment, that its grading runs
apart (settings.py's ``APART``, set for the teacher).
"""

import argparse
import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from tools.hub.settings import APART  # noqa: E402  (after sys.path is set)
from tools.judge.sandbox import Cgroup, Limits, _own_v1  # noqa: E402  (after sys.path is set)

#: The part of the caller's own limits a run gets (the rest stays the server's).
SHARE = 0.75
CGROUPS = Path("/sys/fs/cgroup")


def wrapped(command, environ=os.environ):
    """``command`` (a list) as it is to be started: through this program on a class's hub,
    else as it is."""
    if environ.get(APART) != "1":
        return list(command)
    return [sys.executable, str(Path(__file__).resolve()), "--", *command]


def own_limit(controller, file):
    """The caller's own limit in its v1 cgroup of ``controller`` (None: none, or unknown)."""
    try:
        value = (CGROUPS / controller / _own_v1(controller) / file).read_text().strip()
        number = int(value)
    except (OSError, ValueError):
        return None
    return number if number < 2**60 else None


def limits(memory=None, processes=None):
    """The run's limits: those given, else :data:`SHARE` of the caller's own."""
    default = Limits()
    own_memory, own_tasks = (
        own_limit("memory", "memory.limit_in_bytes"),
        own_limit("pids", "pids.max"),
    )
    return Limits(
        memory=memory or (int(own_memory * SHARE) if own_memory else default.memory),
        processes=processes or (int(own_tasks * SHARE) if own_tasks else 4096),
    )


def out_of_memory(cgroup):
    """Whether the kernel's out-of-memory killer acted in ``cgroup`` (v1: its oom_control)."""
    for path in cgroup.paths:
        control = path / "memory.oom_control"
        if control.exists():
            for line in control.read_text().splitlines():
                name, _, value = line.partition(" ")
                if name == "oom_kill" and value.strip().isdigit() and int(value) > 0:
                    return True
    return False


def run(command, memory=None, processes=None):
    """Run ``command`` in cgroups of its own; return its exit status (128 + signal)."""
    chosen = limits(memory, processes)
    cgroup = Cgroup(chosen)
    try:
        process = subprocess.Popen(command, preexec_fn=cgroup.enter if cgroup.paths else None)
        passed = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
        for number in passed:  # a stop asked of this program is the command's
            signal.signal(number, lambda sig, frame: process.send_signal(sig))
        status = process.wait()
        if status < 0:
            if out_of_memory(cgroup):
                print(
                    f"{command[0]}: stopped by the run's memory limit "
                    f"({chosen.memory // 2**20} MiB)",
                    file=sys.stderr,
                )
            status = 128 - status
        return status
    finally:
        cgroup.end()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memory", type=int, help="bytes (default: a share of the caller's own)")
    parser.add_argument(
        "--processes", type=int, help="tasks at once (default: a share of the caller's)"
    )
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command given: python -m tools.hub.apart -- COMMAND [ARGS...]")
    try:
        return run(command, args.memory, args.processes)
    except OSError as error:  # the command could not be started
        print(f"{command[0]}: {error.strerror}", file=sys.stderr)
        return 127 if isinstance(error, FileNotFoundError) else 126


if __name__ == "__main__":
    sys.exit(main())
