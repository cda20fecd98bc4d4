"""The course in the browser: the JupyterLite site of `make site`, offline, in Chromium.

The site is built by tools/site/build.py (which does nothing when its inputs
have not changed) and served by tools/site/serve.py on a free loopback port.
Headless Chromium (Debian's, driven by Python Playwright, as in
tests/test_browser.py) then:

* opens a learner copy, runs it top to bottom (Run All) and reads its
  self-check report, with not one traceback on the page;
* opens the playground (lesson 05), pastes a request and an HTML payload into
  the Classifier and checks the verdict, and that nothing became markup;
* runs the package in the site's Python (Pyodide's CPython 3.14) and compares
  its verdicts on the whole case table with this Python's;
* sees the page say that Python is starting while a kernel starts, and stop
  saying it once the kernel is idle;
* stops the site's server under a loaded lesson: its cells still run and it
  still saves (the change is there when the site is served again), but a
  lesson not opened before cannot be read and a reload fails;
* parses a text nested 100,000 deep after ``import mcp_lesson``, as lesson 03
  does: a RecursionError, and a parse error from classify_json, with the
  kernel alive after it (the package's own guard, mcp_lesson/protocol/deep_json.py).

A kernel start is most of a test's time (half a minute or more on a busy machine), so
checks that need a kernel share one where they can: the start page's learner copy is
also checked to open unmodified, and one page of lesson 06 serves the notice, the case
table, deep JSON and the stopped server.

Without a browser, the site's files are checked too: every wheel of the
rewritten pyodide-lock.json is there with its sha256, the kernel is told to
stay in the site, the page carries the notice for a starting kernel, and the
lessons are the repository's (06 and 07 with their note). The guard itself is
tried on this Python by tests/protocol/test_deep_json.py.

Nothing may leave the machine. Every request of the site (its pages, their
workers, where the kernel runs, and its service worker) to anything but
127.0.0.1 is recorded, and fails the test. Chromium's proxy is a trap on
loopback, so that none gets out: it refuses them, and Chromium's
own calls to its vendor's services (Debian's build makes some, for updates,
sign-in and autofill, whatever the page does), which are listed in
test-artifacts/site-offline.txt beside the count of the site's requests.

The kernel's start time (page shown to kernel idle) is written to
test-artifacts/site-timings.json, the build's output to site-build.log, and
what differs between the two Pythons (wording only) to site-python.txt. Set
UPDATE_SCREENSHOTS=1 to refresh docs/site.png from the same run.

Without Chromium (browser tests) or npm (all of them) the tests are
skipped with the reason; with CI=true they fail instead, so they never
silently vanish.
"""

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from chromium import chromium_or_skip, free_port, launched, listening, missing, with_room
from processes import patience, start_guarded

from tools.site import build as site_build
from tools.site import serve as site_serve

ROOT = Path(__file__).resolve().parents[1]
# Both run as scripts, as the Makefile runs them: the build's output goes to a
# log, and the server runs under start_guarded.
BUILD = Path(site_build.__file__)
SERVE = Path(site_serve.__file__)
SITE = site_build.OUTPUT
ARTIFACTS = ROOT / "test-artifacts"
DOCS = ROOT / "docs"
AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


#: How long a kernel may take to start (8-15 s is usual here), in seconds.
KERNEL_WAIT = 300

#: The learner copy a newcomer opens first, and the one with the first real exercise.
LEARNER_COPIES = ["00_start_here.ipynb", "03_classifying.ipynb"]

REQUEST = '{"jsonrpc": "2.0", "id": 41, "method": "tools/call", "params": {"name": "calculator"}}'
PAYLOAD = json.dumps({"jsonrpc": "2.0", "id": 43, "method": "<img src=x onerror=alert(1)>"})

KERNEL_IDLE = """() => {
  const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  return !!(w && w.sessionContext && w.sessionContext.session
            && w.sessionContext.kernelDisplayStatus === 'idle');
}"""

# Every code cell has run (a number in its prompt, no *) and the kernel is idle.
ALL_CELLS_RUN = """() => {
  const w = window.jupyterapp.shell.currentWidget;
  if (w.sessionContext.kernelDisplayStatus !== 'idle') return false;
  const prompts = [...w.node.querySelectorAll('.jp-CodeCell .jp-InputPrompt')]
    .map(e => e.textContent);
  return prompts.length > 0 && prompts.every(p => /\\[\\d+\\]/.test(p));
}"""

