"""tools/grading/exchange.py: nbgrader's collect from the exchange, believing the system (the
owner, the time of the last change, regular files only). The whole path, on a real hub with
real accounts, is tests/classroom/test_hub.py's; these are its rules, one by one, on files of this
test's own."""

import datetime
import os
import time

import pytest

nbgrader = pytest.importorskip("nbgrader")
from nbgrader.coursedir import CourseDirectory  # noqa: E402  (after the setup above)

from tools.grading import exchange  # noqa: E402  (after the setup above)

ASSIGNMENT = "03_classifying"


def collector(course):
    coursedir = CourseDirectory(root=str(course), assignment_id=ASSIGNMENT)
    return exchange.CourseExchangeCollect(coursedir=coursedir)


def test_last_change_is_the_newest_ctime_inside_in_naive_utc(tmp_path):
    (tmp_path / "a").write_text("x")
    before = exchange.last_change(tmp_path)
    assert before.tzinfo is None
    now = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
    assert abs((now - before).total_seconds()) < 60
    deadline = time.monotonic() + 30
    while exchange.last_change(tmp_path) == before and time.monotonic() < deadline:
        os.chmod(tmp_path / "a", 0o600)  # a change of the file's inode, no content
    assert exchange.last_change(tmp_path) > before


def test_a_link_inside_counts_by_its_own_change_not_its_target(tmp_path):
    (tmp_path / "sub").mkdir()
    os.symlink("/nonexistent/target", tmp_path / "sub" / "link")
    assert exchange.last_change(tmp_path) >= exchange.last_change(tmp_path / "sub")


def test_a_submission_is_its_owners_whatever_its_name_claims(tmp_path):
    folder = tmp_path / f"somebody_else+{ASSIGNMENT}+2000-01-01 00:00:00.000000 UTC+abc"
    folder.mkdir()
    record = collector(tmp_path)._path_to_record(str(folder))
    assert record["username"] == exchange.owner_of(os.lstat(folder))
    assert record["timestamp"] == exchange.last_change(folder)  # not the year 2000 of the name


def test_a_name_with_no_time_in_it_is_no_crash(tmp_path):
    folder = tmp_path / f"x+{ASSIGNMENT}+not a time+y"
    folder.mkdir()
    record = collector(tmp_path)._path_to_record(str(folder))
    assert record["timestamp"] == exchange.last_change(folder)


def test_a_file_in_place_of_a_submission_folder_is_refused(tmp_path):
    entry = tmp_path / f"x+{ASSIGNMENT}+2000+y"
    entry.write_text("not a folder")
    assert collector(tmp_path)._path_to_record(str(entry))["refused"]


def test_the_copy_takes_the_released_notebook_only_and_stamps_it(tmp_path):
    course = tmp_path / "course"
    (course / "release" / ASSIGNMENT).mkdir(parents=True)
    (course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").write_text("{}")
    src = tmp_path / f"s+{ASSIGNMENT}+t+r"
    src.mkdir()
    (src / f"{ASSIGNMENT}.ipynb").write_text('{"cells": []}')
    (src / "extra.txt").write_text("not part of it")
    os.symlink("/etc/passwd", src / "stolen.ipynb")
    (src / "timestamp.txt").write_text("2000-01-01 00:00:00.000000 UTC")
    dest = course / "submitted" / "s" / ASSIGNMENT
    take = collector(course)
    take._stamps = {}
    take.do_copy(str(src), str(dest))
    assert sorted(p.name for p in dest.iterdir()) == [
        f"{ASSIGNMENT}.ipynb",
        "submission_secret.txt",
        "timestamp.txt",
    ]
    assert (dest / f"{ASSIGNMENT}.ipynb").read_text() == '{"cells": []}'
    stamped = (dest / "timestamp.txt").read_text()
    assert not stamped.startswith("2000"), stamped  # the student's own is never taken
