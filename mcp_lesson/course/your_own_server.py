"""Lesson 11's helpers: your server, started as a program, held to the official SDK's
clients through the tap, and to the conformance suite.

The server is the learner's own (``python -m my_mcp.server`` in the package's folder)
when their ``handle_message`` passes its check, and the course's otherwise (``python -m
mcp_lesson.server.own``, the master's export of the same cells), so that a lesson run
before the exercises are done still shows a conversation; the first line says which.
Where no SDK or no process can run (the browser, the grading sandbox), the cells say so
in one line.
"""

import asyncio
import concurrent.futures
import contextlib
import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

from mcp_lesson.exercises.carry import load
from mcp_lesson.exercises.learner_package import PACKAGE, package_dir

#: Who the SDK's clients say they are, in every recording of the lesson.
ME = {"name": "lesson-11", "version": "1.0"}
#: Seconds a conversation may take before the lesson gives up on it.
LIMIT = 60


_SCRATCH: list = []


def scratch():
    """A folder for this Python's recordings and logs, removed when it exits."""
    if not _SCRATCH:
        import atexit
        import shutil

        _SCRATCH.append(tempfile.mkdtemp(prefix="lesson-11-"))
        atexit.register(shutil.rmtree, _SCRATCH[0], ignore_errors=True)
    return _SCRATCH[0]


def can_run():
    """True where this Python can start programs and has the official SDK."""
    if sys.platform == "emscripten":  # JupyterLite's Python, inside the browser
        return False
    try:
        import mcp  # noqa: F401  (checks it is installed)
    except ImportError:
        return False
    return True


def server_command(folder=None):
    """``(command, cwd)`` of the server the lesson talks to, after a line saying whose it is."""
    from mcp_lesson.exercises.selfcheck import run_check

    package = load(folder)
    mine = getattr(package, "handle_message", None) if package is not None else None
    report = run_check(mine, "handle_message") if callable(mine) else None
    if report is not None and report.all_pass:
        print(
            f"the server: yours, python -m {PACKAGE}.server (handle_message passes "
            f"{report.passed}/{report.total} cases)"
        )
        return [sys.executable, "-m", f"{PACKAGE}.server"], str(package_dir(folder).parent)
    why = (
        "not in your package yet"
        if report is None
        else (
            "not implemented yet"
            if report.not_implemented
            else f"{report.passed}/{report.total} cases pass"
        )
    )
    print(
        f"the server: the course's, python -m mcp_lesson.server.own, until your handle_message "
        f"passes its check ({why})"
    )
    return [sys.executable, "-m", "mcp_lesson.server.own"], None


def run(async_function, *args, timeout=LIMIT):
    """Run a client's conversation to its end in a thread of its own (a notebook has its own
    loop): what the client got, or ``{"failed": <why, in one line>}`` when the conversation
    failed or took longer than ``timeout`` seconds (a server that misbehaves)."""
    from mcp_lesson.exercises.calling import one_line

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        try:
            return pool.submit(
                asyncio.run, asyncio.wait_for(async_function(*args), timeout)
            ).result()
        except (TimeoutError, concurrent.futures.TimeoutError):
            return {"failed": f"no end within {timeout} s"}
        except Exception as exc:
            while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
                exc = exc.exceptions[0]
            return {"failed": one_line(f"{type(exc).__name__}: {exc}", 200)}


def tapped(recording, command, cwd=None):
    """The SDK's StdioServerParameters that start the tap, recording, in front of ``command``."""
    from mcp import StdioServerParameters

    from mcp_lesson.course.live_traffic import tap_command

    python, *args = tap_command(recording, *command)
    return StdioServerParameters(
        command=python, args=args, cwd=cwd, env={"PYTHONPATH": python_path()}
    )


def python_path():
    """PYTHONPATH for the tap that a client starts. The SDKs' clients start a server with a few
    variables of the environment only (PATH, HOME...), so the tap must be told to import this
    mcp_lesson, not another that the Python's site-packages may hold (a second checkout's)."""
    here = str(Path(__file__).resolve().parents[1])
    return os.pathsep.join([here, *filter(None, [os.environ.get("PYTHONPATH")])])


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
        return {
            "revision": agreed.protocol_version,
            "tools": [tool.name for tool in tools.tools],
            "2 + 40": added.content[0].text,
            "multiply": unknown,
        }


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
        return {
            "revision": client.protocol_version,
            "tools": [tool.name for tool in tools.tools],
            "count": counted.content[0].text,
            "progress": steps,
        }


