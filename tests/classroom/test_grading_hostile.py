"""A hostile student's worst case costs that student only, on small
folders and nbgrader's own output, without a whole nbgrader day (tests/classroom/test_grading.py runs
one): collect past odd trees and files, honest times, and autograde's lines under the right
name whatever a cell's id says."""

import os

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from tools.grading import autograde, course_dir

# --- autograde: whose lines, and odd metadata --------------------------------------------


def record(level, message):
    return f"[AutogradeApp | {level}] {message}"


def test_a_cell_id_naming_another_student_moves_no_line():
    """The red team's attack: a copied cell whose id names an honest student's folder (or
    nbgrader's words for a student) put the attacker's lines under that student."""
    output = "\n".join(
        [
            record("INFO", "Creating/updating student with ID 'bob': {}"),
            record("INFO", "Sanitizing /c/submitted/bob/03_classifying/03_classifying.ipynb"),
            record("INFO", "Creating/updating student with ID 'mallory': {}"),
            record("WARNING", "Cell 'x/submitted/bob/y' does not exist in the database"),
            record("WARNING", "Cell 'student with ID 'bob'' does not exist in the database"),
            record("WARNING", "Cell 'x/autograded/bob/y' does not exist in the database"),
        ]
    )
    sections = autograde.by_student(output)
    assert "does not exist" not in sections["bob"]
    assert sections["mallory"].count("does not exist") == 3
    assert autograde.problems_in(sections["bob"]) == []


def test_a_newline_in_a_name_starts_no_record(tmp_path):
    """A name holding a newline and a copy of nbgrader's line for another student, quoted in
    one of nbgrader's records (here the assignment's name, as a cell's id is in autograde's
    'does not exist in the database'): nbgrader's log indents the record's later lines, so
    the copy starts no student's section."""
    course = course_dir.prepare(tmp_path / "course")
    forged = "x\n[AutogradeApp | INFO] Creating/updating student with ID 'zoe': {}\n"
    code, output = course_dir.nbgrader(course, "generate_assignment", forged)
    assert code != 0 and "Creating/updating student with ID 'zoe'" in output  # quoted by nbgrader
    assert autograde.by_student(output) == {}


def released_and_odd(tmp_path):
    release = new_notebook(
        cells=[
            new_code_cell(
                "assert True",
                metadata={
                    "nbgrader": {
                        "grade": True,
                        "grade_id": "t-tests",
                        "locked": True,
                        "points": 1,
                        "solution": False,
                        "schema_version": 3,
                    }
                },
            )
        ]
    )
    odd = new_notebook(
        cells=[
            new_code_cell("assert True", metadata={"nbgrader": "a string"}),
            new_code_cell("x = 1", metadata={"nbgrader": {"grade_id": ["a", "list"]}}),
            new_code_cell("y = 2", metadata={"nbgrader": {"grade_id": 7, "solution": True}}),
        ]
    )
    path = tmp_path / "a.ipynb"
    nbformat.write(odd, str(path))
    return release, path


def test_odd_metadata_types_stop_no_step(tmp_path):
    """A cell whose metadata.nbgrader is a string (or whose grade_id is a list or a number)
    stopped `make autograde` before anyone was graded."""
    release, path = released_and_odd(tmp_path)
    assert autograde.restore_renamed(release, path) == []
    assert autograde.tampering(release, path) == [
        "test cell t-tests was deleted: nbgrader put it back"
    ]


# --- collect: honest times, odd trees, files that will not hold still ------------------------

import logging  # noqa: E402  (after the setup above)
import stat  # noqa: E402  (after the setup above)
import subprocess  # noqa: E402  (after the setup above)
import sys  # noqa: E402  (after the setup above)

from processes import patience  # noqa: E402  (after the setup above)

from tools.grading import collect as collecting  # noqa: E402  (after the setup above)

ASSIGNMENT = "03_classifying"
NOTEBOOK = f"{ASSIGNMENT}.ipynb"


def _course(tmp_path):
    """A course directory with the assignment released."""
    course = tmp_path / "course"
    (course / "release" / ASSIGNMENT).mkdir(parents=True)
    (course / "release" / ASSIGNMENT / NOTEBOOK).write_text("{}")
    return course


