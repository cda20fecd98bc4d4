"""nbgrader's collect from its exchange (a class on JupyterHub, tools/hub), held to the rules
of the course's own collect (collect.py).

nbgrader's exchange is a folder every account writes into: a student's ``nbgrader submit``
leaves ``<student>+<assignment>+<time>+<random>/`` in ``inbound/``. Everything in that
folder is the student's: its name, its files and the ``timestamp.txt`` in it. nbgrader's
own collect believes all three (it warns, and goes on, when the owner is someone else; it
copies through links; it takes the time from the name), and it removes the copy collected
before ahead of making the new one. This one, which the course's nbgrader settings put in
its place for every collect, ``nbgrader collect`` and formgrader's button alike, believes
the system instead:

* **whose it is:** the account that owns the folder, whatever its name says (a folder
  named after another student counts as its owner's);
* **when it was handed in:** the last time the folder or one of its released notebooks
  changed (the newest ``ctime``, which the system sets and no student can set back), so the
  last submission before the deadline is the one that counts, and a submission edited after
  it is late; and what collect saw (seen.py): content that changed since collect's last
  look with no newer ``ctime`` (written through a memory map) counts from the look that
  first saw it. That look is checked again once the copy is made, content included: a
  submission that changed between the look and the copy is refused in one line (the copy
  collected before is kept), so the time stamped is always the time of what was copied;
* **what is in it:** the released notebooks only, as regular files, within collect's size
  limits, read as collect.py reads (``take_submission``): a link, a named pipe or a device is
  named in the log and passed over, never followed, and nothing below the folder's own
  entries is looked at (a folder 1,500 deep costs nothing).
"""

import datetime
import os
import pwd
import stat
from pathlib import Path

from nbgrader.exchange.default.collect import ExchangeCollect

from tools.grading.collect import Changed, newest, state_of, take_submission
from tools.grading.course_dir import SAFE_NAME, released
from tools.grading.seen import Seen, digest


def owner_of(info):
    """The name of the account that owns a file (its ``lstat``), or ``uid <n>``."""
    try:
        return pwd.getpwuid(info.st_uid).pw_name
    except KeyError:
        return f"uid {info.st_uid}"


def last_change(folder, names=None):
    """The newest ``ctime`` of ``folder`` and of its entries ``names`` (default: all of its
    own entries; links not followed, nothing below them), as a naive time in UTC (nbgrader's
    form)."""
    if names is None:
        with os.scandir(folder) as entries:
            names = [entry.name for entry in entries]
    return newest(state_of(folder, names))


class _Log:
    """collect.py's ``step.say``, onto nbgrader's log."""

    def __init__(self, log):
        self.log = log

    def say(self, line):
        self.log.warning(line)


class CourseExchangeCollect(ExchangeCollect):
    """nbgrader's collect, with the owner, the time and the files the system vouches for."""

    def _wanted(self):
        return released(self.coursedir.root).get(self.coursedir.assignment_id, set())

    def _path_to_record(self, path):
        name = os.path.basename(path)
        info = os.lstat(path)
        owner = owner_of(info)
        claimed = name.rsplit("+", 3)[0]
        if claimed != owner:
            self.log.warning(
                f"{name!r} is owned by {owner}, so it is taken as {owner}'s submission"
            )
        if not stat.S_ISDIR(info.st_mode):
            return {
                "username": owner,
                "filename": name,
                "timestamp": datetime.datetime.min,
                "refused": "it is not a folder",
            }
        try:
            look = state_of(path, self._wanted())
        except OSError as exc:
            return {
                "username": owner,
                "filename": name,
                "timestamp": datetime.datetime.min,
                "refused": f"it cannot be read ({type(exc).__name__})",
            }
        content = digest(path, self._wanted())
        when = self._seen().time_for(name, content, newest(look))
        return {
            "username": owner,
            "filename": name,
            "timestamp": when,
            "look": look,
            "digest": content,
        }

    def _seen(self):
        if getattr(self, "_seen_now", None) is None:
            self._seen_now = Seen(self.coursedir.root)
        return self._seen_now

    def init_src(self):
        super().init_src()
        kept = []
        for record in self.src_records:
            why = record.get("refused")
            if why is None and not SAFE_NAME.fullmatch(record["username"]):
                why = "a student id is letters, digits and _ . @ - only"
            if why:
                self.log.warning(f"not collected: {record['filename']!r}: {why}")
            else:
                kept.append(record)
        self.src_records = kept
        self._looks = {rec["filename"]: rec for rec in kept}
        if getattr(self, "_seen_now", None) is not None:
            self._seen_now.save(self.inbound_path)
            self._seen_now = None

    def copy_files(self):
        """nbgrader's choice of what to copy (a newer submission, or the one before the
        deadline), without its removing the copy collected before ahead of the new one: the
        copy takes its place only when whole (``take_submission``)."""
        if not self.src_records:
            self.log.warning(
                f"No submissions of '{self.coursedir.assignment_id}' for course "
                f"'{self.coursedir.course_id}' to collect"
            )
        for rec in self.src_records:
            student_id = rec["username"]
            src_path = os.path.join(self.inbound_path, rec["filename"])
            dest_path = self.coursedir.format_path(
                self.coursedir.submitted_directory, student_id, self.coursedir.assignment_id
            )
            if os.path.isdir(dest_path):
                existing = self.coursedir.get_existing_timestamp(dest_path)
                newer = self.update and (existing is None or rec["timestamp"] > existing)
                other = self.before_duedate and existing != rec["timestamp"]
                if not (newer or other):
                    self.log.info(
                        f"No newer submission to collect: {student_id} {self.coursedir.assignment_id}"
                    )
                    continue
            self.log.info(f"Collecting submission: {student_id} {self.coursedir.assignment_id}")
            self.do_copy(src_path, dest_path)

    def do_copy(self, src, dest):
        """Copy one submission as collect.py does: the released notebooks, regular files only,
        stamped with the time of its last change, refused if it changed since the look."""
        src, dest = Path(src), Path(dest)
        record = getattr(self, "_looks", {}).get(src.name)
        if record is None:
            take_submission(
                _Log(self.log), src, dest, self._wanted(), f"{dest.parent.name} {dest.name}"
            )
            return

        def as_seen(copy, taken):
            if digest(copy, taken) != record["digest"]:
                raise Changed("the submission changed between collect's look and its copy")

        take_submission(
            _Log(self.log),
            src,
            dest,
            self._wanted(),
            f"{dest.parent.name} {dest.name}",
            clock=lambda: record["timestamp"],
            look=record["look"],
            check=as_seen,
        )
