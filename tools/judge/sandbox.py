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
limit per process and processes ``RLIMIT_NPROC`` (which binds only a non-root
user), and :func:`note` says so. Always: CPU time and the size of a written
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
_CGROUPS = Path("/sys/fs/cgroup")


@dataclass(frozen=True)
class Limits:
    """What one submission may use, in all (the worker and whatever it starts)."""

    memory: int = 2 * 1024**3  # bytes: the whole sandbox (a memory cgroup), else per process
    cpu: int = 300  # seconds of CPU time, per process
    file_size: int = 64 * 1024**2  # bytes, the largest file it may write
    processes: int = 16  # at once, in the whole sandbox
    work_size: int = 256 * 1024**2  # bytes: its work folder (a tmpfs of that size)
    tmp_size: int = 256 * 1024**2  # bytes: its /tmp (a tmpfs of that size)
    answer: int = 64 * 1024**2  # bytes: the longest answer it may send


class Stopped(Exception):
    """The worker did not answer: it ran past its time, ended, or broke the protocol."""


_KIND = None


def _bwrap_base():
    """bwrap's arguments for a system with the running Python (without the program)."""
    args = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session",
            "--uid", str(_NOBODY), "--gid", str(_NOBODY),
            "--ro-bind", "/usr", "/usr"]
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
    args += ["--proc", "/proc", "--dev", "/dev",
             "--clearenv", "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "LANG", "C.UTF-8",
             "--setenv", "HOME", "/work", "--setenv", "PYTHONDONTWRITEBYTECODE", "1"]
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
                done = subprocess.run([*_bwrap_base(), python(), "-I", "-S", "-c", "pass"],
                                      capture_output=True, timeout=60)
                if done.returncode == 0:
                    _KIND = "bwrap"
            except (OSError, subprocess.TimeoutExpired):
                pass
    return _KIND


def note():
    """One line on how learner code is kept apart here, and which limits it lacks."""
    if kind() == "bwrap":
        line = ("learner code runs in a bubblewrap sandbox: its own folder, no network, "
                "no access to the course's or the teacher's files")
    else:
        line = ("bubblewrap is not available here, so learner code runs in a fallback: its own "
                "folder, session and limits, but it can read what you can "
                "(install Debian's bubblewrap for the sandbox)")
    missing = _Cgroup.missing()
    if missing:
        line += (f"; no {' or '.join(missing)} cgroup can be made here, so "
                 + " and ".join({"memory": "memory is limited per process",
                                 "pids": "processes are limited only for a user other than root"}[m]
                                for m in missing))
    return line


_CONTROLLERS = ("pids", "memory")


class _Cgroup:
    """The cgroups (v1 or v2) of one sandbox: ``pids`` and ``memory``, each made
    when the machine lets us; :meth:`end` kills what is left in them."""

    def __init__(self, limits):
        self.paths, self.controllers = [], set()
        wanted = {"pids": ("pids.max", str(limits.processes)),
                  "memory": ("memory.max", str(limits.memory))}
        name = f"mcp_lesson_judge_{uuid.uuid4().hex[:12]}"
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
        yield _CGROUPS / controller / name, [(v1, value)]
        for base in (_CGROUPS / "unified", _CGROUPS):
            try:
                enabled = (base / "cgroup.subtree_control").read_text().split()
            except OSError:
                continue
            if controller in enabled:
                files = [(file, value)] + ([("memory.swap.max", "0")] if controller == "memory" else [])
                yield base / name, files

    @staticmethod
    def _make(path, files):
        if not (path.parent / "cgroup.procs").exists() or not os.access(path.parent, os.W_OK):
            return False
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
            for _ in range(50):
                try:
                    pids = [int(p) for p in (path / "cgroup.procs").read_text().split()]
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
                path.rmdir()
            except OSError:
                pass
        self.paths = []


#: The prefix of a sandbox's folder on the machine; the pid of the judge that
#: made it follows, so that a folder whose judge is gone can be removed.
_PREFIX = "mcp-lesson-judge-"


def _sweep():
    """Remove the folders of sandboxes whose judge process has ended (killed before
    it could remove them)."""
    base = Path(tempfile.gettempdir())
    for path in base.glob(_PREFIX + "*"):
        pid = path.name[len(_PREFIX):].split("-", 1)[0]
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(path, ignore_errors=True)
        except OSError:
            pass


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

    # --- starting and ending ------------------------------------------------------

    def _command(self):
        worker_args = ["-I", "-S"]
        if self.kind == "bwrap":
            limits = self.limits
            return [*_bwrap_base(),
                    "--perms", "1777", "--size", str(limits.tmp_size), "--tmpfs", "/tmp",
                    "--ro-bind", str(self.judge), "/judge", "--ro-bind", str(self.work), "/submission",
                    "--perms", "0755", "--size", str(limits.work_size), "--tmpfs", "/work",
                    "--chdir", "/work",
                    python(), *worker_args, "/judge/worker.py", "--copy", "/submission",
                    "/judge/lib", "/work"]
        return [python(), *worker_args, str(self.judge / "worker.py"), str(self.judge / "lib"),
                str(self.work)]

    def _limit(self):  # in the child, before exec: nothing imported here (fork, threads)
        die_with_parent()
        self.cgroup.enter()
        for which, value in ((resource.RLIMIT_AS, self.limits.memory),
                             (resource.RLIMIT_CPU, self.limits.cpu),
                             (resource.RLIMIT_FSIZE, self.limits.file_size),
                             (resource.RLIMIT_CORE, 0),
                             (resource.RLIMIT_NPROC, self.limits.processes)):
            try:
                resource.setrlimit(which, (value, value))
            except (ValueError, OSError):
                pass

    def start(self):
        """Start the worker (a no-op when it runs)."""
        from .channel import Channel

        if self.process is not None and self.process.poll() is None:
            return
        self.cgroup = _Cgroup(self.limits)
        if self.stderr is not None:
            self.stderr.close()
        self.stderr = tempfile.TemporaryFile()
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": str(self.work),
               "PYTHONDONTWRITEBYTECODE": "1"}
        self.process = subprocess.Popen(
            self._command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr,
            cwd=self.work, env=env, preexec_fn=self._limit, start_new_session=True)
        self.channel = Channel(self.process.stdin.fileno(), self.process.stdout.fileno(),
                               self.limits.answer)

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
        tail = ""
        if self.stderr is not None:
            self.stderr.seek(0, os.SEEK_END)
            size = self.stderr.tell()
            self.stderr.seek(max(0, size - 2000))
            lines = self.stderr.read().decode("utf-8", "replace").strip().splitlines()
            tail = lines[-1] if lines else ""
        if code < 0:
            name = signal.Signals(-code).name if -code in signal.valid_signals() else str(-code)
            words = {"SIGXCPU": "it used up its CPU time",
                     "SIGKILL": "it was killed (it may have used up its memory)",
                     "SIGSEGV": "it crashed", "SIGXFSZ": "it wrote a file that was too large"}
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
            why = {"late": f"it did not finish within {timeout:g} s",
                   "unread": f"it did not read what the judge sent it within {timeout:g} s",
                   "big": f"it answered with more than {self.limits.answer // 2**20} MB",
                   "garbage": "it wrote something that is not the judge's protocol"}.get(broken.why)
            if broken.why == "ended":
                why = self._why_ended()
            self.stop()
            raise Stopped(why) from None
