"""What every browser test needs: Debian's Chromium (never a browser download),
the flags that keep it off the network, a free port, and the rule that a
missing browser skips locally and fails in CI."""

import contextlib
import os
import random
import secrets
import shutil
import socket
import subprocess
import threading
import urllib.request
from pathlib import Path

import pytest
from processes import patience

AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0

#: This machine (and CI) may have no network: keep Chromium from phoning home.
CHROMIUM_ARGS = [
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
] + (["--no-sandbox"] if AS_ROOT else [])


#: Seconds a step of a page may take (a load, a click's answer, an expectation) before the test
#: fails, scaled by the tests' patience: a JupyterLab or Voila page that starts a kernel can
#: take a minute or more on a busy machine (seen beside a load of 4).
PAGE_WAIT = 120


def with_room(target):
    """``target`` (a page or a context) and Playwright's ``expect`` wait :data:`PAGE_WAIT`
    seconds (scaled by the tests' patience) for each step; ``target`` is returned."""
    from playwright.sync_api import expect

    target.set_default_timeout(patience(PAGE_WAIT) * 1000)
    expect.set_options(timeout=patience(PAGE_WAIT) * 1000)
    return target


def find_chromium():
    """The Chromium to use: $CHROMIUM if set, else /usr/bin/chromium or one on PATH."""
    if os.environ.get("CHROMIUM"):
        candidates = [os.environ["CHROMIUM"]]
    else:
        candidates = [
            "/usr/bin/chromium",
            shutil.which("chromium"),
            shutil.which("chromium-browser"),
        ]
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
    """A TCP port on 127.0.0.1 that nothing listens on right now, below the ephemeral ports
    (:func:`free_ports`: one the kernel hands out could be another test's outgoing connection's
    before the server that is to listen on it starts: "port ... is already in use")."""
    return free_ports(1)


def free_ports(count):
    """The first of ``count`` ports in a row on 127.0.0.1 that can all be bound now, below the
    kernel's range of ephemeral ports: a port of that range is also what an outgoing
    connection of another test takes at random, so a program that binds a port next to the
    one chosen (a hub's own port beside its proxy's) could find it taken meanwhile."""
    try:
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    chooser = random.SystemRandom()
    for _ in range(500):
        first = chooser.randrange(max(1024, low - 12000), low - count)
        if all(_bindable(first + step) for step in range(count)):
            return first
    raise RuntimeError(f"no {count} free ports in a row below {low}")


def _bindable(port):
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def chromium_or_skip(tests="the browser tests"):
    """The Chromium path, when it and Python Playwright are there; else skip
    (fail in CI) with a sentence saying how to get them."""
    how = (
        f"{tests} need Chromium (Debian/Ubuntu: sudo apt-get install chromium) and "
        "Python Playwright (in .venv via `make venv`); no browser download is used"
    )
    path = find_chromium()
    if path is None:
        missing(f"Chromium was not found; {how}")
    try:
        import playwright.sync_api  # noqa: F401  (checks it is installed)
    except ImportError:
        missing(f"Python Playwright is not installed; {how}")
    return path


def answers(url):
    """True when ``url`` answers 200 (a server up and ready), within 2 s (scaled)."""
    try:
        with urllib.request.urlopen(url, timeout=patience(2)) as response:
            return response.status == 200
    except OSError:
        return False


def listening(port):
    """True when something accepts connections on 127.0.0.1:``port``."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout=patience(1)).close()
        return True
    except OSError:
        return False


@contextlib.contextmanager
def launched(playwright, path, more_args=(), limit=60):
    """A Chromium of its own (``path``, with :data:`CHROMIUM_ARGS` and ``more_args``), closed
    on the way out.

    Chromium now and then never answers Playwright's close (of a context or of the
    browser) on a loaded machine, which would hang the test until pytest's time limit: so
    the browser carries a mark of its own on its command line, and when closing it takes
    more than ``limit`` seconds (scaled by the tests' patience), its processes are killed by
    that mark, which ends the close. What a test checked has been checked by then."""
    mark = f"mcp-lesson-browser={secrets.token_hex(8)}"
    browser = playwright.chromium.launch(
        executable_path=path, args=[*CHROMIUM_ARGS, *more_args, f"--{mark}"]
    )  # (a
    # switch Chromium does not know, and ignores)
    try:
        yield browser
    finally:
        closed = threading.Event()

        def guard():
            if not closed.wait(patience(limit)):
                subprocess.run(["pkill", "-KILL", "-f", mark], check=False)

        threading.Thread(target=guard, daemon=True).start()
        try:
            with contextlib.suppress(Exception):  # (the error of a close the guard ended)
                for context in browser.contexts:
                    for page in context.pages:
                        page.close()
                browser.close()
        finally:
            closed.set()
