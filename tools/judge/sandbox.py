"""The sandbox: where a learner's code runs, and nothing of the teacher's is.

:class:`Sandbox` starts the judge's worker (worker.py) with the learner's files
in a throwaway folder of their own, and talks to it one request at a time.
With Debian's ``bubblewrap`` (``bwrap``), the worker sees:

* read-only: ``/usr`` and the Python installation (the standard library only:
  it runs as ``python -I -S``, no site-packages), and the judge's own folder
  (this worker, the wire format, a stand-in ``mcp_lesson`` that holds no
  reference of a graded function);
* read-write: its work folder (a fresh copy of the submission) and an empty
  ``/tmp``; nothing else of the machine: no checkout, no masters, no
  gradebook, no other student, no home folder;
* no network (its own empty network namespace), its own process namespace
  (whatever it starts dies with it, ``setsid`` or not), its own user
  (``nobody``).

Limits, per submission: address space (:attr:`Limits.memory`), CPU time,
size of a written file, processes (a ``pids`` cgroup when the machine lets
us make one, else ``RLIMIT_NPROC``, which binds only a non-root user), and a
wall-clock limit on each request (the caller's). When a request runs past its
time, the whole sandbox is ended; the caller may start a new one.

Without bubblewrap (or where user namespaces are off), :func:`kind` says
"fallback": the worker runs as a plain process in its own session, with the
same limits and folder, but it could read what the user running it can read;
:func:`note` says so in one line.
"""

import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from .wire import dumps, loads

HERE = Path(__file__).resolve().parent
WORKER_FILES = ("worker.py", "wire.py")
#: The longest answer the worker may send (a bigger one ends the sandbox).
MAX_ANSWER = 64 * 1024 * 1024
_NOBODY = 65534
_CGROUPS = Path("/sys/fs/cgroup")


@dataclass(frozen=True)
class Limits:
    memory: int = 2 * 1024**3  # bytes of address space, per process
    cpu: int = 300  # seconds of CPU time, per process
    file_size: int = 64 * 1024**2  # bytes, the largest file it may write
    processes: int = 64  # at once, in the whole sandbox


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
    args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
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
    """One line on how learner code is kept apart here."""
    if kind() == "bwrap":
        return ("learner code runs in a bubblewrap sandbox: its own folder, no network, "
                "no access to the course's or the teacher's files")
    return ("bubblewrap is not available here, so learner code runs in a fallback: its own "
            "folder, session and limits, but it can read what you can "
            "(install Debian's bubblewrap for the sandbox)")


class _Cgroup:
    """A pids cgroup (v1 or v2) for one sandbox, when the machine lets us make one."""

    def __init__(self, processes):
        self.path = None
        for base in (_CGROUPS / "pids", _CGROUPS / "unified", _CGROUPS):
            if (base / "cgroup.procs").exists() and os.access(base, os.W_OK):
                path = base / f"mcp_lesson_judge_{uuid.uuid4().hex[:12]}"
                try:
                    path.mkdir()
                    (path / "pids.max").write_text(str(processes))
                except OSError:
                    try:
                        path.rmdir()
                    except OSError:
                        pass
                    continue
                self.path = path
                break

    def enter(self):
        """Move the calling process into the cgroup (run in the child, before exec)."""
        if self.path is not None:
            with open(self.path / "cgroup.procs", "w") as procs:
                procs.write("0")

    def end(self):
        if self.path is None:
            return
        for _ in range(50):
            try:
                pids = [int(p) for p in (self.path / "cgroup.procs").read_text().split()]
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
            self.path.rmdir()
        except OSError:
            pass