#: The site's notice while a notebook's Python starts (tools/site/kernel-notice.js).
KERNEL_NOTICE = "#course-kernel-notice"

# 'notice' once the notice is on the page while the notebook in front has a
# kernel that is not ready yet (both seen in the same instant); 'ready' if the
# kernel is ready first; false until one or the other.
NOTICE_OR_READY = """() => {
  const notice = document.querySelector('#course-kernel-notice');
  const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const status = w && w.sessionContext && w.sessionContext.session
                 && w.sessionContext.kernelDisplayStatus;
  if (status === 'idle' || status === 'busy') return 'ready';
  return !!(notice && notice.checkVisibility() && status) && 'notice';
}"""

# JavaScript, for the functions below: `code` sent to `kernel`; what it prints and the
# error it raises are collected in `out` as they come.
EXECUTE = """function execute(kernel, code) {
  const out = [];
  const future = kernel.requestExecute({code});
  future.onIOPub = (msg) => {
    const c = msg.content;
    if (c.text) out.push(c.text);
    if (c.ename) out.push(`${c.ename}: ${c.evalue}`);
  };
  return {future, out};
}
"""

# Runs Python in the kernel of the notebook in front; its output, or the error.
RUN_HERE = (
    """async (code) => {
"""
    + EXECUTE
    + """
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  const {future, out} = execute(kernel, code);
  await future.done;
  return out.join('');
}"""
)

# A file as the page's contents manager reads it: its first cell, or the error.
READ_FILE = """async (path) => {
  try {
    const model = await window.jupyterapp.serviceManager.contents.get(path, {content: true});
    const first = model.content.cells[0].source;
    return {ok: true, first: Array.isArray(first) ? first.join('') : first};
  } catch (error) {
    return {ok: false, error: String(error)};
  }
}"""

ERROR_OUTPUTS = (
    ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr'], "
    ".jp-RenderedText[data-mime-type='application/vnd.jupyter.stderr']"
)

# Runs pieces of Python one after the other in the kernel of the notebook in front; their
# outputs. Gives up after `seconds` a piece (a kernel that died never answers).
RUN_HERE_WITHIN = (
    """async ([codes, seconds]) => {
"""
    + EXECUTE
    + """
  const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
  const outs = [];
  for (const code of codes) {
    const {future, out} = execute(kernel, code);
    const late = new Promise(resolve => setTimeout(() => resolve('late'), seconds * 1000));
    const done = await Promise.race([future.done.then(() => 'done'), late]);
    outs.push(out.join(''));
    if (done !== 'done') return {done: false, outs};
  }
  return {done: true, outs};
}"""
)

# The package's verdicts and explanations on the whole case table, as JSON.
VERDICTS_CODE = """
import contextlib, doctest, io, json, sys
import mcp_lesson, mcp_lesson.rules.messages
from mcp_lesson import CASES, classify, classify_json, explain_json
from mcp_lesson.exercises.cases import TEXT_CASES
from mcp_lesson.exercises.selfcheck import run_check

def compiled_or_not():
    # [[module, imported from bytecode?], ...] of every module of site-packages this kernel
    # has imported by now (test_the_package_agrees_with_itself_on_pyodide picks the site's).
    import os
    return [[name, bool(module.__cached__ and os.path.exists(module.__cached__))]
            for name, module in sorted(sys.modules.items())
            if (getattr(module, "__file__", None) or "").endswith(".py")
            and "/site-packages/" in module.__file__ and getattr(module, "__cached__", None)]

reports = {name: run_check(getattr(mcp_lesson, name), name)
           for name in ("create_request", "classify", "classify_json", "error_response")}
with contextlib.redirect_stdout(io.StringIO()):  # a failing doctest prints its story
    failed = sum(doctest.testmod(module).failed for module in (mcp_lesson, mcp_lesson.rules.messages))
print(json.dumps({
    "python": sys.version.split()[0],
    "platform": sys.platform,
    "classify": [[c.name, *classify(c.message)] for c in CASES],
    "classify_json": [[c.name, *classify_json(c.text)] for c in TEXT_CASES],
    "explain_json": {c.name: explain_json(c.text) for c in TEXT_CASES},
    "checks": {name: [report.all_pass, report.summary()] for name, report in reports.items()},
    "doctests_failed": failed,
    "bytecode": compiled_or_not(),
}))
"""

