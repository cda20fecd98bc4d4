"""The playground in a real browser: JupyterLab, and Voila as `make app` serves it.

Each server is started by the tests on a free loopback port; pages open in
headless Chromium (Debian's package, driven by Python Playwright; no browser
download). The tests paste a request, a broken message and an HTML payload into
the classifier and check what the page shows (in JupyterLab also headers and a body
into the HTTP view, and a recording into the recording view, pasted and uploaded:
screenshots of both go to test-artifacts/), and on every page:

* the console logs no error and no script fails;
* no request leaves 127.0.0.1 (each one is aborted and reported);
* axe-core finds no accessibility violation of any impact: on the whole
  classroom page, and in JupyterLab on the notebook's text and tools (the
  rendered Markdown and the outputs; JupyterLab's own frame is not ours);
* the verdicts sit in live regions that stay in place while they change.

On the classroom page also: every link opens, no text meant for notebook users
shows, and kernels do not pile up (closed pages, bare requests; see
:func:`test_classroom_kernels_go_back_to_the_baseline`).

axe-core (npm, the exact version :data:`AXE_VERSION`) is installed on first use
into the ignored folder ``.cache/axe``; Playwright injects it into the page.

A screenshot of each page goes to test-artifacts/. Set UPDATE_SCREENSHOTS=1 to
refresh docs/playground.png and docs/voila.png from the same run, and
CHROMIUM=/path/to/chromium to use another build. Without Chromium (or npm for
axe-core) the tests are skipped with the reason; in CI (CI=true) a missing
tool is a failure, so the browser tests can never silently vanish.
"""

import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from chromium import (
    answers,
    chromium_or_skip,
    free_port,
    launched,
    listening,
    missing,
    with_room,
)
from processes import descendants, live_processes, patience, start_guarded, wait_for

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "05_playground.ipynb"
CLASSROOM_CONFIG = ROOT / "tools" / "classroom" / "voila.py"
ARTIFACTS = ROOT / "test-artifacts"
DOCS = ROOT / "docs"
AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0

AXE_VERSION = "4.14.1"
AXE_DIR = ROOT / ".cache" / "axe"
AXE_JS = AXE_DIR / "node_modules" / "axe-core" / "axe.min.js"


SELECT_TEXT = ".mcp-classifier-input textarea"
REVISION = ".mcp-classifier-revision select"
# The label of revision None (mcp_lesson.widgets.COURSE_RULES), as a learner reads it.
COURSE_RULES = "the course's rules"
RESULT = ".mcp-classifier-result"
ANNOUNCEMENT = ".mcp-classifier-announcement"
WIDGET_ERRORS = ("Error displaying widget", "Model not found", "Failed to load model class")
# What the screenshots show: a message with a classic mistake, and its verdict.
SHOWN = '{\n  "jsonrpc": "2.0",\n  "id": true,\n  "method": "tools/list"\n}'
REQUEST = '{"jsonrpc": "2.0", "id": 41, "method": "tools/call", "params": {"name": "calculator"}}'
BROKEN = '{"jsonrpc": "2.0", "id": 42, "method": "tools/li'
PAYLOAD = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 43,
        "method": '<img src=x onerror="window.__pwned=1;alert(1)"><script>window.__pwned=2</script>',
    }
)
# Longer than mcp_lesson.widgets.INSTANT_LIMIT: judged once the typing pauses.
LONG = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 44,
        "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "x" * 60_000}},
    }
)
# For the HTTP view: a header line with markup and no colon, and a body it is checked against.
HOSTILE_HEADER = "<img src=x onerror=window.__pwned=4>"
HTTP_BODY = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 45,
        "method": "tools/list",
        "params": {
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
            }
        },
    }
)
# For the recording view: a log line holding markup on the server's stdout, and a request
# that was never answered.
RECORDING = "\n".join(
    json.dumps(entry)
    for entry in [
        {
            "t": 0.1,
            "direction": "to_server",
            "kind": "request",
            "code": None,
            "text": '{"jsonrpc": "2.0", "id": 1, "method": "ping"}',
        },
        {
            "t": 0.2,
            "direction": "from_server",
            "kind": "invalid",
            "code": -32700,
            "text": "<script>window.__pwned=3</script>",
        },
    ]
)
# Text meant for notebook users only (cells tagged notebook-only).
NOTEBOOK_ONLY = re.compile(r"Run the cell|Shift\+Enter|make app|\d+/\d+ cases pass|Previous:|Next:")
KERNEL_ID = re.compile(r'"kernelId":\s*"([0-9a-f-]{36})"')


