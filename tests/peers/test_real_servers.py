"""Real MCP servers from the package registries through the tap, with the official SDK's two
clients: the tap's report on real traffic has no false problem.

The servers, pinned and installed by ``make venv``:

* from npm (tools/real_servers/package-lock.json): ``@modelcontextprotocol/server-everything``
  (every feature of the protocol), ``server-filesystem`` and ``server-memory``, over stdio
  (server-everything's HTTP mode listens on every interface, and the course's tests listen
  on loopback only);
* from PyPI (pyproject.toml's test extras): ``mcp-server-time``, ``mcp-server-git`` and
  ``mcp-server-fetch`` (fetching a page the test serves on 127.0.0.1), built on the Python SDK;
* a server of the SDK's own ``MCPServer`` (FastMCP before mcp 2), with a tool, a prompt and a
  resource, as a developer writes one first;
* the course's own SDK server (mcp_lesson.server.calculator) is held to both clients in tests/tap/.

The clients:

* the SDK's ``ClientSession``: the handshake, the tools, a call, a ping (with server-everything
  the prompts and the resources too);
* the SDK's ``mcp.Client`` in its default mode: it probes ``server/discover`` at 2026-07-28.
  A server of the handshake's era (the npm ones, 2026.8.31) answers -32601, and the session
  runs under 2025-11-25; the PyPI ones (2026.10.19, on mcp 2.3) take the probe, and the session
  stays in 2026-07-28 with no handshake. Either way the report must name the revision the
  session ran under, and judge under it.

Without Node.js or an installed server the tests are skipped with the reason, and fail when
``CI=true``.
"""

import json
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from processes import patience

ROOT = Path(__file__).resolve().parents[2]


NPM = ROOT / "tools" / "real_servers" / "node_modules" / "@modelcontextprotocol"


def _missing(why):
    if why:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and {why}", pytrace=False)
        pytest.skip(why)


def _node_script(name):
    """The path of an npm server's program, or a skip saying why it cannot run."""
    script = NPM / name / "dist" / "index.js"
    _missing(
        "node not found"
        if shutil.which("node") is None
        else None
        if script.is_file()
        else f"{name} is not installed (make venv installs it)"
    )
    return str(script)


def _python_module(name):
    import importlib.util

    _missing(
        None
        if importlib.util.find_spec(name)
        else f"{name} is not installed (make venv installs it)"
    )
    return name


def _git_repository(folder):
    repo = folder / "repo"
    repo.mkdir()
    (repo / "README.md").write_text("a repository for mcp-server-git\n", encoding="utf-8")
    git = [
        "git",
        "-c",
        "user.name=Course",
        "-c",
        "user.email=course@example.invalid",
        "-C",
        str(repo),
    ]
    for step in (["init", "-q"], ["add", "README.md"], ["commit", "-q", "-m", "first"]):
        subprocess.run(git + step, check=True, capture_output=True)
    return repo


#: A server of the SDK's MCPServer (FastMCP before mcp 2), as a developer's first one.
MCPSERVER = """
from mcp.server.mcpserver import MCPServer

server = MCPServer("first")


@server.tool()
def echo(message: str) -> str:
    \"\"\"Say the message back.\"\"\"
    return message


@server.prompt()
def greet(name: str) -> str:
    \"\"\"A greeting.\"\"\"
    return f"Hello, {name}!"


@server.resource("note://hello")
def hello() -> str:
    \"\"\"A note.\"\"\"
    return "hello"


server.run()
"""


def _page(folder):
    """A page served on 127.0.0.1 from ``folder`` (a thread of this process), for mcp-server-fetch."""
    import functools
    import http.server
    import threading

    (folder / "index.html").write_text(
        "<html><body><h1>A page</h1><p>for mcp-server-fetch</p></body></html>\n", encoding="utf-8"
    )

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Quiet, directory=str(folder))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/index.html"


def _mcpserver(folder):
    script = folder / "first_server.py"
    script.write_text(MCPSERVER, encoding="utf-8")
    return [sys.executable, str(script)]


