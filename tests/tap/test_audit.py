"""The audit of a recording (mcp_lesson/tap/audit.py, over lesson 10's exported
``audit``): on conversations written here, on the sloppy server's faults, and on HTTP
sessions of real servers, each judged under the revision it agreed.
"""

import json
import time

import pytest
from http_server import HttpTapped, http_client
from processes import patience

from mcp_lesson.tap import agreed_revision, answer_times, audit, id_key, revisions_by_scope

from .tapping import INIT, INITIALIZED, PY, ROOT, SLOPPY_SERVER, Tapped, line, report


def entry(direction, message, t=None, **extra):
    text = message if isinstance(message, str) else json.dumps(message)
    return {"direction": direction, "text": text, **({"t": t} if t is not None else {}), **extra}


def names(conversation, revision="agreed"):
    return [(p["line"], p["problem"]) for p in audit(conversation, revision)]


def up(message, **extra):
    return entry("to_server", message, **extra)


def down(message, **extra):
    return entry("from_server", message, **extra)


def request(request_id, method="ping", **params):
    message = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params:
        message["params"] = params
    return message


def result(request_id):
    return {"jsonrpc": "2.0", "id": request_id, "result": {}}


#: The SDK's own server with its defaults (none of the course's fixes), over stdio.
BARE_SDK_SERVER = (
    "from mcp.server.mcpserver import MCPServer\n"
    "server = MCPServer('bare')\n"
    "@server.tool()\n"
    "def echo(text: str) -> str:\n"
    "    return text\n"
    "server.run('stdio')\n"
)


SLOPPY_TALK = [
    INIT,
    INITIALIZED,
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    {"jsonrpc": "2.0", "id": 3, "method": "ping"},
    {
        "jsonrpc": "2.0",
        "id": 4,
        "method": "tools/call",
        "params": {"name": "forget", "arguments": {}},
    },
    {
        "jsonrpc": "2.0",
        "id": 5,
        "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "hi"}},
    },
]


def test_the_audit_finds_each_fault_of_the_sloppy_server(tmp_path):
    tap = Tapped(tmp_path, SLOPPY_SERVER)
    tap.send(b"".join(line(message) for message in SLOPPY_TALK))
    tap.read_until(lambda out: b'"id": 5' in out, what="the echo's answer")
    assert tap.finish() == 0
    done = report(tap.recording)
    assert done.returncode == 1
    said = done.stdout
    # 1. log lines on stdout
    assert 'the server wrote "sloppy server 1.0 ready" on stdout, which is not JSON' in said
    assert 'the server wrote "[sloppy] calling forget" on stdout' in said
    # 2. a null-id result
    assert "Invalid (-32600): the id is null; a result response must carry" in said
    assert "; was it meant for request 3 (ping, line 5)?" in said
    # 3. an error with a null id after a notification: it answers nothing (JSON-RPC gives a null
    # id to an error for a message whose id could not be read; a notification is owed nothing)
    assert "the server answered the notification" not in said
    # 4. a forgotten request
    assert "the client's request 4 (tools/call) was never answered by the server" in said
    problems = [json.loads(raw) for raw in report(tap.recording, "--json").stdout.splitlines()]
    assert sorted(p["problem"] for p in problems) == sorted(
        ["pollution"] * 3 + ["unmatched", "invalid", "unanswered", "unanswered"]
    )
    assert {p["keyword"] for p in problems} == {"MUST", "MUST NOT"}
    assert all(
        p["cites"].startswith(("docs/specification/2025-11-25/", "https://www.jsonrpc.org"))
        for p in problems
    )
    assert {p["id"] for p in problems if p["problem"] == "unanswered"} == {3, 4}


def test_a_clean_conversation_has_no_problems():
    talk = [
        up(INIT, t=0.0),
        down(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "result": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "serverInfo": {"name": "s", "version": "1"},
                },
            },
            t=0.002,
        ),
        up(INITIALIZED, t=0.003),
        up(request("a"), t=0.004),
        down(request(7), t=0.005),
        up(result(7), t=0.006),
        down(result("a"), t=0.0105),
    ]
    assert audit(talk) == []
    assert agreed_revision(talk) == (
        "2025-06-18",
        "the client asked for 2025-11-25 in initialize and the server answered 2025-06-18",
    )
    times = answer_times(talk)
    assert [(row["id"], row["direction"], row["answer_line"]) for row in times] == [
        (1, "to_server", 2),
        ("a", "to_server", 7),
        (7, "from_server", 6),
    ]
    assert times[1]["seconds"] == pytest.approx(0.0065)


