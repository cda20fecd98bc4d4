"""The differential test: this package's verdicts beside the official SDK's.

The SDK (``mcp``) is looser than the course's rules (the reasons are
:data:`mcp_lesson.peers.python_sdk.LOOSE_RULES`). The disagreements are listed here
explicitly, so this test fails when one appears or disappears: an SDK upgrade
that changes behaviour must be noticed (and lesson 07 updated).

One kind of disagreement goes the other way. The JSON parser inside the SDK's
stdio transport has limits that JSON itself does not have, so a stdio server
built with the SDK drops some *valid* requests without a reply or a log line.
Those are pinned at the end, against the real calculator server.
"""

import pytest
from mcp_types.jsonrpc import jsonrpc_message_adapter
from pydantic import ValidationError
from stdio_server import handshaken

from mcp_lesson import CASES, classify, classify_json, create_request, reply_for_json
from mcp_lesson.client.stdio import StdioServer
from mcp_lesson.exercises.cases import TEXT_CASES
from mcp_lesson.peers.python_sdk import (
    LOOSE_RULES,
    PARSER_LIMITS,
    TS_DATA,
    compare,
    compare_text,
    compare_three,
    disagreements,
    lines_after,
    loose_rule,
    ping_with_id,
    sdk_model,
    sdk_split,
    sdk_stdio_verdict,
    sdk_verdict,
    sdk_version,
    ts_data,
)
from mcp_lesson.rules.classification import parse

#: Case name -> the SDK's verdict, for every case of CASES where the SDK disagrees.
EXPECTED_DISAGREEMENTS = {
    "params null": "request",
    "request with id null": "notification",
    "request with id true": "notification",
    "request with float id": "notification",
    "request with id 1.0": "notification",
    "request with object id": "notification",
    "result and error both": "response",
    "error code true": "response",
    "error code as a string": "response",
    "error code 1.0": "response",
}

#: The same for TEXT_CASES, read the way the SDK's stdio server reads a line.
EXPECTED_TEXT_DISAGREEMENTS = {
    "id true": "notification",
    "NaN id": "notification",
    "invalid UTF-8": "notification",
}

WHY = f"(mcp {sdk_version()}: update the expected table and lesson 07 if the SDK changed)"


def test_case_table_disagreements_are_exactly_the_known_ones():
    found = disagreements(compare(CASES))
    assert found == EXPECTED_DISAGREEMENTS, WHY


def test_text_disagreements_are_exactly_the_known_ones():
    found = disagreements(compare_text(TEXT_CASES))
    assert found == EXPECTED_TEXT_DISAGREEMENTS, WHY


def test_every_disagreement_has_a_reason_in_plain_words():
    rows = [row for row in compare(CASES) + compare_text(TEXT_CASES) if not row.agree]
    rules = {row.name: loose_rule(row.message, row.sdk) for row in rows}
    assert "other" not in rules.values(), rules
    assert set(rules.values()) == set(LOOSE_RULES)


def test_the_sdk_never_calls_a_message_invalid_that_we_accept():
    # The SDK is looser, never stricter: every disagreement is a message we refuse.
    for row in compare(CASES):
        if not row.agree:
            assert row.ours == "invalid", row


# --- the SDK's looseness (mcp_lesson.peers.python_sdk.LOOSE_RULES), message by message ---


@pytest.mark.parametrize("bad_id", [None, True, 1.5, 1.0])
def test_a_request_with_a_bad_id_is_read_as_a_notification(bad_id):
    message = {"jsonrpc": "2.0", "id": bad_id, "method": "x"}
    assert sdk_model(message) == "JSONRPCNotification"
    assert classify(message) == ("invalid", -32600)


def test_result_and_error_together():
    both = {"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": 1, "message": "x"}}
    assert sdk_model(both) == "JSONRPCError"
    # With "error": null (the case table's version) the result wins instead.
    assert sdk_model({"jsonrpc": "2.0", "id": 1, "result": {}, "error": None}) == "JSONRPCResponse"


