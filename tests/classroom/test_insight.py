"""What the class missed: a class graded for real (nbgrader, the judge's sandbox), then the
teacher's page built (make insight) and opened in Chromium.

The class of lesson 03: honest students, students with one planted mistake each
(tests/classroom/insight_class.py), a student who wrote nothing, and a hostile one whose
function answers with markup, whose notes hold a script, whose cells carry odd metadata,
whose roster name is markup, and who hands in a folder 300 deep; beside them a folder whose
name is markup (collect refuses it). Then:

* the judge's records hold every case's verdict, the same as the lesson's cells decide here;
* the page lists the rules missed with the students who missed them, as planted, most first,
  and so do its CSV and JSON Lines;
* in Chromium: axe-core finds no violation; no script of a student's runs and no markup of
  theirs renders (their text shows, as text); nothing is fetched; the grid sorts.

Then a synthetic class of 30 (made from the wrong versions of the lesson's functions, judged
in this process) gives the picture of the teacher's guide: test-artifacts/insight.png, and
docs/insight.png with UPDATE_SCREENSHOTS=1.
"""

import collections
import copy
import csv
import json
import os
import shutil
import sqlite3
import subprocess
import sys

import nbformat
import pytest
from chromium import chromium_or_skip, launched, with_room
from nbformat.v4 import new_markdown_cell
from processes import run_to_end
from test_browser import axe_js, axe_violations  # noqa: F401 - axe_js is a fixture

from classroom.insight_class import LESSON, PLANTED, ROOT, judged_here, make_class, solutions
from classroom.teachers_server import teachers_server
from tools.insight import records

pytestmark = pytest.mark.full

ARTIFACTS = ROOT / "test-artifacts"

#: {student: the mistakes planted (solution cells of theirs)}; None: the release as it is.
CLASS = {
    "honest_ann": {},
    "honest_bo": {},
    "version_cy": PLANTED["version_as_number"],
    "version_di": PLANTED["version_as_number"],
    "version_ed": PLANTED["version_as_number"],
    "code_fay": PLANTED["bool_code"],
    "code_gus": PLANTED["bool_code"],
    "hostile_hal": PLANTED["markup_answer"],
    "stub_ivy": None,
}
ROSTER_NAME = '<img src=x onerror="window.pwned = 3">Hal<script>window.pwned = 4</script>'
NOTES = "My notes <script>window.pwned = 5</script>"
MARKUP_FOLDER = "<b onmouseover=window.pwned=6>eve<b>"


def handed_in(release, student):
    nb = copy.deepcopy(release)
    mistakes = CLASS[student]
    if mistakes is None:
        return nb
    right = dict(solutions(), **mistakes)
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if cell.metadata.get("nbgrader", {}).get("solution") and grade_id in right:
            cell.source = right[grade_id]
    if student.startswith("hostile"):
        nb.cells.insert(
            1,
            new_markdown_cell(
                NOTES,
                metadata={
                    "tags": [ROSTER_NAME],
                    "odd": {"<script>": None},
                    "jupyter": {"source_hidden": "yes"},
                },
            ),
        )
        nb.metadata["widgets"] = {"<script>": [1, 2]}
        nb.metadata["title"] = ROSTER_NAME
    return nb


def step(course, *args):
    run = run_to_end(
        [
            sys.executable,
            str(ROOT / "tools" / "grading" / "classroom.py"),
            "--course",
            str(course),
            *args,
        ],
        1800,
        cwd=ROOT,
    )
    assert run.returncode == 0, (run.stdout + run.stderr)[-3000:]
    return run.stdout


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    base = tmp_path_factory.mktemp("insight")
    course = base / "classroom"
    step(course, "release", LESSON)
    release = nbformat.read(str(course / "release" / LESSON / f"{LESSON}.ipynb"), as_version=4)
    inbox = base / "inbox"
    for student in [*CLASS, MARKUP_FOLDER]:
        folder = inbox / student / LESSON
        folder.mkdir(parents=True)
        nbformat.write(
            handed_in(release, student if student in CLASS else "honest_ann"),
            str(folder / f"{LESSON}.ipynb"),
        )
    deep = inbox / "hostile_hal" / LESSON
    for _ in range(300):
        deep = deep / "d"
    deep.mkdir(parents=True)
    step(course, "collect", str(inbox))
    step(course, "autograde", "--timeout", "20")
    with sqlite3.connect(course / "gradebook.db") as db:  # a roster written by the student
        db.execute("UPDATE student SET first_name = ? WHERE id = 'hostile_hal'", (ROSTER_NAME,))
    made = run_to_end(
        [sys.executable, "-m", "tools.insight", "--course", str(course), LESSON], 300, cwd=ROOT
    )
    assert made.returncode == 0, made.stdout + made.stderr
    expected = base / "expected"  # the same lessons, judged in this process
    for student, mistakes in CLASS.items():
        if mistakes is not None:
            judged_here(mistakes, student, expected)
    subprocess.run(["rm", "-rf", str(inbox / "hostile_hal")], check=False)
    return course, expected


