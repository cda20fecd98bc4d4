"""The sandbox: where a learner's code runs, and nothing of the teacher's is.

:class:`Sandbox` starts the judge's worker (worker.py) with the learner's files
in a throwaway folder of their own, and talks to it one request at a time.
With Debian's ``bubblewrap`` (``bwrap``), the worker sees:

* read-only: ``/usr`` and the Python installation (the standard library only:
  it runs as ``python -I -S``, no site-packages), and the judge's own folder
  (this worker, the wire format, a stand-in ``mcp_lesson`` that holds no
  reference of a graded function);
* read-write: its work folder (a fresh copy of the submission's regular files,
  on a tmpfs of :attr:`Limits.work_size`) and an empty ``/tmp`` (a tmpfs of
  :attr:`Limits.tmp_size`); nothing else of the machine: no checkout, no
  masters, no gradebook, no other student, no home folder, and nothing it
  writes reaches the machine's disk;
* no network (its own empty network namespace), its own process namespace
  (whatever it starts dies with it, ``setsid`` or not), its own user
  (``nobody``).

Limits, per submission as a whole where the machine lets us make cgroups:
memory (a ``memory`` cgroup of :attr:`Limits.memory` for the worker and all it
starts) and processes (a ``pids`` cgroup); else memory is an address-space
limit per process, and :func:`note` says so. Without a ``pids`` cgroup (a
teacher who is not root), the count of processes is the sandbox's own, never
the teacher's: ``RLIMIT_NPROC`` counts every task of a user, so set on the
teacher's account it would fail every sandbox once the teacher's own
JupyterLab, terminals and kernels pass it. Linux (5.14 and later) counts it per
user namespace, so the worker sets it itself, first thing, inside bubblewrap's
user namespace, where its user (``nobody``) runs the sandbox's tasks and
nothing else. In the fallback (no namespace) it is the teacher's count now
plus :attr:`Limits.processes`. Always: CPU time and the size of a written
file per process, and a wall-clock limit on each request (the caller's), on
every write to the worker and every read from it (channel.py). When a request
runs past its time, the whole sandbox is ended; the caller may start a new one.
The worker dies with the process that started it (bubblewrap's
``--die-with-parent``, or the kernel's parent-death signal in the fallback),
and a folder left behind by a judge that was killed is removed by the next.

Without bubblewrap (or where user namespaces are off), :func:`kind` says
"fallback": the worker runs as a plain process in its own session, with the
same limits, but in a folder on the machine's disk, and it could read what the
user running it can read; :func:`note` says so in one line.
"""

import contextlib
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from mcp_lesson.shared.processes import die_with_parent

HERE = Path(__file__).resolve().parent
WORKER_FILES = ("worker.py", "wire.py")
_NOBODY = 65534
#: Where the machine mounts its cgroups (v1: a folder a controller; v2: one hierarchy).
CGROUPS = Path("/sys/fs/cgroup")


@dataclass(frozen=True)
class Limits:
    """What one submission may use, in all (the worker and whatever it starts)."""

    memory: int = 2 * 1024**3  # bytes: the whole sandbox (a memory cgroup), else per process
    cpu: int = 300  # seconds of CPU time, per process
    file_size: int = 64 * 1024**2  # bytes, the largest file it may write
    processes: int = 16  # at once, in the whole sandbox
    work_size: int = 256 * 1024**2  # bytes: its work folder (a tmpfs of that size)
    tmp_size: int = 256 * 1024**2  # bytes: its /tmp (a tmpfs of that size)
    answer: int = 8 * 1024**2  # bytes: the longest answer it may send


class Stopped(Exception):
    """The worker did not answer: it ran past its time, ended, or broke the protocol."""


class NotStarted(BaseException):
    """The sandbox could not be started: the course's machinery failed, before any of
    the learner's code ran, so it is the run's error, never the learner's. A
    :class:`BaseException`, like :class:`KeyboardInterrupt`, so that no ``except
    Exception`` on the way (a test's, a grader's) can count it as a failed answer.
    Its text is one line for the teacher."""


#: Seconds a new sandbox has to say it started (bubblewrap and Python: a fraction
#: of a second; more only on a machine that is very busy).
START_LIMIT = 120.0