#: A lesson's way to parse deep JSON: import the package, then parse. The
#: package guards json itself in the browser; nothing else in the site does.
DEEP = "[" * 100_000 + "]" * 100_000
DEEP_JSON_CODE = f"""
import json, json.scanner, sys
import mcp_lesson

deep = "[" * 100_000 + "]" * 100_000
try:
    json.loads(deep)
    loads = "parsed"
except RecursionError:
    loads = "RecursionError"
print(json.dumps({{
    "platform": sys.platform,
    "scanner": json.scanner.make_scanner.__module__,
    "loads": loads,
    "classify_json": list(mcp_lesson.classify_json(deep)),
    "after": json.loads({REQUEST!r}),
}}))
"""


# --- helpers -------------------------------------------------------------------------


def on_loopback(url):
    """True for a URL that stays on this machine (127.0.0.1, or data: and blob:)."""
    parts = urlsplit(url)
    return parts.scheme in ("data", "blob", "about") or parts.hostname == "127.0.0.1"


class Trap:
    """Chromium's proxy: records every request that would leave the machine, refuses it."""

    def __init__(self):
        self.seen = []
        trap = self

        class Handler(BaseHTTPRequestHandler):
            def __getattr__(self, name):
                if name.startswith("do_"):  # any method, CONNECT included
                    return self.refuse
                raise AttributeError(name)

            def refuse(self):
                trap.seen.append(f"{self.command} {self.path}")
                self.send_error(403, "this test allows no request off the machine")

            def log_message(self, format, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


# --- fixtures --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def chromium():
    return chromium_or_skip("the site tests")


@pytest.fixture(scope="module")
def site():
    """build/site, built (or found up to date) by tools/site/build.py."""
    if shutil.which("npm") is None:
        missing(
            "npm was not found: the site takes Pyodide from its npm package "
            "(Debian/Ubuntu: apt-get install nodejs npm)"
        )
    ARTIFACTS.mkdir(exist_ok=True)
    log = ARTIFACTS / "site-build.log"
    started = time.monotonic()
    with open(log, "w") as out:
        done = subprocess.run(
            [sys.executable, BUILD],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    if done.returncode != 0:
        pytest.fail(f"`make site` failed:\n{log.read_text()[-3000:]}", pytrace=False)
    assert (SITE / "index.html").exists()
    return {"build_seconds": round(time.monotonic() - started, 1)}


class SiteServer:
    """tools/site/serve.py on a free loopback port, under the guard of
    processes.start_guarded (it dies with the test run, however that ends);
    ``stop()`` ends it and waits for it, as does leaving the ``with`` block;
    ``port`` serves again where a stopped one did (the same browser storage)."""

    def __init__(self, log_name="site-server.log", port=None):
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = ARTIFACTS / log_name
        self.log = open(self.log_path, "a" if port else "w")
        self.process = start_guarded(
            [sys.executable, SERVE, "--port", str(self.port)],
            cwd=ROOT,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )

    def __enter__(self):
        deadline = time.monotonic() + patience(30)
        while not listening(self.port):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                pytest.fail(f"the site server did not start:\n{self.log_path.read_text()}")
            time.sleep(0.1)
        return self

    def stop(self):
        if not self.log.closed:  # once: the guard's process group is gone after that
            self.process.end()
            self.log.close()

    def __exit__(self, *exc):
        self.stop()


@pytest.fixture(scope="module")
def site_url(site):
    """The site, served for the module's tests."""
    with SiteServer() as server:
        yield server.url


class OfflineBrowser:
    """Opens pages, each in a fresh browser context (JupyterLite keeps its open tabs
    and files in the browser's storage), and records every request of the site: those
    for 127.0.0.1, and those for anywhere else (which the browser's proxy, a
    :class:`Trap`, refuses). The requests are watched, not intercepted: a route of
    Playwright's would turn the browser's cache off and pass every request of the site
    (Pyodide's megabytes included) through Playwright's driver, which costs the
    machine more than the page does."""

    def __init__(self, browser):
        self.browser = browser
        self.served, self.blocked = [], []
        self.contexts = []

    def record(self, request):
        url = request.url
        (self.served if on_loopback(url) else self.blocked).append(url)

    def new_page(self):
        context = self.browser.new_context(viewport={"width": 1280, "height": 900})
        context.on("request", self.record)
        self.contexts.append(context)
        return context.new_page()

    def close(self):
        for context in self.contexts:
            context.close()


@pytest.fixture(scope="module")
def offline_browser(chromium):
    """Chromium whose only way off the machine is a proxy that refuses and records."""
    from playwright.sync_api import sync_playwright

    trap = Trap()
    with (
        sync_playwright() as playwright,
        launched(playwright, chromium, [f"--proxy-server=http://127.0.0.1:{trap.port}"]) as browser,
    ):
        offline = OfflineBrowser(browser)
        try:
            yield offline
        finally:
            offline.close()
            trap.close()
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "site-offline.txt").write_text(
        f"the site's requests: {len(offline.served)} to 127.0.0.1, "
        f"{len(offline.blocked)} elsewhere (refused by the proxy)\n"
        + "".join(f"  {url}\n" for url in offline.blocked)
        + f"Chromium's own, refused by the proxy trap: {len(trap.seen)}\n"
        + "".join(
            f"  {count} x {host}\n"
            for host, count in Counter(
                urlsplit(line.split()[1] if "://" in line else "//" + line.split()[1]).hostname
                for line in trap.seen
            ).most_common()
        )
    )
    assert not offline.blocked, f"the site asked for files off the machine: {offline.blocked}"


@pytest.fixture(scope="module")
def timings():
    found = {}
    yield found
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "site-timings.json").write_text(json.dumps(found, indent=2) + "\n")


