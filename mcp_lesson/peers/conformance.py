"""The official MCP conformance suite, run against the course's server and client.

The suite is ``@modelcontextprotocol/conformance`` (the npm registry; its
repository is modelcontextprotocol/conformance), pinned to
:data:`SUITE_VERSION`. It needs Node 22 or newer (Debian's Node 20 fails at
start), so the npm registry's ``node`` package, pinned to :data:`NODE_VERSION`,
comes with it. ``make venv`` installs both into ``tools/conformance/node_modules``
from the committed lock file; nothing is downloaded when the suite runs, and it
talks to loopback addresses only.

What the suite does (0.1.16):

* ``conformance server --url URL`` plays a client against a Streamable HTTP
  server, scenario after scenario, and writes each scenario's *checks*
  (``SUCCESS``, ``FAILURE``, ``WARNING`` or ``INFO``) to a ``checks.json``;
* ``conformance client --command CMD --scenario NAME`` starts a server of its
  own and runs ``CMD URL``, then checks what the client did.

A server scenario is :data:`GENERIC` when any server should pass it; the others
call tools, prompts and resources that only the suite's own test server has
(:data:`NEEDS`). :func:`verdict` says what a scenario's checks come to, and
:func:`table` prints the table that ``docs/conformance.md`` holds: each
scenario passes, or needs what the suite names, or fails with the reason.
"""

import json
import re
import subprocess
import tempfile
from pathlib import Path

from mcp_lesson.exercises.calling import one_line

SUITE_VERSION = "0.1.16"
NODE_VERSION = "22.23.3"
#: Where ``make venv`` installs the suite and its Node (``package.json`` and the lock are committed).
FOLDER = Path(__file__).resolve().parents[2] / "tools" / "conformance"
NODE = FOLDER / "node_modules" / "node" / "bin" / "node"
CLI = FOLDER / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"

#: The server scenarios any server should pass. server-sse-polling's own tool
#: call needs the suite's ``test_reconnection``; its checks of the priming event and the
#: retry field are generic, and :data:`SSE_POLLING_GENERIC` names them.
GENERIC = (
    "server-initialize",
    "ping",
    "tools-list",
    "resources-list",
    "prompts-list",
    "logging-set-level",
    "server-sse-multiple-streams",
    "dns-rebinding-protection",
    "server-sse-polling",
)
SSE_POLLING_GENERIC = ("server-sse-priming-event", "server-sse-retry-field")

#: The other server scenarios: what of the suite's own test server each one calls, and the
#: words of the failure that says a server lacks it (an unknown name is -32602, a method
#: the server does not have -32601).
NEEDS = {
    "completion-complete": (
        "completion/complete for the prompt test_prompt_with_arguments",
        "Method not found",
    ),
    "tools-call-simple-text": ("the tool test_simple_text", "Unknown tool: test_simple_text"),
    "tools-call-image": ("the tool test_image_content", "Unknown tool: test_image_content"),
    "tools-call-audio": ("the tool test_audio_content", "Unknown tool: test_audio_content"),
    "tools-call-embedded-resource": (
        "the tool test_embedded_resource",
        "Unknown tool: test_embedded_resource",
    ),
    "tools-call-mixed-content": (
        "the tool test_multiple_content_types",
        "Unknown tool: test_multiple_content_types",
    ),
    "tools-call-with-logging": (
        "the tool test_tool_with_logging",
        "Unknown tool: test_tool_with_logging",
    ),
    "tools-call-error": ("the tool test_error_handling", "Unknown tool: test_error_handling"),
    "tools-call-with-progress": (
        "the tool test_tool_with_progress",
        "Unknown tool: test_tool_with_progress",
    ),
    "tools-call-sampling": ("the tool test_sampling", "Unknown tool: test_sampling"),
    "tools-call-elicitation": ("the tool test_elicitation", "Unknown tool: test_elicitation"),
    "json-schema-2020-12": (
        "the tool json_schema_2020_12_tool",
        "Tool 'json_schema_2020_12_tool' not found",
    ),
    "elicitation-sep1034-defaults": (
        "the tool test_elicitation_sep1034_defaults",
        "Unknown tool: test_elicitation_sep1034_defaults",
    ),
    "elicitation-sep1330-enums": (
        "the tool test_elicitation_sep1330_enums",
        "Unknown tool: test_elicitation_sep1330_enums",
    ),
    "resources-read-text": (
        "the resource test://static-text",
        "Unknown resource: test://static-text",
    ),
    "resources-read-binary": (
        "the resource test://static-binary",
        "Unknown resource: test://static-binary",
    ),
    "resources-templates-read": (
        "the resource template test://template/{id}/data",
        "Unknown resource: test://template/123/data",
    ),
    "resources-subscribe": ("subscriptions to test://watched-resource", "Method not found"),
    "resources-unsubscribe": ("subscriptions to test://watched-resource", "Method not found"),
    "prompts-get-simple": ("the prompt test_simple_prompt", "Unknown prompt: test_simple_prompt"),
    "prompts-get-with-args": (
        "the prompt test_prompt_with_arguments",
        "Unknown prompt: test_prompt_with_arguments",
    ),
    "prompts-get-embedded-resource": (
        "the prompt test_prompt_with_embedded_resource",
        "Unknown prompt: test_prompt_with_embedded_resource",
    ),
    "prompts-get-with-image": (
        "the prompt test_prompt_with_image",
        "Unknown prompt: test_prompt_with_image",
    ),
}

#: The client scenarios a client without OAuth should pass (the ``auth/...`` ones are out of scope).
CLIENT_SCENARIOS = ("initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry")

#: Seconds one run of the suite may take before it is stopped.
TIMEOUT = 300


