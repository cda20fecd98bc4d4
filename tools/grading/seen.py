"""What collect saw in the exchange: each submission's content, and the time it counts from.

The system's ``ctime`` tells when a file last changed, with one gap: a file mapped into
memory (``mmap``) and written through the map gets a new ``ctime`` on the first write to a
clean page only, so a student who touches a notebook before the deadline and writes the
answers through the map after it leaves a ``ctime`` from before the deadline. What collect
read cannot be written back that way. So each look of exchange.py's collect keeps, per
submission folder, a digest of its released notebooks as they were read, the time that
content counts from, and when collect looked (:class:`Seen`, a JSON file of the course's):

* content collect has seen before keeps the time it had;
* content new to collect counts from its last change (``ctime``) when that change came after
  collect's last look, and otherwise from the look that first saw it (it changed, but the
  system did not say when: it counts from when collect saw it).

A look at the deadline (a collect run then, by hand, by formgrader's button or by a timer)
is what makes late work through a map late: without an earlier look, ``ctime`` is all there
is to go by.
"""

import datetime
import hashlib
import json
import os
from pathlib import Path

from tools.grading.collect import read_within
from tools.grading.course_dir import NOTEBOOK_BYTES

#: Where, in the course folder, the looks are kept.
SEEN = Path("logs") / "exchange-seen.json"
#: The most a file of looks may hold (a class of a few hundred: well under).
SEEN_BYTES = 16 * 2**20
_FORM = "%Y-%m-%d %H:%M:%S.%f"


def digest(folder, names):
    """One digest of the regular files ``names`` of ``folder`` (each read within the limit of
    a notebook, links not followed; a file that cannot be read counts as absent)."""
    whole = hashlib.sha256()
    for name in sorted(names):
        data = read_within(Path(folder) / name, NOTEBOOK_BYTES)
        if data is not None:
            whole.update(name.encode("utf-8", "surrogateescape") + b"\0")
            whole.update(hashlib.sha256(data).digest())
    return whole.hexdigest()


def utc_now():
    """The time now, naive in UTC (nbgrader's form)."""
    return datetime.datetime.now(datetime.UTC).replace(tzinfo=None)


class Seen:
    """The looks of one course (see the module's docstring); :meth:`save` keeps them."""

    def __init__(self, course):
        self.path = Path(course) / SEEN
        self.entries = {}
        data = read_within(self.path, SEEN_BYTES)
        try:
            loaded = json.loads(data.decode("utf-8")) if data is not None else {}
        except ValueError:
            loaded = {}
        if isinstance(loaded, dict):
            self.entries = {
                key: value
                for key, value in loaded.items()
                if isinstance(value, dict) and {"digest", "time", "looked"} <= set(value)
            }

    def time_for(self, key, content, changed, looked=None):
        """The time submission ``key`` (its folder's name) counts from, for ``content`` (a
        :func:`digest`) whose last change the system gives as ``changed`` (naive UTC), seen
        now (or at ``looked``)."""
        looked = looked or utc_now()
        entry = self.entries.get(key)
        if entry is not None and entry["digest"] == content:
            when = _parsed(entry["time"], changed)
        elif entry is not None and changed <= _parsed(entry["looked"], changed):
            when = max(
                changed, looked
            )  # new content, and the system's time is from before the last look
        else:
            when = changed
        self.entries[key] = {
            "digest": content,
            "time": when.strftime(_FORM),
            "looked": looked.strftime(_FORM),
        }
        return when

    def save(self, folder=None):
        """Write the looks (in full, then in place of the file before; the owner's only),
        keeping only those of submissions still in ``folder`` (inbound) when it is given."""
        if folder is not None:
            self.entries = {
                key: value
                for key, value in self.entries.items()
                if os.path.lexists(os.path.join(folder, key))
            }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        part = self.path.with_suffix(".part")
        fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(self.entries, handle)
        os.replace(part, self.path)


def _parsed(text, default):
    try:
        return datetime.datetime.strptime(str(text), _FORM)
    except ValueError:
        return default