class Server:
    """A child process in its own process group, ended by stop(), and by its guard
    when the test run ends first, however it ends (tests/processes.py)."""

    def __init__(self, name, command, cwd, env=None):
        ARTIFACTS.mkdir(exist_ok=True)
        self.name = name
        self.log_path = ARTIFACTS / f"{name}.log"
        self.log = open(self.log_path, "w")
        self.proc = start_guarded(
            command, cwd=cwd, env=env, stdout=self.log, stderr=subprocess.STDOUT
        )

    def wait_until(self, ready, timeout=90):
        deadline = time.monotonic() + patience(timeout)
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                break
            if ready():
                return
            time.sleep(0.2)
        self.stop()
        log = self.log_path.read_text()[-3000:]
        pytest.fail(f"{self.name} did not start (exit code {self.proc.returncode}):\n{log}")

    def kernels(self):
        """How many kernel processes run under this server right now."""
        table = live_processes()
        under = set(descendants(self.proc.pid, table))
        return sum(
            "ipykernel_launcher" in process.command for process in table if process.pid in under
        )

    def stop(self):
        self.proc.end()  # SIGTERM to the whole tree, SIGKILL to what is left after a grace
        self.log.close()


_MAKE_VARIABLES = ("ARGS", "MAKEFLAGS", "MFLAGS", "MAKEOVERRIDES", "MAKELEVEL")


def app_command(port, environ=None, args=""):
    """`make app` exactly as a teacher runs it, on ``port``, with none of the caller's ARGS.

    ``make test ARGS=...`` hands ARGS to every make started below it (through
    MAKEFLAGS, or the environment); they are meant for pytest, not for Voila.
    Returns the command and its environment (``environ`` without make's
    variables). ``-o .venv/.installed``: never rebuild the venv from a test.
    """
    environ = os.environ if environ is None else environ
    env = {key: value for key, value in environ.items() if key not in _MAKE_VARIABLES}
    command = [
        "make",
        "--no-print-directory",
        "-o",
        ".venv/.installed",
        "app",
        f"PORT={port}",
        f"ARGS={args}",
    ]
    return command, env


CULL_IDLE, CULL_INTERVAL = 6, 2


def max_kernels():
    """The kernel limit set in tools/classroom/voila.py."""
    found = re.search(
        r"^c\.ClassroomKernelManager\.max_kernels = (\d+)$",
        CLASSROOM_CONFIG.read_text(),
        re.MULTILINE,
    )
    assert found, "tools/classroom/voila.py must set c.ClassroomKernelManager.max_kernels"
    return int(found.group(1))


# --- fixtures ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser():
    chromium = chromium_or_skip()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright, launched(playwright, chromium) as browser:
        yield browser


def _installed_axe():
    try:
        package = json.loads((AXE_JS.parent / "package.json").read_text())
    except (OSError, ValueError):
        return None
    return package.get("version")