_KIND = None


def _bwrap_base():
    """bwrap's arguments for a system with the running Python (without the program)."""
    args = [
        shutil.which("bwrap") or "bwrap",
        "--unshare-all",
        "--die-with-parent",
        "--new-session",
        "--uid",
        str(_NOBODY),
        "--gid",
        str(_NOBODY),
        "--ro-bind",
        "/usr",
        "/usr",
    ]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    prefix = os.path.realpath(sys.base_prefix)
    if not prefix.startswith("/usr/"):
        args += ["--ro-bind", prefix, prefix]
    if os.path.isdir("/etc/alternatives"):  # where Debian's python3 links may point
        args += ["--ro-bind", "/etc/alternatives", "/etc/alternatives"]
    args += [
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--clearenv",
        "--setenv",
        "PATH",
        "/usr/bin:/bin",
        "--setenv",
        "LANG",
        "C.UTF-8",
        "--setenv",
        "HOME",
        "/work",
        "--setenv",
        "PYTHONDONTWRITEBYTECODE",
        "1",
    ]
    return args


def python():
    """The Python the worker runs: the real file of the running interpreter."""
    return os.path.realpath(sys.executable)


#: Set to "fallback" to use the fallback even where bubblewrap works (for testing it).
FORCE_VARIABLE = "MCP_LESSON_JUDGE_SANDBOX"


def kind():
    """ "bwrap" when bubblewrap runs here, else "fallback" (decided once)."""
    global _KIND
    if os.environ.get(FORCE_VARIABLE) == "fallback":
        return "fallback"
    if _KIND is None:
        _KIND = "fallback"
        if shutil.which("bwrap"):
            try:
                done = subprocess.run(
                    [*_bwrap_base(), python(), "-I", "-S", "-c", "pass"],
                    capture_output=True,
                    timeout=60,
                )
                if done.returncode == 0:
                    _KIND = "bwrap"
            except (OSError, subprocess.TimeoutExpired):
                pass
    return _KIND


def note():
    """One line on how learner code is kept apart here, and which limits it lacks."""
    if kind() == "bwrap":
        line = (
            "learner code runs in a bubblewrap sandbox: its own folder, no network, "
            "no access to the course's or the teacher's files"
        )
    else:
        line = (
            "bubblewrap is not available here, so learner code runs in a fallback: its own "
            "folder, session and limits, but it can read what you can "
            "(install Debian's bubblewrap for the sandbox)"
        )
    missing = Cgroup.missing()
    if missing:
        line += f"; no {' or '.join(missing)} cgroup can be made here, so " + " and ".join(
            {
                "memory": "memory is limited per process",
                "pids": "processes are limited only for a user other than root",
            }[m]
            for m in missing
        )
    return line


_CONTROLLERS = ("pids", "memory")
#: How the name of each cgroup the course makes begins; the pid of the process that made it
#: follows (then ``_`` and a random part), so that an empty one whose maker is gone can go.
CGROUP_PREFIX = "mcp_lesson_judge_"


def _sweep_cgroups(folder):
    """Remove the empty cgroups in ``folder`` whose maker has ended: a judge killed outright
    (SIGKILL, or its memory limit) cannot remove its own, and each left behind is kept by
    the kernel until removed. A cgroup that still holds a process is never touched here.
    (Run each time a cgroup is made: a listing of one folder, which holds a few.)"""
    try:
        found = [path for path in folder.iterdir() if path.name.startswith(CGROUP_PREFIX)]
    except OSError:
        return
    for path in found:
        if _maker_has_ended(path.name[len(CGROUP_PREFIX) :], "_"):
            with contextlib.suppress(OSError):
                path.rmdir()  # refused (EBUSY) while a process is in it


def _maker_has_ended(tail, separator):
    """Whether the pid that ``tail`` (a name past its prefix) begins with, up to
    ``separator``, is a process that has ended (never this one; another user's is alive)."""
    pid = tail.split(separator, 1)[0]
    if not pid.isdigit() or int(pid) == os.getpid():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except (OSError, OverflowError):
        return False
    return False