# --- driving the page ------------------------------------------------------------------


def open_notebook(offline, site_url, path, timings=None):
    """Open a notebook of the site and wait for its kernel; the page, ready to run."""
    page = with_room(offline.new_page())
    page.fatal, page.dialogs, page.console = [], [], []

    def on_console(message):
        page.console.append(f"{message.type}: {message.text[:300]}")
        if "fatal error" in message.text:
            page.fatal.append(message.text)

    page.on("console", on_console)

    def on_dialog(dialog):
        page.dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    started = time.monotonic()
    page.goto(f"{site_url}/lab/index.html?path={path}")
    # A visible cell: a notebook of an earlier page, restored in a background
    # tab of the same browser profile, has cells too, all hidden.
    page.wait_for_selector(".jp-Notebook .jp-Cell >> visible=true")
    shown = time.monotonic()
    try:
        # Generous: a busy machine (two cores shared with other work) slows Pyodide down.
        page.wait_for_function(KERNEL_IDLE, timeout=patience(KERNEL_WAIT) * 1000)
    except Exception:
        status = page.evaluate(
            "() => { const w = window.jupyterapp.shell.currentWidget;"
            " return w && w.sessionContext && w.sessionContext.kernelDisplayStatus; }"
        )
        screenshot(page, "site-kernel-failure.png")
        page.close()
        pytest.fail(
            f"{path}: no idle kernel after {patience(KERNEL_WAIT):g} s (status: {status}); "
            f"the page's last messages:\n" + "\n".join(page.console[-15:]),
            pytrace=False,
        )
    if timings is not None:
        timings.setdefault(
            path,
            {
                "page_shown_s": round(shown - started, 1),
                "kernel_start_s": round(time.monotonic() - shown, 1),
            },
        )
    return page


def run_all(page, timeout=300):
    """Clear the outputs, Run > Run All Cells, then wait until every cell has run
    (stored prompts would look run); fail if the kernel died."""
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs')")
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
    deadline = time.monotonic() + patience(timeout)
    while time.monotonic() < deadline:
        if page.fatal:
            pytest.fail(
                "the browser's Python died while running the notebook: "
                + " | ".join(page.fatal[:4]),
                pytrace=False,
            )
        if page.evaluate(ALL_CELLS_RUN):
            return
        page.wait_for_timeout(300)  # (a poll's pause, not a limit)
    pytest.fail(
        f"the notebook had not finished running after {patience(timeout):g} s", pytrace=False
    )


def notebook_text(page):
    return page.evaluate("window.jupyterapp.shell.currentWidget.node.innerText")


def screenshot(page, name, docs_name=None):
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    page.screenshot(path=str(path))
    if docs_name and os.environ.get("UPDATE_SCREENSHOTS") == "1":
        shutil.copy(path, DOCS / docs_name)


# --- the tests ---------------------------------------------------------------------------


