"""The playground in a real browser: JupyterLab, and Voila as `make app` serves it.

Each test starts its server on a free loopback port, opens the playground in
headless Chromium (Debian's package, driven by Python Playwright; no browser
download), pastes a request, a broken message and an HTML payload into the
classifier, and checks what the page shows. A screenshot of each page goes to
test-artifacts/. Set UPDATE_SCREENSHOTS=1 to refresh docs/playground.png and
docs/voila.png from the same run, and CHROMIUM=/path/to/chromium to use
another build.

Without Chromium the tests are skipped with the reason; in CI (CI=true) a
missing browser is a failure, so the browser tests can never silently vanish.
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "05_playground.ipynb"
ARTIFACTS = ROOT / "test-artifacts"
DOCS = ROOT / "docs"
AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0

# This machine (and CI) may have no network: keep Chromium from phoning home.
CHROMIUM_ARGS = [
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
] + (["--no-sandbox"] if AS_ROOT else [])

HOW_TO_GET_CHROMIUM = (
    "the browser tests need Chromium (Debian/Ubuntu: sudo apt-get install chromium) "
    "and Python Playwright (in .venv via `make venv`); no browser download is used"
)

SELECT_TEXT = ".mcp-classifier-input textarea"
RESULT = ".mcp-classifier-result"
WIDGET_ERRORS = ("Error displaying widget", "Model not found", "Failed to load model class")
# What the screenshots show: a message with a classic mistake, and its verdict.
SHOWN = '{\n  "jsonrpc": "2.0",\n  "id": true,\n  "method": "tools/list"\n}'
REQUEST = '{"jsonrpc": "2.0", "id": 41, "method": "tools/call", "params": {"name": "calculator"}}'
BROKEN = '{"jsonrpc": "2.0", "id": 42, "method": "tools/li'
PAYLOAD = json.dumps({
    "jsonrpc": "2.0",
    "id": 43,
    "method": '<img src=x onerror="window.__pwned=1;alert(1)"><script>window.__pwned=2</script>',
})


def find_chromium():
    """The Chromium to use: $CHROMIUM if set, else /usr/bin/chromium or one on PATH."""
    if os.environ.get("CHROMIUM"):
        candidates = [os.environ["CHROMIUM"]]
    else:
        candidates = ["/usr/bin/chromium", shutil.which("chromium"),
                      shutil.which("chromium-browser")]
    for path in candidates:
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def missing(reason):
    """Fail in CI, skip (with the reason) anywhere else."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true and {reason}", pytrace=False)
    pytest.skip(reason)


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """A child process in its own process group, always ended by stop()."""

    def __init__(self, name, command, cwd, env=None):
        ARTIFACTS.mkdir(exist_ok=True)
        self.name = name
        self.log_path = ARTIFACTS / f"{name}.log"
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            command, cwd=cwd, env=env, stdout=self.log, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True,
        )

    def wait_until(self, ready, timeout=90):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                break
            if ready():
                return
            time.sleep(0.2)
        self.stop()
        log = self.log_path.read_text()[-3000:]
        pytest.fail(f"{self.name} did not start (exit code {self.proc.returncode}):\n{log}")

    def stop(self):
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=15)
            except ProcessLookupError:
                pass
        # Nothing of the group may outlive the test session.
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.log.close()


def answers(url):
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def listening(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


# --- fixtures ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser():
    chromium = find_chromium()
    if chromium is None:
        missing(f"Chromium was not found; {HOW_TO_GET_CHROMIUM}")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing(f"Python Playwright is not installed; {HOW_TO_GET_CHROMIUM}")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


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
        sys.executable, "-m", "jupyter", "lab", "--no-browser",
        "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0", "--IdentityProvider.token=",
        "--ServerApp.password=", f"--ServerApp.root_dir={root_dir}",
        "--LabApp.expose_app_in_browser=True",
    ] + (["--allow-root"] if AS_ROOT else [])
    server = Server("jupyterlab", command, cwd=home, env=env)
    try:
        server.wait_until(lambda: answers(f"http://127.0.0.1:{port}/api/status"))
        yield f"http://127.0.0.1:{port}"
    finally:
        server.stop()


@pytest.fixture(scope="module")
def voila_url():
    """`make app` on a free port (-o: never rebuild the venv from inside a test)."""
    if shutil.which("make") is None:
        missing("`make` is not installed, so `make app` cannot run")
    port = free_port()
    command = ["make", "--no-print-directory", "-o", ".venv/.installed", "app",
               f"PORT={port}"]
    server = Server("voila", command, cwd=ROOT)
    try:
        # Voila has no status API; the page itself would start a kernel.
        server.wait_until(lambda: listening(port))
        yield f"http://127.0.0.1:{port}"
    finally:
        server.stop()


# --- the shared steps -------------------------------------------------------------


def open_page(browser, failure_name):
    (ARTIFACTS / failure_name).unlink(missing_ok=True)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.set_default_timeout(60_000)
    from playwright.sync_api import expect

    # A slow CI machine may still be running later cells when a paste arrives.
    expect.set_options(timeout=60_000)
    page.dialogs = []

    def on_dialog(dialog):
        page.dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    return page


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
    page.wait_for_timeout(300)  # give an injected onerror the time to fire
    assert page.locator(".mcp-classifier img, .mcp-classifier script").count() == 0
    assert page.evaluate("window.__pwned") is None
    assert page.dialogs == []


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
    page.get_by_role("button", name="Check classify").click()
    expect(page.locator(".mcp-checker-summary")).to_contain_text("cases pass")


def show_example(page):
    from playwright.sync_api import expect

    expect(paste(page, SHOWN)).to_contain_text("a bool is not an integer")


def screenshot(page, name, docs_name):
    ARTIFACTS.mkdir(exist_ok=True)
    # The cell that holds the classifier (in JupyterLab its code shows too).
    page.evaluate(
        "() => { const tool = document.querySelector('.mcp-classifier');"
        " (tool.closest('.jp-Cell') || tool).scrollIntoView({block: 'start'}); }"
    )
    page.wait_for_timeout(200)
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


# --- the tests ----------------------------------------------------------------------


@pytest.mark.timeout(180)
def test_playground_in_jupyterlab(browser, lab_url):
    page = open_page(browser, "jupyterlab-failure.png")
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
        drive_classifier(page)
        use_quiz_and_checker(page)
        assert_no_widget_errors(page)
        # No news pop-up (tools/overrides.json sets fetchNews to "false").
        toasts = page.locator(".Toastify__toast").all_inner_texts()
        assert not [toast for toast in toasts if "news" in toast.lower()], toasts
        assert page.dialogs == []
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
        page.close()


@pytest.mark.timeout(180)
def test_playground_in_voila(browser, voila_url):
    page = open_page(browser, "voila-failure.png")
    try:
        page.goto(f"{voila_url}/")
        page.wait_for_selector(SELECT_TEXT)
        page.wait_for_selector(".mcp-checker button")
        # Classroom mode shows no code.
        assert page.locator(".jp-InputArea-editor, .jp-CodeMirrorEditor").count() == 0
        drive_classifier(page)
        use_quiz_and_checker(page)
        assert_no_widget_errors(page)
        show_example(page)
        screenshot(page, "voila-playground.png", "voila.png")
        page.locator(".mcp-quiz").screenshot(path=str(ARTIFACTS / "voila-quiz.png"))
        page.locator(".mcp-checker").screenshot(path=str(ARTIFACTS / "voila-checker.png"))
    except BaseException:
        failure_screenshot(page, "voila-failure.png")
        raise
    finally:
        page.close()
