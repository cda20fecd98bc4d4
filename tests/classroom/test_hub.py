"""A class on a real JupyterHub (`make hub`, tools/hub), end to end in Chromium.

One run of the class, in steps that share the hub (a module fixture) and run in order:
the hub starts as `make hub` starts it (tools/hub/hub.py), with a teacher and three
students of the test's own (names with a prefix of this run, all removed after, whatever
happens); the teacher logs in, then types the release of lesson 03 into a terminal of their
JupyterLab, as the guide says (every other command runs in a login shell: nothing of the
test's own environment); each student logs in
through the hub's login page, opens the Assignments tab, fetches, types a solution into
the notebook (one right, one half, one nothing), saves and submits; a fourth hands in,
from the command line, a notebook that borrows the teacher's solutions; the teacher
collects, grades with formgrader's autograde (the button's own request) and with `make
autograde`'s command, which must agree, and releases feedback; each student fetches
feedback and sees the score in the page; grades.csv holds the scores. Beside them the
fourth attacks: the teacher's files, a forged or oversized or piped submission, a page of
their own server opened by the teacher, and the machine's shared memory (1.2 GB written to
/dev/shm from their terminal must be refused at their share and gone when their server
stops). The grading page of the teacher's server, started before the release, is the
course's. The times of the steps go to test-artifacts/hub-times.txt, screenshots beside
them.

Needs root (system accounts), Chromium, the proxy (make venv) and the system's Python;
where one is missing the module is skipped with one line saying which (in CI: fails).
"""

import contextlib
import csv
import json
import os
import pwd
import re
import shutil
import sys
from pathlib import Path

import nbformat
import pytest
from processes import live_processes, patience

from classroom.hub_class import (
    BORROWER,
    FETCH_JSON,
    ROOT,
    STUDENTS,
    TEACHER,
    as_user,
    assignments_tab,
    in_terminal,
    poll,
    running_class,
    server_pid,
    shot,
    status_of,
)

MASTER = ROOT / "notebooks" / "03_classifying.ipynb"
LESSON = "03_classifying"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from mcp_lesson.exercises import declared  # noqa: E402  (after sys.path is set)
from tools.hub import accounts  # noqa: E402  (after sys.path is set)

#: The grade cells the half student solves: lesson 03's rule helpers, whose points (and the
#: lesson's) are the master's nbgrader metadata (declared.lesson_points).
HALF = ("is_object", "has_version", "judge_call", "judge_result")
FULL = declared.lesson_points(LESSON)
EXPECTED = {
    STUDENTS["right"]: FULL,
    STUDENTS["half"]: declared.lesson_points(LESSON, HALF),
    STUDENTS["nothing"]: 0.0,
    BORROWER: 0.0,
}
#: A solution cell that takes the teacher's solutions: it finds the lesson's source (with
#: its solutions) and runs every solution cell of it. Run by plain nbgrader, as the
#: teacher, it scores full marks; in the judge's sandbox there is no teacher's folder.
BORROWING = """\
import glob, json
for _path in glob.glob("/home/*/course/source/03_classifying/03_classifying.ipynb"):
    for _cell in json.load(open(_path))["cells"]:
        if _cell.get("metadata", {}).get("nbgrader", {}).get("solution"):
            exec("".join(_cell["source"]), globals())
"""


def nbgrader_of(cell):
    return cell.get("metadata", {}).get("nbgrader", {})


def typed(master_source):
    """A solution cell as the student types it: the master's, without nbgrader's markers."""
    return "\n".join(
        line
        for line in master_source.split("\n")
        if "### BEGIN SOLUTION" not in line and "### END SOLUTION" not in line
    )


def solution_cells(which):
    """[(cell index, text to type)] for a student: all solutions, the half, or none."""
    cells = nbformat.read(str(MASTER), as_version=4).cells
    wanted = {"right": None, "half": HALF, "nothing": ()}[which]
    return [
        (index, typed(cell.source))
        for index, cell in enumerate(cells)
        if nbgrader_of(cell).get("solution")
        and (wanted is None or nbgrader_of(cell)["grade_id"] in wanted)
    ]


def saved_source(notebook, index):
    """The source of cell ``index`` as the notebook's file holds it now; "" while JupyterLab
    is still writing the file (its save writes in place: a read can find it empty or cut)."""
    try:
        return nbformat.read(str(notebook), as_version=4).cells[index].source
    except (OSError, ValueError, IndexError):
        return ""