def missed(verdicts):
    """{(exercise, rule as shown): students} of the failed verdicts (not the unwritten)."""
    found = collections.defaultdict(set)
    for v in verdicts:
        if not v["passed"] and v["rule"] != records.NOT_WRITTEN:
            rule = (
                f"the visible case {v['call']}"
                if v["rule"] == "a visible case above"
                else v["rule"]
            )
            found[(v["exercise"], rule)].add(v["student"])
    return dict(found)


FIELDS = ("student", "cell", "exercise", "rule", "call", "passed", "value")


def test_the_judges_records_hold_every_case_as_the_lesson_decides(graded):
    course, expected = graded
    got = [
        tuple(v[k] for k in FIELDS)
        for v in records.read(course, LESSON)
        if CLASS.get(v["student"]) is not None
    ]
    want = [tuple(v[k] for k in FIELDS) for v in records.read(expected, LESSON)]
    assert got == want
    planted = missed(records.read(course, LESSON))
    assert planted, "no rule missed"
    # each planted mistake costs rules of its own exercise, to exactly the students it was planted on
    for students, exercise in (
        (("version_cy", "version_di", "version_ed"), "has_version"),
        (("code_fay", "code_gus"), "judge_error"),
        (("hostile_hal",), "is_object"),
    ):
        own = {rule: who for rule, who in planted.items() if rule[0] == exercise}
        assert own and all(who == set(students) for who in own.values()), own
    stub = [v for v in records.read(course, LESSON) if v["student"] == "stub_ivy"]
    assert stub and all(not v["passed"] and v["rule"] == records.NOT_WRITTEN for v in stub)


