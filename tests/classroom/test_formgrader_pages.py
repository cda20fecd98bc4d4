"""formgrader's list pages (assignments, submissions, students) write what their address says
as text and run only their own scripts (tools/grading/formgrader_pages.py).

nbgrader renders them without autoescape: the assignment's name from the address went into a
``<script>`` of the page as it was, so a link to ``manage_submissions/";...;"`` ran script as the
teacher who followed it. The fast tests render nbgrader's own templates through the course's
environment; the last one starts a real Jupyter server with the teacher's settings of a class
on JupyterHub (tools/hub/roles/teacher and common) and opens such a link in Chromium."""

import os
import re
import sys
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from chromium import chromium_or_skip, launched
from processes import wait_for

nbgrader = pytest.importorskip("nbgrader")
from nbgrader.server_extensions.formgrader import handlers  # noqa: E402  (after the setup above)

from classroom.teachers_server import teachers_server  # noqa: E402  (after the setup above)
from classroom.test_sanitize import active  # noqa: E402  (after the setup above)
from tools.grading import formgrader_pages  # noqa: E402  (after the setup above)

ROOT = Path(__file__).resolve().parents[2]
ATTACK = '";window.ran=1;"<img src=x onerror="window.ran=2">'
PAGES = sorted(
    name
    for name in os.listdir(handlers.template_path)
    if name.endswith(".tpl") and name != "formgrade_404.tpl"
) + ["insight.tpl"]  # (that one is broken in nbgrader; this one, the course's, beside them)
VALUES = dict(
    assignments=[{"name": ATTACK, "graded": 1}],
    said=ATTACK,
    base_url="/user/teacher",
    assignment_id=ATTACK,
    notebook_id=ATTACK,
    student_id=ATTACK,
    course_dir="/c",
    url_prefix="c",
    error_code=500,
    windows=False,
)


def unguarded(name):
    """The page as nbgrader itself renders it."""
    from jinja2 import Environment, FileSystemLoader

    return (
        Environment(loader=FileSystemLoader([handlers.template_path]))
        .get_template(name)
        .render(**VALUES)
    )


def test_nbgraders_own_pages_put_the_address_into_a_script():
    """The attack is real: without the course's environment, the name runs as script."""
    assert 'var assignment_id = "";window.ran=1;"' in unguarded("manage_submissions.tpl")


@pytest.mark.parametrize("name", PAGES)
def test_each_list_page_shows_the_address_as_text_and_runs_only_its_own_scripts(name):
    env = formgrader_pages.environment(handlers.template_path)
    first, second = (env.get_template(name).render(**VALUES) for _ in range(2))
    head = first[: first.lower().index("</head>")]
    policy = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', head)
    assert policy and head.index(policy.group(0)) < head.find("<script")
    nonce = re.search(r"script-src 'nonce-([^' ]+)'", policy.group(1)).group(1)
    assert "'unsafe-inline'" not in policy.group(1).split("script-src")[1].split(";")[0]
    scripts = re.findall(r"<script\b[^>]*>", first)
    assert scripts and all(f'nonce="{nonce}"' in tag for tag in scripts), scripts
    assert not [
        item for item in active(first).found if item[0] == "handler"
    ]  # the page's own neither
    assert 'window.ran=1;"' not in first and "<img src=x" not in first  # the address, as text
    assert nonce not in second  # a nonce per page
    if name.startswith(("base", "manage", "gradebook", "insight")):  # the pages with a sidebar
        assert first.count('<a href="/user/teacher/formgrader/insight">What the class') == 1


def test_the_page_of_what_the_class_missed_is_on_formgraders_own_addresses():
    """formgrader's handlers, added to a server as formgrader adds them, its "page not found"
    last: the course's list of assignments and its page of one come before it."""
    from tornado.httputil import HTTPHeaders, HTTPServerRequest, RequestStartLine
    from tornado.web import Application

    from tools.grading import formgrader_insight

    app = Application(base_url="/user/teacher/")
    app.add_handlers(
        ".*$",
        [("/user/teacher" + pattern, *rest) for pattern, *rest in handlers.default_handlers]
        + [("/user/teacher/formgrader/.*", handlers.Template404)],
    )
    assert formgrader_insight.install(app) == 1

    def found(path):
        request = HTTPServerRequest(
            start_line=RequestStartLine("GET", path, "HTTP/1.1"),
            headers=HTTPHeaders({"Host": "localhost"}),
        )
        return app.find_handler(request).handler_class.__name__

    assert found("/user/teacher/formgrader/insight") == "InsightList"
    assert found("/user/teacher/formgrader/insight/03_classifying") == "InsightPage"
    page = "/user/teacher/formgrader/insight/files/insight/03_classifying.html"
    assert found(page) == "InsightFiles"
    lesson = "/user/teacher/formgrader/insight/files/source/03_classifying/03_classifying.ipynb"
    assert found(lesson) == "InsightFiles"
    assert found("/user/teacher/formgrader/insight/files/gradebook.db") == "Template404"
    assert found("/user/teacher/formgrader/gradebook") == "GradebookAssignmentsHandler"
    assert found("/user/teacher/formgrader/nothing/here/at/all") == "Template404"
    command = formgrader_insight.command("/c", "03_classifying")
    assert command[1:] == [str(ROOT / "tools" / "insight" / "build.py"), "--course", "/c"] + [
        "03_classifying"
    ]