@pytest.fixture(scope="module")
def hub():
    """The class's hub, up (tests/classroom/hub_class.py); its accounts and files removed after."""
    yield from running_class()


# --- the class, step by step ------------------------------------------------------------


def test_a_student_has_the_assignments_tab_and_nothing_of_the_teachers(hub):
    with hub.times.step("a student logs in to JupyterLab"):
        page = hub.log_in(STUDENTS["nothing"])
    page.get_by_text("Nbgrader", exact=True).click()
    items = page.locator("#jp-mainmenu-nbgrader .lm-Menu-itemLabel").all_inner_texts()
    assert [item for item in items if item.strip()] == ["Assignment List"]
    page.keyboard.press("Escape")
    base = hub.settings.server_url(STUDENTS["nothing"])
    assert status_of(page, f"{base}/formgrader") == 404
    page.context.close()


def test_the_teacher_logs_in_then_releases_in_a_terminal_of_their_jupyterlab(hub):
    """The guide's order and words: log in, then type the release into a terminal of your
    JupyterLab (a login shell, whose /etc/profile sets PATH afresh)."""
    with hub.times.step("the teacher logs in to JupyterLab"):
        page = hub.page_of(TEACHER)
    assert not hub.course().exists()
    hub.teachers_server = server_pid(TEACHER)  # started before the course is there
    with hub.times.step(
        "the teacher releases lesson 03 in a terminal (classroom release, nbgrader "
        "release_assignment)"
    ):
        status, out = in_terminal(
            page,
            hub.settings.server_url(TEACHER),
            f"python {ROOT}/tools/grading/classroom.py --course ~/course release {LESSON} "
            f"&& cd ~/course && nbgrader release_assignment {LESSON}",
        )
    assert status == 0, out
    outbound = hub.settings.exchange / "mcp_lesson" / "outbound" / LESSON
    assert (outbound / f"{LESSON}.ipynb").is_file()


def test_the_teachers_sandboxes_and_grading_runs_get_limits_of_their_own(hub):
    """In the teacher's server (a terminal of it), the judge makes a memory and a pids cgroup
    for a sandbox, and a command run apart (formgrader's grading runs) is in cgroups of its
    own, inside the teacher's."""
    status, out = in_terminal(
        hub.page_of(TEACHER),
        hub.settings.server_url(TEACHER),
        'python -c \'from tools.judge.sandbox import Cgroup; print("missing:", '
        '*Cgroup.missing(), "-")\' && grep memory /proc/self/cgroup && '
        "python -m tools.hub.apart -- grep memory /proc/self/cgroup",
    )
    assert status == 0 and "missing: -" in out, out
    own, run = re.findall(r"\d+:memory:(/\S+)", out)[-2:]
    assert run.startswith(own + "/") and run != own, out


@pytest.mark.parametrize("which", ["right", "half", "nothing"])
def test_each_student_fetches_works_and_submits_in_the_browser(hub, which):
    name = STUDENTS[which]
    with hub.times.step(f"{which} student: log in, fetch, type, save, submit"):
        page = hub.page_of(name)
        assignments_tab(page)
        page.locator("#released_assignments_list").get_by_role("button", name="Fetch").click()
        page.locator("#fetched_assignments_list").get_by_role("button", name="Submit").wait_for()
        if which == "right":
            shot(page, "hub-assignments-tab.png")
        notebook = accounts.home_of(name) / LESSON / f"{LESSON}.ipynb"
        assert notebook.is_file()
        cells = solution_cells(which)
        if cells:
            page.goto(f"{hub.settings.server_url(name)}/lab/tree/{LESSON}/{LESSON}.ipynb")
            page.wait_for_selector(".jp-Notebook .jp-Cell")
            for index, text in cells:
                cell = page.locator(".jp-Notebook .jp-Cell").nth(index)
                cell.scroll_into_view_if_needed()
                cell.locator(".cm-content").click()
                page.keyboard.press("Control+A")
                page.keyboard.insert_text(text)
            page.keyboard.press("Escape")
            page.keyboard.press("Control+S")
            last = cells[-1][1]
            poll(
                lambda: last in saved_source(notebook, cells[-1][0]),
                "the notebook saved with the student's work",
            )
            assignments_tab(page)
        page.locator("#fetched_assignments_list").get_by_role("button", name="Submit").click()
        page.locator("#submitted_assignments_list .list_item").first.wait_for()
    saved = nbformat.read(str(notebook), as_version=4)
    for index, text in cells:
        assert saved.cells[index].source == text
    hub.forget(name)