@pytest.mark.timeout(patience(900))  # the first test may build the site (a few minutes, cold)
@pytest.mark.parametrize("lesson", LEARNER_COPIES)
def test_a_learner_copy_runs_top_to_bottom(offline_browser, site_url, timings, lesson):
    page = open_notebook(offline_browser, site_url, f"learner/{lesson}", timings)
    try:
        if f"learner/{lesson}" in OPENED_UNMODIFIED:  # (one page, one kernel start: see below)
            assert _dirty(page) is False, f"{lesson}: opening it changed what a Save would keep"
        run_all(page)
        text = notebook_text(page)
        errors = page.locator(ERROR_OUTPUTS).all_inner_texts()
        assert errors == [], f"{lesson}: output on stderr (a traceback?): {errors[:3]}"
        # The self-check reports what is not written yet, and counts cases.
        assert "not implemented yet" in text
        assert "cases pass" in text
        if lesson.startswith("00"):
            # The table of contents is read from the lesson files, in the browser's storage.
            assert "01 · JSON-RPC 2.0" in text
            assert "(no lessons found)" not in text
        assert page.dialogs == []
    except BaseException:
        screenshot(page, f"site-{lesson[:2]}-failure.png")
        raise
    finally:
        page.close()


@pytest.mark.timeout(patience(900))
def test_the_playground_classifies_and_injects_nothing(offline_browser, site_url, timings):
    from playwright.sync_api import expect

    page = open_notebook(offline_browser, site_url, "learner/05_playground.ipynb", timings)
    try:
        run_all(page)
        box = page.locator(".mcp-classifier-input textarea").first
        result = page.locator(".mcp-classifier-result").first

        box.fill(REQUEST)
        expect(result).to_contain_text("the id 41")
        assert result.locator(".mcp-badge").first.inner_text() == "REQUEST"

        box.fill(PAYLOAD)
        expect(result).to_contain_text("the id 43")
        expect(result).to_contain_text("<img src=x onerror=alert(1)>")  # shown as text
        page.wait_for_timeout(patience(0.3) * 1000)  # time for an injected onerror to fire
        assert page.locator(".mcp-classifier img, .mcp-classifier script").count() == 0
        assert page.dialogs == []

        box.fill('{\n  "jsonrpc": "2.0",\n  "id": true,\n  "method": "tools/list"\n}')
        expect(result).to_contain_text("a bool is not an integer")
        page.evaluate(
            "() => { const app = window.jupyterapp;"
            " app.shell.collapseLeft(); app.shell.collapseRight(); }"
        )
        page.evaluate(
            "() => document.querySelector('.mcp-classifier')"
            ".closest('.jp-Cell').scrollIntoView({block: 'start'})"
        )
        page.wait_for_timeout(patience(0.3) * 1000)  # the scroll settles
        screenshot(page, "site-playground.png", "site.png")
    except BaseException:
        screenshot(page, "site-playground-failure.png")
        raise
    finally:
        page.close()


#: opening a lesson (the start page; one with the site's note on top) and starting
#: its kernel changes nothing a Save would keep. Each is checked on a page another test
#: opens anyway (a kernel start costs half a minute): the start page in its run-all test,
#: lesson 06 in the notice's test below.
OPENED_UNMODIFIED = ["learner/00_start_here.ipynb", "learner/06_real_server.ipynb"]


def _dirty(page):
    return page.evaluate("() => window.jupyterapp.shell.currentWidget.context.model.dirty")


