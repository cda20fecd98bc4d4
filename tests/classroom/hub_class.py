"""The class of tests/classroom/test_hub.py on a real JupyterHub: its people, the hub (a module
fixture's: `make hub`'s program with the test's own accounts, all removed after, whatever
happens), and the ways the test acts as them: a login shell (``runuser -l``), a terminal of
their JupyterLab, a page of it in Chromium.

Needs root (system accounts), Chromium, the proxy (make venv) and the system's Python;
where one is missing the hub is skipped with one line saying which (in CI: fails).
"""

import contextlib
import os
import pwd
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from chromium import chromium_or_skip, free_ports, launched, missing, with_room
from processes import live_processes, patience, wait_for

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from tools.hub import accounts, environment  # noqa: E402  (after sys.path is set)
from tools.hub.settings import PROXY, Settings  # noqa: E402  (after sys.path is set)

#: The class's accounts: names with a prefix of this run.
PREFIX = f"mcp{os.getpid() % 100000}"
TEACHER = f"{PREFIX}t"
STUDENTS = {"right": f"{PREFIX}a", "half": f"{PREFIX}b", "nothing": f"{PREFIX}c"}
BORROWER = f"{PREFIX}d"


class Times:
    """The steps' times, written to test-artifacts/hub-times.txt as they end."""

    def __init__(self):
        ARTIFACTS.mkdir(exist_ok=True)
        self.path = ARTIFACTS / "hub-times.txt"
        self.path.write_text(
            "# tests/classroom/test_hub.py: seconds per step of a class on JupyterHub\n"
        )

    @contextlib.contextmanager
    def step(self, name):
        began, failed = time.monotonic(), " (failed)"
        try:
            yield
            failed = ""
        finally:
            with open(self.path, "a") as out:
                out.write(f"{name}: {time.monotonic() - began:.1f} s{failed}\n")


def as_user(name, command, check=True, limit=600):
    """Run a shell ``command`` as ``name`` in a login shell of theirs, as ``su -l`` gives it:
    nothing of the test's environment, in their home; the class's settings reach it as they
    reach a terminal of their JupyterLab (what `make hub` installs for login shells)."""
    run = subprocess.run(
        ["runuser", "-l", name, "-c", command],
        capture_output=True,
        text=True,
        timeout=patience(limit),
    )
    if check:
        assert run.returncode == 0, (
            f"{command!r} as {name}: {run.stdout[-3000:]}{run.stderr[-3000:]}"
        )
    return run


#: Type a command into a new terminal of the person's JupyterLab (the terminals API and its
#: websocket, as JupyterLab's own terminal panel does), and read what it prints until the
#: line the command ends with; the terminal is closed after.
TERMINAL = """async ([server, command, patience]) => {
  const cookie = document.cookie.split('; ').find(c => c.startsWith('_xsrf='));
  const headers = {'X-XSRFToken': cookie ? decodeURIComponent(cookie.slice(6)) : ''};
  const made = await (await fetch(server + '/api/terminals', {method: 'POST', headers})).json();
  const socket = new WebSocket(server.replace(/^http/, 'ws') + '/terminals/websocket/' + made.name);
  try {
    return await new Promise((done, failed) => {
      let out = '';
      const timer = setTimeout(() => failed(new Error('no end after ' + patience + ' ms: ' + out)), patience);
      socket.onopen = () => socket.send(JSON.stringify(['stdin', command + '\\r']));
      socket.onmessage = (event) => {
        const [kind, text] = JSON.parse(event.data);
        if (kind !== 'stdout') return;
        out += text;
        if (/@@END \\d+@@/.test(out)) { clearTimeout(timer); done(out); }
      };
      socket.onclose = () => failed(new Error('the terminal closed: ' + out));
    });
  } finally {
    socket.onclose = null;
    socket.close();
    await fetch(server + '/api/terminals/' + made.name, {method: 'DELETE', headers});
  }
}"""


def in_terminal(page, server, command, limit=300):
    """(exit status, output) of ``command`` typed into a terminal of the JupyterLab of
    ``page`` (a login shell, as JupyterHub's servers start their terminals)."""
    out = page.evaluate(
        TERMINAL, [server, f'{command}; echo "@@""END $?@@"', patience(limit) * 1000]
    )
    return int(re.findall(r"@@END (\d+)@@", out)[-1]), out


def server_pid(name):
    """The pid of ``name``'s Jupyter server (None when it runs no server)."""
    uid = pwd.getpwnam(name).pw_uid
    found = [
        process.pid
        for process in live_processes()
        if "jupyterhub-singleuser" in process.command and _uid(process.pid) == uid
    ]
    return found[0] if found else None


def _uid(pid):
    try:
        return os.stat(f"/proc/{pid}").st_uid
    except OSError:
        return None