def _own_v1(controller):
    """The path of the calling process's own v1 cgroup of ``controller`` ("" at the root)."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return ""
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(","):
            return path.strip("/")
    return ""


class Cgroup:
    """The cgroups (v1 or v2) of one sandbox: ``pids`` and ``memory``, each made
    when the machine lets us; :meth:`end` kills what is left in them."""

    def __init__(self, limits):
        self.paths, self.controllers = [], set()
        wanted = {
            "pids": ("pids.max", str(limits.processes)),
            "memory": ("memory.max", str(limits.memory)),
        }
        name = f"{CGROUP_PREFIX}{os.getpid()}_{uuid.uuid4().hex[:12]}"
        for controller in _CONTROLLERS:
            for path, files in self._places(controller, name, wanted[controller]):
                if self._make(path, files):
                    if path not in self.paths:
                        self.paths.append(path)
                    self.controllers.add(controller)
                    break

    @staticmethod
    def _places(controller, name, setting):
        """Where a cgroup of ``controller`` may be made, with the files to write."""
        file, value = setting
        v1 = {"pids.max": "pids.max", "memory.max": "memory.limit_in_bytes"}[file]
        yield CGROUPS / controller / name, [(v1, value)]
        own = _own_v1(controller)
        if own:  # inside the caller's own, where it was given that cgroup (a class's hub)
            yield CGROUPS / controller / own / name, [(v1, value)]
        for base in (CGROUPS / "unified", CGROUPS):
            try:
                enabled = (base / "cgroup.subtree_control").read_text().split()
            except OSError:
                continue
            if controller in enabled:
                files = [(file, value)] + (
                    [("memory.swap.max", "0")] if controller == "memory" else []
                )
                yield base / name, files

    @staticmethod
    def _make(path, files):
        if not (path.parent / "cgroup.procs").exists() or not os.access(path.parent, os.W_OK):
            return False
        _sweep_cgroups(path.parent)
        try:
            path.mkdir(exist_ok=True)
            for file, value in files:
                if (path / file).exists() or file != "memory.swap.max":
                    (path / file).write_text(value)
            return True
        except OSError:
            try:
                path.rmdir()
            except OSError:
                pass
            return False

    @classmethod
    def missing(cls):
        """The controllers of :data:`_CONTROLLERS` this machine gives no cgroup for."""
        made = cls(Limits())
        made.end()
        return [controller for controller in _CONTROLLERS if controller not in made.controllers]

    def enter(self):
        """Move the calling process into the cgroups (run in the child, before exec)."""
        for path in self.paths:
            with open(path / "cgroup.procs", "w") as procs:
                procs.write("0")

    def end(self):
        for path in self.paths:
            end_cgroup(path)
        self.paths = []


def end_cgroup(path, rounds=50):
    """Kill every process of the cgroup at ``path`` (again while new ones appear, up to
    ``rounds`` times) and remove it; a cgroup that is gone already is no error."""
    for _ in range(rounds):
        try:
            pids = [int(p) for p in (Path(path) / "cgroup.procs").read_text().split()]
        except OSError:
            pids = []
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.01)
    try:
        Path(path).rmdir()
    except OSError:
        pass


#: The prefix of a sandbox's folder on the machine; the pid of the judge that
#: made it follows, so that a folder whose judge is gone can be removed.
_PREFIX = "mcp-lesson-judge-"


def _sweep():
    """Remove the folders of sandboxes whose judge process has ended (killed before
    it could remove them)."""
    base = Path(tempfile.gettempdir())
    for path in base.glob(_PREFIX + "*"):
        if _maker_has_ended(path.name[len(_PREFIX) :], "-"):
            shutil.rmtree(path, ignore_errors=True)


def _tasks_of(uid):
    """How many tasks (processes and threads: what ``RLIMIT_NPROC`` counts) the user
    ``uid`` runs now."""
    count = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/status", "rb") as status:
                fields = dict(line.split(b":", 1) for line in status if b":" in line)
            if int(fields[b"Uid"].split()[0]) == uid:
                count += int(fields[b"Threads"])
        except (OSError, KeyError, ValueError, IndexError):
            continue
    return count


class Sandbox:
    """One worker in its sandbox, for one submission.

    ``files``: a folder whose regular files are copied into the work folder (the
    submission; links and special files are left out), or None. ``lib``: a folder
    put first on the worker's path (the stand-in ``mcp_lesson``), or None.
    """

    def __init__(self, files=None, lib=None, limits=Limits()):
        from .files import copy_tree

        _sweep()
        self.limits = limits
        self.root = Path(tempfile.mkdtemp(prefix=f"{_PREFIX}{os.getpid()}-"))
        self.work = self.root / "work"
        self.judge = self.root / "judge"
        self.judge.mkdir()
        for name in WORKER_FILES:
            shutil.copy2(HERE / name, self.judge / name)
        copy_tree(lib, self.judge / "lib") if lib is not None else (self.judge / "lib").mkdir()
        copy_tree(files, self.work) if files is not None else self.work.mkdir()
        self.process = None
        self.channel = None
        self.cgroup = None
        self.stderr = None
        self.kind = kind()
        #: The :class:`NotStarted` of a sandbox that could not start (None while it could).
        self.failed = None

    # --- starting and ending ------------------------------------------------------

    def _command(self):
        worker_args = ["-I", "-S"]
        if self.kind == "bwrap":
            limits = self.limits
            if "pids" not in self.cgroup.controllers:  # counted in its own user namespace
                worker_args = [
                    *worker_args,
                    "/judge/worker.py",
                    "--processes",
                    str(limits.processes),
                ]
            else:
                worker_args = [*worker_args, "/judge/worker.py"]
            return [
                *_bwrap_base(),
                "--perms",
                "1777",
                "--size",
                str(limits.tmp_size),
                "--tmpfs",
                "/tmp",
                "--ro-bind",
                str(self.judge),
                "/judge",
                "--ro-bind",
                str(self.work),
                "/submission",
                "--perms",
                "0755",
                "--size",
                str(limits.work_size),
                "--tmpfs",
                "/work",
                "--chdir",
                "/work",
                python(),
                *worker_args,
                "--copy",
                "/submission",
                "/judge/lib",
                "/work",
            ]
        return [
            python(),
            *worker_args,
            str(self.judge / "worker.py"),
            str(self.judge / "lib"),
            str(self.work),
        ]

    def _limits(self):
        """The rlimits the judge sets on the process it starts, before exec. No
        ``RLIMIT_NPROC`` for bubblewrap: set here, it would count the teacher's
        tasks, and bubblewrap could not even make its namespaces (the worker sets
        it inside them instead). In the fallback, with no ``pids`` cgroup, it is
        what this user runs now plus the sandbox's own (for root it binds nothing)."""
        limits = [
            (resource.RLIMIT_AS, self.limits.memory),
            (resource.RLIMIT_CPU, self.limits.cpu),
            (resource.RLIMIT_FSIZE, self.limits.file_size),
            (resource.RLIMIT_CORE, 0),
        ]
        if self.kind != "bwrap" and "pids" not in self.cgroup.controllers and os.getuid() != 0:
            limits.append((resource.RLIMIT_NPROC, _tasks_of(os.getuid()) + self.limits.processes))
        return limits

    def _limit(self):  # in the child, before exec: nothing imported here (fork, threads)
        die_with_parent()
        self.cgroup.enter()
        for which, value in self._rlimits:
            try:
                resource.setrlimit(which, (value, value))
            except (ValueError, OSError):
                pass

    def start(self):
        """Start the worker (a no-op when it runs)."""
        from .channel import Channel

        if self.failed is not None:  # once: a sandbox that did not start is not tried again
            raise self.failed
        if self.process is not None and self.process.poll() is None:
            return
        self.cgroup = Cgroup(self.limits)
        if self.stderr is not None:
            self.stderr.close()
        self.stderr = tempfile.TemporaryFile()
        env = {
            "PATH": "/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "HOME": str(self.work),
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        self._rlimits = self._limits()
        try:
            self.process = subprocess.Popen(
                self._command(),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.stderr,
                cwd=self.work,
                env=env,
                preexec_fn=self._limit,
                start_new_session=True,
            )
        except (OSError, subprocess.SubprocessError) as exc:  # cannot be run, or limited, at all
            self._not_started(f"{type(exc).__name__}: {getattr(exc, 'strerror', None) or exc}")
        self.channel = Channel(
            self.process.stdin.fileno(), self.process.stdout.fileno(), self.limits.answer
        )
        self._await_ready()

    def _await_ready(self):
        """Wait for the worker's first line, which it writes before anything of the
        learner's is even copied: a sandbox that ends or stays silent before it
        did not start, and that is the course's failure (:class:`NotStarted`)."""
        from .channel import Broken

        try:
            hello = self.channel.receive(time.monotonic() + START_LIMIT)
        except Broken as broken:
            if broken.why == "late":
                self._not_started(f"it said nothing within {START_LIMIT:g} s")
            if broken.why != "ended":
                self._not_started("it did not speak the judge's protocol")
            code = self.process.wait()
            self._not_started(
                self._stderr_tail()
                or (
                    f"it ended with exit code {code}"
                    if code >= 0
                    else f"it ended with signal {-code}"
                )
            )
        if hello != {"ready": True}:
            self._not_started("it did not speak the judge's protocol")

    def _not_started(self, why):
        from mcp_lesson.exercises.calling import one_line

        self.stop()
        self.failed = NotStarted(
            f"the course's judge could not start its sandbox ({self.kind}): {one_line(why, 200)}; "
            "nothing was judged and no score was given (a failure of the course's machinery on "
            "this machine, not of the work)"
        )
        raise self.failed

    def _stderr_tail(self):
        """The last line the sandbox wrote on its stderr ("" for none)."""
        if self.stderr is None:
            return ""
        self.stderr.seek(0, os.SEEK_END)
        size = self.stderr.tell()
        self.stderr.seek(max(0, size - 2000))
        lines = self.stderr.read().decode("utf-8", "replace").strip().splitlines()
        return lines[-1] if lines else ""

    def stop(self):
        """End the worker and everything it started."""
        from mcp_lesson.shared.processes import kill_session

        process, self.process = self.process, None
        if process is not None:
            kill_session(process)
        if self.cgroup is not None:
            self.cgroup.end()
            self.cgroup = None

    def close(self):
        """Stop the worker and remove the sandbox's folders."""
        self.stop()
        if self.stderr is not None:
            self.stderr.close()
            self.stderr = None
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc_info):
        self.close()

    # --- requests ---------------------------------------------------------------------

    def _why_ended(self):
        code = self.process.wait()
        tail = self._stderr_tail()
        if code < 0:
            name = signal.Signals(-code).name if -code in signal.valid_signals() else str(-code)
            words = {
                "SIGXCPU": "it used up its CPU time",
                "SIGKILL": "it was killed (it may have used up its memory)",
                "SIGSEGV": "it crashed",
                "SIGXFSZ": "it wrote a file that was too large",
            }
            return f"its process ended: {words.get(name, 'signal ' + name)}"
        why = f"its process ended (exit code {code}) before it answered: os._exit() or a crash"
        if tail and "MemoryError" in tail:
            why += ": it ran out of memory"
        return why

    #: Called with each request of the worker for a course function (a dict) and
    #: the request's deadline; returns the reply (a dict), or raises
    #: :class:`~.channel.Broken` when the course's function did not answer in time.
    #: None: every such request is refused.
    course = None

    def request(self, message, timeout):
        """Send ``message``; return the worker's answer, serving its requests for
        the course's functions on the way (see :attr:`course`). Every step has
        the same deadline: a worker that does not read, does not answer, or asks
        for a course function that does not finish in time, is ended
        (:class:`Stopped`)."""
        from .channel import Broken

        self.start()
        deadline = time.monotonic() + timeout
        try:
            self.channel.send(message, deadline)
            while True:
                answer = self.channel.receive(deadline)
                if "course" not in answer:
                    return answer
                reply = self.course(answer, deadline) if self.course else {"refused": True}
                self.channel.send(reply, deadline)
        except Broken as broken:
            why = {
                "late": f"it did not finish within {timeout:g} s",
                "unread": f"it did not read what the judge sent it within {timeout:g} s",
                "big": f"it answered with more than {self.limits.answer // 2**20} MB",
                "garbage": "it wrote something that is not the judge's protocol",
            }.get(broken.why)
            if broken.why == "ended":
                why = self._why_ended()
            self.stop()
            raise Stopped(why) from None
