"""No script or markup of a submission in anyone's browser (tools/grading/sanitize.py):
formgrader's manual grading page and a feedback page, rendered by nbgrader's own templates
under the course's nbgrader settings (as formgrader and ``nbgrader generate_feedback`` make
their exporters), from a submission carrying script in a markdown cell, a raw cell and its
outputs. The pages are parsed: every script and event handler in them is one the page has for
an honest notebook too, and the student's words are there as text. (tests/classroom/test_grading.py's
day opens the hostile student's feedback page in Chromium.)"""

import copy
import os
from html.parser import HTMLParser

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output, new_raw_cell

nbgrader = pytest.importorskip("nbgrader")
from nbconvert.exporters import HTMLExporter  # noqa: E402  (after the setup above)
from traitlets.config import Config  # noqa: E402  (after the setup above)

from tools.grading.student_version import course_config  # noqa: E402  (after the setup above)

TEMPLATES = os.path.join(
    os.path.dirname(nbgrader.__file__), "server_extensions", "formgrader", "templates"
)
ATTACK = "document.title = 'pwned'"
MARKDOWN = (
    f'My notes <img src="x" onerror="{ATTACK}"> <script>{ATTACK}</script> '
    '[click me](javascript:alert(1)) <a href="JaVaScRiPt:alert(2)">me too</a> '
    '<iframe src="data:text/html,hi"></iframe> <svg onload="alert(3)"></svg>'
)
HIDDEN = "### BEGIN HIDDEN TESTS\nassert 'the hidden case'\n### END HIDDEN TESTS"
RAW = f'<script>{ATTACK}</script><img src=x onerror="{ATTACK}">'


def hostile_notebook():
    code = new_code_cell(f"print('hi')\n{HIDDEN}", execution_count=1)
    code.metadata["nbgrader"] = {
        "grade": True,
        "grade_id": 'x" autofocus onfocus="alert(4)',
        "points": 1,
        "solution": False,
        "locked": True,
        "schema_version": 3,
        "score": 0,
    }
    code.metadata["tags"] = ['t" onmouseover="alert(5)']
    code.outputs = [
        new_output(
            "display_data",
            data={
                "text/html": f'<b>bold</b><img src=x onerror="{ATTACK}">',
                "text/plain": "an html output",
            },
        ),
        new_output(
            "display_data",
            data={"image/svg+xml": '<svg onload="alert(6)"><script>alert(7)</script></svg>'},
        ),
        new_output("display_data", data={"application/javascript": ATTACK, "text/plain": "js"}),
        new_output("display_data", data={"text/markdown": f"<script>{ATTACK}</script>"}),
        new_output(
            "display_data",
            data={"text/latex": "$\\href{javascript:alert(8)}{x}$", "image/png": "iVBORw0KGgo="},
            metadata={
                "image/png": {"width": '1 onerror="alert(9)"', "alt": '" onerror="alert(10)'}
            },
        ),
        new_output(
            "execute_result",
            data={"text/plain": "<script>shown as text</script>"},
            execution_count=1,
        ),
        new_output("stream", name="stdout", text=f"<script>{ATTACK}</script>\n"),
        new_output(
            "error", ename="ValueError", evalue=f'<img src=x onerror="{ATTACK}">', traceback=[]
        ),
    ]
    raw_html = new_raw_cell(RAW, metadata={"raw_mimetype": "text/html"})
    raw_plain = new_raw_cell(RAW)
    nb = new_notebook(
        cells=[new_markdown_cell(MARKDOWN), raw_html, raw_plain, code],
        metadata={
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
            "widgets": {"application/vnd.jupyter.widget-state+json": {"state": {}}},
        },
    )
    return nb


def honest_notebook():
    code = new_code_cell("print('hi')", execution_count=1)
    code.metadata["nbgrader"] = {
        "grade": True,
        "grade_id": "x",
        "points": 1,
        "solution": False,
        "locked": True,
        "schema_version": 3,
        "score": 0,
    }
    code.outputs = [new_output("stream", name="stdout", text="hi\n")]
    return new_notebook(
        cells=[new_markdown_cell("My notes"), code],
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}},
    )


