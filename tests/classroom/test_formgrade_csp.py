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
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from chromium import chromium_or_skip, launched
from processes import patience, wait_for

nbgrader = pytest.importorskip("nbgrader")
from nbconvert.exporters import HTMLExporter  # noqa: E402
from traitlets.config import Config  # noqa: E402

from classroom.test_sanitize import TEMPLATES, hostile_notebook, resources_for  # noqa: E402
from tools.grading.student_version import course_config  # noqa: E402

STATIC = os.path.join(os.path.dirname(TEMPLATES), "static")
BASE = "/user/teacher"


def ran(what):
    return f"(window.ran = (window.ran || []).concat('{what}'))"


INJECTED = (f"<script>{ran('inline')}; document.title = 'pwned'</script>"
            f'<img id="bad-img" src="/nothing.png" onerror="{ran("onerror")}">'
            f'<a id="bad-link" href="javascript:{ran("link")}">click</a>'
            f'<script src="{BASE}/files/student.js"></script>'
            f'<iframe srcdoc="<script>parent.{ran("frame")}</script>"></iframe>'
            '<object data="/nothing.swf"></object>')


def uncleaned_page():
    """The grading page of the hostile notebook as formgrader makes it under the course's
    settings, but with the course's cleaner (and nbconvert's) left out, then script injected."""
    made = Config()  # formgrader's build_extra_config, then the settings' files
    made.HTMLExporter.template_name = "formgrade"
    made.HTMLExporter.extra_template_basedirs = [TEMPLATES]
    made.merge(course_config())
    made.HTMLExporter.preprocessors = [step for step in made.HTMLExporter.preprocessors
                                       if step.__name__ != "CourseSanitizer"]
    made.HTMLExporter.sanitize_html = False
    resources = dict(resources_for("formgrade"), base_url=BASE)
    page, _ = HTMLExporter(config=made).from_notebook_node(hostile_notebook(), resources=resources)
    assert 'onerror="document.title' in page  # the cleaner is out: the student's markup is there
    return page.replace("</body>", INJECTED + "</body>")


class Pages(BaseHTTPRequestHandler):
    pages = {}

    def do_GET(self):  # noqa: N802 - http.server's name
        path = self.path.split("?")[0]
        if path in self.pages:
            body, kind = self.pages[path].encode(), "text/html"
        elif path == f"{BASE}/files/student.js":  # a student's file the teacher's server serves
            body, kind = ran("self-file").encode() + b";", "text/javascript"
        elif path.startswith(f"{BASE}/formgrader/static/") and ".." not in path:
            file = os.path.join(STATIC, path[len(f"{BASE}/formgrader/static/"):])
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
    Pages.pages = {"/guarded": page,
                   "/unguarded": re.sub(r'<meta[^>]*Content-Security-Policy[^>]*>', "", page)}
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
OWN_SCRIPTS_RAN = ("document.readyState === 'complete' && !!window.jQuery && !!$.fn.tooltip && "
                   "!!window.Backbone && typeof window.FormGrader === 'function' && typeof window.linkTo === 'function' && "
                   "base_url === '/user/teacher/formgrader' && !!window.MathJax && "
                   "typeof window.toggle_name === 'function' && "
                   "!!$('span.glyphicon.name-hidden').data('bs.tooltip')")

VIOLATIONS = """window.violations = [];
document.addEventListener('securitypolicyviolation', e => window.violations.push(
    {directive: e.effectiveDirective, blocked: e.blockedURI}));"""


def test_injected_script_runs_nothing_and_formgraders_own_buttons_work(served):
    chromium = chromium_or_skip("the grading page's Chromium check")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright, launched(playwright, chromium) as browser:
        context = browser.new_context()
        context.set_default_timeout(patience(30) * 1000)
        context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(served)
                      else route.abort())
        context.add_init_script(VIOLATIONS)

        page = context.new_page()
        page.goto(f"{served}/unguarded")
        wait_for(lambda: page.evaluate("document.readyState === 'complete'"), "the page without its policy",
                 limit=30)
        page.click("#bad-link")
        # Without its policy the page runs what was injected: the attack is real.
        assert {"inline", "onerror", "self-file", "link"} <= set(page.evaluate("window.ran || []"))

        page = context.new_page()
        page.goto(f"{served}/guarded")
        # formgrader's own scripts ran: jQuery, bootstrap's tooltips on the name's eye. (Polled
        # from outside the page: waiting inside it would evaluate a string, which the policy forbids.)
        wait_for(lambda: page.evaluate(OWN_SCRIPTS_RAN),
                 "formgrader's scripts ran on the grading page", limit=30)
        page.click("#bad-link")
        assert page.evaluate("window.ran") is None
        assert page.title() != "pwned"
        # The eye (an onclick in nbgrader's page) shows and hides the student's name.
        assert not page.locator("a.name-shown").is_visible()
        page.click("span.glyphicon.name-hidden")
        assert page.locator("a.name-shown").is_visible()
        page.click("span.glyphicon.name-shown")
        assert page.locator("a.name-hidden").is_visible() and not page.locator("a.name-shown").is_visible()
        violations = page.evaluate("window.violations")
        # Blocked: the injected script, handlers and file; never one of formgrader's own files.
        assert any(v["blocked"] == "inline" for v in violations), violations
        assert any(v["blocked"].endswith("/files/student.js") for v in violations), violations
        assert not [v for v in violations if "/formgrader/static/" in v["blocked"]], violations
        assert page.evaluate("window.ran") is None
