"""A server with each fault real traffic showed (tests/tap/faulty_server.py), through the stdio
tap: the report names every fault once, with its keyword and the page of the revision agreed,
and invents none; and, on small recordings, each rule under the revisions that state it.
"""

import json
from pathlib import Path

import pytest

from mcp_lesson.tap import audit
from mcp_lesson.tap.citations import RULES, SEVERITY, TAP_NOTES, citation

from .tapping import INIT, INITIALIZED, PY, Tapped, down, init, line, report, up

FAULTY = [PY, str(Path(__file__).resolve().parent / "faulty_server.py")]


def call(request_id, name, **arguments):
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }


def _findings(recording):
    done = report(recording, "--json")
    return done.returncode, [json.loads(raw) for raw in done.stdout.splitlines()]


def test_the_report_names_each_fault_once_with_its_keyword(tmp_path):
    tap = Tapped(tmp_path, FAULTY)
    tap.send(
        line(INIT) + line(INITIALIZED) + line({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    )
    tap.read_until(lambda out: b'"id": 2' in out)
    tap.send(
        line(call(3, "progress"))
        + line(
            {
                "jsonrpc": "2.0",
                "id": 4,
                "method": "resources/read",
                "params": {"uri": "file:///nowhere"},
            }
        )
    )
    tap.read_until(lambda out: b'"id": 4' in out)
    tap.send(line(call(5, "ask")))
    tap.read_until(lambda out: b'"s1"' in out)
    tap.send(
        line(
            {"jsonrpc": "2.0", "id": "s1", "error": {"code": -32601, "message": "Method not found"}}
        )
    )
    tap.read_until(lambda out: b'"e1"' in out)
    tap.send(
        line(
            {"jsonrpc": "2.0", "id": "e1", "error": {"code": -32601, "message": "Method not found"}}
        )
    )
    tap.read_until(lambda out: b'"id": 5' in out)
    tap.send(
        line(call(6, "slow"))
        + line(
            {
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": 6, "reason": "too slow"},
            }
        )
    )
    tap.read_until(lambda out: b'"id": 6' in out)
    tap.send(line(call(7, "unlisted")) + line({"jsonrpc": "2.0", "id": 8, "method": "ping"}))
    tap.read_until(lambda out: b'"id": 7' in out and b'"id": null' in out)
    assert tap.finish() == 0
    returncode, found = _findings(tap.recording)
    assert returncode == 1
    said = sorted((p["problem"], p["keyword"], p["severity"]) for p in found)
    assert said == sorted(
        [
            ("progress_token", "MUST", "problem"),
            ("error_code", "SHOULD", "warning"),  # -32602 for a resource not found
            ("capability", "MUST", "problem"),  # sampling/createMessage
            ("capability", "MUST", "problem"),  # elicitation/create
            ("cancelled_answered", "SHOULD", "warning"),
            ("unmatched", "MUST", "problem"),  # the null-id error, which answers nothing...
            ("unanswered", "MUST", "problem"),  # ...and request 8, which it should have echoed
        ]
    ), found
    for finding in found:
        assert finding["cites"].startswith("docs/specification/2025-11-25/") or finding[
            "cites"
        ].startswith("https://www.jsonrpc.org"), finding
        assert '"' in finding["detail"]  # the sentence, quoted
    [lost] = [p for p in found if p["problem"] == "unmatched"]
    assert "request 8 (ping" in lost["detail"]
    words = report(tap.recording).stdout
    assert (
        "notifications/initialized" not in words.split("problems:")[1]
    )  # no answer to a notification


@pytest.mark.full  # a flood
def test_a_valid_answer_too_long_to_judge_is_a_note_only(tmp_path):
    """17 MiB (over --max-line's 16 MiB): no schema check on its cut copy; its id, read from its
    first bytes, still answers its request."""
    tap = Tapped(tmp_path, FAULTY)
    tap.send(line(INIT) + line(INITIALIZED) + line(call(2, "big", mib=17)))
    tap.read_until(lambda out: out.count(b"\n") >= 2, limit=120, what="the 17 MiB answer")
    assert tap.finish(limit=120) == 0
    [long] = [e for e in tap.lines("from_server") if e.get("truncated")]
    assert long["size"] > 17 << 20
    returncode, found = _findings(tap.recording)
    assert returncode == 0
    assert [(p["problem"], p["severity"]) for p in found] == [("not_judged", "note")]
    assert found[0]["detail"].startswith(
        "the server's answer to request 2 (its id read from its first or last bytes) is 17,"
    )


def test_an_initialize_answered_with_a_version_no_revision_has(tmp_path):
    tap = Tapped(tmp_path, [*FAULTY, "1999-01-01"])
    tap.send(line(INIT) + line(INITIALIZED) + line({"jsonrpc": "2.0", "id": 2, "method": "ping"}))
    tap.read_until(lambda out: b'"id": null' in out)
    assert tap.finish() == 0
    returncode, found = _findings(tap.recording)
    versions = [p for p in found if p["problem"] == "version"]
    assert returncode == 1 and len(versions) == 1
    assert versions[0]["keyword"] == "MUST" and "2025-11-25" in versions[0]["detail"]
    assert versions[0]["cites"].startswith("docs/specification/2025-11-25/basic/lifecycle.mdx")


# --- each rule on a small recording, under the revisions that state it ---------------------------


#: What the server announces in these recordings' handshakes.
SERVER: dict = {"resources": {}, "tools": {}}


def names(talk):
    return [(p["problem"], p["keyword"]) for p in audit(talk)]


def read(uri="file:///nowhere", revision=None):
    params = {"uri": uri}
    if revision:
        params["_meta"] = {
            "io.modelcontextprotocol/protocolVersion": revision,
            "io.modelcontextprotocol/clientCapabilities": {},
        }
    return up({"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": params})


def error(code):
    return down(
        {"jsonrpc": "2.0", "id": 1, "error": {"code": code, "message": "Resource not found"}}
    )


@pytest.mark.parametrize("revision", ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"])
def test_a_resource_not_found_is_32002_up_to_2025_11_25(revision):
    assert names(init(revision, server=SERVER) + [read(), error(-32602)]) == [
        ("error_code", "SHOULD")
    ]
    assert names(init(revision, server=SERVER) + [read(), error(-32002)]) == []
    # -32602 for a request without a uri is right
    bare = up({"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {}})
    assert names(init(revision, server=SERVER) + [bare, error(-32602)]) == []


def test_a_resource_not_found_is_32602_in_2026_07_28():
    result = {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {"resultType": "complete", "contents": [], "cacheScope": "private", "ttlMs": 0},
    }
    assert names([read(revision="2026-07-28"), down(result)]) == []
    assert names([read(revision="2026-07-28"), error(-32602)]) == []
    [(name, keyword)] = names([read(revision="2026-07-28"), error(-32002)])
    assert (name, keyword) == ("error_code", "MUST")


def test_progress_tokens_are_those_a_request_gave():
    given = up(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "t", "arguments": {}, "_meta": {"progressToken": "p1"}},
        }
    )

    def progress(token):
        return down(
            {
                "jsonrpc": "2.0",
                "method": "notifications/progress",
                "params": {"progressToken": token, "progress": 1},
            }
        )

    done = down({"jsonrpc": "2.0", "id": 1, "result": {"content": []}})
    assert names(init("2025-11-25", server=SERVER) + [given, progress("p1"), done]) == []
    assert names(init("2025-11-25", server=SERVER) + [given, progress("p2"), done]) == [
        ("progress_token", "MUST")
    ]
    assert names(init("2024-11-05", server=SERVER) + [given, progress(7), done]) == [
        ("progress_token", "MUST")
    ]
    # a request too long to judge may hold the token: nothing is said
    cut = {
        "direction": "to_server",
        "text": '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "par',
        "truncated": True,
        "size": 99,
    }
    assert names(init("2025-11-25", server=SERVER) + [cut, progress("p2"), done]) == [
        ("not_judged", None)
    ]


def test_a_tool_the_list_did_not_name_answered_with_a_result_is_no_finding():
    tools = [
        up({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        down(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "result": {"tools": [{"name": "a", "inputSchema": {"type": "object"}}]},
            }
        ),
    ]
    hidden = [
        up(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "hidden", "arguments": {}},
            }
        ),
        down({"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "ok"}]}}),
    ]
    assert names(init("2025-11-25", server=SERVER) + tools + hidden) == []
    # answered as the tool's own failure, an unknown tool is a statement of tools.mdx: a warning
    hidden[1] = down({"jsonrpc": "2.0", "id": 2, "result": {"content": [], "isError": True}})
    assert names(init("2025-11-25", server=SERVER) + tools + hidden) == [
        ("unknown_tool", "statement")
    ]


def test_a_version_later_than_the_course_knows_may_be_a_newer_revision():
    talk = init("2025-11-25", server=SERVER)
    talk[1] = down(
        {
            "jsonrpc": "2.0",
            "id": 0,
            "result": {
                "protocolVersion": "2099-01-01",
                "capabilities": {},
                "serverInfo": {"name": "s", "version": "1"},
            },
        }
    )
    assert names(talk) == []
    talk[1]["text"] = talk[1]["text"].replace("2099-01-01", "2025-01-01")
    assert names(talk) == [("version", "MUST")]


# --- the policy ------------------------------------------------------------------------------


def test_every_rule_has_a_keyword_and_a_severity_from_it():
    assert set(SEVERITY) == {"MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "statement", "example"}
    for name, rule in RULES.items():
        assert rule.keyword in SEVERITY, name
        assert rule.where, name
        for revision, (page, sentence) in rule.where.items():
            assert page and sentence, (name, revision)
            if rule.keyword not in ("statement", "example"):
                assert rule.keyword.split()[0] in sentence, (name, revision)  # the sentence says it
    assert not set(TAP_NOTES) & set(RULES)


def test_a_rule_is_cited_only_under_the_revisions_that_state_it():
    assert citation("error_code.resources/read", "2026-07-28") is None
    assert citation("error_code.resources/read.2026", "2025-11-25") is None
    assert (
        citation("capability", "2025-03-26") is None
        and citation("capability.early", "2025-03-26")[0] == "2025-03-26"
    )
    assert citation("progress_token", "2026-07-28")[1] == "basic/patterns/progress.mdx"
    assert (
        citation("unanswered", None)[0] == "2025-11-25"
    )  # the course's rules cite the latest with a handshake
