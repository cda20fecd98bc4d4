"""Finished sites kept between clones: a build made once serves every checkout of the same
inputs on this computer.

The site is made from files of the checkout only (tools/site/build.py's ``inputs()``), so
their digest names it wherever the checkout is. A build puts a copy of build/site into
``~/.cache/mcp_lesson/sites/<digest>/`` (``$XDG_CACHE_HOME`` when set); a fresh clone
(CI's, a new worktree) whose inputs have that digest copies it instead of building: less
than a second, where a build in a fresh clone takes 24 s and more (a virtual environment of
the build tools, Pyodide from npm, the kernel's wheels, ``jupyter lite build``). The newest
``KEEP`` sites are kept; a folder that cannot be written (no home, a read-only one) only
means every clone builds its own.

A site is put in place whole (copied to a temporary name, then renamed), and the store's
lock is held while a site is copied in, out or removed, so two clones never see half of one.
"""

import contextlib
import fcntl
import os
import shutil
from pathlib import Path

#: How many finished sites the store keeps (the newest).
KEEP = 3


def store():
    """The folder of the kept sites (it may not exist yet)."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "mcp_lesson" / "sites"


@contextlib.contextmanager
def _locked(folder):
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def restore(digest, output, folder=None):
    """Copy the kept site of ``digest`` to ``output``: True if there was one."""
    folder = store() if folder is None else folder
    try:
        with _locked(folder):
            kept = folder / digest
            if not (kept / "index.html").is_file():
                return False
            shutil.rmtree(output, ignore_errors=True)
            partial = output.with_name(output.name + ".partial")
            shutil.rmtree(partial, ignore_errors=True)
            shutil.copytree(kept, partial)
            partial.rename(output)
            os.utime(kept)  # the newest use: kept the longest
            return True
    except OSError:
        return False


def keep(digest, output, folder=None):
    """Put a copy of the built ``output`` in the store as ``digest``'s, then drop all but the
    newest KEEP sites. Nothing is raised: a store that cannot be written keeps nothing."""
    folder = store() if folder is None else folder
    with contextlib.suppress(OSError), _locked(folder):
        partial = folder / f"{digest}.partial"
        shutil.rmtree(partial, ignore_errors=True)
        shutil.copytree(output, partial)
        shutil.rmtree(folder / digest, ignore_errors=True)
        partial.rename(folder / digest)
        sites = sorted(
            (path for path in folder.iterdir() if path.is_dir() and "." not in path.name),
            key=lambda path: path.stat().st_mtime,
            reverse=True,
        )
        for old in sites[KEEP:]:
            shutil.rmtree(old, ignore_errors=True)