@pytest.fixture(scope="module")
def lesson_06(offline_browser, site, timings):
    """One page of the site for four tests, as a kernel start costs half a minute or more on a
    busy machine: lesson 06 (one with the site's note on top) opened from a server of its own;
    what the page says while its Python starts, and whether opening it changed anything a Save
    would keep; then, in its kernel, the case table's report and a text nested 100,000 deep
    parsed as a lesson parses it (the package imported first). The page and its server are
    then test_a_loaded_lesson_keeps_working_when_the_server_stops's, which stops the server. A
    kernel that dies in any part fails every test that reads it."""
    from playwright.sync_api import expect

    path = OPENED_UNMODIFIED[1]
    server = SiteServer("site-server-stopped.log").__enter__()
    page = with_room(offline_browser.new_page())
    fatal, dialogs = [], []
    page.on(
        "console",
        lambda message: fatal.append(message.text) if "fatal error" in message.text else None,
    )
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    try:
        started = time.monotonic()
        page.goto(f"{server.url}/lab/index.html?path={path}")
        seen = page.wait_for_function(
            NOTICE_OR_READY, timeout=patience(KERNEL_WAIT) * 1000
        ).json_value()
        text = page.locator(KERNEL_NOTICE).inner_text() if seen == "notice" else ""
        page.wait_for_function(KERNEL_IDLE, timeout=patience(KERNEL_WAIT) * 1000)
        timings.setdefault(
            path, {"page_opened_to_kernel_idle_s": round(time.monotonic() - started, 1)}
        )
        try:
            expect(page.locator(KERNEL_NOTICE)).to_be_hidden()
            hidden = True
        except AssertionError:
            hidden = False
        notice = {
            "notice seen first": seen == "notice",
            "says Python is starting": "Python is starting" in text,
            "says it can take a minute": "can take a minute" in text,
            "gone once the kernel is idle": hidden,
            "opening changed nothing a Save would keep": _dirty(page) is False,
            "no fatal error": not fatal,
            "no dialog": not dialogs,
        }
        started = time.monotonic()
        answer = page.evaluate(RUN_HERE_WITHIN, [[VERDICTS_CODE, DEEP_JSON_CODE], patience(300)])
        timings["lesson 06's kernel: the case table, then deep JSON"] = round(
            time.monotonic() - started, 1
        )
    except BaseException:
        screenshot(page, "site-notice-failure.png")
        page.close()
        server.stop()
        raise
    outs = answer["outs"] + ["", ""]
    yield {
        "page": page,
        "server": server,
        "path": path,
        "notice": notice,
        "notice_text": text,
        "done": answer["done"],
        "fatal": fatal,
        "verdicts": outs[0],
        "deep": outs[1],
    }
    page.close()
    server.stop()


@pytest.mark.timeout(patience(900))
def test_the_page_says_python_is_starting_until_it_is_ready(lesson_06):
    """JupyterLab's status bar only reads "Unknown" while Pyodide starts, which can
    take a minute: the site's page says in words that Python is starting, and
    stops saying it once the kernel is idle. The lesson, its kernel started, is
    as it was (nothing a Save would keep has changed)."""
    found = lesson_06["notice"]
    assert all(found.values()), (
        f"{lesson_06['path']}: {found} (notice: {lesson_06['notice_text']!r})"
    )


@pytest.mark.timeout(patience(900))
def test_a_loaded_lesson_keeps_working_when_the_server_stops(lesson_06):
    """What "offline" means for the site. Once a lesson is open and its Python is
    ready, its cells run with the static server gone, and saving keeps the
    changes in the browser's storage (they are there when the site is served
    again). What needs a file from the server does not work: reading a lesson
    not opened before, and reloading the page, which fails with net::ERR_FAILED
    (JupyterLite's service worker passes every request on to the server and
    keeps no copies)."""
    mark = "Written with the server gone."
    page, server = lesson_06["page"], lesson_06["server"]
    try:
        server.stop()
        assert not listening(server.port)
        out = page.evaluate(RUN_HERE, "import mcp_lesson; print(6 * 7, mcp_lesson.__name__)")
        assert out == "42 mcp_lesson\n", out
        # Saving writes the lesson to the browser's storage; the checkpoint
        # JupyterLab makes next may fail, as JupyterLite reads the site's own
        # copy of the lesson from the server for it.
        saved = page.evaluate(
            """async (mark) => {
          const w = window.jupyterapp.shell.currentWidget;
          w.content.model.sharedModel.insertCell(0, {cell_type: 'markdown', source: mark});
          let error = null;
          try {
            await window.jupyterapp.commands.execute('docmanager:save');
          } catch (e) {
            error = String(e);
          }
          return {dirty: w.context.model.dirty, error};
        }""",
            mark,
        )
        assert saved["dirty"] is False, saved
        unopened = page.evaluate(READ_FILE, "learner/04_errors.ipynb")
        assert not unopened["ok"], unopened
        with pytest.raises(Exception, match="net::ERR_FAILED"):
            page.reload(timeout=patience(60) * 1000)
        # Served again (same address, so the same browser storage): the change is there.
        server = SiteServer("site-server-stopped.log", port=server.port).__enter__()
        page.reload()
        page.wait_for_selector(".jp-Notebook .jp-Cell >> visible=true")
        page.wait_for_function(
            """(mark) => {
          const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
          return !!(w && w.node.innerText.includes(mark));
        }""",
            arg=mark,
        )
    except BaseException:
        screenshot(page, "site-stopped-server-failure.png")
        raise
    finally:
        server.stop()