def test_a_fourth_hands_in_a_notebook_that_borrows_the_teachers_solutions(hub):
    with hub.times.step("a student borrows the teacher's solutions (command line)"):
        as_user(BORROWER, f"nbgrader fetch_assignment {LESSON}")
        notebook = accounts.home_of(BORROWER) / LESSON / f"{LESSON}.ipynb"
        nb = nbformat.read(str(notebook), as_version=4)
        for cell in nb.cells:
            if nbgrader_of(cell).get("solution"):
                cell.source = BORROWING
        nbformat.write(nb, str(notebook))
        as_user(BORROWER, f"nbgrader submit {LESSON}")


def scores(course):
    """{student: score} of lesson 03 in the gradebook."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        return {s.student.id: s.score for s in gradebook.assignment_submissions(LESSON)}


def submission_id(course, student):
    """The id of ``student``'s notebook of lesson 03 in the gradebook (formgrader's page's)."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        return gradebook.find_submission_notebook(LESSON, LESSON, student).id


def test_formgrader_autograde_uses_the_judge_as_make_autograde_does(hub):
    with hub.times.step("the teacher collects (nbgrader collect, the exchange)"):
        collected = as_user(TEACHER, f"cd ~/course && nbgrader collect {LESSON}")
    for name in EXPECTED:
        assert (hub.course() / "submitted" / name / LESSON / f"{LESSON}.ipynb").is_file(), (
            collected.stderr
        )
    with hub.times.step("formgrader's autograde, one request per student (the button's)"):
        page = hub.page_of(TEACHER)
        page.goto(f"{hub.settings.server_url(TEACHER)}/formgrader")
        page.wait_for_selector("text=Manage Assignments")
        shot(page, "hub-formgrader.png")
        for name in EXPECTED:
            reply = page.evaluate(
                """async (url) => {
                const xsrf = document.cookie.split('; ').find(c => c.startsWith('_xsrf='));
                const answer = await fetch(url, {method: 'POST', headers:
                    {'X-XSRFToken': xsrf ? decodeURIComponent(xsrf.slice(6)) : ''}});
                return [answer.status, await answer.text()];
            }""",
                f"{hub.settings.server_url(TEACHER)}/formgrader/api/submission/{LESSON}/{name}/autograde",
            )
            assert reply[0] == 200 and json.loads(reply[1]).get("success"), reply
    by_formgrader = scores(hub.course())
    assert by_formgrader == EXPECTED
    # the grading page of the server started before the release is the course's
    assert server_pid(TEACHER) == hub.teachers_server
    opened = page.goto(
        f"{hub.settings.server_url(TEACHER)}/formgrader/submissions/"
        f"{submission_id(hub.course(), BORROWER)}/?index=0"
    )
    assert opened.status == 200, opened.status
    grading_page = opened.text()
    from classroom.test_formgrade_csp import own_scripts

    policy, nonces, handlers = own_scripts(grading_page)
    scripts_from = re.search(r"script-src ([^;]*)", policy or "")
    nonce = re.search(r"'nonce-([^']+)'", scripts_from.group(1) if scripts_from else "")
    assert nonce and "'unsafe-inline'" not in scripts_from.group(1), grading_page[:3000]
    assert nonces and set(nonces) == {nonce.group(1)}, nonces  # every script carries it
    assert not handlers, handlers  # formgrader's own handlers are listeners
    page.goto(f"{hub.settings.server_url(TEACHER)}/lab")
    with hub.times.step("make autograde's command (classroom autograde)"):
        as_user(
            TEACHER,
            f"python {ROOT}/tools/grading/classroom.py --course ~/course autograde {LESSON}",
        )
    assert scores(hub.course()) == by_formgrader


