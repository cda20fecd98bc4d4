"""Collect: the class's work copied into the course directory (tools/grading/classroom.py's
*collect*): the released notebooks only, as regular files, within the size limits.

Nothing in a student's folder is trusted between a look and a use: each file is opened
without following a link and without waiting (``O_NOFOLLOW|O_NONBLOCK``: a named pipe, or a
file its owner holds a lease on, never stalls collect), checked on its descriptor (``fstat``:
a regular file, or it is passed over), and copied within its size limit as it is read (a file
that grows after a look is cut off at the limit, never read whole). The folder and its
notebooks are looked at again after the copy: a submission that changed while it was copied
is refused in one line, and its time is taken from what was copied, never from before it.
"""

import datetime
import errno
import os
import re
import shutil
import stat
import tempfile
from pathlib import Path

from tools.grading.course_dir import (
    NOTEBOOK_BYTES,
    SAFE_NAME,
    STUDENT_BYTES,
    Step,
    _shown,
    prepare,
    released,
)
from tools.judge.files import QUIET
from tools.judge.files import kind as _kind

# --- reading a student's file ------------------------------------------------------------


class NotTaken(Exception):
    """A student's file that collect does not take: ``str()`` says why, in words."""


class TooBig(NotTaken):
    """A file that held more than the bytes it could be given."""


class Changed(NotTaken):
    """A file that changed while it was read."""


_CHUNK = 1 << 20


def open_regular(path):
    """Open ``path`` for reading if it is a regular file, without following a link and without
    waiting; return (descriptor, its ``fstat``), or raise :class:`NotTaken` saying what it is."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise NotTaken("a symbolic link") from None
        if exc.errno in (errno.EAGAIN, errno.EWOULDBLOCK):
            raise NotTaken("held by a lease of its owner's (collect does not wait)") from None
        raise
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise NotTaken(_kind(info.st_mode))
    return fd, info


def _same(before, after):
    return (before.st_ino, before.st_size, before.st_mtime_ns, before.st_ctime_ns) == (
        after.st_ino,
        after.st_size,
        after.st_mtime_ns,
        after.st_ctime_ns,
    )


def copy_within(path, dest, limit):
    """Copy the regular file ``path`` to ``dest``, reading at most ``limit`` bytes of it.

    Return the ``fstat`` of what was copied. Raise :class:`NotTaken` (nothing is left at
    ``dest``): not a regular file, held by a lease, over ``limit`` bytes (:class:`TooBig`),
    or changed while it was read (:class:`Changed`)."""
    fd, before = open_regular(path)
    try:
        copied = 0
        with open(dest, "wb") as target:
            while True:
                chunk = os.read(fd, min(_CHUNK, limit + 1 - copied))
                if not chunk:
                    break
                copied += len(chunk)
                if copied > limit:
                    raise TooBig(f"over {limit / 2**20:.1f} MB")
                target.write(chunk)
        after = os.fstat(fd)
        if not _same(before, after):
            raise Changed("it changed while it was copied")
    except BaseException:
        try:
            os.unlink(dest)
        except OSError:
            pass
        raise
    finally:
        os.close(fd)
    os.utime(dest, ns=(after.st_atime_ns, after.st_mtime_ns))
    return after


def read_within(path, limit):
    """The bytes of the regular file ``path`` if it holds at most ``limit`` of them, else None
    (a link, a pipe, a leased, unreadable, growing or larger file alike)."""
    try:
        fd, _ = open_regular(path)
    except (NotTaken, OSError):
        return None
    try:
        data = os.read(fd, limit + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    return data if len(data) <= limit else None


# --- what a submission looks like, and when it last changed ------------------------------


def state_of(folder, names):
    """What the system says of ``folder`` and of its entries ``names`` (``lstat``, links not
    followed, nothing below them): {name or "": (inode, ctime in ns)}. A student can change
    a file, but never set its ``ctime`` back."""
    found = {"": _key(os.lstat(folder))}
    for name in sorted(names):
        try:
            found[name] = _key(os.lstat(os.path.join(folder, name)))
        except FileNotFoundError:
            continue
    return found


def _key(info):
    return (info.st_ino, info.st_ctime_ns)


def newest(state):
    """The newest change of a :func:`state_of`, as a naive time in UTC (nbgrader's form)."""
    ns = max(ctime for _, ctime in state.values())
    return datetime.datetime.fromtimestamp(ns / 1e9, datetime.UTC).replace(tzinfo=None)


# --- collect ----------------------------------------------------------------------


def _plain(name):
    """A file name as it can be shown on one line of the log."""
    return name if name.isprintable() else repr(name)


def _size(folder):
    """The bytes of the regular files in ``folder`` (not through links)."""
    total = 0
    for path in Path(folder).rglob("*"):
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode):
            total += info.st_size
    return total