def host_verdicts():
    """The same report as VERDICTS_CODE, from this Python."""
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(VERDICTS_CODE, "<verdicts>", "exec"), {})
    return json.loads(out.getvalue())


@pytest.fixture(scope="module")
def site_python(lesson_06):
    """The case table's report and deep JSON, from lesson 06's kernel (:func:`lesson_06`):
    the site's Python had to finish both (a Python that died never answers)."""
    assert lesson_06["done"], (
        f"the site's Python did not finish (it died?): {lesson_06['fatal'][:4]}"
    )
    assert not lesson_06["fatal"], lesson_06["fatal"][:4]
    return lesson_06


@pytest.mark.timeout(patience(900))
def test_the_package_agrees_with_itself_on_pyodide(site_python, site, timings):
    output = site_python["verdicts"]
    try:
        there = json.loads(output)
    except ValueError:
        pytest.fail(f"the site's Python did not answer with JSON:\n{output[-3000:]}", pytrace=False)
    here = host_verdicts()
    timings["python"] = {"site": f"{there['python']} ({there['platform']})", "host": here["python"]}
    timings["build_s (0 work when cached)"] = site["build_seconds"]

    assert there["python"].startswith("3.14"), there["python"]
    assert there["doctests_failed"] == 0
    # The kernel's wheels came with the bytecode of its own Python (tools/site/bytecode.py):
    # nothing of theirs it imported was compiled from source in the page.
    ours = site_wheels_packages()
    from_bytecode, from_source = [], []
    for name, compiled in there["bytecode"]:
        if name.split(".")[0] in ours:
            (from_bytecode if compiled else from_source).append(name)
    assert len(from_bytecode) > 50 and not from_source, (from_bytecode, from_source)
    assert all(all_pass for all_pass, summary in there["checks"].values()), there["checks"]
    # The verdicts are the package's contract: the same on every Python.
    assert there["classify"] == here["classify"]
    assert there["classify_json"] == here["classify_json"]
    # Explanations quote Python's own parser messages, which may change between
    # versions: recorded, not required to match.
    differs = {
        name: {"here": text, "there": there["explain_json"][name]}
        for name, text in here["explain_json"].items()
        if there["explain_json"].get(name) != text
    }
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "site-python.txt").write_text(
        f"host Python {here['python']}, site Python {there['python']}\n"
        f"explain_json texts that differ: {len(differs)}/{len(here['explain_json'])}\n"
        + json.dumps(differs, indent=2, ensure_ascii=False)
        + "\n"
    )


def site_wheels_packages():
    """The top-level packages of the wheels in the site's lock file (read from the wheels)."""
    import zipfile

    pyodide = SITE / "static" / "pyodide"
    lock = json.loads((pyodide / "pyodide-lock.json").read_text())
    found = set()
    for entry in lock["packages"].values():
        with zipfile.ZipFile(pyodide / entry["file_name"]) as wheel:
            found |= {
                name.split("/")[0].removesuffix(".py")
                for name in wheel.namelist()
                if not name.split("/")[0].endswith((".dist-info", ".data", "__pycache__"))
            }
    return found


@pytest.mark.timeout(patience(900))
def test_deep_json_gives_a_recursion_error_not_a_crash(site_python):
    """In the browser, json's C scanner on a text nested 100,000 deep would
    overflow the page's stack and kill the kernel. A lesson imports mcp_lesson
    before it parses, and the package then guards json itself: the parse
    raises RecursionError, as on a computer, classify_json calls the text a
    parse error, and the kernel goes on."""
    output = site_python["deep"]
    try:
        there = json.loads(output)
    except ValueError:
        pytest.fail(f"the site's Python did not answer with JSON:\n{output[-3000:]}", pytrace=False)
    assert there["platform"] == "emscripten"
    assert there["scanner"] == "mcp_lesson.protocol.deep_json"
    assert there["loads"] == "RecursionError"
    from mcp_lesson import classify_json

    assert there["classify_json"] == list(classify_json(DEEP)) == ["invalid", -32700]
    assert there["after"] == json.loads(REQUEST)


