"""The official MCP conformance suite, pinned, against the course's server and client.

Full tier. The suite and its Node 22 are installed by ``make venv`` (npm ci in
tools/conformance); nothing is downloaded here. Every server scenario runs
against the course's HTTP server directly and through the HTTP tap, and each
verdict must be the one that ``docs/conformance.md`` lists: the generic
scenarios pass, the others need the suite's named test tools, prompts or
resources, and fail for that reason alone. The course's client passes the
suite's four core client scenarios. Without the suite the tests are skipped
with the reason, and fail when ``CI=true``.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from http_server import HttpTapped
from processes import patience

from mcp_lesson.peers import conformance
from mcp_lesson.peers.conformance import (
    CLIENT_SCENARIOS,
    GENERIC,
    NEEDS,
    NODE_VERSION,
    SUITE_VERSION,
)

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "conformance.md"


@pytest.fixture(scope="module")
def suite():
    try:
        return conformance.installed()
    except conformance.Unavailable as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(str(exc))
        pytest.skip(str(exc))


@pytest.fixture(scope="module")
def direct(suite, server):
    return conformance.run_server(server.url, timeout=patience(300))


@pytest.fixture(scope="module")
def tapped(suite, server, tmp_path_factory):
    tap = HttpTapped(tmp_path_factory.mktemp("conformance-tap"), server.url)
    try:
        results = conformance.run_server(tap.url, timeout=patience(300))
    finally:
        entries = tap.stop()
    return results, entries, tap.recording


def documented():
    """The rows of the table in docs/conformance.md: {scenario: (verdict, why)}."""
    rows = {}
    for line in (
        DOCS.read_text().split("## The course's server", 1)[1].split("\n## ", 1)[0].splitlines()
    ):
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0].startswith("`"):
            rows[cells[0].strip("`")] = (cells[1], cells[2])
    return rows


def test_the_suite_and_its_node_are_the_pinned_ones(suite):
    node, cli = suite
    assert (
        subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()
        == f"v{NODE_VERSION}"
    )
    listed = subprocess.run([node, cli, "--version"], capture_output=True, text=True, cwd=ROOT)
    assert listed.stdout.strip() == SUITE_VERSION


def test_every_scenario_of_the_suite_is_generic_or_needs_something_named(direct):
    assert sorted(direct) == sorted(
        [*GENERIC, *NEEDS]
    )  # a new scenario of the suite is noticed here


@pytest.mark.parametrize("scenario", GENERIC)
def test_the_course_s_server_passes_every_generic_scenario(direct, scenario):
    word, why = conformance.verdict(scenario, direct[scenario])
    assert word == "passes", (why, direct[scenario])


def test_the_others_fail_only_for_what_the_suite_s_test_server_has(direct):
    for scenario in NEEDS:
        assert conformance.verdict(scenario, direct[scenario]) == ("needs", NEEDS[scenario][0])


def test_the_docs_table_is_what_the_suite_says(direct):
    rows = {name: (word, why) for name, word, why in conformance.table(direct)}
    assert documented() == rows


def test_through_the_http_tap_the_verdicts_are_the_same(direct, tapped):
    results, entries, _ = tapped
    assert {name: conformance.verdict(name, results[name]) for name in results} == {
        name: conformance.verdict(name, direct[name]) for name in direct
    }
    assert entries[-1]["event"] == "end"
    # The tap passes the client's Host on and records it: the rebinding attempt reached the
    # server as it was sent, and was refused there.
    asked = [
        entry.get("http", entry)
        for entry in entries
        if entry.get("direction") == "to_server" or entry.get("event") == "http_request"
    ]
    hosts = {request["headers"].get("host") for request in asked}
    assert any(host and not re.match(r"(127\.0\.0\.1|localhost):\d+$", host) for host in hosts), (
        hosts
    )


def test_the_tap_s_report_on_the_suite_s_traffic_finds_no_false_problem(tapped):
    _, _, recording = tapped
    done = subprocess.run(
        [sys.executable, "-m", "mcp_lesson.tap", "--report", str(recording)],
        capture_output=True,
        text=True,
        timeout=patience(120),
        cwd=ROOT,
    )
    assert "Traceback" not in done.stderr and done.stdout.strip(), done.stderr
    # No false problem on 33 sessions of real traffic: each session's ids are its own, a
    # refusal in plain text (421 for the forged Host) answers its request, and the priming
    # events of the streams are no messages.
    assert done.returncode == 0 and "no problems" in done.stdout, done.stdout[:3000]


#: The tool each client scenario's server lists (with no annotations).
CLIENT_SCENARIO_TOOLS = {
    "tools_call": "add_numbers",
    "elicitation-sep1034-client-defaults": "test_client_elicitation_defaults",
    "sse-retry": "test_reconnection",
}


@pytest.mark.parametrize("scenario", CLIENT_SCENARIOS)
def test_the_course_s_client_passes_the_core_client_scenarios(suite, scenario):
    # The suite's tools carry no annotations: the client calls them only when they are named.
    named = (
        f" --include {CLIENT_SCENARIO_TOOLS[scenario]}" if scenario in CLIENT_SCENARIO_TOOLS else ""
    )
    command = f"{sys.executable} -m mcp_lesson.client --try-tools{named}"
    checks, done = conformance.run_client(command, scenario, timeout=patience(120))
    assert conformance.verdict(scenario, checks) == ("passes", ""), (done.stdout[-2000:], checks)
    assert any(check["status"] == "SUCCESS" for check in checks)
    assert "CLIENT EXITED WITH ERROR" not in done.stdout, done.stdout[-2000:]


def test_the_stored_rows_lesson_10_shows_are_what_the_suite_says(direct):
    assert conformance.stored_rows() == conformance.table(direct)