def test_feedback_reaches_each_student_in_the_browser(hub):
    with hub.times.step("feedback (classroom feedback, nbgrader release_feedback)"):
        as_user(
            TEACHER,
            f"python {ROOT}/tools/grading/classroom.py --course ~/course "
            f"feedback {LESSON} && cd ~/course && nbgrader release_feedback {LESSON}",
        )
    for which, name in STUDENTS.items():
        with hub.times.step(f"{which} student fetches feedback and reads it"):
            page = hub.log_in(name)
            assignments_tab(page)
            submitted = page.locator("#submitted_assignments_list")
            submitted.get_by_role("button", name="Fetch Feedback").click()
            feedback = accounts.home_of(name) / LESSON / "feedback"
            found = poll(
                lambda: sorted(feedback.glob(f"*/{LESSON}.html")),  # noqa: B023  (called at once)
                "the feedback page in the student's folder",
            )
            relative = found[-1].relative_to(accounts.home_of(name))
            page.goto(f"{hub.settings.server_url(name)}/files/{relative}")
            score = f"Score: {EXPECTED[name]} / {FULL}"
            page.wait_for_selector(f"text={score}")
            if which == "half":
                shot(page, "hub-feedback.png")
            page.context.close()


def test_grades_csv_has_the_class_scores(hub):
    with hub.times.step("grades.csv (classroom grades)"):
        as_user(TEACHER, f"python {ROOT}/tools/grading/classroom.py --course ~/course grades")
    with open(hub.course() / "grades.csv", newline="") as handle:
        rows = [row for row in csv.DictReader(handle) if row["assignment"] == LESSON]
    assert {row["student"]: float(row["score"]) for row in rows} == EXPECTED


def test_the_teacher_opens_what_the_class_missed_from_their_jupyterlab(hub):
    """After grading, as the teacher's guide says: a terminal of their JupyterLab builds the page
    (no root, the users' environment has its charts), and formgrader's sidebar opens it."""
    page = hub.page_of(TEACHER)
    server = hub.settings.server_url(TEACHER)
    with hub.times.step("what the class missed: made in a terminal, opened from formgrader"):
        status, out = in_terminal(
            page, server, f"python -m tools.insight --course ~/course {LESSON}"
        )
        assert status == 0 and f"{LESSON}: " in out, out
        tab = page.context.new_page()
        tab.goto(f"{server}/formgrader/gradebook")
        tab.get_by_role("link", name="What the class missed", exact=True).click()
        tab.get_by_role("link", name=f"What the class missed in {LESSON}").click()
        tab.wait_for_url(f"**/formgrader/insight/files/insight/{LESSON}.html")
    rows = tab.evaluate("""() => Object.fromEntries([...document.querySelectorAll(
        'table.sortable tbody tr')].map(row => [row.cells[0].dataset.key, row.textContent]))""")
    assert set(STUDENTS.values()) <= set(rows), rows
    assert "not written yet" in rows[STUDENTS["half"]] and "✓" in rows[STUDENTS["right"]], rows
    tab.close()


# --- what stays each person's own ----------------------------------------------------------


def test_a_student_reads_no_other_students_work_nor_the_teachers(hub):
    other = STUDENTS["right"]
    inbound = hub.settings.exchange / "mcp_lesson" / "inbound"
    outbound = hub.settings.exchange / "mcp_lesson" / "outbound" / LESSON
    probe = as_user(
        STUDENTS["nothing"],
        f"""
        ls {inbound} 2>/dev/null && echo LISTED-INBOUND
        ls {accounts.home_of(other)} 2>/dev/null && echo READ-A-HOME
        ls {accounts.home_of(TEACHER)}/course 2>/dev/null && echo READ-THE-COURSE
        touch {outbound}/x 2>/dev/null && echo CHANGED-A-RELEASE
        rm -f {outbound}/{LESSON}.ipynb 2>/dev/null; test -f {outbound}/{LESSON}.ipynb || echo REMOVED-A-RELEASE
        mv {hub.settings.exchange}/mcp_lesson {hub.settings.exchange}/x 2>/dev/null && echo RENAMED-THE-COURSE
        true""",
        check=False,
    )
    assert probe.stdout.strip() == "", probe.stdout
    # each submission: its owner's and the teacher's group's, nobody else's, even by its name
    teachers_group = pwd.getpwnam(TEACHER).pw_gid
    submissions = [path for path in inbound.iterdir() if path.name.startswith(f"{other}+{LESSON}+")]
    assert submissions
    for submission in submissions:
        for path in [submission, *(found for found in submission.rglob("*") if found.is_dir())]:
            info = path.lstat()
            assert info.st_gid == teachers_group and not info.st_mode & 0o007, (
                path,
                oct(info.st_mode),
            )
    named = as_user(
        STUDENTS["nothing"],
        f"cat '{submissions[0]}/{LESSON}.ipynb' >/dev/null 2>&1 || echo REFUSED; "
        f"touch '{submissions[0]}/planted' 2>/dev/null || echo REFUSED",
        check=False,
    )
    assert named.stdout.split() == ["REFUSED", "REFUSED"], named.stdout


