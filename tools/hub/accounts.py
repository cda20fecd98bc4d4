"""The class's system accounts, and the exchange folder between them (root only).

Each person of the class is a real account of the machine: their JupyterLab runs as them,
and the system, not the course, keeps one student's files from another. What is made here:

* an account for each name that has none (``useradd -m``), with a new password, written
  to the hub's ``passwords.txt`` (mode 600, root's) for the teacher to hand out; an
  account that exists keeps its password;
* each class account's home readable by its owner only (mode 700: Debian's ``useradd``
  makes it 755), so no student reads another's work or the teacher's ``course/``;
* nbgrader's exchange: a folder of root's with mode 1777 (nbgrader wants every account to
  write into it; the sticky bit stops one from renaming or removing what another made),
  and in it the course's folder, made now and the teacher's, so that no student can take
  the name first, with its inbound folder (sticky too) and outbound; a link or another
  account's folder at any of these paths is refused, never followed.
"""

import contextlib
import errno
import os
import pwd
import secrets
import shutil
import stat
import subprocess
from pathlib import Path

COURSE_ID = "mcp_lesson"


def exists(name):
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False


def home_of(name):
    return Path(pwd.getpwnam(name).pw_dir)


def make_account(name):
    """Make the account ``name`` with a home of its own (mode 700); return its new password."""
    subprocess.run(["useradd", "--create-home", "--shell", "/bin/bash", "--", name], check=True)
    password = secrets.token_urlsafe(12)
    subprocess.run(["chpasswd"], input=f"{name}:{password}\n", text=True, check=True)
    home_of(name).chmod(0o700)
    return password


def ensure_accounts(names, passwords_file, say=print):
    """Make the accounts of ``names`` that are missing; return {name: password} of those made.

    The passwords of the accounts made are added to ``passwords_file`` (mode 600). An
    account whose home others can read gets a line saying so (it is not changed here).
    """
    made = {}
    for name in names:
        if exists(name):
            if home_of(name).is_dir() and home_of(name).stat().st_mode & 0o077:
                say(
                    f"note: {name}'s home {home_of(name)} can be read by other accounts "
                    f"(chmod 700 {home_of(name)} keeps their work theirs)"
                )
            continue
        made[name] = make_account(name)
    if made:
        passwords_file = Path(passwords_file)
        passwords_file.parent.mkdir(parents=True, exist_ok=True)
        with open(
            os.open(passwords_file, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600), "a"
        ) as out:
            out.writelines(f"{name} {password}\n" for name, password in made.items())
        say(
            f"Made {len(made)} account{'s' * (len(made) != 1)}; their passwords are in "
            f"{passwords_file}."
        )
    return made


def read_passwords(passwords_file):
    """{name: password} of a passwords file (the last line of a name wins)."""
    found = {}
    for line in Path(passwords_file).read_text().splitlines():
        name, _, password = line.partition(" ")
        if name and password:
            found[name] = password
    return found


def make_exchange(exchange, teacher):
    """nbgrader's exchange folder (root's, 1777) and in it the course's folder (the teacher's,
    755) with its inbound folder (the teacher's, 3733: every account hands in there, and the
    sticky bit keeps each from removing or renaming another's submission) and outbound.

    Each folder is opened without following a link and checked by what was opened (its
    owner and kind) before anything is changed, so a link or a folder another account put
    at one of these paths is refused in one line, and never changed: chmod 1777 through a
    student's link to /etc would have made /etc everyone's.
    """
    exchange = Path(exchange)
    user = pwd.getpwnam(teacher)
    exchange.parent.mkdir(parents=True, exist_ok=True)
    parent = os.open(exchange.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        top = _folder(parent, exchange, {0}, 0, 0, 0o1777, is_top=True)
    finally:
        os.close(parent)
    try:
        course = _folder(
            top, exchange / COURSE_ID, {0, user.pw_uid}, user.pw_uid, user.pw_gid, 0o755
        )
        try:
            for name, mode in (("inbound", 0o3733), ("outbound", 0o755)):
                os.close(
                    _folder(
                        course,
                        exchange / COURSE_ID / name,
                        {0, user.pw_uid},
                        user.pw_uid,
                        user.pw_gid,
                        mode,
                    )
                )
        finally:
            os.close(course)
    finally:
        os.close(top)
    return exchange


def _owner(uid):
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def _not_a_folder(parent, path, error, top):
    """The line refusing what is at ``path`` (in the open folder ``parent``; ``top``: the
    exchange itself): a link (Linux says "not a folder" of a link opened as a folder without
    following it: ENOTDIR, not ELOOP), or something else."""
    try:
        is_link = stat.S_ISLNK(os.lstat(path.name, dir_fd=parent).st_mode)
    except OSError:
        is_link = error.errno == errno.ELOOP
    if is_link:
        target = os.path.realpath(path)
        advice = (
            f"to keep the exchange in {target}, name that folder itself (make hub "
            f"HUB_EXCHANGE={target})"
            if top
            else "remove the link"
        )
        return (
            f"{path} is a link to {target}: make hub follows no link where the exchange's "
            f"folders go (a student may have put it there); {advice}, and run make hub again"
        )
    return (
        f"{path} is not a folder: make hub makes that folder itself; remove what is there "
        "(it may be a student's), and run make hub again"
    )


def _folder(parent, path, owners, uid, gid, mode, is_top=False):
    """The folder ``path`` (its name in the open folder ``parent``), made when missing,
    opened without following a link, refused (SystemExit, one line) unless it is a folder
    owned by one of ``owners``, then given to ``uid``:``gid`` with ``mode``; its descriptor."""
    name = path.name
    with contextlib.suppress(FileExistsError):
        os.mkdir(name, 0o700, dir_fd=parent)
    try:
        fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=parent)
    except OSError as error:
        raise SystemExit(_not_a_folder(parent, path, error, is_top)) from None
    found = os.fstat(fd)
    if found.st_uid not in owners:
        os.close(fd)
        raise SystemExit(
            f"{path} is {_owner(found.st_uid)}'s, not {_owner(uid)}'s: remove it (it "
            "may hold what a student put there), and run make hub again"
        )
    os.fchown(fd, uid, gid)
    os.fchmod(fd, mode)
    return fd


def remove_accounts(names):
    """Remove the accounts ``names`` with their homes and everything they run."""
    for name in names:
        if not exists(name):
            continue
        subprocess.run(["pkill", "-KILL", "-u", name], check=False)
        home = home_of(name)
        subprocess.run(
            ["userdel", "--remove", "--force", "--", name], check=False, stderr=subprocess.DEVNULL
        )
        if exists(name):  # still running something a moment ago: once more
            subprocess.run(["pkill", "-KILL", "-u", name], check=False)
            subprocess.run(
                ["userdel", "--remove", "--force", "--", name],
                check=False,
                stderr=subprocess.DEVNULL,
            )
        shutil.rmtree(home, ignore_errors=True)