def running_class():
    """The class's hub, up (a generator, for a module fixture); on the way out: the hub
    stopped, the accounts and files removed."""
    if os.geteuid() != 0:
        pytest.skip(
            "the JupyterHub class needs root, to make its system accounts "
            "(run the full tier as root, as CI does)"
        )
    chromium = chromium_or_skip("the JupyterHub class")
    if not PROXY.exists():
        missing(f"JupyterHub's proxy is not installed ({PROXY}): make venv installs it with npm")
    if not Path(environment.SYSTEM_PYTHON).exists():
        missing(f"{environment.SYSTEM_PYTHON} is missing: the users' environment is made from it")
    times = Times()
    folder = Path(tempfile.mkdtemp(prefix=f"{PREFIX}-hub-", dir="/tmp"))
    folder.chmod(0o755)  # the exchange inside it is every account's
    (folder / "students.txt").write_text(
        "".join(f"{name}\n" for name in [*STUDENTS.values(), BORROWER])
    )
    port = free_ports(3)  # the login page's, the hub's own, the proxy's API
    settings = Settings(
        state=folder / "state",
        port=port,
        teacher=TEACHER,
        students_file=folder / "students.txt",
        exchange=folder / "exchange",
    )
    process = None
    try:
        with times.step("the users' environment (made once, then kept)"):
            environment.build(settings.env)
        with times.step("make hub to its login page (accounts, exchange, JupyterHub)"):
            process = subprocess.Popen(
                [
                    sys.executable,
                    str(ROOT / "tools" / "hub" / "hub.py"),
                    "--port",
                    str(port),
                    "--teacher",
                    TEACHER,
                    "--students",
                    str(settings.students_file),
                    "--exchange",
                    str(settings.exchange),
                    "--state",
                    str(settings.state),
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                start_new_session=True,
            )
            line = _line_with(process, "is up", settings.state / "jupyterhub.log")
            assert f"log in at {settings.hub_url}/hub/login" in line, line
        from playwright.sync_api import sync_playwright

        with sync_playwright() as playwright, launched(playwright, chromium) as browser:
            yield Class(
                settings,
                browser,
                times,
                accounts.read_passwords(settings.state / "passwords.txt"),
                lambda: launched(playwright, chromium),
            )
    finally:
        if process is not None and process.poll() is None:
            os.killpg(process.pid, 2)  # Ctrl-C, as a teacher stops make hub
            try:
                process.wait(patience(60))
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, 9)
                process.wait()
        names = [TEACHER, *STUDENTS.values(), BORROWER]
        # Ctrl-C stopped every person's server and the proxy (a zombie has stopped: it
        # waits only for a parent that may be gone to collect its exit status) ...
        running = []

        def ended():
            running[:] = _running(names, settings)
            return not running

        with contextlib.suppress(AssertionError):  # what is still running is reported below
            wait_for(ended, "every process of the class to end", limit=30, every=0.5)
        accounts.remove_accounts(names)
        shutil.rmtree(folder, ignore_errors=True)
        # ... and nothing of the class is left: no account of this run, no folder.
        left = [name for name in names if accounts.exists(name)]
        assert not left and not running and not folder.exists(), (left, running)


def _running(names, settings):
    """The live processes (zombies left out) of the class's accounts and of its proxy,
    a line each as ``pgrep -a`` gives them."""
    found = [
        subprocess.run(["pgrep", "-a", *what], capture_output=True, text=True).stdout
        for what in [
            *(["-u", name] for name in names if accounts.exists(name)),
            ["-f", f"api-port {settings.proxy_api_port}"],
        ]
    ]
    live = {process.pid for process in live_processes()}
    return [line for line in "".join(found).splitlines() if int(line.split()[0]) in live]


def _line_with(process, text, log, limit=300):
    """Read the hub's output until a line holds ``text``; fail with the output (and the end
    of JupyterHub's ``log``) if it ends."""
    import selectors

    seen = []
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        deadline = time.monotonic() + patience(limit)
        while time.monotonic() < deadline:
            if selector.select(timeout=1):
                line = process.stdout.readline()
                if not line:
                    break
                seen.append(line)
                if text in line:
                    return line
    logged = log.read_text(errors="replace")[-6000:] if log.exists() else "(no log)"
    pytest.fail(
        "make hub did not start:\n" + "".join(seen[-40:]) + "\nJupyterHub's log ends:\n" + logged
    )


class Class:
    """The running class: its settings, a browser, the steps' times, the passwords, and
    ``another_browser()`` (a context manager) for a test that needs a browser of its own."""

    def __init__(self, settings, browser, times, passwords, another_browser):
        self.settings, self.browser, self.times, self.passwords = (
            settings,
            browser,
            times,
            passwords,
        )
        self.another_browser = another_browser
        self.base = settings.hub_url
        self.pages = {}
        self.teachers_server = None

    def log_in(self, name, browser=None):
        """A page of ``name``'s JupyterLab (in ``browser``, or the class's), logged in
        through the hub's own login page."""
        page = with_room(
            (browser or self.browser)
            .new_context(viewport={"width": 1280, "height": 900})
            .new_page()
        )
        page.goto(self.base + "/hub/login")
        page.fill("#username_input", name)
        page.fill("#password_input", self.passwords[name])
        page.click("#login_submit")
        page.wait_for_selector(".jp-LabShell", timeout=patience(180) * 1000)
        return page

    def page_of(self, name):
        """A page of ``name``'s JupyterLab, logged in once and kept for the class's later steps."""
        if name not in self.pages:
            self.pages[name] = self.log_in(name)
        return self.pages[name]

    def forget(self, name):
        page = self.pages.pop(name, None)
        if page is not None:
            page.context.close()

    def course(self):
        return accounts.home_of(TEACHER) / "course"


def assignments_tab(page):
    """Open nbgrader's Assignments tab (its menu item) and wait for its lists."""
    page.get_by_text("Nbgrader", exact=True).click()
    page.get_by_text("Assignment List", exact=True).click()
    page.wait_for_selector("#released_assignments_list_loading[hidden]", state="attached")
    page.wait_for_selector("#fetched_assignments_list_loading[hidden]", state="attached")


#: What a page's own fetch of a URL answers (the browser resolves NAME.localhost; the test's
#: own HTTP client, Playwright's, does not).
FETCH_STATUS = "async (url) => (await fetch(url)).status"
FETCH_JSON = "async (url) => (await fetch(url)).json()"


def status_of(page, url):
    return page.evaluate(FETCH_STATUS, url)


def poll(condition, what, limit=120):
    deadline = time.monotonic() + patience(limit)
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    pytest.fail(f"waited {patience(limit):.0f} s for {what}")


def shot(page, name):
    page.screenshot(path=str(ARTIFACTS / name))