# --- the site's files, without a browser ---------------------------------------------------


def test_the_site_holds_every_wheel_the_kernel_loads(site):
    """Each package of the rewritten lock file is in the site, with the sha256 the
    lock file gives (Pyodide refuses a wheel whose digest differs)."""
    import hashlib
    import re

    pyodide = SITE / "static" / "pyodide"
    lock = json.loads((pyodide / "pyodide-lock.json").read_text())
    assert lock["info"]["python"].startswith("3.14")
    names = set(lock["packages"])
    assert {"micropip", "ipython", "jedi", "parso", "comm", "ipywidgets", "mcp-lesson"} <= names
    for name, entry in lock["packages"].items():
        wheel = pyodide / entry["file_name"]
        assert wheel.exists(), name
        assert hashlib.sha256(wheel.read_bytes()).hexdigest() == entry["sha256"], name
        depends = {re.sub(r"[-_.]+", "-", depend).lower() for depend in entry["depends"]}
        assert depends <= names, name  # nothing to fetch from elsewhere


def test_the_course_wheel_carries_the_deep_json_guard(site):
    """The guard against deep JSON comes with the package, from this checkout;
    the site adds no package or start-up file of its own for it."""
    import zipfile

    pyodide = SITE / "static" / "pyodide"
    lock = json.loads((pyodide / "pyodide-lock.json").read_text())
    assert not any("guard" in name for name in lock["packages"]), sorted(lock["packages"])
    wheel = pyodide / lock["packages"]["mcp-lesson"]["file_name"]
    with zipfile.ZipFile(wheel) as archive:
        shipped = archive.read("mcp_lesson/protocol/deep_json.py")
    assert shipped == (ROOT / "mcp_lesson" / "protocol" / "deep_json.py").read_bytes()


def test_the_kernel_is_told_to_stay_in_the_site(site):
    config = json.loads((SITE / "jupyter-lite.json").read_text())["jupyter-config-data"]
    kernel = config["litePluginSettings"]["@jupyterlite/pyodide-kernel-extension:kernel"]
    assert kernel["disablePyPIFallback"] is True
    assert kernel["pyodideUrl"] == "./static/pyodide/pyodide.mjs"
    assert all(url.startswith("./") for url in kernel["pipliteUrls"])
    assert set(kernel["loadPyodideOptions"]["packages"]) == {"mcp-lesson"}
    # Nothing runs before the first cell but what Pyodide and IPython do.
    assert "PYTHONSTARTUP" not in kernel["loadPyodideOptions"].get("env", {})
    names = {extension["name"] for extension in config["federated_extensions"]}
    assert {"@jupyter-widgets/jupyterlab-manager", "@jupyterlite/pyodide-kernel-extension"} <= names


def test_the_site_page_carries_the_kernel_notice(site):
    """tools/site/kernel-notice.js is in the site's page, once."""
    page = (SITE / "lab" / "index.html").read_text()
    script = site_build.KERNEL_NOTICE.read_text()
    assert page.count('<script id="course-kernel-notice-script">') == 1
    assert script in page
    assert "Python is starting in this page" in script


def lesson_cells(path):
    return ["".join(cell["source"]) for cell in json.loads(path.read_text())["cells"]]


@pytest.mark.parametrize("folder", ["", "learner"])
def test_the_site_copies_of_the_lessons(site, folder):
    """Every lesson is in the site; 06 and 07 (the build's NEEDS_LOCAL_INSTALL)
    open with why they need the local install; the rest are the repository's
    lessons, cell for cell."""
    masters = ROOT / "notebooks" / folder
    for lesson in sorted(masters.glob("[0-9][0-9]_*.ipynb")):
        copy = SITE / "files" / folder / lesson.name
        assert copy.exists(), copy
        cells, original = lesson_cells(copy), lesson_cells(lesson)
        kernel = json.loads(copy.read_text())["metadata"]["kernelspec"]["name"]
        assert kernel == "python"  # Pyodide's kernel, not the local ipykernel
        if lesson.name in site_build.NEEDS_LOCAL_INSTALL:
            assert "needs the course installed on your computer" in cells[0]
            assert "WebAssembly has no way to start another process" in cells[0]
        assert cells[-len(original) :] == original
        assert len(cells) - len(original) <= 1
