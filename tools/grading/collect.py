"""Collect: the class's work copied into the course directory (tools/grading/classroom.py's
*collect*): the released notebooks only, as regular files, within the size limits."""

import datetime
import os
import re
import shutil
import stat
import tempfile
from pathlib import Path

from tools.grading.course_dir import (NOTEBOOK_BYTES, SAFE_NAME, STUDENT_BYTES, Step, _shown, prepare,
                                      released)
from tools.judge.files import QUIET, copy_regular, kind as _kind


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


def _take_released(step, folder, dest, wanted, who):
    """Copy the released notebooks ``wanted`` of one student's ``folder`` into the folder ``dest``.

    Return the names taken, and the names left out (other files and folders).
    Each file that is not a regular file gets a line of its own.
    """
    taken, left_out = set(), []
    with os.scandir(folder) as entries:
        names = sorted(entry.name for entry in entries)
    for name in names:
        if name in QUIET or name == SECRET:
            continue
        path = folder / name
        mode = os.lstat(path).st_mode
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)) or (name in wanted and stat.S_ISDIR(mode)):
            step.say(f"{who}: skipped {_plain(name)}, {_kind(mode)}: collect takes regular files only")
            continue
        if name.startswith("."):
            continue
        if name not in wanted:
            left_out.append(_plain(name) + ("/" if stat.S_ISDIR(mode) else ""))
            continue
        size = os.lstat(path).st_size
        if size > NOTEBOOK_BYTES:
            step.say(f"{who}: skipped {_plain(name)}, {size / 2**20:.1f} MB: a notebook of over "
                     f"{NOTEBOOK_BYTES // 2**20} MB is not collected")
            continue
        instead = copy_regular(path, dest / name)
        if instead is None:
            taken.add(name)
        else:
            step.say(f"{who}: skipped {_plain(name)}, {instead}: collect takes regular files only")
    return taken, left_out


#: nbgrader's exchange names each submission's feedback by a secret it writes at
#: submit time; release_feedback needs it (a missing one is a FileNotFoundError).
SECRET = "submission_secret.txt"


def _secret(folder, dest):
    """Give the collected submission ``dest`` its ``submission_secret.txt``, as
    ``nbgrader collect`` does: the student's own (from ``nbgrader submit``) when it
    is a regular file of hex digits, else a new one."""
    import secrets

    path = Path(folder) / SECRET
    text = None
    try:
        if stat.S_ISREG(os.lstat(path).st_mode) and os.lstat(path).st_size <= 256:
            with open(path, "rb") as handle:
                text = handle.read().decode("ascii").strip()
    except (OSError, UnicodeDecodeError):
        text = None
    if not text or not re.fullmatch(r"[0-9a-f]{16,256}", text):
        text = secrets.token_hex(64)
    (dest / SECRET).write_text(text, encoding="ascii")


def _stamp(dest, when):
    """Write the collected submission ``dest``'s timestamp.txt: ``when``, an aware time or a naive
    one in UTC, in the form nbgrader reads."""
    if when.tzinfo is not None:
        when = when.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    (Path(dest) / "timestamp.txt").write_text(when.strftime("%Y-%m-%d %H:%M:%S.%f UTC"),
                                              encoding="utf-8")


def take_submission(step, folder, dest, wanted, who, when, room=STUDENT_BYTES):
    """Collect one student's submission ``folder`` into ``dest``: the released notebooks
    ``wanted`` (take_released), its secret, and ``when`` as its timestamp.txt. The copy is
    made beside ``dest`` and takes its place only when whole.

    Return (names taken, names left out, bytes taken), or None after a line saying why it
    was not collected (a file could not be read, or it holds over ``room`` bytes); a copy
    collected before is then kept.
    """
    dest = Path(dest)
    kept = " (the copy collected before is kept)" if dest.exists() else ""
    dest.parent.mkdir(parents=True, exist_ok=True)
    fresh = Path(tempfile.mkdtemp(prefix=".collecting-", dir=dest.parent))
    os.chmod(fresh, 0o755)  # as a folder made by mkdir (mkdtemp's is private)
    try:
        taken, left_out = _take_released(step, folder, fresh, wanted, who)
    except OSError as exc:
        shutil.rmtree(fresh, ignore_errors=True)
        step.say(f"{who}: not collected: {type(exc).__name__} while reading "
                 f"{_plain(Path(exc.filename or folder).name)}{kept}")
        return None
    used = _size(fresh)
    if used > room:
        shutil.rmtree(fresh, ignore_errors=True)
        step.say(f"{who}: not collected: the student's submissions come to over "
                 f"{STUDENT_BYTES // 2**20} MB in all{kept}")
        return None
    _secret(folder, fresh)
    _stamp(fresh, when)
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
    A submission that cannot be read costs only itself: collect goes on with
    the others. Each submission's timestamp.txt is written here, with the time
    it was collected.
    """
    course = prepare(course)
    step = Step(course, f"collect {source}")
    try:
        source = Path(source)
        if (source / "submitted").is_dir():
            source = source / "submitted"
        if not source.is_dir():
            step.say(f"{source} is not a folder: give the folder that holds one folder per "
                     "student (make collect FROM=<folder>)")
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
                step.say(f"skipped the folder {student.name!r}: a student id is letters, digits "
                         "and _ . @ - only")
                continue
            try:
                folders = sorted(p for p in student.iterdir() if p.is_dir() and not p.is_symlink())
            except OSError as exc:
                step.say(f"{student.name}: not collected: the folder cannot be read ({type(exc).__name__})")
                continue
            taken_in_all = 0
            for folder in folders:
                if folder.name.startswith("."):
                    continue
                if folder.name not in known:
                    step.say(f"{student.name}: skipped {_plain(folder.name)}/, which is not a released "
                             "assignment")
                    continue
                who = f"{student.name} {folder.name}"
                dest = course / "submitted" / student.name / folder.name
                again = dest.exists()
                wanted = known[folder.name]
                # The time is collect's own: a timestamp.txt of the student's is never taken.
                got = take_submission(step, folder, dest, wanted, who,
                                      datetime.datetime.now(datetime.timezone.utc),
                                      room=STUDENT_BYTES - taken_in_all)
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
