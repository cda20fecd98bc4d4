"""Copying a learner's files: regular files only, from inside the folder, never through a link.

Collect (tools/grading/classroom.py) and graduation (tests/implementation.py)
both take files that a learner made into a place where the course reads or
runs them. A symbolic link there could bring in any file the teacher can read
(``shadow.txt -> /etc/shadow``); a named pipe could block the copy for ever; a
device could be read without end. So nothing but a regular file is ever
opened, a link is never followed (``O_NOFOLLOW``, and ``lstat`` before), and a
file swapped for something else between the look and the open is refused all
the same (``fstat`` after the open).
"""

import errno
import os
import shutil
import stat
from pathlib import Path

#: What a copy passes over without a word: editor checkpoints and caches.
QUIET = (".ipynb_checkpoints", "__pycache__")


def kind(mode):
    """What a file that is not a regular file is, in words (from its ``st_mode``)."""
    for test, words in (
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISFIFO, "a named pipe"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a device"),
        (stat.S_ISBLK, "a device"),
        (stat.S_ISDIR, "a folder"),
    ):
        if test(mode):
            return words
    return "not a regular file"


def copy_regular(path, dest):
    """Copy ``path`` to ``dest`` if it is a regular file; return None, or what it is instead."""
    mode = os.lstat(path).st_mode
    if not stat.S_ISREG(mode):
        return kind(mode)
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "a symbolic link"
        raise
    with open(fd, "rb") as source:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return kind(info.st_mode)
        with open(dest, "wb") as target:
            shutil.copyfileobj(source, target)
    os.utime(dest, ns=(info.st_atime_ns, info.st_mtime_ns))
    return None


def copy_tree(source, dest, quiet=QUIET):
    """Copy the folder ``source`` into ``dest`` (made if missing): its regular files
    and its folders, nothing else. Returns ``[(path relative to source, what it
    is)]`` for each entry left out (links, pipes, sockets, devices), in order;
    the names in ``quiet`` are left out without a word."""
    source, dest = Path(source), Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    left_out = []
    with os.scandir(source) as entries:
        names = sorted(entry.name for entry in entries)
    for name in names:
        if name in quiet:
            continue
        path = source / name
        mode = os.lstat(path).st_mode
        if stat.S_ISDIR(mode):
            left_out += [
                (f"{name}/{inner}", what) for inner, what in copy_tree(path, dest / name, quiet)
            ]
            continue
        instead = copy_regular(path, dest / name)
        if instead is not None:
            left_out.append((name, instead))
    return left_out