def test_a_submission_over_the_limit_is_refused_with_a_clear_line(hub):
    name = STUDENTS["nothing"]
    run = as_user(
        name,
        f"head -c 40000000 /dev/zero > ~/{LESSON}/big.bin && "
        f"nbgrader submit {LESSON}; rm -f ~/{LESSON}/big.bin",
        check=False,
    )
    assert "Directory size is too big" in run.stdout + run.stderr


def test_a_forged_submission_counts_as_its_owners(hub, tmp_path):
    """A folder in inbound/ named after another student is taken as its owner's, and a link
    in it is never followed."""
    name, victim = STUDENTS["nothing"], STUDENTS["right"]
    inbound = hub.settings.exchange / "mcp_lesson" / "inbound"
    forged = f"{victim}+{LESSON}+2000-01-01 00:00:00.000000 UTC+forged"
    as_user(
        name,
        f"mkdir '{inbound}/{forged}' && ln -s "
        f"{accounts.home_of(TEACHER)}/course/source/{LESSON}/{LESSON}.ipynb '{inbound}/{forged}/{LESSON}.ipynb'",
    )
    run = as_user(TEACHER, f"cd ~/course && nbgrader collect --update {LESSON}")
    assert f"owned by {name}" in run.stdout + run.stderr
    taken = hub.course() / "submitted" / name / LESSON
    assert not (taken / f"{LESSON}.ipynb").exists()
    assert "a symbolic link: collect takes regular files only" in run.stdout + run.stderr


def test_a_named_pipe_in_a_submission_is_refused_with_a_clear_line(hub):
    name = STUDENTS["nothing"]
    run = as_user(
        name,
        f"mkfifo ~/{LESSON}/pipe && nbgrader submit {LESSON}; "
        f"code=$?; rm -f ~/{LESSON}/pipe; exit $code",
        check=False,
    )
    assert run.returncode != 0 and "is a named pipe" in run.stdout + run.stderr, (
        run.stdout + run.stderr
    )


def test_the_last_submission_before_the_deadline_counts(hub):
    """A submission made after the due date does not replace the last one before it: the
    times are those of each submission's last change, which the student cannot set back."""
    import datetime

    name = STUDENTS["half"]
    notebook = f"~/{LESSON}/{LESSON}.ipynb"
    due = datetime.datetime.now(datetime.UTC) + datetime.timedelta(seconds=patience(5))
    as_user(
        TEACHER,
        f"cd ~/course && nbgrader db assignment add {LESSON} "
        f"--duedate='{due:%Y-%m-%d %H:%M:%S} UTC'",
    )
    as_user(name, f"nbgrader submit {LESSON}")
    poll(
        lambda: datetime.datetime.now(datetime.UTC) > due + datetime.timedelta(seconds=1),
        "the due date to pass",
    )
    as_user(
        name,
        f"python -c \"import os, nbformat as n; p = os.path.expanduser('{notebook}'); "
        f"nb = n.read(p, 4); nb.cells[-1].source += '# late'; n.write(nb, p)\" && nbgrader submit {LESSON}",
    )
    as_user(TEACHER, f"cd ~/course && nbgrader collect --update {LESSON}")
    taken = hub.course() / "submitted" / name / LESSON
    stamped = datetime.datetime.strptime(
        (taken / "timestamp.txt").read_text(), "%Y-%m-%d %H:%M:%S.%f UTC"
    )
    assert stamped <= due.replace(tzinfo=None)
    assert "# late" not in (taken / f"{LESSON}.ipynb").read_text()


# --- a page of a student's own server, opened by the teacher -----------