@pytest.mark.full
def test_a_link_to_formgrader_with_script_in_its_address_runs_nothing(tmp_path):
    """formgrader in a Jupyter server with the teacher's settings of a class on JupyterHub: the
    page a hostile link opens shows the name as text and runs none of it; the page's own
    script works (the list of assignments, from formgrader's API, and its Add button)."""
    chromium = chromium_or_skip("formgrader's pages' Chromium check")
    from playwright.sync_api import sync_playwright

    from tools.grading.course_dir import prepare

    course = prepare(tmp_path / "course")
    (tmp_path / "exchange").mkdir()
    token = "course-test-token"
    with teachers_server(course, token) as base:
        hostile = f"{base}/formgrader/manage_submissions/{urllib.parse.quote(ATTACK, safe='')}?token={token}"
        with urllib.request.urlopen(hostile, timeout=30) as response:
            page = response.read().decode()
        assert "Content-Security-Policy" in page and 'window.ran=1;"' not in page, page[:2000]
        with sync_playwright() as playwright, launched(playwright, chromium) as browser:
            tab = browser.new_page()
            tab.route(
                "**/*",
                lambda route: (
                    route.continue_() if route.request.url.startswith(base) else route.abort()
                ),
            )
            tab.goto(hostile)
            wait_for(
                lambda: tab.evaluate("document.readyState === 'complete' && !!window.jQuery"),
                "the submissions page",
                limit=30,
            )
            assert tab.evaluate("window.ran") is None
            assert ATTACK in tab.locator("ol.breadcrumb").inner_text()  # the name, shown as text
            tab.goto(f"{base}/formgrader/manage_assignments?token={token}")
            wait_for(
                lambda: tab.evaluate("!!document.querySelector('[data-course-click]')"),
                "the assignments page",
                limit=30,
            )
            tab.click("a[data-course-click]")  # Add new assignment...
            wait_for(
                lambda: tab.locator(".modal").first.is_visible(),
                "the Add new assignment dialog",
                limit=30,
            )


# --- formgrader's Autograde and Generate Feedback: the course's command, in a process of its own


def test_the_buttons_handlers_are_the_courses_on_nbgraders_addresses():
    """formgrader's handlers, added to a server as formgrader adds them: the course's take the
    place of Autograde's and Generate Feedback's (the class's and one student's), and no other."""
    from nbgrader.server_extensions.formgrader import apihandlers
    from tornado.web import Application

    from tools.grading import formgrader_buttons

    app = Application()
    app.add_handlers(".*$", apihandlers.default_handlers)
    assert formgrader_buttons.install(app) == 3

    def targets(router):
        for rule in router.rules:
            if hasattr(rule.target, "rules"):
                yield from targets(rule.target)
            else:
                yield rule.matcher.regex.pattern, rule.target

    found = dict(targets(app.default_router))
    ours = {
        pattern: target
        for pattern, target in found.items()
        if target.__module__ == formgrader_buttons.__name__
    }
    assert sorted(p.split("/")[-1].rstrip("$") for p in ours) == [
        "autograde",
        "generate_feedback",
        "generate_feedback",
    ]
    assert apihandlers.AutogradeHandler not in found.values()
    assert apihandlers.CollectHandler in found.values()


def test_the_command_is_the_makefiles():
    from tools.grading import formgrader_buttons

    made = formgrader_buttons.command("/c", "autograde", "03_classifying", "mallory")
    makefile = (ROOT / "Makefile").read_text()
    assert "tools/grading/classroom.py --course $(CLASSROOM)" in makefile
    assert made[1:] == [
        str(ROOT / "tools" / "grading" / "classroom.py"),
        "--course",
        "/c",
        "autograde",
        "03_classifying",
        "--student",
        "mallory",
    ]
    assert formgrader_buttons.command("/c", "feedback", "03_classifying")[-2:] == [
        "feedback",
        "03_classifying",
    ]


def test_a_button_waits_for_its_process_without_blocking_the_server(tmp_path):
    """The command runs in a process of its own: the server's loop goes on answering while it
    runs (here a ticker counts), and its answer is nbgrader's API's, for a failing command too."""
    import asyncio

    from tools.grading import formgrader_buttons
    from tools.grading.course_dir import prepare

    course = prepare(tmp_path / "course")

    async def both():
        ticks = []
        done = asyncio.Event()

        async def ticker():
            while not done.is_set():
                ticks.append(os.getpid())
                await asyncio.sleep(0.01)

        running = asyncio.ensure_future(ticker())
        slow = await formgrader_buttons.run(
            [sys.executable, "-c", "import os, time; time.sleep(1); print('pid', os.getpid())"]
        )
        failed = await formgrader_buttons.run(
            formgrader_buttons.command(course, "autograde", "03_classifying"), cwd=str(course)
        )
        done.set()
        await running
        return ticks, slow, failed

    ticks, slow, failed = asyncio.run(both())
    assert slow["success"] and int(slow["log"].split()[1]) != os.getpid()  # a process of its own
    assert len(ticks) > 5  # the loop went on while it ran
    assert not failed["success"] and failed["log"] and failed["error"]