def _take_released(step, folder, dest, wanted, who, room):
    """Copy the released notebooks ``wanted`` of one student's ``folder`` into the folder ``dest``,
    at most ``room`` bytes in all.

    Return the names taken, the names left out (other files and folders), and the bytes taken.
    Each file that is not a regular file, or is a notebook over NOTEBOOK_BYTES, gets a line of
    its own and is passed over. Raise :class:`NotTaken` when the submission as a whole cannot
    be taken (a leased or changing notebook, or over ``room``).
    """
    taken, left_out, used = set(), [], 0
    with os.scandir(folder) as entries:
        names = sorted(entry.name for entry in entries)
    for name in names:
        if name in QUIET or name == SECRET:
            continue
        path = folder / name
        mode = os.lstat(path).st_mode
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)) or (
            name in wanted and stat.S_ISDIR(mode)
        ):
            step.say(
                f"{who}: skipped {_plain(name)}, {_kind(mode)}: collect takes regular files only"
            )
            continue
        if name.startswith("."):
            continue
        if name not in wanted:
            left_out.append(_plain(name) + ("/" if stat.S_ISDIR(mode) else ""))
            continue
        limit = min(NOTEBOOK_BYTES, room - used)
        try:
            info = copy_within(path, dest / name, limit)
        except TooBig:
            if limit < NOTEBOOK_BYTES:
                raise TooBig(
                    f"the student's submissions come to over {STUDENT_BYTES // 2**20} MB in all"
                ) from None
            step.say(
                f"{who}: skipped {_plain(name)}: a notebook of over {NOTEBOOK_BYTES // 2**20} MB "
                "is not collected"
            )
            continue
        except Changed:
            raise
        except NotTaken as exc:
            if "lease" in str(exc):
                raise NotTaken(f"{_plain(name)} is {exc}") from None
            step.say(f"{who}: skipped {_plain(name)}, {exc}: collect takes regular files only")
            continue
        taken.add(name)
        used += info.st_size
    return taken, left_out, used


#: nbgrader's exchange names each submission's feedback by a secret it writes at
#: submit time; release_feedback needs it (a missing one is a FileNotFoundError).
SECRET = "submission_secret.txt"


def _secret(folder, dest):
    """Give the collected submission ``dest`` its ``submission_secret.txt``, as
    ``nbgrader collect`` does: the student's own (from ``nbgrader submit``) when it
    is a regular file of hex digits, else a new one."""
    import secrets

    data = read_within(Path(folder) / SECRET, 256)
    try:
        text = data.decode("ascii").strip() if data is not None else None
    except UnicodeDecodeError:
        text = None
    if not text or not re.fullmatch(r"[0-9a-f]{16,256}", text):
        text = secrets.token_hex(64)
    (dest / SECRET).write_text(text, encoding="ascii")


def _stamp(dest, when):
    """Write the collected submission ``dest``'s timestamp.txt: ``when``, an aware time or a naive
    one in UTC, in the form nbgrader reads."""
    if when.tzinfo is not None:
        when = when.astimezone(datetime.UTC).replace(tzinfo=None)
    (Path(dest) / "timestamp.txt").write_text(
        when.strftime("%Y-%m-%d %H:%M:%S.%f UTC"), encoding="utf-8"
    )


def now():
    """The time now, in UTC."""
    return datetime.datetime.now(datetime.UTC)


