"""A report card of a stdio MCP server: the course's client takes a first look at it through the
tap (:func:`first_look`), and the tap's audit of that recording is summed up as data that stays
the same from run to run (:func:`card`), and as a table (:func:`table`).

The first look: the handshake (2025-11-25), the tools, the resources and prompts where the
server announced them, a call of one of its tools, what a developer's mistakes look like from
the other side (a tool, a prompt and a resource that do not exist), a ping, and the log level
where the server offers logging. docs/report_card.md shows the cards of the servers the
project pins; tests/test_real_servers.py makes them again and compares.
"""

import json
import sys

from mcp_lesson.client.common import ServerError
from mcp_lesson.client.over_stdio import StdioClient
from mcp_lesson.tap.audit import agreed_revision, audit
from mcp_lesson.tap.entries import message_of

#: What the first look asks for that does not exist.
NO_TOOL, NO_PROMPT, NO_RESOURCE = "no_such_tool", "no_such_prompt", "mcp-lesson://no-such-resource"


def first_look(command, recording, tool, arguments, timeout=30.0):
    """Run ``command`` behind the tap (recording to ``recording``) and take the first look with
    the course's client: ``{step: "ok" or the error's code}``."""
    tapped = [sys.executable, "-m", "mcp_lesson.tap", "--record", str(recording), "--", *command]
    steps = {}
    with StdioClient(tapped, timeout=timeout) as client:

        def step(name, method, params=None):
            try:
                client.request(method, params)
                steps[name] = "ok"
            except ServerError as exc:
                steps[name] = exc.code if exc.code is not None else str(exc)

        step("tools/list", "tools/list")
        if client.offers("resources"):
            step("resources/list", "resources/list")
            step("resources/read (none such)", "resources/read", {"uri": NO_RESOURCE})
        if client.offers("prompts"):
            step("prompts/list", "prompts/list")
            step("prompts/get (none such)", "prompts/get", {"name": NO_PROMPT, "arguments": {}})
        step(f"tools/call {tool}", "tools/call", {"name": tool, "arguments": arguments})
        step("tools/call (none such)", "tools/call", {"name": NO_TOOL, "arguments": {}})
        step("ping", "ping")
        if client.offers("logging"):
            step("logging/setLevel", "logging/setLevel", {"level": "info"})
    return steps


def _about(entries, index, requests):
    """The method a finding is about: its message's, or the request's its answer answers (over
    HTTP, the request of its exchange)."""
    entry = entries[index]
    value, _ = message_of(entry) if "direction" in entry else (None, None)
    if "direction" not in entry:  # an HTTP answer without a message: the request of its exchange
        asked = requests.get(("exchange", entry.get("exchange")))
        return f"answer to {asked}" if asked else str(entry.get("event", ""))
    if not isinstance(value, dict):
        return "a line that is no message"
    if isinstance(value.get("method"), str):
        return value["method"]
    http = entry.get("http") if isinstance(entry.get("http"), dict) else {}
    asked = requests.get(("exchange", http.get("exchange"))) or requests.get(
        (entry.get("direction"), json.dumps(value.get("id")))
    )
    return f"answer to {asked}" if asked else "an answer"


def card(entries, steps=None):
    """The card of one recording: the revision agreed, what each step got (``steps``), and the
    audit's findings as ``[problem, severity, keyword, what it is about]``, each once, sorted (how
    many times a server's timer logged is no part of it); the keyword is the specification's
    (MUST, SHOULD... or "statement", "example"), None for the tap's own notes."""
    requests, where = {}, {}
    for index, entry in enumerate(entries):
        where[index + 1] = index
        value, _ = message_of(entry) if "direction" in entry else (None, None)
        if isinstance(value, dict) and isinstance(value.get("method"), str) and "id" in value:
            answerer = "from_server" if entry["direction"] == "to_server" else "to_server"
            requests[(answerer, json.dumps(value["id"]))] = value["method"]
            http = entry.get("http") if isinstance(entry.get("http"), dict) else {}
            if entry["direction"] == "to_server" and type(http.get("exchange")) is int:
                requests[("exchange", http["exchange"])] = value["method"]
    found = {
        (
            problem["problem"],
            problem.get("severity", "problem"),
            problem.get("keyword"),
            _about(entries, where[problem["line"]], requests)
            if problem.get("line") in where
            else "",
        )
        for problem in audit(entries)
    }
    return {
        "revision": agreed_revision(entries)[0],
        "steps": steps or {},
        "findings": [
            list(finding) for finding in sorted(found, key=lambda one: [str(part) for part in one])
        ],
    }


