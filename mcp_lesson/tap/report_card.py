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
    """The method a finding is about: its message's, or the request's its answer answers."""
    value, _ = message_of(entries[index])
    if not isinstance(value, dict):
        return "a line that is no message"
    if isinstance(value.get("method"), str):
        return value["method"]
    asked = requests.get((entries[index].get("direction"), json.dumps(value.get("id"))))
    return f"answer to {asked}" if asked else "an answer"


def card(entries, steps=None):
    """The card of one recording: the revision agreed, what each step got (``steps``), and the
    audit's findings as ``[problem, severity, what it is about]``, each once, sorted (how many
    times a server's timer logged is no part of it)."""
    requests, where = {}, {}
    for index, entry in enumerate(entries):
        where[index + 1] = index
        value, _ = message_of(entry) if "direction" in entry else (None, None)
        if isinstance(value, dict) and isinstance(value.get("method"), str) and "id" in value:
            answerer = "from_server" if entry["direction"] == "to_server" else "to_server"
            requests[(answerer, json.dumps(value["id"]))] = value["method"]
    found = {(problem["problem"], problem.get("severity", "problem"),
              _about(entries, where[problem["line"]], requests) if problem.get("line") in where else "")
             for problem in audit(entries)}
    return {"revision": agreed_revision(entries)[0], "steps": steps or {},
            "findings": [list(finding) for finding in sorted(found)]}


def table(cards):
    """A Markdown table of ``{server: card}``: one row a finding (or "no problems")."""
    rows = ["| server | revision | finding | severity | about |", "|---|---|---|---|---|"]
    for server, one in cards.items():
        findings = one["findings"] or [["no problems", "", ""]]
        for problem, severity, about in findings:
            rows.append(f"| {server} | {one['revision']} | {problem} | {severity} | {about} |")
    return "\n".join(rows) + "\n"