@pytest.fixture(scope="session")
def axe_js():
    """The path of axe.min.js, installed with npm into .cache/axe on first use."""
    if _installed_axe() != AXE_VERSION:
        if shutil.which("npm") is None:
            missing(
                "npm was not found; the accessibility checks install axe-core with it "
                "(Debian/Ubuntu: sudo apt-get install npm)"
            )
        AXE_DIR.mkdir(parents=True, exist_ok=True)
        with open(AXE_DIR / ".install.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # two runs on one machine install once
            if _installed_axe() != AXE_VERSION:
                done = subprocess.run(
                    [
                        "npm",
                        "install",
                        "--prefix",
                        str(AXE_DIR),
                        "--no-save",
                        "--no-package-lock",
                        "--no-audit",
                        "--no-fund",
                        "--ignore-scripts",
                        "--loglevel=error",
                        f"axe-core@{AXE_VERSION}",
                    ],
                    capture_output=True,
                    text=True,
                    timeout=patience(300),
                    env={**os.environ, "npm_config_update_notifier": "false"},
                )
                if done.returncode != 0 or _installed_axe() != AXE_VERSION:
                    head = " | ".join((done.stderr or done.stdout).strip().splitlines()[:3])
                    missing(f"npm could not install axe-core {AXE_VERSION} into .cache/axe: {head}")
    return AXE_JS


@pytest.fixture(scope="module")
def lab_url(tmp_path_factory):
    """JupyterLab on loopback, serving a copy of the playground (the repo stays clean)."""
    home = tmp_path_factory.mktemp("lab")
    root_dir = home / "notebooks"
    root_dir.mkdir()
    shutil.copy(NOTEBOOK, root_dir)
    port = free_port()
    env = dict(
        os.environ,
        # The learner's own settings and workspaces must not leak into the test;
        # the course's overrides.json (in the venv) still applies.
        JUPYTERLAB_SETTINGS_DIR=str(home / "settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(home / "workspaces"),
    )
    command = [
        sys.executable,
        "-m",
        "jupyter",
        "lab",
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        "--IdentityProvider.token=",
        "--ServerApp.password=",
        f"--ServerApp.root_dir={root_dir}",
        "--LabApp.expose_app_in_browser=True",
    ] + (["--allow-root"] if AS_ROOT else [])
    server = Server("jupyterlab", command, cwd=home, env=env)
    try:
        server.wait_until(lambda: answers(f"http://127.0.0.1:{port}/api/status"))
        yield f"http://127.0.0.1:{port}"
    finally:
        server.stop()


@pytest.fixture(scope="module")
def voila():
    """`make app` on a free port: the Server, with its address as ``.url``."""
    if shutil.which("make") is None:
        missing("`make` is not installed, so `make app` cannot run")
    port = free_port()
    # Culling as tools/classroom/voila.py sets it up, but sooner (the settings
    # themselves are read from that file by the docs tests): a kernel with no
    # page goes after CULL_IDLE s idle, checked every CULL_INTERVAL s.
    command, env = app_command(
        port,
        args=f"--ClassroomKernelManager.cull_idle_timeout={CULL_IDLE} "
        f"--ClassroomKernelManager.cull_interval={CULL_INTERVAL}",
    )
    server = Server("voila", command, cwd=ROOT, env=env)
    server.url = f"http://127.0.0.1:{port}"
    try:
        # Voila has no status API; the page itself would start a kernel.
        server.wait_until(lambda: listening(port))
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def voila_url(voila):
    return voila.url


# --- the shared steps -------------------------------------------------------------


def open_page(browser, failure_name, origin):
    """A new page that records console errors, failed scripts and dialogs, and
    aborts (and records) every request that leaves ``origin``."""
    (ARTIFACTS / failure_name).unlink(missing_ok=True)
    # One context per page, routed as a whole and left open when the page
    # closes (the browser's teardown ends it): a closing Voila page sends its
    # kernel's shutdown request after the page itself is gone.
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    # (A slow CI machine may still be running later cells when a paste arrives.)
    page = with_room(context.new_page())
    page.dialogs, page.errors, page.outside = [], [], []

    def on_dialog(dialog):
        page.dialogs.append(dialog.message)
        dialog.dismiss()

    def on_console(message):
        if message.type == "error":
            page.errors.append(f"console: {message.text[:300]}")

    def on_request(route):
        url = route.request.url
        if url == origin or url.startswith(origin + "/") or url.startswith("data:"):
            route.continue_()
        else:
            page.outside.append(url)
            route.abort()

    page.on("dialog", on_dialog)
    page.on("console", on_console)
    page.on("pageerror", lambda error: page.errors.append(f"page error: {error}"))
    context.route("**/*", on_request)
    return page


def assert_page_stays_local_and_quiet(page):
    assert page.outside == [], f"requests that left 127.0.0.1: {page.outside}"
    assert page.errors == [], "\n".join(page.errors)


def paste(page, text):
    """Put text in the classifier as a paste does (one input event)."""
    box = page.locator(SELECT_TEXT)
    box.fill(text)
    return page.locator(RESULT)


def badge_text(page):
    return page.locator(f"{RESULT} .mcp-badge").first.inner_text()


def drive_classifier(page):
    from playwright.sync_api import expect

    result = paste(page, REQUEST)
    expect(result).to_contain_text("the id 41")
    assert badge_text(page) == "REQUEST"
    expect(result).to_contain_text("no error code")

    result = paste(page, BROKEN)
    expect(result).to_contain_text("error code -32700 (Parse error)")
    assert badge_text(page) == "INVALID"
    expect(result).to_contain_text("the JSON stops too early")

    result = paste(page, PAYLOAD)
    expect(result).to_contain_text("the id 43")
    assert badge_text(page) == "REQUEST"
    # The payload is on the page as text, and nothing of it became markup.
    expect(result).to_contain_text("<script>window.__pwned=2</script>")
    expect(result).to_contain_text("<img src=x onerror=")
    page.wait_for_timeout(patience(0.3) * 1000)  # give an injected onerror the time to fire
    assert page.locator(".mcp-classifier img, .mcp-classifier script").count() == 0
    assert page.evaluate("window.__pwned") is None
    assert page.dialogs == []


def revision_shown(page):
    """The text the Revision drop-down shows (its selected option's), or None when blank.

    ipywidgets writes each option's spaces as no-break spaces; they read as spaces.
    """
    return page.locator(REVISION).evaluate(
        "select => select.selectedIndex < 0 ? null"
        " : select.options[select.selectedIndex].text.replace(/\\u00a0/g, ' ')"
    )


def check_revision_drop_down(page):
    """The Revision drop-down shows the course's rules: when the tool appears,
    and again after a learner picks another revision and then comes back."""
    from playwright.sync_api import expect

    chosen = page.locator(f"{REVISION} option:checked")
    expect(chosen).to_have_text(COURSE_RULES)  # polls until the page shows it
    assert revision_shown(page) == COURSE_RULES

    batch = '[{"jsonrpc": "2.0", "method": "notifications/initialized"}]'
    page.locator(REVISION).select_option(value="MCP 2025-03-26")
    expect(chosen).to_have_text("MCP 2025-03-26")
    expect(paste(page, batch).locator(".mcp-badge").first).to_have_text("BATCH")
    page.locator(REVISION).select_option(value=COURSE_RULES)
    # The kernel's answer must not blank it (ipywidgets takes None for "no choice").
    expect(page.locator(f"{RESULT} .mcp-badge").first).to_have_text("INVALID")
    expect(chosen).to_have_text(COURSE_RULES)
    assert revision_shown(page) == COURSE_RULES


def check_live_region(page):
    """The verdict is announced: the live region stays the same element while
    its text follows the verdict (a region replaced at each change is not read)."""
    from playwright.sync_api import expect

    region = page.locator(ANNOUNCEMENT)
    expect(region).to_have_attribute("aria-live", "polite")
    expect(region).to_have_attribute("role", "status")
    page.evaluate(f"window.__region = document.querySelector({json.dumps(ANNOUNCEMENT)})")
    paste(page, BROKEN)
    expect(region).to_have_text("Verdict: invalid, error code -32700 (Parse error).")
    paste(page, REQUEST)
    expect(region).to_have_text("Verdict: request, no error code.")
    assert page.evaluate(f"document.querySelector({json.dumps(ANNOUNCEMENT)}) === window.__region")
    for tool in (".mcp-quiz-feedback", ".mcp-checker-summary"):
        expect(page.locator(tool).first).to_have_attribute("aria-live", "polite")


def check_long_paste(page):
    """A paste longer than INSTANT_LIMIT waits for a pause in typing, then gets its verdict."""
    from playwright.sync_api import expect

    page.evaluate(
        "() => { window.__seen = []; const result = document.querySelector('.mcp-classifier-result');"
        " new MutationObserver(() => window.__seen.push(result.innerText))"
        ".observe(result, {childList: true, subtree: true, characterData: true}); }"
    )
    result = paste(page, LONG)
    expect(result).to_contain_text("the id 44")
    seen = page.evaluate("window.__seen")
    assert any("when the typing pauses" in text for text in seen), seen[:3]


def use_http_and_recording_views(page):
    """The HTTP view and the recording view: a paste each, an upload, and nothing of the
    pasted markup becomes markup."""
    from playwright.sync_api import expect

    page.locator(".mcp-http-headers textarea").fill(
        "MCP-Protocol-Version: 2026-07-28\nMcp-Method: tools/call\n" + HOSTILE_HEADER
    )
    result = page.locator(".mcp-http-result")
    page.locator(".mcp-http-body textarea").fill(HTTP_BODY)
    expect(result).to_contain_text("400 REFUSED")
    expect(result).to_contain_text("error code -32020 (Header mismatch)")
    expect(result).to_contain_text("Line 3 has no colon")
    expect(result).to_contain_text(HOSTILE_HEADER)  # as text
    page.locator(".mcp-recording-input textarea").fill(RECORDING)
    recording = page.locator(".mcp-recording-result")
    expect(recording).to_contain_text("2 PROBLEMS")
    expect(recording).to_contain_text("sequenceDiagram")
    expect(recording).to_contain_text("<script>window.__pwned=3</script>")  # as text
    with page.expect_file_chooser() as chooser:  # the button opens the browser's file picker
        page.locator(".mcp-recording-upload").click()
    chooser.value.set_files(
        files=[{"name": "talk.jsonl", "mimeType": "application/json", "buffer": RECORDING.encode()}]
    )
    expect(recording).to_contain_text('The file "talk.jsonl"')
    expect(recording).to_contain_text("2 PROBLEMS")
    page.wait_for_timeout(patience(0.3) * 1000)  # give an injected onerror the time to fire
    tools = (
        ".mcp-http img, .mcp-http script, .mcp-recording script, "
        ".mcp-recording-result img, .mcp-recording-input img"
    )
    assert page.locator(tools).count() == 0
    # The diagram drawn as a picture (JupyterLab renders Mermaid): its pictures are the SVG
    # Mermaid made of the escaped text, never markup of the recording's.
    drawn = page.locator(".mcp-recording-picture img")
    for index in range(drawn.count()):
        assert (drawn.nth(index).get_attribute("src") or "").startswith("data:image/svg+xml"), index
    assert page.evaluate("window.__pwned") is None
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator(".mcp-http").screenshot(path=str(ARTIFACTS / "jupyterlab-http-view.png"))
    page.locator(".mcp-recording").screenshot(path=str(ARTIFACTS / "jupyterlab-recording-view.png"))


def page_text(page):
    return page.evaluate("document.body.textContent")


def assert_no_widget_errors(page):
    text = page_text(page)
    for error in WIDGET_ERRORS:
        assert error not in text


def use_quiz_and_checker(page):
    from playwright.sync_api import expect

    page.locator(".mcp-quiz-request button, button.mcp-quiz-request").first.click()
    expect(page.locator(".mcp-quiz-score")).to_contain_text("/1")
    # The first checker is the lesson's hasty classify (a second one, in the notebook
    # only, checks the learner's own classify when their package has one).
    page.get_by_role("button", name="Check classify").first.click()
    expect(page.locator(".mcp-checker-summary").first).to_contain_text("cases pass")


def show_example(page):
    from playwright.sync_api import expect

    expect(paste(page, SHOWN)).to_contain_text("a bool is not an integer")


def axe_violations(page, axe_js, selector=None):
    """axe-core's violations, each as "rule (impact): first elements"; ``selector``
    limits the check to the elements it matches (default: the whole page)."""
    page.add_script_tag(path=str(axe_js))
    violations = page.evaluate(
        """async (selector) => {
            const context = selector ? {include: [...document.querySelectorAll(selector)]}
                                     : document;
            const result = await axe.run(context, {resultTypes: ['violations']});
            return result.violations.map(v => `${v.id} (${v.impact}): ${v.help}; ` +
                v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(' | '));
        }""",
        selector,
    )
    return violations


def screenshot(page, name, docs_name):
    ARTIFACTS.mkdir(exist_ok=True)
    # The cell that holds the classifier (in JupyterLab its code shows too).
    page.evaluate(
        "() => { const tool = document.querySelector('.mcp-classifier');"
        " (tool.closest('.jp-Cell') || tool).scrollIntoView({block: 'start'}); }"
    )
    page.wait_for_timeout(patience(0.2) * 1000)  # the scroll settles
    path = ARTIFACTS / name
    page.screenshot(path=str(path))
    if os.environ.get("UPDATE_SCREENSHOTS") == "1":
        shutil.copy(path, DOCS / docs_name)


def failure_screenshot(page, name):
    """Kept on failure only; a passing run removes the one from an earlier run."""
    try:
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / name))
    except Exception:
        pass