class Active(HTMLParser):
    """What in a page can run or fetch: scripts, handlers, frames, links to javascript:."""

    def __init__(self):
        super().__init__()
        self.found, self.text, self._in_script = [], [], False

    def handle_starttag(self, tag, attrs):
        if tag == "script":
            self._in_script = True
            self.found.append(("script", dict(attrs).get("src")))
        if tag in ("iframe", "object", "embed", "svg", "base", "form", "frame", "math"):
            self.found.append((tag, None))
        if tag == "meta" and (dict(attrs).get("http-equiv") or "").lower() == "refresh":
            self.found.append(("refresh", None))
        for name, value in attrs:
            if name.startswith("on"):
                self.found.append(("handler", f"{tag} {name}={value}"))
            if (
                name in ("href", "src", "action", "formaction", "xlink:href")
                and value
                and value.strip().lower().startswith(("javascript:", "vbscript:", "data:text"))
            ):
                self.found.append(("link", f"{tag} {name}={value}"))

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.found.append(("inline script", data.strip()[:200]))
        else:
            self.text.append(data)


def active(page):
    parser = Active()
    parser.feed(page)
    return parser


def exporter(template, tmp_path):
    """An HTMLExporter made as formgrader (``formgrade``) or ``nbgrader generate_feedback``
    (``feedback``) makes its own: the course's settings, nbgrader's template on top; for
    feedback, GenerateFeedback's own steps but the gradebook's (GetGrades)."""
    config = copy.deepcopy(course_config())
    if template == "feedback":
        from nbgrader.converters import GenerateFeedback
        from nbgrader.coursedir import CourseDirectory
        from nbgrader.preprocessors import GetGrades

        converter = GenerateFeedback(coursedir=CourseDirectory(root=str(tmp_path)), config=config)
        made = converter.exporter_class(parent=converter, config=converter.config)
        for step in converter.preprocessors:
            if step is not GetGrades:
                made.register_preprocessor(step, enabled=True)
        return made
    made = (
        Config()
    )  # formgrader.py's build_extra_config, under the settings' files (as NbGrader loads them)
    made.HTMLExporter.template_name = template
    made.HTMLExporter.extra_template_basedirs = [TEMPLATES]
    made.merge(config)
    return HTMLExporter(config=made)


def resources_for(template):
    if template == "formgrade":
        return {
            "assignment_id": "a",
            "notebook_id": "n",
            "submission_id": "s1",
            "index": 0,
            "total": 1,
            "base_url": "/user/teacher",
            "student": "mallory",
            "last_name": None,
            "first_name": None,
            "notebook_path": "/x/n.ipynb",
        }
    return {
        "nbgrader": {
            "student": "mallory",
            "assignment": "a",
            "notebook": "n",
            "score": 0,
            "max_score": 1,
            "late_penalty": 0,
        }
    }


@pytest.mark.parametrize("template", ["formgrade", "feedback"])
def test_a_submissions_script_is_text_on_the_page(template, tmp_path):
    made = exporter(template, tmp_path)
    honest, _ = made.from_notebook_node(honest_notebook(), resources=resources_for(template))
    page, _ = made.from_notebook_node(hostile_notebook(), resources=resources_for(template))
    allowed = active(honest).found
    extra = [item for item in active(page).found if item not in allowed]
    assert not extra, extra
    text = "".join(active(page).text)
    assert (
        "My notes" in text and f"<script>{ATTACK}</script>" in text
    )  # the student's words, as text
    assert "<script>shown as text</script>" in text
    assert 'onerror="alert(9)"' not in page and "alert(10)" not in page
    if template == "feedback":
        assert (
            "the hidden case" not in page
            and "the hidden case" in hostile_notebook().cells[3].source
        )


def test_a_feedback_page_runs_nothing_and_fetches_nothing(tmp_path):
    page, _ = exporter("feedback", tmp_path).from_notebook_node(
        honest_notebook(), resources=resources_for("feedback")
    )
    head = page[: page.index("</head>")]
    policy = head.split('http-equiv="Content-Security-Policy" content="', 1)[1].split('"', 1)[0]
    rules = dict((part.split() + [""])[:2] for part in policy.split(";") if part.strip())
    assert (
        rules["default-src"] == "'none'" and "script-src" not in rules
    )  # no script: default-src 'none'
    assert head.index("Content-Security-Policy") < min(
        (head.index(tag) for tag in ("<script", "<link", "<style") if tag in head),
        default=len(head),
    )


def test_cleaning_twice_changes_nothing_that_shows(tmp_path):
    from tools.grading.sanitize import clean_notebook

    once = clean_notebook(hostile_notebook())
    twice = clean_notebook(copy.deepcopy(once))
    page_once, _ = exporter("feedback", tmp_path).from_notebook_node(
        once, resources=resources_for("feedback")
    )
    page_twice, _ = exporter("feedback", tmp_path).from_notebook_node(
        twice, resources=resources_for("feedback")
    )
    assert "".join(active(page_once).text).split() == "".join(active(page_twice).text).split()
    assert nbformat.validate(twice) is None