#: Each server: (its command, a tool, its arguments), given a scratch folder.
SERVERS = {
    "server-everything": lambda folder: (
        ["node", _node_script("server-everything"), "stdio"],
        "echo",
        {"message": "hi"},
    ),
    "server-filesystem": lambda folder: (
        ["node", _node_script("server-filesystem"), str(folder)],
        "list_directory",
        {"path": str(folder)},
    ),
    "server-memory": lambda folder: (
        [
            "env",
            f"MEMORY_FILE_PATH={folder / 'memory.jsonl'}",
            "node",
            _node_script("server-memory"),
        ],
        "read_graph",
        {},
    ),
    "mcp-server-time": lambda folder: (
        [sys.executable, "-m", _python_module("mcp_server_time"), "--local-timezone", "UTC"],
        "get_current_time",
        {"timezone": "UTC"},
    ),
    "mcp-server-git": lambda folder: (
        [
            sys.executable,
            "-m",
            _python_module("mcp_server_git"),
            "--repository",
            str(folder / "repo"),
        ],
        "git_status",
        {"repo_path": str(folder / "repo")},
    ),
    "mcp-server-fetch": lambda folder: (
        [
            sys.executable,
            "-m",
            _python_module("mcp_server_fetch"),
            "--ignore-robots-txt",
            "--allow-private-ips",
        ],
        "fetch",
        {"url": _page(folder)},
    ),
    "mcpserver": lambda folder: (_mcpserver(folder), "echo", {"message": "hi"}),
}


def tapped(recording, command):
    from mcp_lesson.course.your_own_server import tapped as behind_the_tap

    return behind_the_tap(recording, command, cwd=str(ROOT))


