"""Lesson 11's helpers: your server, started as a program, held to the official SDK's
clients through the tap, and to the conformance suite.

The server is the learner's own (``python -m my_mcp.server`` in the package's folder)
when their ``handle_message`` passes its check, and the course's otherwise (``python -m
mcp_lesson.own_server``, the master's export of the same cells), so that a lesson run
before the exercises are done still shows a conversation; the first line says which.
Where no SDK or no process can run (the browser, the grading sandbox), the cells say so
in one line.
"""

import asyncio
import concurrent.futures
import contextlib
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

from .carry import load
from .learner_package import PACKAGE, package_dir

#: Who the SDK's clients say they are, in every recording of the lesson.
ME = {"name": "lesson-11", "version": "1.0"}
#: Seconds a conversation may take before the lesson gives up on it.
LIMIT = 60


def can_run():
    """True where this Python can start programs and has the official SDK."""
    if sys.platform == "emscripten":  # JupyterLite's Python, inside the browser
        return False
    try:
        import mcp  # noqa: F401
    except ImportError:
        return False
    return True


def server_command(folder=None):
    """``(command, cwd)`` of the server the lesson talks to, after a line saying whose it is."""
    from .selfcheck import run_check

    package = load(folder)
    mine = getattr(package, "handle_message", None) if package is not None else None
    report = run_check(mine, "handle_message") if callable(mine) else None
    if report is not None and report.all_pass:
        print(f"the server: yours, python -m {PACKAGE}.server (handle_message passes "
              f"{report.passed}/{report.total} cases)")
        return [sys.executable, "-m", f"{PACKAGE}.server"], str(package_dir(folder).parent)
    why = "not in your package yet" if report is None else (
        "not implemented yet" if report.not_implemented else f"{report.passed}/{report.total} cases pass")
    print(f"the server: the course's, python -m mcp_lesson.own_server, until your handle_message "
          f"passes its check ({why})")
    return [sys.executable, "-m", "mcp_lesson.own_server"], None


def run(async_function, *args, timeout=LIMIT):
    """Run an async function to its end in a thread of its own (a notebook has its own loop)."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, asyncio.wait_for(async_function(*args), timeout)).result()


def tapped(recording, command, cwd=None):
    """The SDK's StdioServerParameters that start the tap, recording, in front of ``command``."""
    from mcp import StdioServerParameters

    return StdioServerParameters(command=sys.executable, cwd=cwd,
                                 args=["-m", "mcp_lesson.tap", "--record", str(recording), "--", *command])


async def handshake_session(read, write):
    """The SDK's ClientSession (the handshake of 2025-11-25): tools, a call, a ping, an unknown tool."""
    from mcp import ClientSession, Implementation
    from mcp.shared.exceptions import MCPError

    async with ClientSession(read, write, client_info=Implementation(**ME)) as session:
        agreed = await session.initialize()
        tools = await session.list_tools()
        added = await session.call_tool("add", {"a": 2, "b": 40})
        await session.send_ping()
        try:
            await session.call_tool("multiply", {"a": 6, "b": 7})
            unknown = "answered"
        except MCPError as exc:
            unknown = f"error {exc.error.code}"
        return {"revision": agreed.protocol_version, "tools": [tool.name for tool in tools.tools],
                "2 + 40": added.content[0].text, "multiply": unknown}


async def modern_client(target, errlog=None):
    """The SDK's mcp.Client in its default mode (it probes server/discover at 2026-07-28 first):
    tools, and count to 3 with progress. ``target`` is an address, or StdioServerParameters
    (the server's stderr then goes to ``errlog``, a file: a notebook's stderr is none)."""
    from mcp import Client, Implementation, StdioServerParameters
    from mcp.client.stdio import stdio_client

    if isinstance(target, StdioServerParameters):
        target = stdio_client(target, errlog=errlog)
    steps = []

    async def progress(done, total, message):
        steps.append(f"{done:g}/{total:g}")

    async with Client(target, client_info=Implementation(**ME)) as client:
        tools = await client.list_tools()
        counted = await client.call_tool("count", {"n": 3}, progress_callback=progress)
        return {"revision": client.protocol_version, "tools": [tool.name for tool in tools.tools],
                "count": counted.content[0].text, "progress": steps}


def over_stdio(command, cwd=None, folder=None):
    """Both SDK clients, each through the tap in front of the server started by ``command``:
    ``{client: (what it got, the recording's entries)}``."""
    from mcp.client.stdio import stdio_client

    from .course_traffic import read_recording

    folder = Path(folder or tempfile.mkdtemp(prefix="lesson-11-"))
    found = {}

    async def session(server, log):
        async with stdio_client(server, errlog=log) as (read, write):
            return await handshake_session(read, write)

    for name, talk in (("ClientSession", session), ("mcp.Client", modern_client)):
        recording = folder / f"{name}.jsonl"
        with warnings.catch_warnings(), open(folder / "server-stderr.txt", "a") as log:
            warnings.simplefilter("ignore")
            got = run(talk, tapped(recording, command, cwd), log)
        found[name] = (got, read_recording(recording))
    return found


@contextlib.contextmanager
def over_http(command, cwd=None, folder=None):
    """The server started with ``--http`` and the HTTP tap in front of it: yields
    ``(the tap's address, the server's, the recording's path)``; both stop after."""
    from .http_client import HttpServer

    folder = Path(folder or tempfile.mkdtemp(prefix="lesson-11-"))
    recording = folder / "http.jsonl"
    with HttpServer([*command, "--http"], cwd=cwd) as server:
        tap = subprocess.Popen([sys.executable, "-m", "mcp_lesson.tap", "--record", str(recording), "--http",
                                "--port", "0", "--to", server.url],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            said = tap.stderr.readline()  # "mcp_lesson.tap: listening on http://127.0.0.1:<port>/mcp (...)"
            yield said.partition("listening on ")[2].split(" ")[0], server.url, recording
        finally:
            tap.terminate()
            tap.wait(timeout=30)
            tap.stderr.close()


def http_sessions(url):
    """Both SDK clients over HTTP at ``url``: ``{client: what it got}``."""
    from mcp.client.streamable_http import streamable_http_client

    async def session(target):
        async with streamable_http_client(target) as (read, write, *_):
            return await handshake_session(read, write)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {"ClientSession": run(session, url), "mcp.Client": run(modern_client, url)}


def tap_report(entries):
    """The tap's own report on a recording, in a line: its problems and warnings, or none."""
    from .tap import audit

    found = audit(entries)
    problems = [p for p in found if p.get("severity") != "warning"]
    warned = [p for p in found if p.get("severity") == "warning"]
    if not found:
        return "the tap's report: no problems"
    return (f"the tap's report: {len(problems)} problem(s), {len(warned)} warning(s): "
            + "; ".join(f"line {p['line']}: {p['problem']}" for p in found[:5]))
