"""nbgrader's collect from its exchange (a class on JupyterHub, tools/hub), held to the rules
of the course's own collect (collect.py).

nbgrader's exchange is a folder every account writes into: a student's ``nbgrader submit``
leaves ``<student>+<assignment>+<time>+<random>/`` in ``inbound/``. Everything in that
folder is the student's: its name, its files and the ``timestamp.txt`` in it. nbgrader's
own collect believes all three (it warns, and goes on, when the owner is someone else; it
copies through links; it takes the time from the name). This one, which the course's
nbgrader settings put in its place for every collect, ``nbgrader collect`` and formgrader's
button alike, believes the system instead:

* **whose it is:** the account that owns the folder, whatever its name says (a folder
  named after another student counts as its owner's);
* **when it was handed in:** the last time anything in the folder changed (the newest
  ``ctime``, which the system sets and no student can set back), so the last submission
  before the deadline is the one that counts, and a submission edited after it is late;
* **what is in it:** the released notebooks only, as regular files, within collect's size
  limits (collect.py's ``take_submission``): a link, a named pipe or a device is named in
  the log and passed over, never followed.
"""

import datetime
import os
import pwd
import stat
from pathlib import Path

from nbgrader.exchange.default.collect import ExchangeCollect

from tools.grading.collect import take_submission
from tools.grading.course_dir import SAFE_NAME, released


def owner_of(info):
    """The name of the account that owns a file (its ``lstat``), or ``uid <n>``."""
    try:
        return pwd.getpwuid(info.st_uid).pw_name
    except KeyError:
        return f"uid {info.st_uid}"


def last_change(folder):
    """The newest ``ctime`` of ``folder`` and of everything in it (links not followed), as
    a naive time in UTC (nbgrader's form)."""
    newest = os.lstat(folder).st_ctime
    for top, dirs, files in os.walk(folder):
        for name in dirs + files:
            try:
                newest = max(newest, os.lstat(os.path.join(top, name)).st_ctime)
            except OSError:
                continue
    return datetime.datetime.fromtimestamp(newest, datetime.timezone.utc).replace(tzinfo=None)


class _Log:
    """collect.py's ``step.say``, onto nbgrader's log."""

    def __init__(self, log):
        self.log = log

    def say(self, line):
        self.log.warning(line)


class CourseExchangeCollect(ExchangeCollect):
    """nbgrader's collect, with the owner, the time and the files the system vouches for."""

    def _path_to_record(self, path):
        name = os.path.basename(path)
        info = os.lstat(path)
        owner = owner_of(info)
        claimed = name.rsplit("+", 3)[0]
        if claimed != owner:
            self.log.warning(f"{name!r} is owned by {owner}, so it is taken as {owner}'s submission")
        if not stat.S_ISDIR(info.st_mode):
            return {"username": owner, "filename": name, "timestamp": datetime.datetime.min,
                    "refused": "it is not a folder"}
        return {"username": owner, "filename": name, "timestamp": last_change(path)}

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
        self._stamps = {rec["filename"]: rec["timestamp"] for rec in kept}

    def do_copy(self, src, dest):
        """Copy one submission as collect.py does: the released notebooks, regular files only,
        stamped with the time of its last change."""
        src, dest = Path(src), Path(dest)
        wanted = released(self.coursedir.root).get(self.coursedir.assignment_id, set())
        take_submission(_Log(self.log), src, dest, wanted, f"{dest.parent.name} {dest.name}",
                        self._stamps.get(src.name) or last_change(src))