def take_submission(
    step, folder, dest, wanted, who, clock=None, room=STUDENT_BYTES, look=None, check=None
):
    """Collect one student's submission ``folder`` into ``dest``: the released notebooks
    ``wanted`` (take_released), its secret, and its timestamp.txt. The copy is made beside
    ``dest`` and takes its place only when whole.

    The time stamped is ``clock()``, asked once the copy is made (collect's own :func:`now`),
    or, with no clock, the newest change of the folder and its notebooks as they were copied
    (:func:`state_of`). ``look`` is the :func:`state_of` the caller decided on (nbgrader's
    collect picks the last submission before the deadline by it): the submission is refused
    when it is not the state the copy was made of, as it is when it changed during the copy,
    and when ``check(copy, names taken)`` raises :class:`Changed` (the content is not the one
    looked at).

    Return (names taken, names left out, bytes taken), or None after a line saying why it
    was not collected (a file could not be read, it changed, or it holds over ``room``
    bytes); a copy collected before is then kept.
    """
    folder, dest = Path(folder), Path(dest)
    kept = " (the copy collected before is kept)" if dest.exists() else ""
    dest.parent.mkdir(parents=True, exist_ok=True)
    os.chmod(dest.parent, 0o700)  # a student's work is the teacher's to read, no one else's
    fresh = Path(tempfile.mkdtemp(prefix=".collecting-", dir=dest.parent))  # the owner's only
    try:
        before = state_of(folder, wanted) if look is None else look
        taken, left_out, used = _take_released(step, folder, fresh, wanted, who, room)
        after = state_of(folder, wanted)
        if after != before:
            raise Changed("the submission changed between collect's look and its copy")
        if check is not None:
            check(fresh, taken)
    except NotTaken as exc:
        shutil.rmtree(fresh, ignore_errors=True)
        step.say(f"{who}: not collected: {exc}{kept}")
        return None
    except OSError as exc:
        shutil.rmtree(fresh, ignore_errors=True)
        step.say(
            f"{who}: not collected: {type(exc).__name__} while reading "
            f"{_plain(Path(exc.filename or folder).name)}{kept}"
        )
        return None
    _secret(folder, fresh)
    _stamp(fresh, clock() if clock is not None else newest(after))
    for made in fresh.iterdir():
        os.chmod(made, 0o600, follow_symlinks=False)
    if dest.exists():
        shutil.rmtree(dest)
    fresh.rename(dest)
    return taken, left_out, used


def collect(course, source):
    """Copy the released notebooks found in ``source/<student>/<assignment>/`` into submitted/.

    Only what nbgrader released is taken: for each assignment, the regular
    files named like its released notebooks. Nothing else a student puts in
    the folder is collected (other files and folders are named in the line
    of that submission), links are never followed, and a named pipe, a
    socket, a device or a link gets one line of its own and is passed over.
    A submission that cannot be read, or changes while it is copied, costs
    only itself: collect goes on with the others. Each submission's
    timestamp.txt is written here, with the time it was collected (taken
    after its copy).
    """
    course = prepare(course)
    step = Step(course, f"collect {source}")
    try:
        source = Path(source)
        if (source / "submitted").is_dir():
            source = source / "submitted"
        if not source.is_dir():
            step.say(
                f"{source} is not a folder: give the folder that holds one folder per "
                "student (make collect FROM=<folder>)"
            )
            return 1
        known = released(course)
        if not known:
            step.say("nothing has been released yet: run `make release` first")
            return 1
        count = 0
        for student in sorted(p for p in source.iterdir() if p.is_dir() and not p.is_symlink()):
            if student.name.startswith("."):
                continue
            if not SAFE_NAME.fullmatch(student.name):
                step.say(
                    f"skipped the folder {student.name!r}: a student id is letters, digits "
                    "and _ . @ - only"
                )
                continue
            try:
                folders = sorted(p for p in student.iterdir() if p.is_dir() and not p.is_symlink())
            except OSError as exc:
                step.say(
                    f"{student.name}: not collected: the folder cannot be read ({type(exc).__name__})"
                )
                continue
            taken_in_all = 0
            for folder in folders:
                if folder.name.startswith("."):
                    continue
                if folder.name not in known:
                    step.say(
                        f"{student.name}: skipped {_plain(folder.name)}/, which is not a released "
                        "assignment"
                    )
                    continue
                who = f"{student.name} {folder.name}"
                dest = course / "submitted" / student.name / folder.name
                again = dest.exists()
                wanted = known[folder.name]
                # The time is collect's own, taken once the copy is made: a timestamp.txt of
                # the student's is never taken.
                got = take_submission(
                    step, folder, dest, wanted, who, clock=now, room=STUDENT_BYTES - taken_in_all
                )
                if got is None:
                    continue
                taken, left_out, used = got
                taken_in_all += used
                count += 1
                line = f"{who}: collected" + (" again (replaced)" if again else "")
                if wanted - taken:
                    line += f"; missing {', '.join(sorted(wanted - taken))}"
                if left_out:
                    line += f"; not part of the assignment: {', '.join(left_out)} (not collected)"
                step.say(line)
        step.say(f"{count} submission{'s' * (count != 1)} in {_shown(course / 'submitted')}")
        return 0
    finally:
        step.close()
