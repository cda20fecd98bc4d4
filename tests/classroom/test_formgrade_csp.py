"""formgrader's manual grading page runs its own scripts and no other, even with the cleaner
bypassed (tools/grading/formgrade_page.py): the page of a submission carrying script,
rendered as formgrader renders it under the course's settings but with the cleaner taken out,
and more script injected into the rendered page, is served on loopback beside formgrader's own
static files and opened in Chromium. Nothing injected runs (inline script, an ``onerror``
handler, a ``javascript:`` link, a ``.js`` file of the same server); formgrader's own scripts
all load and its buttons work (the student name's eye, which was an ``onclick``; the tooltips).
The same page without its policy runs the injected script: the attack is live, the policy holds
it."""

import os
import re
import threading
from html.parser import HTMLParser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from chromium import chromium_or_skip, launched, with_room
from processes import patience, wait_for

nbgrader = pytest.importorskip("nbgrader")
from nbconvert.exporters import HTMLExporter  # noqa: E402  (after the setup above)
from traitlets.config import Config  # noqa: E402  (after the setup above)

from classroom.test_sanitize import TEMPLATES, hostile_notebook, resources_for  # noqa: E402  (after the setup above)
from tools.grading.student_version import course_config  # noqa: E402  (after the setup above)

STATIC = os.path.join(os.path.dirname(TEMPLATES), "static")
BASE = "/user/teacher"


def ran(what):
    return f"(window.ran = (window.ran || []).concat('{what}'))"


INJECTED = (
    f"<script>{ran('inline')}; document.title = 'pwned'</script>"
    f'<img id="bad-img" src="/nothing.png" onerror="{ran("onerror")}">'
    f'<a id="bad-link" href="javascript:{ran("link")}">click</a>'
    f'<script src="{BASE}/files/student.js"></script>'
    f'<iframe srcdoc="<script>parent.{ran("frame")}</script>"></iframe>'
    '<object data="/nothing.swf"></object>'
)


def uncleaned_page():
    """The grading page of the hostile notebook as formgrader makes it under the course's
    settings, but with the course's cleaner (and nbconvert's) left out, then script injected."""
    made = Config()  # formgrader's build_extra_config, then the settings' files
    made.HTMLExporter.template_name = "formgrade"
    made.HTMLExporter.extra_template_basedirs = [TEMPLATES]
    made.merge(course_config())
    made.HTMLExporter.preprocessors = [
        step for step in made.HTMLExporter.preprocessors if step.__name__ != "CourseSanitizer"
    ]
    made.HTMLExporter.sanitize_html = False
    resources = dict(resources_for("formgrade"), base_url=BASE)
    page, _ = HTMLExporter(config=made).from_notebook_node(hostile_notebook(), resources=resources)
    assert 'onerror="document.title' in page  # the cleaner is out: the student's markup is there
    return page.replace("</body>", INJECTED + "</body>")


class Pages(BaseHTTPRequestHandler):
    pages: dict = {}

    def do_GET(self):
        path = self.path.split("?")[0]
        if path in self.pages:
            body, kind = self.pages[path].encode(), "text/html"
        elif path == f"{BASE}/files/student.js":  # a student's file the teacher's server serves
            body, kind = ran("self-file").encode() + b";", "text/javascript"
        elif path.startswith(f"{BASE}/formgrader/static/") and ".." not in path:
            file = os.path.join(STATIC, path[len(f"{BASE}/formgrader/static/") :])
            if not os.path.isfile(file):
                return self.send_error(404)
            with open(file, "rb") as handle:
                body = handle.read()
            kind = "text/css" if file.endswith(".css") else "text/javascript"
        else:
            return self.send_error(404)
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def served():
    page = uncleaned_page()
    Pages.pages = {
        "/guarded": page,
        "/unguarded": re.sub(r"<meta[^>]*Content-Security-Policy[^>]*>", "", page),
    }
    server = ThreadingHTTPServer(("127.0.0.1", 0), Pages)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


#: Each of formgrader's own scripts has run: its files (jQuery, bootstrap, formgrade.js), its
#: variables, MathJax's set-up, toggle_name, the tooltips and listeners on the name's eye.
OWN_SCRIPTS_RAN = (
    "document.readyState === 'complete' && !!window.jQuery && !!$.fn.tooltip && "
    "!!window.Backbone && typeof window.FormGrader === 'function' && typeof window.linkTo === 'function' && "
    "base_url === '/user/teacher/formgrader' && !!window.MathJax && "
    "typeof window.toggle_name === 'function' && "
    "!!$('span.glyphicon.name-hidden').data('bs.tooltip')"
)

VIOLATIONS = """window.violations = [];
document.addEventListener('securitypolicyviolation', e => window.violations.push(
    {directive: e.effectiveDirective, blocked: e.blockedURI}));"""