def test_ids_match_by_type_and_value():
    assert id_key(1) != id_key("1") and id_key(True) is None and id_key(1.0) is None
    talk = [up(request(1)), down(result("1")), down(result(1.0))]
    assert names(talk, None) == [(1, "unanswered"), (2, "unknown_id"), (3, "invalid")]
    assert "meant for request 1 (ping, line 1)?" in audit(talk, None)[2]["detail"]


def test_answered_twice_reused_ids_and_unknown_ids():
    talk = [up(request(1)), up(request(1)), down(result(1)), down(result(1)), down(result(2))]
    assert names(talk, None) == [(2, "id_reused"), (4, "answered_twice"), (5, "unknown_id")]


def test_a_null_id_error_answers_an_unreadable_message_not_a_notification():
    parse_error = {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32700, "message": "Parse error"},
    }
    assert names([up("{oops"), down(parse_error)], None) == [(1, "not_json")]
    assert names([up(INITIALIZED), down(parse_error)], None) == [(2, "unmatched")]
    assert names([down(parse_error)], None) == [(1, "unmatched")]
    # the readable request it should have echoed stays unanswered, said once, at its own line
    talk = [up(INITIALIZED), up(request(5)), down(parse_error)]
    assert names(talk, None) == [(2, "unanswered"), (3, "unmatched")]
    [error] = [p for p in audit(talk, None) if p["problem"] == "unmatched"]
    assert "request 5" in error["detail"] and error["keyword"] == "MUST"
    assert "notifications/initialized" not in error["detail"]


def test_a_cancelled_request_may_go_unanswered_and_answered_is_a_warning():
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}
    assert names([up(request(1)), up(cancel)], None) == []
    # cancellation.mdx: receivers SHOULD not send a response for the cancelled request
    [late] = audit([up(request(1)), up(cancel), down(result(1))], None)
    assert (late["line"], late["problem"], late["severity"], late["keyword"]) == (
        3,
        "cancelled_answered",
        "warning",
        "SHOULD",
    )
    assert late["cites"].endswith(
        "basic/utilities/cancellation.mdx, the latest revision with a handshake"
    )
    # answered before the cancel: nothing to say
    assert names([up(request(1)), down(result(1)), up(cancel)], None) == []


def test_answers_are_matched_in_the_order_things_happened():
    # The server's thread recorded the answer before the client's thread recorded the request.
    talk = [down(result(1), t=0.5), up(request(1), t=0.4)]
    assert audit(talk) == []


def test_batches_are_judged_member_by_member_under_2025_03_26():
    batch = [request(1), {"jsonrpc": "2.0", "id": 2, "method": "ping", "params": None}]
    talk = [up(json.dumps(batch)), down(json.dumps([result(1), result(2)]))]
    # The invalid member is owed an error: a result to it is no answer (lesson 10's rule).
    assert names(talk, "2025-03-26") == [(1, "invalid"), (2, "unknown_id")]
    [owed] = [p for p in audit(talk, "2025-03-26") if p["problem"] == "unknown_id"]
    assert owed["detail"].startswith(
        "a result to the client's invalid request 2 (ping, line 1), which is owed "
        "an error (docs/specification/2025-03-26/basic/index.mdx: "
    )
    assert names(talk, None) == [(1, "invalid"), (2, "invalid")]