def close(page):
    """Close as a browser tab closes: the page's unload handlers run."""
    from playwright.sync_api import Error

    if not page.is_closed():
        try:
            page.close(run_before_unload=True)
        except Error:  # closed already (the page closes after its unload handlers)
            pass


# --- the tests ----------------------------------------------------------------------


def test_app_command_leaves_out_the_callers_args():
    """`make test ARGS=...` must not hand its ARGS to the Voila that a test starts."""
    if shutil.which("make") is None:
        missing("`make` is not installed, so `make app` cannot run")
    caller = {**os.environ, "ARGS": "--from-env", "MAKEFLAGS": " -- ARGS=--from-makeflags"}

    def recipe(command, env):  # what make would run (-n: print it only)
        dry = subprocess.run(
            [command[0], "-n", *command[1:]],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=patience(60),
        )
        assert dry.returncode == 0, dry.stderr
        return dry.stdout

    command, env = app_command(8866, caller)
    shown = recipe(command, env)
    assert "voila notebooks/05_playground.ipynb" in shown
    assert "--Voila.config_file_paths=tools/classroom" in shown
    assert "--from-" not in shown


@pytest.mark.timeout(patience(240))
def test_playground_in_jupyterlab(browser, lab_url, axe_js):
    page = open_page(browser, "jupyterlab-failure.png", lab_url)
    try:
        page.goto(f"{lab_url}/lab/tree/05_playground.ipynb")
        page.wait_for_selector(".jp-Notebook .jp-Cell")
        assert_no_widget_errors(page)  # the stored outputs open cleanly, too
        # Run all cells once the kernel is idle, as "Run > Run All Cells" does.
        page.wait_for_function(
            "() => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
            " return w && w.sessionContext && w.sessionContext.kernelDisplayStatus === 'idle'; }"
        )
        page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
        page.wait_for_selector(SELECT_TEXT)
        page.wait_for_selector(".mcp-checker button")
        check_revision_drop_down(page)
        drive_classifier(page)
        check_live_region(page)
        check_long_paste(page)
        use_quiz_and_checker(page)
        use_http_and_recording_views(page)
        assert_no_widget_errors(page)
        # No news pop-up (tools/overrides.json sets fetchNews to "false").
        toasts = page.locator(".Toastify__toast").all_inner_texts()
        assert not [toast for toast in toasts if "news" in toast.lower()], toasts
        assert page.dialogs == []
        # The notebook's own content: its text and every output, tools included.
        content = ".jp-Notebook .jp-MarkdownOutput, .jp-Notebook .jp-OutputArea"
        assert axe_violations(page, axe_js, content) == []
        assert_page_stays_local_and_quiet(page)
        # A clean picture for the README: no side panels, the classifier on top.
        page.evaluate(
            "() => { const app = window.jupyterapp;"
            " app.shell.collapseLeft(); app.shell.collapseRight(); }"
        )
        show_example(page)
        screenshot(page, "jupyterlab-playground.png", "playground.png")
    except BaseException:
        failure_screenshot(page, "jupyterlab-failure.png")
        raise
    finally:
        close(page)