#: The red team's service, in the student's ~/.jupyter: a page of their own server, served
#: with no login and no Content-Security-Policy (their own Jupyter settings load it).
RED_TEAM_SERVICE = """\
from pathlib import Path

from tornado import web

PAGE = Path(__file__).with_suffix(".html").read_text()


class Page(web.RequestHandler):
    def get(self):
        self.set_header("Content-Type", "text/html")
        self.write(PAGE)


default_handlers = [(r"/red-team", Page)]
"""
RED_TEAM_SETTINGS = """\
import os
import sys

sys.path.insert(0, os.path.expanduser("~/.jupyter"))
c = get_config()
c.ServerApp.extra_services = ["red_team"]
"""
#: The page: on a click, for each origin the teacher's server might answer on, it opens
#: the teacher's JupyterLab in a window and takes the teacher's _xsrf cookie from it
#: (possible only on the page's own origin), then with it reads a file of the teacher's, opens a terminal and
#: writes a file as the teacher. What it got goes to window.results; window.done says it
#: has finished.
RED_TEAM_PAGE = """\
<!doctype html><title>my notes</title><body><button>Open my notes</button><script>
const teacher = %(teacher)s, origins = %(origins)s, patience = %(patience)d;
window.results = {};
function within(promise) {
  return Promise.race([promise, new Promise((_, no) => setTimeout(() => no(new Error("no answer")), patience))]);
}
async function attempt(name, run) {
  try { results[name] = await within(run()); } catch (error) { results[name] = "refused: " + error; }
}
function window_of(url) {  // (JupyterHub's servers refuse to be framed: a window, then)
  const opened = window.open(url);
  return new Promise((done) => {
    const check = setInterval(() => {
      try {
        if (opened.document.readyState === "complete" && opened.location.href !== "about:blank") {
          clearInterval(check);
          done(opened);
        }
      } catch (error) { clearInterval(check); done(opened); }  // another origin's: try, and fail
    }, 100);
  });
}
document.querySelector("button").onclick = async () => {
  for (const origin of origins) {
    const server = origin + "/user/" + teacher;
    let xsrf = "";
    await attempt("xsrf " + server, async () => {
      const opened = await window_of(server + "/lab");
      try {
        const cookie = opened.document.cookie.split("; ").find(c => c.startsWith("_xsrf=")) || "";
        xsrf = decodeURIComponent(cookie.slice(6));
        return xsrf ? "taken" : "none";
      } finally { opened.close(); }  // (another origin's window too: the page opened it)
    });
    const headers = {"X-XSRFToken": xsrf, "Content-Type": "application/json"};
    await attempt("read " + server, async () => {
      const answer = await fetch(server + "/api/contents/secret.txt?content=1", {credentials: "include", headers});
      return answer.status + " " + await answer.text();
    });
    await attempt("terminal " + server, async () => {
      const answer = await fetch(server + "/api/terminals", {method: "POST", credentials: "include", headers});
      return answer.status + " " + await answer.text();
    });
    await attempt("write " + server, async () => {
      const answer = await fetch(server + "/api/contents/pwned.txt", {method: "PUT", credentials: "include", headers,
          body: JSON.stringify({type: "file", format: "text", content: "pwned"})});
      return answer.status + " " + await answer.text();
    });
  }
  window.done = true;
};
</script></body>
"""


def test_a_page_of_a_students_server_reads_nothing_of_the_teachers_and_starts_no_terminal(hub):
    """The red team's attack: the teacher, logged in, opens a page the student's own server
    serves. Each person's server has an origin of its own (NAME.localhost), so the page
    reads none of the teacher's files, and starts no terminal and writes no file as them."""
    import secrets

    student, port = BORROWER, hub.settings.port
    secret = secrets.token_hex(16)
    as_user(TEACHER, f"echo {secret} > ~/secret.txt")
    settings_folder = accounts.home_of(student) / ".jupyter"
    settings_folder.mkdir(exist_ok=True)
    origins = [
        "",
        f"http://{TEACHER}.localhost:{port}",
        f"http://localhost:{port}",
        f"http://127.0.0.1:{port}",
    ]
    for name, text in {
        "jupyter_server_config.py": RED_TEAM_SETTINGS,
        "red_team.py": RED_TEAM_SERVICE,
        "red_team.html": RED_TEAM_PAGE
        % {
            "teacher": json.dumps(TEACHER),
            "origins": json.dumps(origins),
            "patience": patience(20) * 1000,
        },
    }.items():
        (settings_folder / name).write_text(text)
    shutil.chown(settings_folder, student, student)
    for path in settings_folder.iterdir():
        shutil.chown(path, student, student)
    hub.log_in(student).context.close()  # the student's server, with their own settings
    with hub.another_browser() as browser:  # (the page opens windows: a browser of its own)
        teacher = hub.log_in(TEACHER, browser)  # the teacher's JupyterLab, open
        terminals = f"{hub.settings.server_url(TEACHER)}/api/terminals"
        terminals_before = teacher.evaluate(FETCH_JSON, terminals)
        page = teacher.context.new_page()  # the student's link, opened beside it
        page.goto(f"{hub.settings.server_url(student)}/red-team")
        page.click("button")  # the one click the red team needed
        page.wait_for_function("window.done === true", timeout=patience(300) * 1000)
        results = page.evaluate("window.results")
        assert len(results) == 4 * len(origins)  # the page ran every attempt
        assert secret not in json.dumps(results), results
        assert teacher.evaluate(FETCH_JSON, terminals) == terminals_before, results
        assert not (accounts.home_of(TEACHER) / "pwned.txt").exists(), results