def test_every_lesson_stays_a_valid_notebook_once_cleaned():
    """nbconvert refuses a notebook that is not valid after a preprocessor (no page at all)."""
    from pathlib import Path

    from tools.grading.sanitize import clean_notebook

    lessons = sorted(
        (Path(__file__).resolve().parents[2] / "notebooks" / "learner").glob("*.ipynb")
    )
    assert lessons
    for path in lessons:
        assert nbformat.validate(clean_notebook(nbformat.read(str(path), as_version=4))) is None, (
            path.name
        )


def test_formgraders_own_exporter_runs_the_cleaner(tmp_path, monkeypatch):
    """formgrader, started in a course directory of the course's (its nbgrader_config.py loads
    the course's settings), makes its exporter with the cleaner in it."""
    from nbgrader.server_extensions.formgrader.formgrader import FormgradeExtension

    from tools.grading.course_dir import prepare
    from tools.grading.sanitize import CourseSanitizer

    monkeypatch.chdir(prepare(tmp_path / "course"))
    extension = FormgradeExtension()
    extension.initialize([])
    made = HTMLExporter(config=extension.config)  # as formgrader.py's init_tornado_settings
    assert any(isinstance(step, CourseSanitizer) and step.enabled for step in made._preprocessors)
    honest, _ = made.from_notebook_node(honest_notebook(), resources=resources_for("formgrade"))
    page, _ = made.from_notebook_node(hostile_notebook(), resources=resources_for("formgrade"))
    assert [item for item in active(page).found if item not in active(honest).found] == []


def test_formgraders_page_runs_only_scripts_with_its_own_nonce(tmp_path, monkeypatch):
    """formgrader (started as in the test above) renders the course's copy of its page: a policy
    first, no inline handler, every script with the page's nonce, and each page a nonce of its
    own (tests/classroom/test_formgrade_csp.py opens such a page in Chromium)."""
    import html
    import re

    from nbgrader.server_extensions.formgrader.formgrader import FormgradeExtension

    from tools.grading.course_dir import prepare

    monkeypatch.chdir(prepare(tmp_path / "course"))
    extension = FormgradeExtension()
    extension.initialize([])
    made = HTMLExporter(config=extension.config)
    nonces = []
    for notebook in (honest_notebook(), hostile_notebook()):
        page, _ = made.from_notebook_node(notebook, resources=resources_for("formgrade"))
        head = page[: page.index("</head>")]
        policy = re.search(r"<meta[^>]*Content-Security-Policy[^>]*>", head).group(0)
        assert head.index(policy) < head.index("<script")
        rules = dict(
            (part.split(None, 1) + [""])[:2]
            for part in html.unescape(policy).split('content="')[1].split('"')[0].split(";")
            if part.strip()
        )
        nonce = re.search(r"'nonce-([^']+)'", rules["script-src"]).group(1)
        assert (
            "'unsafe-inline'" not in rules["script-src"]
            and "'unsafe-eval'" not in rules["script-src"]
        )
        assert "'self'" not in rules["script-src"] and "'strict-dynamic'" not in rules["script-src"]
        assert rules["object-src"] == "'none'" and rules["base-uri"] == "'none'"
        scripts = re.findall(r"<script\b[^>]*>", page)
        assert scripts and all(f'nonce="{nonce}"' in tag for tag in scripts), scripts
        assert not [item for item in active(page).found if item[0] == "handler"]
        nonces.append(nonce)
    assert nonces[0] != nonces[1] and len(nonces[0]) >= 16


def test_a_lessons_folded_answer_stays_folded_not_shown_as_tags():
    """The lessons fold their answers in ``<details><summary>``: the cleaner keeps both (they
    run nothing), where it showed them as text on every feedback page."""
    from tools.grading.sanitize import markdown_as_clean_html

    html = markdown_as_clean_html(
        "**Think.** Why?\n\n<details><summary>An answer</summary>\n\nBecause.\n\n</details>\n"
    )
    assert "<details>" in html and "<summary>An answer</summary>" in html
    assert "&lt;details&gt;" not in html and "&lt;summary&gt;" not in html


def nested_tags(count, start=0):
    """Formatting tags left open, each with an attribute of its own (the parser's list of active
    formatting elements cannot fold them into one)."""
    return "".join(f"<b title={index}>" for index in range(start, start + count)) + "the end"