@pytest.mark.timeout(patience(180))
def test_playground_in_voila(browser, voila_url, axe_js):
    page = open_page(browser, "voila-failure.png", voila_url)
    try:
        page.goto(f"{voila_url}/")
        page.wait_for_selector(SELECT_TEXT)
        page.wait_for_selector(".mcp-checker button")
        # Classroom mode shows no code, and no text meant for notebook users.
        assert page.locator(".jp-InputArea-editor, .jp-CodeMirrorEditor").count() == 0
        shown = page.evaluate("document.body.innerText")
        assert NOTEBOOK_ONLY.findall(shown) == []
        check_revision_drop_down(page)
        drive_classifier(page)
        check_live_region(page)
        check_long_paste(page)
        use_quiz_and_checker(page)
        assert_no_widget_errors(page)
        assert axe_violations(page, axe_js) == []
        assert_page_stays_local_and_quiet(page)
        show_example(page)
        screenshot(page, "voila-playground.png", "voila.png")
        page.locator(".mcp-quiz").screenshot(path=str(ARTIFACTS / "voila-quiz.png"))
        page.locator(".mcp-checker").first.screenshot(path=str(ARTIFACTS / "voila-checker.png"))
    except BaseException:
        failure_screenshot(page, "voila-failure.png")
        raise
    finally:
        close(page)