def suite_table(cards):
    """A Markdown table of ``{server: {"rows": the suite's generic rows, ...}}``."""
    rows = ["| server | scenario | verdict | why |", "|---|---|---|---|"]
    for server, one in cards.items():
        for scenario, word, why in one["rows"]:
            rows.append(f"| {server} | `{scenario}` | {word} | {why} |")
    return "\n".join(rows) + "\n"


def table(cards):
    """A Markdown table of ``{server: card}``: one row a finding (or "no findings")."""
    rows = [
        "| server | revision | finding | severity | keyword | about |",
        "|---|---|---|---|---|---|",
    ]
    for server, one in cards.items():
        findings = one["findings"] or [["no findings", "", "", ""]]
        for problem, severity, keyword, about in findings:
            rows.append(
                f"| {server} | {one['revision']} | {problem} | {severity} | {keyword or ''} | {about} |"
            )
    return "\n".join(rows) + "\n"


def suite_look(command, recording, timeout=300.0):
    """Start ``command`` (a Streamable HTTP server that takes its port from ``PORT`` and serves
    ``/mcp``), put the HTTP tap in front of it (recording to ``recording``), and run the
    conformance suite's server scenarios through the tap: the suite's rows
    (:func:`mcp_lesson.peers.conformance.table`).

    Meant for a network namespace of its own (``unshare -rn``), for a server that listens on
    every interface, as server-everything does: there, every interface is the loopback.
    """
    import os
    import re
    import select
    import signal
    import socket
    import subprocess
    import time

    from mcp_lesson.peers import conformance

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    started = []
    try:
        server = subprocess.Popen(
            command,
            env={**os.environ, "PORT": str(port)},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        started.append(server)
        deadline = time.monotonic() + timeout
        while True:  # until the server listens
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the server did not listen on port {port}") from None
                time.sleep(0.05)
        tap = subprocess.Popen(
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
                f"http://127.0.0.1:{port}/mcp",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        started.append(tap)
        said = b""
        while b"\n" not in said:
            if (
                time.monotonic() > deadline
                or not select.select([tap.stderr], [], [], 1)[0]
                and tap.poll() is not None
            ):
                raise RuntimeError(f"the HTTP tap did not announce itself: {said!r}")
            said += (
                os.read(tap.stderr.fileno(), 4096)
                if select.select([tap.stderr], [], [], 0)[0]
                else b""
            )
        url = re.search(r"listening on (\S+)", said.decode()).group(1)
        rows = conformance.table(conformance.run_server(url, timeout=timeout))
    finally:
        for process in reversed(started):  # the tap first: it records its end
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
    return [list(row) for row in rows]


def main(argv=None):
    """``python -m mcp_lesson.tap.report_card --suite OUT RECORDING -- COMMAND...``: run
    :func:`suite_look` and write its rows to OUT as JSON (for a network namespace)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if len(argv) < 5 or argv[0] != "--suite" or argv[3] != "--":
        print(
            "usage: python -m mcp_lesson.tap.report_card --suite OUT RECORDING -- COMMAND...",
            file=sys.stderr,
        )
        return 2
    out, recording, command = argv[1], argv[2], argv[4:]
    rows = suite_look(command, recording)
    with open(out, "w", encoding="utf-8") as file:
        json.dump(rows, file)
    return 0


if __name__ == "__main__":
    sys.exit(main())