@pytest.mark.parametrize("code", [True, 1.0, "-32601"])
def test_lax_error_codes_are_accepted(code):
    message = {"jsonrpc": "2.0", "id": 1, "error": {"code": code, "message": "x"}}
    assert sdk_model(message) == "JSONRPCError"


def test_params_null_and_a_stray_result_are_accepted():
    assert sdk_model({"jsonrpc": "2.0", "id": 1, "method": "x", "params": None}) == "JSONRPCRequest"
    assert sdk_model({"jsonrpc": "2.0", "id": 1, "method": "x", "result": {}}) == "JSONRPCRequest"


def test_a_null_id_is_refused_on_a_result_but_kept_on_an_error():
    assert sdk_verdict({"jsonrpc": "2.0", "id": None, "result": {}}) == "invalid"
    assert (
        sdk_model({"jsonrpc": "2.0", "id": None, "error": {"code": 1, "message": "x"}})
        == "JSONRPCError"
    )


def test_hostile_input_never_raises():
    for value in (object(), {1, 2}, [[[]]] * 3, {"jsonrpc": "2.0", "method": object()}, b"\xff"):
        assert sdk_verdict(value) == "invalid"
    for text in ("", "[" * 100_000 + "]" * 100_000, b"\x00\xff", "x" * 1_000_000, 42):
        assert sdk_stdio_verdict(text) == "invalid"


# --- valid requests the SDK's stdio server drops without a word ------------
#
# mcp.server.stdio reads each line with the SDK's own JSON parser (pydantic's
# jiter, through jsonrpc_message_adapter.validate_json). A line it cannot parse
# becomes an exception that the SDK's dispatcher logs at DEBUG level and drops:
# no reply, and nothing in the calculator's log (it logs WARNING and above).
# The SDK's message models accept every one of these messages once parsed; only
# the parser's limits refuse them. The texts are mcp_lesson.peers.python_sdk.PARSER_LIMITS
# (lesson 07 shows them), plus two more of the same kinds.

#: The parser's complaint about each PARSER_LIMITS text.
COMPLAINTS = {
    "params nested 202 deep": "recursion limit exceeded",
    "a lone surrogate escape": "unexpected end of hex escape",
    "an add argument of 4,301 digits": "number out of range",
    "an id of 4,301 digits": "number out of range",
}

#: name -> (valid request the SDK's stdio server never answers, the parser's complaint).
SILENT_VALID_REQUESTS = {
    **{limit.name: (limit.silent, COMPLAINTS[limit.name]) for limit in PARSER_LIMITS},
    "a lone trailing surrogate escape": (
        '{"jsonrpc":"2.0","id":"trail","method":"ping","params":{"text":"\\udc00"}}',
        "lone leading surrogate in hex escape",
    ),
    "an id of 5,001 digits": (ping_with_id(5001), "number out of range"),
}

#: The same requests just inside the parser's limits: the server answers these.
ANSWERED_NEAR_THE_LIMITS = {limit.name: limit.answered for limit in PARSER_LIMITS}

SILENT = "the SDK server stays silent; classify_json says request"


@pytest.fixture(scope="module")
def server():
    yield from handshaken("test-peers", "init", revision="2025-11-25")


def test_every_parser_limit_is_pinned():
    assert set(COMPLAINTS) == {limit.name for limit in PARSER_LIMITS}
    assert all(limit.cause.endswith(".") for limit in PARSER_LIMITS)


@pytest.mark.parametrize("name", SILENT_VALID_REQUESTS)
def test_the_sdk_parser_refuses_these_valid_requests(name):
    text, complaint = SILENT_VALID_REQUESTS[name]
    assert classify_json(text) == ("request", None)
    assert reply_for_json(text) is None  # a strict server's message layer has nothing to say
    message, _ = parse(text)
    assert sdk_model(message) == "JSONRPCRequest", f"{name}: the SDK's models accept it once parsed"
    assert sdk_stdio_verdict(text) == "invalid", (
        f"{name}: pinned as '{SILENT}', but the SDK now parses it {WHY}"
    )
    with pytest.raises(ValidationError, match=complaint):
        jsonrpc_message_adapter.validate_json(text, by_name=False)