def _course_and_submission(tmp_path):
    """A course directory, and an empty submission folder of mallory's in its inbox
    (tmp_path/inbox), for collect's own collect."""
    folder = tmp_path / "inbox" / "mallory" / ASSIGNMENT
    folder.mkdir(parents=True)
    return _course(tmp_path), folder


class Said(logging.Handler):
    """The lines a collect said on nbgrader's log."""

    def __init__(self):
        super().__init__()
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage())


def exchange_class(tmp_path, monkeypatch):
    """A course with lesson 03 released, an exchange, and nbgrader's collect as the course's
    settings make it (exchange.py's); returns (course, inbound, a function making a collect)."""
    from nbgrader.coursedir import CourseDirectory

    # nbgrader's gradebook runs the alembic beside this Python (course_dir.gradebook does the same)
    monkeypatch.setenv(
        "PATH", os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
    )

    from tools.grading.exchange import CourseExchangeCollect

    course = _course(tmp_path)
    inbound = tmp_path / "exchange" / "mcp_lesson" / "inbound"
    inbound.mkdir(parents=True)
    said = Said()

    def make():
        coursedir = CourseDirectory(
            root=str(course), assignment_id=ASSIGNMENT, course_id="mcp_lesson"
        )
        log = logging.getLogger(f"collect-{id(said)}")
        log.addHandler(said)
        log.setLevel(logging.INFO)
        taker = CourseExchangeCollect(coursedir=coursedir, root=str(tmp_path / "exchange"), log=log)
        taker.update = True
        return taker

    make.said = said
    return course, inbound, make


def submit(inbound, text, when="2026-12-01 10:00:00.000000 UTC"):
    import pwd

    me = pwd.getpwuid(os.getuid()).pw_name
    folder = inbound / f"{me}+{ASSIGNMENT}+{when}+{os.urandom(4).hex()}"
    folder.mkdir()
    (folder / NOTEBOOK).write_text(text)
    return me, folder


def test_a_notebook_swapped_in_after_the_look_is_refused_not_stamped_on_time(tmp_path, monkeypatch):
    """The red team's late work: collect looked (and picked the submission by its time), the
    student swapped the late notebook in, collect copied it under the time of the look."""
    course, inbound, make = exchange_class(tmp_path, monkeypatch)
    me, folder = submit(inbound, "on time")
    taker = make()
    taker.init_src()  # the look: the submission and its time
    late = folder / "late.tmp"
    late.write_text("late work")
    os.replace(late, folder / NOTEBOOK)  # what the red team's inotify watcher did
    taker.copy_files()
    dest = course / "submitted" / me / ASSIGNMENT
    assert not (dest / NOTEBOOK).exists(), (dest / NOTEBOOK).read_text()
    refused = [line for line in make.said.lines if "not collected" in line]
    assert len(refused) == 1 and "\n" not in refused[0], make.said.lines
    make().start()  # collected again: the late work, at its own (late) time
    assert (dest / NOTEBOOK).read_text() == "late work"
    stamped = (dest / "timestamp.txt").read_text()
    assert stamped >= collecting.newest(collecting.state_of(folder, {NOTEBOOK})).strftime(
        "%Y-%m-%d %H:%M:%S"
    )


def test_a_submission_changed_while_collect_copies_it_is_refused(tmp_path, monkeypatch, capsys):
    """collect's own collect (a folder of the class's work): the folder changes during the copy."""
    course, folder = _course_and_submission(tmp_path)
    (folder / NOTEBOOK).write_text("on time")
    copy = collecting.copy_within

    def copy_then_swap(path, dest, limit):
        info = copy(path, dest, limit)
        (folder / "late.tmp").write_text("late work")
        os.replace(folder / "late.tmp", folder / NOTEBOOK)
        return info

    monkeypatch.setattr(collecting, "copy_within", copy_then_swap)
    assert collecting.collect(course, tmp_path / "inbox") == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("mallory 03_classifying: not collected: ") for line in lines), lines
    assert not (course / "submitted" / "mallory" / ASSIGNMENT).exists()


