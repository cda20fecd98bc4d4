"""Each person's shared memory of their own: a private, size-limited ``/dev/shm`` and a
private IPC namespace for a person's server and all it starts (tools/hub/spawner.py).

The machine's ``/dev/shm`` is one tmpfs for every account, and a file written there outlives
the process that wrote it: 1.2 GB written from a student's terminal stays after their server
stops, and the next 1.2 GB with it, until the machine's memory is gone. SysV shared memory
(``shmget``) is the same: a segment stays until someone removes it. Both escape the person's
memory cgroup once the server has stopped.

:func:`make_private` (run as root between fork and exec, in the server's process) gives the
server a mount namespace and an IPC namespace of its own, with a new tmpfs on ``/dev/shm`` of
at most ``size`` bytes, and the same bound on its SysV segments (``kernel.shmall`` and
``kernel.shmmax`` of the new IPC namespace). A write past the size is refused (ENOSPC, "No space left on device");
what is written is also charged to the person's memory cgroup. When the last process of the
server ends (the spawner kills everything in its cgroups on stop), the kernel frees both
namespaces, and with them the tmpfs and every segment: nothing is left.
"""

import ctypes
import ctypes.util
import os
import subprocess

CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
MS_NOSUID, MS_NODEV, MS_NOEXEC = 2, 4, 8
MS_REC, MS_PRIVATE = 0x4000, 1 << 18
PAGE = os.sysconf("SC_PAGE_SIZE")
SHM = "/dev/shm"

_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


def _check(result, what):
    if result != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"{what}: {os.strerror(number)}")


def make_private(size):
    """Give the calling process (root, between fork and exec) its own IPC namespace and a
    tmpfs of ``size`` bytes on /dev/shm, in a mount namespace of its own whose mounts reach
    no other process."""
    _check(_libc.unshare(CLONE_NEWNS | CLONE_NEWIPC), "unshare")
    # Mounts made from here on stay in this namespace (the machine's / may be shared).
    _check(_libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None), "mount --make-rprivate /")
    options = f"size={int(size)},mode=1777".encode()
    _check(
        _libc.mount(b"tmpfs", SHM.encode(), b"tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, options),
        f"mount tmpfs on {SHM}",
    )
    for name, value in (("shmmax", int(size)), ("shmall", max(1, int(size) // PAGE))):
        with open(f"/proc/sys/kernel/{name}", "w") as setting:
            setting.write(str(value))


_WORKS = None


def possible():
    """Whether this machine lets root make those namespaces (asked once, of a throwaway
    process)."""
    global _WORKS
    if _WORKS is None:
        try:
            _WORKS = (
                subprocess.run(
                    ["/bin/true"], preexec_fn=lambda: make_private(PAGE), timeout=30
                ).returncode
                == 0
            )
        except (OSError, subprocess.SubprocessError):
            _WORKS = False
    return _WORKS