class Unavailable(Exception):
    """The suite, or the Node it needs, is not installed here (one line says why)."""


def installed():
    """``(node, cli)``, the paths that run the pinned suite; :class:`Unavailable` when it is missing."""
    if not NODE.is_file() or not CLI.is_file():
        raise Unavailable(
            f"the conformance suite is not installed in {FOLDER}: "
            "make venv installs it (it needs npm)"
        )
    found = json.loads((CLI.parent.parent / "package.json").read_text())["version"]
    if found != SUITE_VERSION:
        raise Unavailable(
            f"tools/conformance holds the suite {found}, not {SUITE_VERSION}: run make venv"
        )
    return str(NODE), str(CLI)


def _run(arguments, timeout):
    node, cli = installed()
    done = subprocess.run(
        [node, cli, *arguments],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=FOLDER,
        env=_quiet_env(),
    )
    return done


def _quiet_env():
    import os

    return {**os.environ, "NO_COLOR": "1", "npm_config_update_notifier": "false"}


def _read_results(folder, prefix):
    """``{scenario: [check, ...]}`` from the suite's output folder (one folder per scenario)."""
    results = {}
    for checks in sorted(Path(folder).glob("*/checks.json")):
        name = re.sub(r"-\d{4}-\d\d-\d\dT[\d-]+Z$", "", checks.parent.name)
        results[name.removeprefix(prefix)] = json.loads(checks.read_text())
    return results


def run_server(url, scenarios=None, timeout=TIMEOUT):
    """Every server scenario (or those named) against the server at ``url``: ``{scenario: checks}``."""
    with tempfile.TemporaryDirectory(prefix="conformance-") as folder:
        if scenarios is None:
            done = _run(["server", "--url", url, "--suite", "all", "-o", folder], timeout)
        else:
            for scenario in scenarios:
                done = _run(["server", "--url", url, "--scenario", scenario, "-o", folder], timeout)
        results = _read_results(folder, "server-")
    if not results:
        raise RuntimeError(
            "the conformance suite wrote no results: " + one_line(done.stderr or done.stdout, 300)
        )
    return results


def run_client(command, scenario, timeout=TIMEOUT):
    """One client scenario: the suite runs ``command URL`` against a server of its own; its checks."""
    with tempfile.TemporaryDirectory(prefix="conformance-") as folder:
        done = _run(["client", "--command", command, "--scenario", scenario, "-o", folder], timeout)
        results = _read_results(folder, "")
    if len(results) != 1:
        raise RuntimeError(
            f"the conformance suite wrote no result for {scenario}: "
            + one_line(done.stderr or done.stdout, 300)
        )
    [checks] = results.values()
    return checks, done


def _failures(checks):
    return [check for check in checks if check.get("status") == "FAILURE"]


def verdict(scenario, checks):
    """``(word, why)`` for one scenario's checks: ``"passes"``, ``"needs"`` or ``"fails"``.

    A scenario passes when no check failed (and, for server-sse-polling, when the
    checks of :data:`SSE_POLLING_GENERIC` succeeded). It *needs* what :data:`NEEDS`
    names when every failure says the server lacks it; anything else fails, with
    the first failure's words.
    """
    failed = _failures(checks)
    if scenario == "server-sse-polling":
        missing = [
            name
            for name in SSE_POLLING_GENERIC
            if not any(c.get("id") == name and c.get("status") == "SUCCESS" for c in checks)
        ]
        if missing:
            return "fails", "no " + ", no ".join(missing)
    if not failed:
        warned = [c for c in checks if c.get("status") == "WARNING"]
        if scenario == "server-sse-polling" and warned:
            return "passes", "its resumption check needs the suite's tool test_reconnection"
        return "passes", ""
    words = [
        one_line(str(c.get("errorMessage") or c.get("description") or ""), 200) for c in failed
    ]
    if scenario in NEEDS and all(NEEDS[scenario][1] in word for word in words):
        return "needs", NEEDS[scenario][0]
    return "fails", words[0]


def table(results):
    """The rows ``(scenario, word, why)`` of :func:`verdict`: the generic scenarios first, each part by name."""
    order = sorted(results, key=lambda name: (name not in GENERIC, name))
    return [(name, *verdict(name, results[name])) for name in order]


def show_rows(rows, out=None):
    """Print rows ``(scenario, word, why)`` as a table of plain text."""
    import sys

    out = out or sys.stdout
    width = max(len(name) for name, _, _ in rows)
    print(f"{'scenario':<{width}}  {'verdict':<7}  why", file=out)
    for name, word, why in rows:
        print(f"{name:<{width}}  {word:<7}  {why}".rstrip(), file=out)


def show_table(results, out=None):
    """Print :func:`table` of ``results``."""
    show_rows(table(results), out)


#: The stored table of the course's server (lesson 10 shows it where the suite cannot run).
STORED = "conformance.json"


def stored_rows():
    """The rows of :func:`table` for the course's server, as stored in ``mcp_lesson/data``."""
    from importlib import resources

    text = resources.files("mcp_lesson").joinpath("data", STORED).read_text(encoding="utf-8")
    return [tuple(row) for row in json.loads(text)["rows"]]


def store_rows(results, path=None):
    """Write :func:`table` of ``results`` as the stored rows (after the suite or the server changed)."""
    path = Path(path) if path else Path(__file__).resolve().parents[1] / "data" / STORED
    document = {
        "suite": SUITE_VERSION,
        "node": NODE_VERSION,
        "about": "the official conformance suite's verdicts on python -m mcp_lesson.server --http; "
        "written by mcp_lesson.peers.conformance.store_rows, checked by tests/peers/test_conformance.py",
        "rows": [list(row) for row in table(results)],
    }
    path.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