def report(recording):
    done = subprocess.run(
        [sys.executable, "-m", "mcp_lesson.tap", "--report", str(recording)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=patience(60),
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done


def run(talk, *args):
    import anyio

    async def bounded():
        with anyio.fail_after(patience(60)):
            return await talk(*args)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return anyio.run(bounded)


def _server(name, folder):
    if name == "mcp-server-git":
        _git_repository(folder)
    return SERVERS[name](folder)


@pytest.mark.parametrize("name", sorted(SERVERS))
def test_the_handshake_client_and_a_real_server(name, tmp_path):
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    from mcp_lesson.tap import agreed_revision, audit

    command, tool, arguments = _server(name, tmp_path)
    recording = tmp_path / "handshake.jsonl"

    async def talk():
        with open(tmp_path / "stderr.txt", "w") as log:
            async with stdio_client(tapped(recording, command), errlog=log) as (read, write):
                async with ClientSession(read, write) as session:
                    offered = (await session.initialize()).capabilities
                    tools = await session.list_tools()
                    called = await session.call_tool(tool, arguments)
                    if offered.prompts is not None:
                        await session.list_prompts()
                    if offered.resources is not None:
                        await session.list_resources()
                    await session.send_ping()
                    return [each.name for each in tools.tools], called

    names, called = run(talk)
    assert tool in names and not called.is_error
    if name == "server-everything":
        assert called.content[0].text == "Echo: hi"
    entries = [json.loads(line) for line in recording.read_text().splitlines()]
    assert agreed_revision(entries)[0] == "2025-11-25"
    assert audit(entries) == []
    done = report(recording)
    assert done.returncode == 0 and "no problems" in done.stdout, done.stdout


@pytest.mark.parametrize("name", sorted(SERVERS))
def test_the_probing_client_and_a_real_server(name, tmp_path):
    """mcp.Client's default mode: the report's revision is the one the session ran under,
    whether the server took the probe (2026-07-28) or refused it and shook hands."""
    from mcp import Client
    from mcp.client.stdio import stdio_client

    from mcp_lesson.tap import agreed_revision, audit

    command, tool, arguments = _server(name, tmp_path)
    recording = tmp_path / "probe.jsonl"

    async def talk():
        with open(tmp_path / "stderr.txt", "w") as log:
            async with Client(stdio_client(tapped(recording, command), errlog=log)) as client:
                await client.list_tools()
                called = await client.call_tool(tool, arguments)
                return client.protocol_version, called.is_error

    version, failed = run(talk)
    assert not failed
    entries = [json.loads(line) for line in recording.read_text().splitlines()]
    sent = [
        json.loads(e["text"]).get("method") for e in entries if e.get("direction") == "to_server"
    ]
    revision, words = agreed_revision(entries)
    assert revision == version, words
    if version == "2025-11-25":  # the probe refused, then the handshake
        assert sent[:2] == ["server/discover", "initialize"], sent
        assert words.startswith(
            "the client tried 2026-07-28 (server/discover) and the server refused it"
        )
    else:
        assert version == "2026-07-28" and "initialize" not in sent, sent
    assert audit(entries) == []
    done = report(recording)
    assert done.returncode == 0 and f"revision: {version}" in done.stdout, done.stdout


# --- the report card ---------------------------------------------------

CARD = ROOT / "mcp_lesson" / "data" / "report_card.json"
CARD_PAGE = ROOT / "docs" / "report_card.md"
#: Set to 1 to write the cards and the page's table again, after a server's pin changed.
STORE = "MCP_LESSON_STORE_CARD"


def _pinned(name):
    """The version of a server the project pins: npm's from the lock, PyPI's installed (for the
    SDK's own MCPServer, the SDK's)."""
    if name == "mcpserver":
        name = "mcp"
    if name.startswith("server-"):
        lock = json.loads((ROOT / "tools" / "real_servers" / "package-lock.json").read_text())
        return lock["packages"][f"node_modules/@modelcontextprotocol/{name}"]["version"]
    from importlib.metadata import version

    return version(name)


def test_the_report_card_is_what_the_servers_do(tmp_path):
    """The course's client takes its first look at each pinned server through the tap; the
    audit's findings are the stored cards, and docs/report_card.md shows them."""
    from mcp_lesson.tap.report_card import card, first_look, table

    cards = {}
    for name in sorted(SERVERS):
        folder = tmp_path / name
        folder.mkdir()
        command, tool, arguments = _server(name, folder)
        recording = folder / "look.jsonl"
        steps = first_look(command, recording, tool, arguments, timeout=patience(60))
        entries = [json.loads(line) for line in recording.read_text().splitlines()]
        label = (
            f"MCPServer (mcp {_pinned(name)})" if name == "mcpserver" else f"{name} {_pinned(name)}"
        )
        cards[label] = card(entries, steps)
    _compare(cards, CARD, "card", table)


def _compare(cards, stored_at, mark, render):
    """``cards`` against those stored at ``stored_at`` and the page's table between its marks
    (``<!-- mark -->`` and ``<!-- end of mark -->``); with STORE=1, written there first."""
    page = CARD_PAGE.read_text(encoding="utf-8")
    opening, closing = f"<!-- {mark} -->\n", f"<!-- end of {mark} -->"
    start, end = page.index(opening) + len(opening), page.index(closing)
    if os.environ.get(STORE) == "1":
        stored_at.write_text(json.dumps(cards, indent=1) + "\n", encoding="utf-8")
        page = page[:start] + render(cards) + page[end:]
        CARD_PAGE.write_text(page, encoding="utf-8")
        end = page.index(closing)
    stored = json.loads(stored_at.read_text(encoding="utf-8"))
    assert cards == stored, f"the servers' cards changed; {STORE}=1 writes them again"
    assert page[start:end] == render(stored), (
        f"docs/report_card.md's table is not the cards'; {STORE}=1"
    )


SUITE_CARD = ROOT / "mcp_lesson" / "data" / "report_card_suite.json"


def _own_network():
    """A network namespace of its own, where the loopback is the only interface (unshare -rn):
    None, or why there is none here."""
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return "unshare or ip is not installed"
    done = subprocess.run(
        ["unshare", "-rnpf", "--kill-child", "sh", "-c", "ip link set lo up"],
        capture_output=True,
        text=True,
    )
    return (
        None
        if done.returncode == 0
        else f"unshare -rn is not allowed here: {done.stderr.strip()[:200]}"
    )


def test_the_suite_s_card_of_server_everything(tmp_path):
    """The conformance suite (HTTP only) on server-everything's Streamable HTTP mode, through
    the HTTP tap. That mode listens on every interface, so it runs in a network namespace of
    its own, whose only interface is the loopback (and whose processes all end with it)."""
    from mcp_lesson.peers import conformance
    from mcp_lesson.tap.report_card import card, suite_table

    script = _node_script("server-everything")
    try:
        conformance.installed()
    except conformance.Unavailable as exc:
        _missing(str(exc))
    _missing(_own_network())
    rows, recording = tmp_path / "rows.json", tmp_path / "suite.jsonl"
    done = subprocess.run(
        [
            "unshare",
            "-rnpf",
            "--kill-child",
            "sh",
            "-c",
            'ip link set lo up && exec "$@"',
            "sh",
            sys.executable,
            "-m",
            "mcp_lesson.tap.report_card",
            "--suite",
            str(rows),
            str(recording),
            "--",
            "node",
            script,
            "streamableHttp",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=patience(600),
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    generic = [row for row in json.loads(rows.read_text()) if row[0] in conformance.GENERIC]
    entries = [json.loads(line) for line in recording.read_text().splitlines()]
    looked = card(entries)
    cards = {
        f"server-everything {_pinned('server-everything')}": {
            "rows": generic,
            "revision": looked["revision"],
            "findings": looked["findings"],
        }
    }
    _compare(cards, SUITE_CARD, "suite", suite_table)