class Sandbox:
    """One worker in its sandbox, for one submission.

    ``files``: a folder whose contents are copied into the work folder (the
    submission), or None. ``lib``: a folder put first on the worker's path
    (the stand-in ``mcp_lesson``), or None.
    """

    def __init__(self, files=None, lib=None, limits=Limits()):
        self.limits = limits
        self.root = Path(tempfile.mkdtemp(prefix="mcp-lesson-judge-"))
        self.work = self.root / "work"
        self.judge = self.root / "judge"
        self.judge.mkdir()
        for name in WORKER_FILES:
            shutil.copy2(HERE / name, self.judge / name)
        if lib is not None:
            shutil.copytree(lib, self.judge / "lib", symlinks=False)
        else:
            (self.judge / "lib").mkdir()
        if files is not None:
            shutil.copytree(files, self.work, symlinks=True, ignore_dangling_symlinks=True)
        else:
            self.work.mkdir()
        self.process = None
        self.cgroup = None
        self.stderr = None
        self.kind = kind()

    # --- starting and ending ------------------------------------------------------

    def _command(self):
        worker_args = ["-I", "-S"]
        if self.kind == "bwrap":
            return [*_bwrap_base(), "--ro-bind", str(self.judge), "/judge",
                    "--bind", str(self.work), "/work", "--chdir", "/work",
                    python(), *worker_args, "/judge/worker.py", "/judge/lib", "/work"]
        return [python(), *worker_args, str(self.judge / "worker.py"), str(self.judge / "lib"),
                str(self.work)]

    def _limit(self):  # in the child, before exec
        import resource

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
        if self.process is not None and self.process.poll() is None:
            return
        self.cgroup = _Cgroup(self.limits.processes)
        self.stderr = tempfile.TemporaryFile()
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": str(self.work),
               "PYTHONDONTWRITEBYTECODE": "1"}
        self.process = subprocess.Popen(
            self._command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr,
            cwd=self.work, env=env, preexec_fn=self._limit, start_new_session=True)
        self._buffer = b""

    def stop(self):
        """End the worker and everything it started."""
        process, self.process = self.process, None
        if process is not None:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except OSError:
                pass
            try:
                process.kill()
            except OSError:
                pass
            process.wait()
            for pipe in (process.stdin, process.stdout):
                try:
                    pipe.close()
                except OSError:
                    pass
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
            words = {"SIGXCPU": "it used up its CPU time", "SIGKILL": "it was killed",
                     "SIGSEGV": "it crashed", "SIGXFSZ": "it wrote a file that was too large"}
            return f"its process ended: {words.get(name, 'signal ' + name)}"
        why = f"its process ended (exit code {code}) before it answered: os._exit() or a crash"
        if tail and "MemoryError" in tail:
            why += ": it ran out of memory"
        return why

    #: Called with each request of the worker for a course function (a dict);
    #: returns the reply (a dict). None: every such request is refused.
    course = None

    def request(self, message, timeout):
        """Send ``message``; return the worker's answer, serving its requests for
        the course's functions on the way (see :attr:`course`)."""
        self.start()
        deadline = time.monotonic() + timeout
        self._send(message)
        while True:
            answer = self._receive(deadline, timeout)
            if "course" not in answer:
                return answer
            reply = self.course(answer) if self.course else {"refused": True}
            self._send(reply)

    def _send(self, message):
        try:
            self.process.stdin.write((dumps(message) + "\n").encode("ascii"))
            self.process.stdin.flush()
        except (BrokenPipeError, OSError, AttributeError):
            why = self._why_ended() if self.process else "its process had ended"
            self.stop()
            raise Stopped(why) from None

    def _receive(self, deadline, timeout):
        """The worker's next line, as a dict. Raises :class:`Stopped` (and ends the
        worker) when none comes by ``deadline``, the worker ends, or the line is
        not the protocol's."""
        out = self.process.stdout.fileno()
        chunks, size = [self._buffer], len(self._buffer)
        while b"\n" not in chunks[-1]:
            left = deadline - time.monotonic()
            if left <= 0:
                self.stop()
                raise Stopped(f"it did not finish within {timeout:g} s")
            ready, _, _ = select.select([out], [], [], left)
            if not ready:
                continue
            chunk = os.read(out, 1 << 20)
            if not chunk:
                why = self._why_ended()
                self.stop()
                raise Stopped(why)
            chunks.append(chunk)
            size += len(chunk)
            if size > MAX_ANSWER:
                self.stop()
                raise Stopped(f"it answered with more than {MAX_ANSWER // 2**20} MB")
        line, _, self._buffer = b"".join(chunks).partition(b"\n")
        try:
            return loads(line.decode("ascii"))
        except (ValueError, UnicodeDecodeError):
            self.stop()
            raise Stopped("it wrote something that is not the judge's protocol") from None