@pytest.mark.timeout(patience(180))
def test_every_link_on_the_classroom_page_opens(browser, voila_url):
    page = open_page(browser, "voila-links-failure.png", voila_url)
    try:
        page.goto(f"{voila_url}/")
        page.wait_for_selector(".mcp-checker button")
        links = page.evaluate("[...document.querySelectorAll('a[href]')].map(a => a.href)")
        broken = []
        for link in links:
            parts = urllib.parse.urlsplit(link)
            if link.split("#")[0] == page.url.split("#")[0] and parts.fragment:
                # As a browser finds a fragment's target: the id as written, or decoded.
                ids = [parts.fragment, urllib.parse.unquote(parts.fragment)]
                if not page.evaluate("ids => ids.some(id => document.getElementById(id))", ids):
                    broken.append(f"{link} (no element with that id)")
            elif not link.startswith(voila_url + "/"):
                broken.append(f"{link} (leaves the classroom server)")
            else:
                status = page.request.get(link).status
                if status != 200:
                    broken.append(f"{link} ({status})")
        assert broken == []
        assert_page_stays_local_and_quiet(page)
    except BaseException:
        failure_screenshot(page, "voila-links-failure.png")
        raise
    finally:
        close(page)


def _kernel_state(voila, kernel_id):
    """The server's record of a kernel (a dict), or None once it is gone."""
    try:
        with urllib.request.urlopen(
            f"{voila.url}/api/kernels/{kernel_id}", timeout=patience(10)
        ) as reply:
            return json.load(reply)
    except urllib.error.HTTPError as error:
        if error.code == 404:
            return None
        raise