def test_a_cell_of_ten_thousand_open_tags_costs_what_a_lesson_does(monkeypatch):
    """Two cells of 10,000 nested tags each (the parser's cost grew with the square of their
    number: 30 s for 4,000) are cleaned for about what an ordinary lesson costs, measured side
    by side in CPU time: the parser is handed only what the caps let through, and the rest of
    each cell is shown as text after one line saying so."""
    import time
    from pathlib import Path

    import bleach

    from tools.grading import markup_budget, sanitize

    handed, clean = [], bleach.clean

    def counting_clean(text, **options):
        handed.append(text)
        return clean(text, **options)

    monkeypatch.setattr(sanitize.bleach, "clean", counting_clean)
    hostile = new_notebook(
        cells=[
            new_markdown_cell(nested_tags(10_000)),
            new_markdown_cell("".join(f"<p><b title={i}>x</p>" for i in range(10_000))),
        ]
    )
    lesson = nbformat.read(
        str(Path(__file__).resolve().parents[2] / "notebooks" / "03_classifying.ipynb"),
        as_version=4,
    )

    def cpu(notebook):
        started = time.process_time()
        sanitize.clean_notebook(notebook)
        return time.process_time() - started

    ordinary_cost, hostile_cost = cpu(lesson), cpu(hostile)
    assert hostile_cost < 10 * max(ordinary_cost, 0.01), (hostile_cost, ordinary_cost)
    hostile_handed, handed[:] = handed[-2:], []
    assert all(text.count("<") <= markup_budget.CELL_TAGS for text in hostile_handed)
    first, second = (cell.source for cell in hostile.cells)
    for cleaned in (first, second):
        assert sanitize.CUT_WORDS.strip() in html_text(cleaned)
    assert "<b title=9999>" in html_text(first) and 'title="9999"' not in first  # shown, not parsed
    assert first.count("<b") <= markup_budget.MAX_FORMATTING + 1


def html_text(page):
    """The text a browser shows of ``page``."""
    parser = Active()
    parser.feed(page)
    return "".join(parser.text)


def test_the_notebooks_allowance_is_shared_by_its_cells():
    """Many cells each under the cell's caps: once the notebook's allowance of tags is spent,
    each later cell is shown as text, whole."""
    from tools.grading import markup_budget, sanitize

    cell = "<i>x</i> " * (markup_budget.CELL_TAGS - 10)
    count = markup_budget.NOTEBOOK_TAGS // markup_budget.CELL_TAGS + 3
    notebook = sanitize.clean_notebook(
        new_notebook(cells=[new_markdown_cell(cell) for _ in range(count)])
    )
    rendered = [sanitize.CUT_WORDS.strip() not in html_text(c.source) for c in notebook.cells]
    assert rendered[0] and not rendered[-1]
    assert rendered == sorted(
        rendered, reverse=True
    )  # the first cells whole, then the rest as text
    assert sum(c.source.count("<i>") for c in notebook.cells) <= markup_budget.NOTEBOOK_TAGS


def test_no_lesson_comes_near_a_cap():
    from pathlib import Path

    from tools.grading import sanitize

    for path in sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("[0-9]*.ipynb")):
        lesson = nbformat.read(str(path), as_version=4)
        cleaned = sanitize.clean_notebook(copy.deepcopy(lesson))
        assert len(cleaned.cells) == len(lesson.cells), path.name  # every cell shown
        assert not [
            c for c in cleaned.cells if sanitize.CUT_WORDS.strip() in html_text(c.source)
        ], path.name


def test_a_page_shows_a_bounded_number_of_cells_and_every_one_of_the_course():
    """Thousands of cells of a student's own cost the page nothing past the cap: they are one
    line where they were, and a cell of the course's after them (a graded one) is still shown."""
    from tools.grading import markup_budget, sanitize

    cap = markup_budget.NOTEBOOK_CELLS
    graded = new_code_cell("assert True", metadata={"nbgrader": {"grade": True, "grade_id": "t"}})
    cells = [new_code_cell(f"x = {n}") for n in range(cap + 40)]
    cells.insert(cap + 10, graded)
    cells.append(new_markdown_cell("the last words"))
    shown = sanitize.clean_notebook(new_notebook(cells=cells)).cells
    assert [c.source for c in shown[:cap]] == [f"x = {n}" for n in range(cap)]
    assert shown[cap + 1].source == "assert True"
    notes = [html_text(shown[cap].source), html_text(shown[cap + 2].source)]
    assert ["10 more cells" in notes[0], "31 more cells" in notes[1]] == [True, True], notes
    assert len(shown) == cap + 3
    forged = [new_code_cell("y", metadata={"nbgrader": {"solution": True}}) for _ in range(3 * cap)]
    shown = sanitize.clean_notebook(new_notebook(cells=cells[:cap] + forged)).cells
    assert len(shown) == 2 * cap + 1, len(shown)  # marks a student wrote: as many again, at most
    assert f"{2 * cap:,} more cells" in html_text(shown[-1].source)