def test_injected_script_runs_nothing_and_formgraders_own_buttons_work(served):
    chromium = chromium_or_skip("the grading page's Chromium check")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright, launched(playwright, chromium) as browser:
        context = with_room(browser.new_context())
        context.route(
            "**/*",
            lambda route: (
                route.continue_() if route.request.url.startswith(served) else route.abort()
            ),
        )
        context.add_init_script(VIOLATIONS)

        page = context.new_page()
        page.goto(f"{served}/unguarded")
        wait_for(
            lambda: page.evaluate("document.readyState === 'complete'"),
            "the page without its policy",
            limit=30,
        )
        page.click("#bad-link")
        # Without its policy the page runs what was injected: the attack is real.
        assert {"inline", "onerror", "self-file", "link"} <= set(page.evaluate("window.ran || []"))

        page = context.new_page()
        page.goto(f"{served}/guarded")
        # formgrader's own scripts ran: jQuery, bootstrap's tooltips on the name's eye. (Polled
        # from outside the page: waiting inside it would evaluate a string, which the policy forbids.)
        wait_for(
            lambda: page.evaluate(OWN_SCRIPTS_RAN),
            "formgrader's scripts ran on the grading page",
            limit=30,
        )
        page.click("#bad-link")
        assert page.evaluate("window.ran") is None
        assert page.title() != "pwned"
        # The eye (an onclick in nbgrader's page) shows and hides the student's name.
        assert not page.locator("a.name-shown").is_visible()
        page.click("span.glyphicon.name-hidden")
        assert page.locator("a.name-shown").is_visible()
        page.click("span.glyphicon.name-shown")
        assert (
            page.locator("a.name-hidden").is_visible()
            and not page.locator("a.name-shown").is_visible()
        )
        violations = page.evaluate("window.violations")
        # Blocked: the injected script, handlers and file; never one of formgrader's own files.
        assert any(v["blocked"] == "inline" for v in violations), violations
        assert any(v["blocked"].endswith("/files/student.js") for v in violations), violations
        assert not [v for v in violations if "/formgrader/static/" in v["blocked"]], violations
        assert page.evaluate("window.ran") is None


#: A teacher's Jupyter server of a class's hub, started in a home with no course folder yet
#: (the guide's order: log in, then release); it prints the grading page its formgrader makes.
SERVER_BEFORE_THE_COURSE = """
import asyncio, os, sys
import nbformat
from jupyter_server.serverapp import ServerApp
from tornado.ioloop import IOLoop

app = ServerApp()
app.initialize(["--ServerApp.open_browser=False", "--port=0", "--ServerApp.root_dir=" + os.environ["HOME"]])
IOLoop.current().run_sync(lambda: asyncio.sleep(0.1))  # (what extensions do once all are loaded)
notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("My notes")])
page, _ = app.web_app.settings["nbgrader_exporter"].from_notebook_node(notebook, resources=%r)
sys.stdout.write(page)
"""


def test_a_server_started_before_the_course_has_the_courses_grading_page(tmp_path):
    """formgrader's settings put nbgrader's template folder back over the course's settings
    files; only a course folder read later set the course's page. The course's extension sets it
    whatever the order: a teacher's server of the hub, started where no ~/course is, renders
    the course's page (a policy naming a nonce, which each script carries; no onclick)."""
    import subprocess
    import sys

    from tools.hub.settings import ROLES, ROOT

    resources = dict(resources_for("formgrade"))
    env = dict(
        os.environ,
        HOME=str(tmp_path),
        PYTHONPATH=str(ROOT),
        JUPYTER_CONFIG_PATH=os.pathsep.join([str(ROLES / "teacher"), str(ROLES / "common")]),
        JUPYTER_DATA_DIR=str(tmp_path / "data"),
        JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"),
    )
    env.pop("JUPYTER_CONFIG_DIR", None)
    run = subprocess.run(
        [sys.executable, "-c", SERVER_BEFORE_THE_COURSE % (resources,)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=patience(120),
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert not (tmp_path / "course").exists()
    policy, nonces, handlers = own_scripts(run.stdout)
    assert policy, run.stderr[-5000:]
    nonce = re.search(r"script-src 'nonce-([^']+)'", policy).group(1)
    assert nonces and set(nonces) == {nonce}, nonces  # every script carries the page's nonce
    assert not handlers and "My notes" in run.stdout


class _Scripts(HTMLParser):
    def __init__(self):
        super().__init__()
        self.policy, self.nonces, self.handlers = None, [], []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "meta" and (attrs.get("http-equiv") or "").lower() == "content-security-policy":
            self.policy = attrs.get("content")
        if tag == "script":
            self.nonces.append(attrs.get("nonce"))
        self.handlers += [name for name in attrs if name.startswith("on")]


def own_scripts(page):
    """(the page's Content-Security-Policy, the nonce of each of its scripts, its handlers'
    attributes), as a browser reads them."""
    found = _Scripts()
    found.feed(page)
    return found.policy, found.nonces, found.handlers