#: A page's request to shut its kernel down, as the server's log shows it: its status first (a
#: success is logged as the kernel's shutdown; a failure, such as 403 or 404, as the request).
SHUTDOWN_REQUEST = re.compile(r"\b([1-5]\d\d) POST /voila/api/shutdown/([0-9a-f-]{36})")


def _how_it_ended(voila, kernel_id):
    """How the server's log says the kernel ``kernel_id`` ended: "its page" when its page's
    shutdown request stopped it (a shutdown that no culling or replacing announced just before
    it: those log their reason first; culling may still come while the page's shutdown is under
    way), or reached the server after culling had (a 404: the page did its part, the cull won
    a race on a busy machine); "refused" when the request was refused (403: the XSRF cookie);
    "culled" when only culling or replacing stopped it, and no request of its page is there
    (yet); None while it runs."""
    taken, by_its_page, culled = False, False, False
    for line in voila.log_path.read_text(errors="replace").splitlines():
        found = SHUTDOWN_REQUEST.search(line)
        if found and found.group(2) == kernel_id:
            if found.group(1) == "403":
                return "refused"
            by_its_page = True
        elif kernel_id in line and ("Culling" in line or "Replacing kernel" in line):
            taken = True  # the shutdown logged next is the culler's
        elif f"Kernel shutdown: {kernel_id}" in line:
            culled, by_its_page, taken = culled or taken, by_its_page or not taken, False
    if by_its_page:
        return "its page"
    return "culled" if culled or taken else None