# --- shared memory is each person's own, and ends with their server ----------------------

#: What the hostile student types into a terminal of their JupyterLab: 1.2 GB into /dev/shm,
#: then 1.2 GB and 100 MB of SysV shared memory; what it got.
FILL_SHARED_MEMORY = (
    "head -c 1200000000 /dev/zero > /dev/shm/fill; echo wrote $(stat -c %s /dev/shm/fill); "
    "python -c 'import ctypes; shmget = ctypes.CDLL(None).shmget; "
    'print("segments", shmget(0, 1200000000, 0o1600), shmget(0, 100000000, 0o1600))\''
)


#: True once JupyterHub's home page has bound its "Stop My Server" button (jQuery's own record
#: of the handlers home.js attached).
STOP_IS_BOUND = """() => {
    const load = window.require;
    if (!load || !load.defined || !load.defined("jquery")) return false;
    const $ = load("jquery"), button = $("#stop")[0];
    const events = button && $._data(button, "events");
    return Boolean(events && events.click);
}"""


def namespaces_of(pid):
    return {kind: os.stat(f"/proc/{pid}/ns/{kind}").st_ino for kind in ("mnt", "ipc")}


def in_namespaces(namespaces):
    """The pids of the live processes in any of ``namespaces`` (kind: inode)."""
    found = []
    for process in live_processes():
        with contextlib.suppress(OSError):
            if any(
                os.stat(f"/proc/{process.pid}/ns/{kind}").st_ino == inode
                for kind, inode in namespaces.items()
            ):
                found.append(process.pid)
    return found


def test_a_students_shared_memory_is_held_to_their_limit_and_ends_with_their_server(hub):
    from tools.hub.settings import PERSON_MEMORY, SHARED_MEMORY_SHARE

    name, uid = BORROWER, pwd.getpwnam(BORROWER).pw_uid
    honest = {student: server_pid(student) for student in STUDENTS.values() if server_pid(student)}
    page = hub.page_of(name)
    server = server_pid(name)
    namespaces = namespaces_of(server)
    with hub.times.step("a student fills /dev/shm and SysV shared memory from a terminal"):
        status, out = in_terminal(page, hub.settings.server_url(name), FILL_SHARED_MEMORY)
    written = int(re.search(r"wrote (\d+)", out).group(1))
    big, small = map(int, re.search(r"segments (-?\d+) (-?\d+)", out).groups())
    # refused at the server's share of the person's memory, in their own /dev/shm and IPC
    assert 0 < written <= PERSON_MEMORY // SHARED_MEMORY_SHARE < 1_200_000_000, out
    assert big == -1 and small >= 0, out
    assert not [
        entry for entry in os.scandir("/dev/shm") if entry.stat(follow_symlinks=False).st_uid == uid
    ]
    segments = Path("/proc/sysvipc/shm").read_text().splitlines()[1:]
    assert not [line for line in segments if int(line.split()[7]) == uid]
    with hub.times.step("Stop My Server, until nothing of it is left"):
        page.goto(f"{hub.base}/hub/home")
        # JupyterHub's home.js binds the button once require.js has loaded it: a click before
        # that does nothing (a busy machine once left the server running for two minutes).
        page.wait_for_function(STOP_IS_BOUND, timeout=patience(60) * 1000)
        page.click("#stop")
        poll(
            lambda: not in_namespaces(namespaces), "the student's server and its namespaces to end"
        )
    hub.forget(name)
    assert server_pid(name) is None
    # the honest students' servers ran on, untouched
    assert {student: server_pid(student) for student in honest} == honest