@pytest.mark.parametrize("name", SILENT_VALID_REQUESTS)
def test_the_sdk_server_stays_silent_on_these_valid_requests(server, name):
    text, _ = SILENT_VALID_REQUESTS[name]
    lines = lines_after(server, text)
    assert lines == [], (
        f"{name}: pinned as '{SILENT}', but it answered {[line[:200] for line in lines]} {WHY}"
    )


@pytest.mark.parametrize("name", ANSWERED_NEAR_THE_LIMITS)
def test_just_inside_the_parser_limits_the_server_answers(server, name):
    text = ANSWERED_NEAR_THE_LIMITS[name]
    assert classify_json(text) == ("request", None)
    assert sdk_stdio_verdict(text) == "request"
    message, _ = parse(text)
    line = server.request(message)
    assert classify_json(line) == ("response", None)
    reply, _ = parse(line)
    assert "result" in reply, f"{name}: {line[:300]}"
    if "add" in name:
        assert reply["result"]["structuredContent"] == {"result": int("7" * 4300) + 1}


def test_lines_after_returns_what_the_server_says_and_nothing_of_its_own(server):
    assert lines_after(server, create_request("notifications/initialized")) == []
    [line] = lines_after(server, create_request("tools/destroy", request_id="gone"))
    reply, _ = parse(line)
    assert reply["id"] == "gone" and reply["error"]["code"] == -32601


def test_lines_after_follows_up_with_server_discover_in_2026_07_28_mode():
    with StdioServer(revision="2026-07-28") as stateless:
        assert lines_after(stateless, PARSER_LIMITS[0].silent) == []
        methods = [parse(line)[0].get("method") for line in list(stateless.sent)[1:]]
        assert methods == ["server/discover"]


# --- the TypeScript SDK's stored verdicts (lesson 07 reads them) ---------------


import peers.test_ts_peer as TS_PEER  # noqa: E402  (its tables of the TS SDK's known disagreements)

REMAKE = f"remake it: {TS_PEER.DUMP_COMMAND} > mcp_lesson/data/{TS_DATA}"


def test_the_stored_ts_verdicts_cover_every_case_by_name():
    data = ts_data()
    assert data["command"] == TS_PEER.DUMP_COMMAND
    assert data["versions"]["sdk"] == TS_PEER.SDK_VERSION, REMAKE
    assert [row["name"] for row in data["cases"]] == [case.name for case in CASES], REMAKE
    assert [row["name"] for row in data["text_cases"]] == [case.name for case in TEXT_CASES], REMAKE
    assert [row["ours"] for row in data["cases"]] == [
        classify(case.message)[0] for case in CASES
    ], REMAKE
    assert [row["ours"] for row in data["text_cases"]] == [
        TS_PEER.ours_text(c.text) for c in TEXT_CASES
    ], REMAKE


def test_the_stored_ts_disagreements_are_the_expected_ones():
    # The table tests/peers/test_ts_peer.py checks against the live SDK, so the stored
    # data and the live SDK are held to the same list.
    stored = {
        row["name"]: (row["ts"], row.get("class"))
        for row in ts_data()["cases"]
        if row["ts"] != row["ours"]
    }
    assert stored == TS_PEER.EXPECTED_DISAGREEMENTS, REMAKE
    text = {
        row["name"]: (row["ts"], row.get("class"))
        for row in ts_data()["text_cases"]
        if row["ts"] != row["ours"]
    }
    assert text == TS_PEER.EXPECTED_TEXT_DISAGREEMENTS, REMAKE


def test_the_two_sdks_split_on_the_id_of_an_error_response():
    split = sdk_split(compare_three(CASES))
    assert split["typescript only"] == ["error without id"]
    assert "error with id null" in split["python only"]
    assert split["other kind"] == ["request with id 1.0"]
    assert all(row.ts != "not stored" for row in compare_three(CASES))