def _page_kernel(page):
    return page.evaluate(
        "JSON.parse(document.getElementById('jupyter-config-data').textContent).kernelId"
    )


@pytest.mark.timeout(patience(300))
def test_classroom_kernels_go_back_to_the_baseline(browser, voila):
    """Closed pages give their kernel back (at once when their goodbye reaches the server, the
    server's log says which), bare requests within two minutes, the count never passes the
    limit, and an open page keeps its kernel."""
    from playwright.sync_api import expect

    limit = max_kernels()
    # Kernels of earlier tests' pages go when those pages close, or by culling.
    wait_for(
        lambda: voila.kernels() == 0, "kernels of earlier tests are still running", 120, every=1
    )
    keeper = open_page(browser, "voila-kernels-failure.png", voila.url)
    try:
        keeper.goto(f"{voila.url}/")
        keeper.wait_for_selector(SELECT_TEXT)
        kept = _page_kernel(keeper)
        assert voila.kernels() == 1

        # Pages opened and closed: each page's shutdown request (on unload) stops its
        # kernel, as the server's log shows (it names every kernel it culls or replaces, and
        # every shutdown request that fails).
        closed = []
        for _ in range(3):
            page = open_page(browser, "voila-kernels-failure.png", voila.url)
            page.goto(f"{voila.url}/")
            page.wait_for_selector(SELECT_TEXT)
            closed.append(_page_kernel(page))
            assert_page_stays_local_and_quiet(page)
            close(page)
        wait_for(
            lambda: all(_kernel_state(voila, k) is None for k in closed),
            "a closed page's kernel is still running",
            20,
            every=1,
        )
        # How each ended, as the server's log tells it, once it tells it: on a busy machine
        # culling may come first (the page's request then finds no kernel, and the page still
        # did its part), or the browser may close a page before its goodbye leaves (it sends
        # it from an unload handler): then only culling gave the kernel back. A refused
        # request is a failure wherever it comes; and at least one page must have said goodbye.
        wait_for(
            lambda: all(_how_it_ended(voila, k) is not None for k in closed),
            "the server's log does not say how a closed page's kernel ended",
            30,
            every=1,
        )
        ended = {k: _how_it_ended(voila, k) for k in closed}
        assert "refused" not in ended.values(), (
            f"the server refused a closed page's shutdown request (403): {ended}"
        )
        assert "its page" in ended.values(), (
            f"no closed page's shutdown request reached the server: {ended}"
        )

        # Plain GETs that never open a page: more than the limit allows.
        statuses, peak, bare = [], 0, []
        for _ in range(limit + 2):
            try:
                with urllib.request.urlopen(f"{voila.url}/", timeout=patience(120)) as reply:
                    statuses.append(reply.status)
                    bare += KERNEL_ID.findall(reply.read().decode("utf-8", "replace"))[:1]
            except urllib.error.HTTPError as error:
                statuses.append(error.code)
                assert "close one, then reload" in error.read().decode("utf-8", "replace")
            peak = max(peak, voila.kernels())
        assert set(statuses) <= {200, 503}, statuses
        assert peak <= limit, f"{peak} kernels at once; the limit is {limit}"
        assert bare, "no plain GET was answered with a page"

        # Within two minutes only the open page's kernel is left.
        wait_for(
            lambda: voila.kernels() == 1,
            f"{voila.kernels()} kernels run; only the open page's should",
            120,
            every=1,
        )
        # (The server's record of a culled kernel may outlive its process a moment.)
        wait_for(
            lambda: all(_kernel_state(voila, k) is None for k in bare),
            "a plain GET's kernel is still on the server's record",
            30,
            every=1,
        )
        state = _kernel_state(voila, kept)
        assert state is not None and state["connections"] >= 1
        # ... and that page still works.
        expect(paste(keeper, REQUEST)).to_contain_text("the id 41")
        assert_page_stays_local_and_quiet(keeper)
        close(keeper)
        wait_for(
            lambda: voila.kernels() == 0, "the last page's kernel is still running", 20, every=1
        )
    except BaseException:
        failure_screenshot(keeper, "voila-kernels-failure.png")
        raise
    finally:
        close(keeper)