def test_the_revision_of_a_stateless_conversation_and_one_that_changes():
    def meta(request_id, version):
        return request(
            request_id, "tools/list", _meta={"io.modelcontextprotocol/protocolVersion": version}
        )

    def tools(request_id):  # a result that fits 2026-07-28's ListToolsResult
        return {
            "jsonrpc": "2.0",
            "id": request_id,
            "result": {"tools": [], "resultType": "complete", "cacheScope": "public", "ttlMs": 0},
        }

    talk = [up(meta(1, "2026-07-28")), down(tools(1)), up(meta(2, "2025-11-25")), down(tools(2))]
    assert agreed_revision(talk)[0] == "2026-07-28"
    assert names(talk) == [(3, "revision")]
    # an error response without an id is valid from 2025-11-25, not under the course's rules
    no_id = {"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}}
    assert names([up("{oops"), down(no_id)], "2025-11-25") == [(1, "not_json")]
    assert names([up("{oops"), down(no_id)], None) == [(1, "not_json"), (2, "invalid")]


def test_an_unknown_revision_is_judged_by_the_courses_rules():
    talk = [
        up(INIT),
        down({"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "1999-01-01"}}),
    ]
    revision, how = agreed_revision(talk)
    assert revision is None and "the course does not know 1999-01-01" in how


def test_a_recording_that_lies_about_a_cut_line_is_still_read():
    """A hand-edited or foreign recording may mark a line truncated without its size."""
    from mcp_lesson.tap import audit, message_of

    entry = {"direction": "from_server", "text": "", "truncated": True, "size": "big"}
    value, reason = message_of(entry)
    assert value is None and "longer than the tap keeps" in reason
    audit(
        [{"direction": "to_server", "text": '{"jsonrpc": "2.0", "id": 1, "method": "ping"}'}, entry]
    )


def test_ids_count_per_http_session(tmp_path, http_server):
    """Two sessions may use the same ids at once (2025-11-25: a session is its Mcp-Session-Id).
    A real recording of one session, and a second one interleaved with it: the audit finds no
    problem; without the tap's exchange numbers it would take the second session's id for a
    reused one."""
    from http_server import open_session

    tap = HttpTapped(tmp_path, http_server.url)
    with http_client() as client:
        headers = open_session(client, tap.url)
        client.post(
            tap.url, headers=headers, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
        )
    entries = tap.stop()
    talk = [
        entry
        for entry in entries
        if "direction" in entry or entry.get("event", "").startswith("http")
    ]
    other = json.loads(json.dumps(talk).replace(headers["Mcp-Session-Id"], "another-session"))
    for entry in other:
        for place in (entry.get("http"), entry):
            if isinstance(place, dict) and "exchange" in place:
                place["exchange"] += 1000
    # The other session's every line just after the same line of the first: both in flight at once.
    merged = [entry for pair in zip(talk, other) for entry in pair]
    assert audit(merged) == []
    unnumbered = json.loads(json.dumps(merged).replace('"exchange"', '"_exchange"'))
    assert "id_reused" in {problem["problem"] for problem in audit(unnumbered)}


def test_each_http_session_is_judged_by_the_revision_it_agreed(tmp_path, http_server):
    """One recording, three conversations: a session at 2025-11-25, one at 2025-06-18 (each
    client sends its own session's version header, as it must), and a stateless request of
    2026-07-28. Judged by one revision for the recording, the second session's headers would
    be warned about; each is judged by its own."""
    from http_server import open_session

    tap = HttpTapped(tmp_path, http_server.url)
    with http_client() as client:
        for revision in ("2025-11-25", "2025-06-18"):
            headers = open_session(client, tap.url, revision)
            client.post(tap.url, headers=headers, json=request(2, "tools/list"))
        client.post(
            tap.url,
            headers={
                **headers,
                "MCP-Protocol-Version": "2026-07-28",
                "Mcp-Method": "tools/list",
                "Mcp-Session-Id": "",
            },
            json=request(
                3,
                "tools/list",
                _meta={
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {},
                },
            ),
        )
    entries = tap.stop()
    by_scope = {revision for revision, _ in revisions_by_scope(entries).values()}
    assert by_scope == {"2025-11-25", "2025-06-18", "2026-07-28"}
    assert audit(entries) == []
    done = report(tap.recording)
    assert done.returncode == 0 and "warning" not in done.stdout, done.stdout
    assert (
        "each judged by its own: 2025-06-18 in 1 HTTP exchange without a session, 2025-06-18 in 1 "
        "HTTP session"
    ) in done.stdout


@pytest.mark.full  # times crafted recordings side by side
def test_the_audit_runs_in_time_linear_in_the_entries():
    """The patterns that made the audit's cost grow with the square of the entries (every
    answer scanning what waits, every id-less answer searching it) cost the same per entry
    at 3,000 entries as at 12,000: the ratio of the times is near 4 (it was 14 before),
    never near 16 (measured side by side, best of three)."""

    def crafted(count):
        talk = [up(request(n)) for n in range(count)]
        talk += [up(INITIALIZED) for _ in range(4 * count)]  # notifications that wait behind them
        talk += [down(result(n)) for n in range(count)]  # each answer once scanned them all
        talk += [
            down({"jsonrpc": "2.0", "id": "x" + str(n), "result": {}}) for n in range(count // 4)
        ]
        return talk

    def best(talk):
        times = []
        for _ in range(3):
            began = time.perf_counter()
            audit(talk, None)
            times.append(time.perf_counter() - began)
        return min(times)

    small, large = crafted(500), crafted(2000)
    ratio = best(large) / best(small)
    assert ratio < 9, f"4x the entries took {ratio:.1f}x the time"


def test_a_batch_s_members_are_requests_only_where_batches_are_allowed():
    batch = json.dumps([request(1), request(2)])
    talk = [up(batch, t=0.0), down(json.dumps([result(1), result(2)]), t=0.01)]
    assert [row["id"] for row in answer_times(talk, "2025-03-26")] == [1, 2]
    assert answer_times(talk, "2025-11-25") == [] and answer_times(talk, None) == []


@pytest.mark.full  # the attacker's cases and real SDK runs: the full tier
def test_a_refused_probe_leaves_the_handshake_s_revision_in_force(tmp_path):
    """The SDK's mcp.Client (its default mode) first probes server/discover at 2026-07-28; a
    server of the handshake era answers -32601, and the session runs under what initialize
    then agrees. A real recording: the SDK's client, the tap, a server with no SDK."""
    import warnings

    import anyio
    from mcp import Client, StdioServerParameters

    recording = tmp_path / "legacy.jsonl"
    server = StdioServerParameters(
        command=PY,
        args=[
            "-m",
            "mcp_lesson.tap",
            "--record",
            str(recording),
            "--",
            PY,
            str(ROOT / "tests" / "legacy_server.py"),
        ],
    )

    async def talk():
        with anyio.fail_after(patience(60)):
            async with Client(server) as client:
                await client.list_tools()
                with warnings.catch_warnings():
                    warnings.simplefilter(
                        "ignore"
                    )  # ping is gone at 2026-07-28, here under 2025-11-25
                    await client.send_ping()

    anyio.run(talk)
    entries = [json.loads(line) for line in recording.read_text().splitlines()]
    methods = [
        json.loads(e["text"]).get("method") for e in entries if e.get("direction") == "to_server"
    ]
    assert methods[:2] == ["server/discover", "initialize"]
    revision, words = agreed_revision(entries)
    assert revision == "2025-11-25"
    assert words.startswith(
        "the client tried 2026-07-28 (server/discover) and the server refused it "
        "(error -32601); then the client asked for 2025-11-25"
    )
    done = report(recording)
    assert done.returncode == 0 and "revision: 2025-11-25" in done.stdout, done.stdout


def test_a_stateless_error_of_the_method_s_own_is_no_refusal():
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
    talk = [
        {
            "direction": "to_server",
            "text": json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "tools/call",
                    "params": {"name": "x", "_meta": meta},
                }
            ),
        },
        {
            "direction": "from_server",
            "text": json.dumps(
                {"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "Unknown tool: x"}}
            ),
        },
    ]
    assert agreed_revision(talk)[0] == "2026-07-28"


def test_a_refused_tools_call_is_answered_and_gets_no_error_code_warning():
    """A 403 with a plain-text body answers the tools/call of its exchange: neither
    unanswered nor an error code "no spec defines" (the refusal has no code at all)."""
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x"}}
    talk = [
        {
            "direction": "to_server",
            "text": json.dumps(call),
            "http": {"exchange": 1, "headers": {}},
        },
        {
            "direction": "from_server",
            "text": "Forbidden: Origin",
            "http": {"exchange": 1, "status": 403},
        },
    ]
    assert audit(talk, None) == []


@pytest.mark.full  # the attacker's cases and real SDK runs: the full tier
def test_an_error_code_the_spec_names_otherwise_is_a_warning(tmp_path):
    """The SDK's catch-all answers an unknown prompt with code 0; 2025-11-25's server/prompts.mdx
    names -32602. A real recording: the SDK's client and the SDK's own server, through the tap."""
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from mcp.shared.exceptions import MCPError

    recording = tmp_path / "bare.jsonl"
    server = StdioServerParameters(
        command=PY,
        args=["-m", "mcp_lesson.tap", "--record", str(recording), "--", PY, "-c", BARE_SDK_SERVER],
    )

    async def talk():
        with anyio.fail_after(patience(60)), open(tmp_path / "stderr.txt", "w") as log:
            async with stdio_client(server, errlog=log) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    try:
                        await session.get_prompt("nope")
                    except MCPError as exc:
                        return exc.error.code

    assert anyio.run(talk) == 0
    entries = [json.loads(line) for line in recording.read_text().splitlines()]
    [warning] = audit(entries)
    assert (warning["problem"], warning["severity"]) == ("error_code", "warning")
    assert warning["detail"].startswith(
        "the server answered prompts/get with error code 0, which no spec "
        "defines; for an invalid prompt name server/prompts.mdx names -32602"
    )
    assert (warning["keyword"], warning["cites"]) == (
        "SHOULD",
        "docs/specification/2025-11-25/server/prompts.mdx",
    )
    done = report(recording)
    assert done.returncode == 0 and "1 warning:" in done.stdout and "no problems" in done.stdout


def test_a_version_header_other_than_the_agreed_one_is_a_warning_and_none_a_problem(
    tmp_path, http_server
):
    """A real session through the HTTP tap whose client sends 2025-03-26 after agreeing on
    2025-11-25 (as the conformance suite does in server-sse-polling): a SHOULD, a warning;
    then no header at all: a MUST of 2025-06-18 and later, a problem."""
    from http_server import open_session

    tap = HttpTapped(tmp_path, http_server.url)
    with http_client() as client:
        headers = open_session(client, tap.url)
        client.post(
            tap.url,
            headers={**headers, "MCP-Protocol-Version": "2025-03-26"},
            json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        )
        client.post(
            tap.url,
            headers={k: v for k, v in headers.items() if k != "MCP-Protocol-Version"},
            json={"jsonrpc": "2.0", "id": 3, "method": "ping"},
        )
    tap.stop()
    problems = [json.loads(raw) for raw in report(tap.recording, "--json").stdout.splitlines()]
    assert [(p["problem"], p.get("severity")) for p in problems] == [
        ("version_header", "warning"),
        ("version_header", "problem"),
    ]
    assert '"2025-03-26"' in problems[0]["detail"]
    assert report(tap.recording).returncode == 1


def test_a_cancelled_calls_error_is_no_unknown_tool():
    """The SDKs answer a cancelled request with -32800 (LSP's "request cancelled"): no warning
    about the code an unknown tool gets, when the client cancelled; a warning that names the
    cancel code, when it did not."""
    call = request(1, "tools/call", name="slow")
    cancelled = {"jsonrpc": "2.0", "error": {"code": -32800, "message": "Request cancelled"}}
    talk = [
        up(call, t=0.0),
        up(
            {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}},
            t=0.1,
        ),
        down({**cancelled, "id": 1}, t=0.2),
    ]
    assert [(p["problem"], p["severity"]) for p in audit(talk, None)] == [
        ("cancelled_answered", "warning")
    ]
    [warning] = audit(
        [up(request(2, "tools/call", name="slow"), t=0.0), down({**cancelled, "id": 2}, t=0.2)],
        None,
    )
    assert (warning["problem"], warning["severity"]) == ("error_code", "warning")
    assert "-32800" in warning["detail"] and "unknown tool" not in warning["detail"]


def test_answers_to_a_batch_the_revision_does_not_allow_are_no_ids_never_sent():
    """Under 2025-06-18 a batch is invalid; a server that answers its members one by one
    answered ids the client did send (in the batch): a warning, not unknown_id."""
    hello = request(
        0,
        "initialize",
        protocolVersion="2025-06-18",
        capabilities={},
        clientInfo={"name": "a", "version": "1"},
    )
    agreed = {
        "jsonrpc": "2.0",
        "id": 0,
        "result": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "serverInfo": {"name": "s", "version": "1"},
        },
    }
    batch = [request(1), request(2)]
    talk = [
        up(hello, t=0.0),
        down(agreed, t=0.1),
        up(batch, t=0.2),
        down({"jsonrpc": "2.0", "id": 1, "result": {}}, t=0.3),
        down({"jsonrpc": "2.0", "id": 2, "result": {}}, t=0.4),
    ]
    found = [(p["problem"], p.get("severity")) for p in audit(talk)]
    assert found == [
        ("invalid", "problem"),
        ("batch_answered", "warning"),
        ("batch_answered", "warning"),
    ]
    # Under 2025-03-26, which has batches, the same answers are no problem at all.
    hello["params"]["protocolVersion"] = agreed["result"]["protocolVersion"] = "2025-03-26"
    talk[0], talk[1] = up(hello, t=0.0), down(agreed, t=0.1)
    assert audit(talk) == []