def test_a_folder_1500_deep_costs_nothing(tmp_path, monkeypatch):
    """The red team's deep folder crashed nbgrader collect and formgrader's Collect for the
    class (os.walk's recursion)."""
    course, inbound, make = exchange_class(tmp_path, monkeypatch)
    me, folder = submit(inbound, "my work")
    deep = folder
    for _ in range(1500):
        deep = deep / "d"
        deep.mkdir()
    try:
        make().start()
        dest = course / "submitted" / me / ASSIGNMENT
        assert (dest / NOTEBOOK).read_text() == "my work"
        assert sorted(p.name for p in dest.iterdir()) == [
            NOTEBOOK,
            "submission_secret.txt",
            "timestamp.txt",
        ]
    finally:  # pytest's own clean-up of old temporary folders recurses, and would fail on it
        subprocess.run(["rm", "-rf", str(folder / "d")], check=False)


class Lease:
    """A process of the file's owner holding a write lease on it (``fcntl(F_SETLEASE)``):
    another process's plain open() waits for it."""

    CODE = (
        "import fcntl, os, signal, sys\n"
        "signal.signal(signal.SIGIO, signal.SIG_IGN)\n"
        "fd = os.open(sys.argv[1], os.O_RDONLY)\n"
        "fcntl.fcntl(fd, 1024, fcntl.F_WRLCK)\n"  # F_SETLEASE
        "print('held', flush=True)\n"
        "sys.stdin.read()\n"
    )

    def __init__(self, path):
        self.process = subprocess.Popen(
            [sys.executable, "-c", self.CODE, str(path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout.readline().strip() == "held"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.process.stdin.close()
        self.process.wait(timeout=patience(30))


@pytest.mark.timeout(patience(120))
def test_a_leased_notebook_is_refused_and_the_copy_collected_before_kept(tmp_path, monkeypatch):
    """nbgrader's own collect removed the copy collected before, then failed on the new one."""
    course, inbound, make = exchange_class(tmp_path, monkeypatch)
    me, _ = submit(inbound, "first", when="2026-12-01 10:00:00.000000 UTC")
    make().start()
    dest = course / "submitted" / me / ASSIGNMENT
    assert (dest / NOTEBOOK).read_text() == "first"
    _, newer = submit(inbound, "second")
    (dest / "timestamp.txt").write_text("2000-01-01 00:00:00.000000 UTC")  # the newer one is newer
    with Lease(newer / NOTEBOOK):
        make().start()
    assert (dest / NOTEBOOK).read_text() == "first"
    assert any("not collected" in line and "lease" in line for line in make.said.lines), (
        make.said.lines
    )


def fake_lstat(monkeypatch, path, **fields):
    """``os.lstat`` of ``path`` as it was at collect's look (a regular file of a small size),
    while the file itself is something else now: the race of a look and an open, won."""
    real = os.lstat

    def lstat(name, *args, **kwargs):
        info = real(name, *args, **kwargs)
        if os.fspath(name) == os.fspath(path):
            values = list(info)
            values[stat.ST_MODE] = stat.S_IFREG | 0o644
            values[stat.ST_SIZE] = fields.get("size", info.st_size)
            return os.stat_result(values)
        return info

    monkeypatch.setattr(os, "lstat", lstat)


@pytest.mark.timeout(patience(120))
def test_a_secret_swapped_for_a_pipe_stalls_nothing(tmp_path, monkeypatch, capsys):
    """submission_secret.txt, a regular file at the look, a named pipe at the open: a plain
    open() waited for ever (the red team won this race 3.5% of the time)."""
    course, folder = _course_and_submission(tmp_path)
    (folder / NOTEBOOK).write_text("my work")
    os.mkfifo(folder / collecting.SECRET)
    fake_lstat(monkeypatch, folder / collecting.SECRET, size=128)
    assert collecting.collect(course, tmp_path / "inbox") == 0
    secret = (course / "submitted" / "mallory" / ASSIGNMENT / collecting.SECRET).read_text()
    assert len(secret) == 128  # one of collect's own


def test_a_notebook_that_grows_after_the_look_is_cut_at_the_limit(tmp_path, monkeypatch, capsys):
    """A notebook of 1 KB at the look, over the limit (sparse) at the copy: it was copied whole."""
    course, folder = _course_and_submission(tmp_path)
    with open(folder / NOTEBOOK, "wb") as handle:
        handle.truncate(collecting.NOTEBOOK_BYTES + 2**20)
    fake_lstat(monkeypatch, folder / NOTEBOOK, size=1024)
    assert collecting.collect(course, tmp_path / "inbox") == 0
    taken = course / "submitted" / "mallory" / ASSIGNMENT / NOTEBOOK
    assert not taken.exists() or taken.stat().st_size <= collecting.NOTEBOOK_BYTES
    lines = capsys.readouterr().out.splitlines()
    assert "mallory 03_classifying: collected; missing 03_classifying.ipynb" in lines, lines


def test_reading_stops_at_the_limit(tmp_path):
    big = tmp_path / "big"
    with open(big, "wb") as handle:
        handle.truncate(10 * 2**20)
    assert collecting.read_within(big, 256) is None
    with pytest.raises(collecting.TooBig):
        collecting.copy_within(big, tmp_path / "copy", 2**20)
    assert not (tmp_path / "copy").exists()
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(collecting.NotTaken, match="named pipe"):
        collecting.copy_within(tmp_path / "pipe", tmp_path / "copy", 2**20)
    os.symlink(big, tmp_path / "link")
    with pytest.raises(collecting.NotTaken, match="symbolic link"):
        collecting.open_regular(tmp_path / "link")


def test_answers_written_through_a_memory_map_after_the_deadline_are_late(tmp_path, monkeypatch):
    """The red team's late work through a map: the notebook mapped, touched through the map
    before the deadline (the system's ctime moves then), the answers written through the
    same map after it (on a page already written, the ctime stays). collect's look at the
    deadline saw the content: what it sees changed later counts from when it saw it. An
    honest submission beside it keeps its time, look after look."""
    import datetime
    import mmap

    from tools.grading.seen import utc_now

    course, inbound, make = exchange_class(tmp_path, monkeypatch)
    me, folder = submit(inbound, "x" * 4096)
    with open(folder / NOTEBOOK, "r+b") as handle:
        mapped = mmap.mmap(handle.fileno(), 0)
    try:
        mapped[:7] = b"touched"
        make().start()  # the look at the deadline
        dest = course / "submitted" / me / ASSIGNMENT
        first = (dest / "timestamp.txt").read_text()
        assert (dest / NOTEBOOK).read_bytes()[:7] == b"touched"
        deadline = utc_now()
        mapped[:7] = b"answers"  # after the deadline, through the map
        make().start()
    finally:
        mapped.close()
    assert (dest / NOTEBOOK).read_bytes()[:7] == b"answers"
    stamped = datetime.datetime.strptime(
        (dest / "timestamp.txt").read_text(), "%Y-%m-%d %H:%M:%S.%f UTC"
    )
    assert stamped > deadline, (stamped, deadline, first)
    make().start()  # looked at again, unchanged: the same time
    assert (dest / "timestamp.txt").read_text() == stamped.strftime("%Y-%m-%d %H:%M:%S.%f UTC")


def test_a_submission_collect_saw_keeps_its_time(tmp_path, monkeypatch):
    course, inbound, make = exchange_class(tmp_path, monkeypatch)
    me, folder = submit(inbound, "my work")
    make().start()
    dest = course / "submitted" / me / ASSIGNMENT
    stamped = (dest / "timestamp.txt").read_text()
    assert stamped.startswith(
        collecting.newest(collecting.state_of(folder, {NOTEBOOK})).strftime("%Y-%m-%d %H:%M:%S")
    )
    make().start()
    assert (dest / "timestamp.txt").read_text() == stamped
    seen = course / "logs" / "exchange-seen.json"
    assert stat.S_IMODE(os.lstat(seen).st_mode) == 0o600


def test_a_collected_submission_is_the_owners_only(tmp_path):
    course, folder = _course_and_submission(tmp_path)
    (folder / NOTEBOOK).write_text("my work")
    assert collecting.collect(course, tmp_path / "inbox") == 0
    dest = course / "submitted" / "mallory" / ASSIGNMENT
    assert stat.S_IMODE(os.lstat(dest.parent).st_mode) == 0o700
    assert stat.S_IMODE(os.lstat(dest).st_mode) == 0o700
    assert {stat.S_IMODE(os.lstat(p).st_mode) for p in dest.iterdir()} == {0o600}