def over_stdio(command, cwd=None, folder=None):
    """Both SDK clients, each through the tap in front of the server started by ``command``:
    ``{client: (what it got, the recording's entries)}``."""
    from mcp.client.stdio import stdio_client

    from mcp_lesson.course.live_traffic import read_recording

    folder = Path(folder or scratch())
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
    from mcp_lesson.server.running import HttpServer

    folder = Path(folder or scratch())
    recording = folder / "http.jsonl"
    with HttpServer([*command, "--http"], cwd=cwd) as server:
        # The tap announces its address as the server does, after its name: HttpServer reads it.
        with HttpServer(
            [
                sys.executable,
                "-m",
                "mcp_lesson.tap",
                "--record",
                str(recording),
                "--http",
                "--port",
                "0",
                "--to",
                server.url,
            ],
            announcement="mcp_lesson.tap: listening on ",
        ) as tap:
            yield tap.url, server.url, recording


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
    from mcp_lesson.tap import audit

    found = audit(entries)
    problems = [p for p in found if p.get("severity") != "warning"]
    warned = [p for p in found if p.get("severity") == "warning"]
    if not found:
        return "the tap's report: no problems"
    return f"the tap's report: {len(problems)} problem(s), {len(warned)} warning(s): " + "; ".join(
        f"line {p['line']}: {p['problem']}" for p in found[:5]
    )


#: The TypeScript SDK's client (tools/ts_peer/client.mjs), and where make venv installs the SDK.
TS_PEER = Path(__file__).resolve().parents[2] / "tools" / "ts_peer"


class Unavailable(Exception):
    """What a cell cannot run here, in one line."""


def ts_client(*args, cwd=None, timeout=LIMIT):
    """What the TypeScript SDK's client got (``node client.mjs ARGS``, a dict): ``stdio COMMAND...``
    (it starts the server, in ``cwd``) or ``http URL``. :class:`Unavailable` without Node.js or
    the SDK."""
    import json
    import shutil

    if shutil.which("node") is None:
        raise Unavailable(
            "no Node.js here: the TypeScript SDK's client needs it (apt-get install nodejs)"
        )
    if not (TS_PEER / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
        raise Unavailable(
            "the TypeScript SDK is not installed here (make venv installs it in tools/ts_peer)"
        )
    try:
        done = subprocess.run(
            ["node", str(TS_PEER / "client.mjs"), *args],
            capture_output=True,
            text=True,
            cwd=cwd,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        raise Unavailable(
            f"the TypeScript SDK's client gave no answer within {timeout} s"
        ) from None
    said = done.stdout.strip().splitlines()
    if done.returncode != 0 or not said:
        last = (done.stderr.strip().splitlines() or ["it said nothing"])[-1]
        raise Unavailable(f"the TypeScript SDK's client failed: {last}")
    try:
        return json.loads(said[-1])
    except ValueError:
        raise Unavailable(
            f"the TypeScript SDK's client said {said[-1][:100]!r}, which is not its answer"
        ) from None


def ts_over_stdio(command, cwd=None, folder=None):
    """The TypeScript SDK's client through the tap in front of ``command``: ``(what it got,
    the recording's entries)``; :class:`Unavailable` where it cannot run."""
    from mcp_lesson.course.live_traffic import read_recording, tap_command

    recording = Path(folder or scratch()) / "typescript.jsonl"
    tap = tap_command(recording, *command)
    if os.name == "posix":  # the TypeScript client, too, passes a few variables only (python_path)
        tap = ["env", f"PYTHONPATH={python_path()}", *tap]
    got = ts_client("stdio", *tap, cwd=cwd)
    return got, read_recording(recording)


#: What the lesson shows of the course's own server, stored for where nothing can run (the
#: browser): mcp_lesson/data/own_server.json, written by :func:`store_results`.
STORED = "own_server.json"


def results(command, cwd=None):
    """What each client got from the server ``command`` starts, and the suite's rows: the
    lesson's live cells, in one dict (Node.js's parts left out where it is missing)."""
    from mcp_lesson.peers import conformance

    found = {"stdio": {client: got for client, (got, _) in over_stdio(command, cwd).items()}}
    with over_http(command, cwd) as (url, server_url, _):
        found["http"] = http_sessions(url)
        try:
            conformance.installed()
            rows = conformance.table(conformance.run_server(server_url, list(conformance.GENERIC)))
            found["suite"] = [list(row) for row in rows]
        except conformance.Unavailable:
            pass
    try:
        found["typescript"] = ts_over_stdio(command, cwd)[0]
    except Unavailable:
        pass
    return found


def stored_results():
    """The stored :func:`results` of the course's server (``python -m mcp_lesson.server.own``)."""
    import json
    from importlib import resources

    text = resources.files("mcp_lesson").joinpath("data", STORED).read_text(encoding="utf-8")
    return json.loads(text)["results"]


def store_results(path=None):
    """Run :func:`results` on the course's server and store them (after the server changed)."""
    import json

    path = Path(path) if path else Path(__file__).resolve().parents[1] / "data" / STORED
    document = {
        "about": "what lesson 11's clients and the conformance suite got from python -m "
        "mcp_lesson.server.own; written by mcp_lesson.course.your_own_server.store_results, "
        "checked by tests/server/test_own_server.py",
        "results": results([sys.executable, "-m", "mcp_lesson.server.own"]),
    }
    path.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def show_stored(part):
    """Print the stored results of one part of the lesson (where nothing can run)."""
    found = stored_results().get(part)
    if part == "suite":
        from mcp_lesson.peers import conformance

        conformance.show_rows([tuple(row) for row in found or []])
        return
    for client, got in (
        found.items() if isinstance(found, dict) and part != "typescript" else [(part, found)]
    ):
        print(f"{client}: {got}")