def test_the_data_files_say_the_same(graded):
    course, expected = graded
    want = missed(records.read(expected, LESSON))
    folder = course / "insight"
    with open(folder / f"{LESSON}-rules.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert {(r["exercise"], r["rule"]): set(r["who"].split()) for r in rows} == want
    assert [int(r["students"]) for r in rows] == sorted(
        (int(r["students"]) for r in rows), reverse=True
    )
    lines = (folder / f"{LESSON}-verdicts.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(records.read(course, LESSON))
    assert all(isinstance(json.loads(line), dict) for line in lines)
    with open(folder / f"{LESSON}-grid.csv", newline="", encoding="utf-8") as handle:
        grid = list(csv.DictReader(handle))
    assert {r["student"] for r in grid} == set(CLASS)
    assert all(r["score"] == r["max_score"] for r in grid if r["student"].startswith("honest"))


@pytest.fixture(scope="module")
def browser():
    path = chromium_or_skip("the insight page's tests")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright, launched(playwright, path) as chromium:
        yield chromium


def opened(browser, course, **options):
    """(page, requests, console errors) of the page opened from its file."""
    context = browser.new_context(viewport={"width": 1200, "height": 900}, **options)
    page = context.new_page()
    requests, errors = [], []
    page.on("request", lambda request: requests.append(request.url))
    page.on(
        "console", lambda message: errors.append(message.text) if message.type == "error" else None
    )
    page.on("pageerror", lambda error: errors.append(str(error)))
    url = (course / "insight" / f"{LESSON}.html").as_uri()
    page.goto(url)
    page.wait_for_load_state("load")
    return page, url, requests, errors


def test_the_page_lists_the_rules_missed_most_as_planted(graded, browser):
    course, expected = graded
    want = missed(records.read(expected, LESSON))
    page, url, requests, errors = opened(browser, course)
    shown = page.evaluate("""() => [...document.querySelectorAll('ol.rules > li')].map(li => [
        li.querySelector('.exercise').textContent, li.querySelector('.rule').textContent,
        parseInt(li.querySelector('.count').textContent, 10), li.querySelector('.names').textContent])""")
    assert len(shown) == min(len(want), 25)
    counts = [count for _, _, count, _ in shown]
    assert counts == sorted(counts, reverse=True)
    for exercise, rule, count, names in shown:
        students = want[(exercise, rule)]
        assert count == len(students)
        assert all(student in names for student in students)
    assert counts[0] == max(len(who) for who in want.values())
    page.context.close()


def test_no_script_of_a_student_runs_and_nothing_is_fetched(graded, browser):
    course, _ = graded
    page, url, requests, errors = opened(browser, course)
    assert requests == [url]
    assert errors == []
    assert page.evaluate("() => window.pwned") is None
    assert (
        page.evaluate("() => document.querySelectorAll('img, iframe, object, embed').length") == 0
    )
    assert page.evaluate("() => document.scripts.length") == 1  # the page's own, which sorts
    body = page.evaluate("() => document.body.textContent")
    assert ROSTER_NAME in body  # shown as the text it is
    assert "<script>window.pwned = 1</script>" in body
    assert MARKUP_FOLDER not in body and "pwned=6" not in body  # collect refused that folder
    # the grid sorts (the page's script runs under its hash), and says how
    page.click("th button[data-col='1']")
    assert page.evaluate("() => document.querySelectorAll('th[aria-sort]').length") == 1
    totals = page.evaluate("""() => [...document.querySelectorAll('table.sortable tbody tr')]
        .map(row => parseFloat(row.cells[1].getAttribute('data-key')))""")
    assert totals == sorted(totals) and totals[0] < totals[-1]
    assert page.evaluate("() => document.querySelector('th[aria-sort]').textContent") == "Total"
    page.click("th button[data-col='1']")
    totals = page.evaluate("""() => [...document.querySelectorAll('table.sortable tbody tr')]
        .map(row => parseFloat(row.cells[1].getAttribute('data-key')))""")
    assert totals == sorted(totals, reverse=True)
    page.context.close()


def test_axe_finds_no_violation(graded, browser, axe_js):  # noqa: F811 - the fixture
    course, _ = graded
    # axe is put into the page as a script: the page's policy would refuse it
    page, url, requests, errors = opened(browser, course, bypass_csp=True)
    assert axe_violations(page, axe_js) == []
    page.context.close()


def test_formgrader_opens_the_page_beside_the_gradebook(graded, browser):
    """On a class's hub the teacher opens the page from formgrader in their own JupyterLab (a
    Jupyter server with the teacher's settings here): "What the class missed" in its sidebar,
    then the lesson. The page is made afresh from the judge's records (none was there), shows
    the rules as planted, links its data files, which open, and fetches nothing elsewhere."""
    course, expected = graded
    shutil.rmtree(course / "insight")
    want = missed(records.read(expected, LESSON))
    token = "insight-test-token"
    with teachers_server(course, token) as base:
        context = with_room(browser.new_context())
        page = context.new_page()
        elsewhere = []
        page.on("request", lambda r: None if r.url.startswith(base) else elsewhere.append(r.url))
        # Logged in as on the hub, with the server's cookie (a token on a formgrader page would
        # give a cookie for formgrader's pages only: nbgrader's base_url drops the last "/").
        page.goto(f"{base}/api/status?token={token}")
        page.goto(f"{base}/formgrader/gradebook")
        page.get_by_role("link", name="What the class missed", exact=True).click()
        page.get_by_role("link", name=f"What the class missed in {LESSON}").click()
        page.wait_for_url(f"**/formgrader/insight/files/insight/{LESSON}.html")
        counts = page.evaluate("""() => [...document.querySelectorAll('ol.rules > li')].map(li =>
            [li.querySelector('.exercise').textContent, li.querySelector('.rule').textContent,
             parseInt(li.querySelector('.count').textContent, 10)])""")
        assert counts and all(count == len(want[(ex, rule)]) for ex, rule, count in counts)
        assert page.evaluate("() => window.origin") == "null"  # a sandbox of its own origin
        # its data beside it, downloaded with the teacher's click
        with page.expect_download() as download:
            page.get_by_role("link", name=f"{LESSON}-rules.csv").click()
        with open(download.value.path(), encoding="utf-8") as handle:
            assert handle.readline().startswith("exercise,")
        # a link to where the lesson teaches a rule opens that lesson in JupyterLab
        lesson = page.locator("ol.rules a[href*='source/']").first.get_attribute("href")
        reply = context.request.get(
            f"{base}/formgrader/insight/files/insight/{lesson}", max_redirects=0
        )
        assert reply.status == 302, reply.status
        assert reply.headers["location"].split("#")[0] == (
            f"/lab/tree/{course.name}/source/{LESSON}/{LESSON}.ipynb"
        )
        assert elsewhere == []
        context.close()


def test_a_class_of_30_as_the_guide_shows_it(tmp_path, browser, axe_js):  # noqa: F811 - the fixture
    released = tmp_path / "released"
    step(released, "release", LESSON)
    course = make_class(tmp_path, released, 30)
    made = run_to_end(
        [sys.executable, "-m", "tools.insight", "--course", str(course), LESSON], 300, cwd=ROOT
    )
    assert made.returncode == 0, made.stdout + made.stderr
    want = missed(records.read(course, LESSON))
    page, url, requests, errors = opened(browser, course, bypass_csp=True)
    assert requests[:1] == [url] and errors == []
    first = page.evaluate(
        "() => parseInt(document.querySelector('ol.rules .count').textContent, 10)"
    )
    assert first == max(len(who) for who in want.values())
    assert page.evaluate("() => document.querySelectorAll('table.sortable tbody tr').length") == 30
    page.evaluate("() => document.querySelector('ol.rules details').open = true")
    page.evaluate("() => document.getElementById('exercises').scrollIntoView({block: 'start'})")
    ARTIFACTS.mkdir(exist_ok=True)
    page.set_viewport_size({"width": 1000, "height": 1250})
    page.screenshot(path=str(ARTIFACTS / "insight.png"))
    if os.environ.get("UPDATE_SCREENSHOTS") == "1":
        shutil.copy(ARTIFACTS / "insight.png", ROOT / "docs/insight.png")
    assert axe_violations(page, axe_js) == []
    page.context.close()
