"""Real MCP servers from the npm registry through the tap, with the official SDK's two clients:
the tap's report on real traffic has no false problem (issue 30's yardstick).

The server is ``@modelcontextprotocol/server-everything`` (pinned by
tools/real_servers/package-lock.json; ``make venv`` installs it), which exercises every
feature of the protocol, over stdio (its HTTP mode listens on every interface, and the
course's tests listen on loopback only). The clients:

* the SDK's ``ClientSession``: the handshake, the tools, a call, the prompts, the resources, a
  ping;
* the SDK's ``mcp.Client`` in its default mode: it probes ``server/discover`` at 2026-07-28,
  the server (of the handshake's era) answers -32601, and the session runs under 2025-11-25.
  The report must say so, and judge under that revision.

Without Node.js or the installed server the tests are skipped with the reason, and fail when
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

ROOT = Path(__file__).resolve().parents[1]
EVERYTHING = (ROOT / "tools" / "real_servers" / "node_modules" / "@modelcontextprotocol" / "server-everything"
              / "dist" / "index.js")


@pytest.fixture(scope="module")
def everything():
    """The command that starts server-everything over stdio, or a skip saying why not."""
    why = ("node not found" if shutil.which("node") is None else
           None if EVERYTHING.is_file() else "server-everything is not installed (make venv installs it)")
    if why:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and {why}", pytrace=False)
        pytest.skip(why)
    return ["node", str(EVERYTHING), "stdio"]


def tapped(recording, command):
    from mcp_lesson.course_server import tapped as behind_the_tap

    return behind_the_tap(recording, command, cwd=str(ROOT))


def report(recording):
    done = subprocess.run([sys.executable, "-m", "mcp_lesson.tap", "--report", str(recording)],
                          capture_output=True, text=True, cwd=ROOT, timeout=patience(60))
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


def test_the_handshake_client_and_server_everything(everything, tmp_path):
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    from mcp_lesson.tap import agreed_revision, audit

    recording = tmp_path / "handshake.jsonl"

    async def talk():
        with open(tmp_path / "stderr.txt", "w") as log:
            async with stdio_client(tapped(recording, everything), errlog=log) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    tools = await session.list_tools()
                    echoed = await session.call_tool("echo", {"message": "hi"})
                    await session.list_prompts()
                    await session.list_resources()
                    await session.send_ping()
                    return [tool.name for tool in tools.tools], echoed.content[0].text

    names, echoed = run(talk)
    assert "echo" in names and echoed == "Echo: hi"
    entries = [json.loads(line) for line in recording.read_text().splitlines()]
    assert agreed_revision(entries)[0] == "2025-11-25"
    assert audit(entries) == []
    done = report(recording)
    assert done.returncode == 0 and "no problems" in done.stdout, done.stdout


def test_the_probing_client_and_server_everything(everything, tmp_path):
    from mcp import Client
    from mcp.client.stdio import stdio_client

    from mcp_lesson.tap import agreed_revision, audit

    recording = tmp_path / "probe.jsonl"

    async def talk():
        with open(tmp_path / "stderr.txt", "w") as log:
            async with Client(stdio_client(tapped(recording, everything), errlog=log)) as client:
                await client.list_tools()
                echoed = await client.call_tool("echo", {"message": "hi"})
                return client.protocol_version, echoed.content[0].text

    assert run(talk) == ("2025-11-25", "Echo: hi")
    entries = [json.loads(line) for line in recording.read_text().splitlines()]
    sent = [json.loads(e["text"]).get("method") for e in entries if e.get("direction") == "to_server"]
    assert sent[:2] == ["server/discover", "initialize"]
    revision, words = agreed_revision(entries)
    assert revision == "2025-11-25" and words.startswith("the client tried 2026-07-28 (server/discover)")
    assert audit(entries) == []
    done = report(recording)
    assert done.returncode == 0 and "revision: 2025-11-25 (the client tried 2026-07-28" in done.stdout, done.stdout
