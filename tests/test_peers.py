"""The differential test: this package's verdicts beside the official SDK's.

The SDK (``mcp``) is looser than the course's rules. The disagreements are
listed here explicitly, so this test fails when one appears or disappears:
an SDK upgrade that changes behaviour must be noticed (and lesson 07 updated).
"""

import pytest

from mcp_lesson import CASES, TEXT_CASES, classify
from mcp_lesson.peers import (
    LOOSE_RULES,
    compare,
    compare_text,
    disagreements,
    loose_rule,
    sdk_model,
    sdk_stdio_verdict,
    sdk_verdict,
    sdk_version,
)

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


# --- the facts of SPEC section 4, checked against the installed SDK ---------


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
    assert sdk_model({"jsonrpc": "2.0", "id": None, "error": {"code": 1, "message": "x"}}) == "JSONRPCError"


def test_hostile_input_never_raises():
    for value in (object(), {1, 2}, [[[]]] * 3, {"jsonrpc": "2.0", "method": object()}, b"\xff"):
        assert sdk_verdict(value) == "invalid"
    for text in ("", "[" * 100_000 + "]" * 100_000, b"\x00\xff", "x" * 1_000_000, 42):
        assert sdk_stdio_verdict(text) == "invalid"
