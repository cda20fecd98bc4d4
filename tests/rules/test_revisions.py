"""The revision switch of mcp_lesson.rules.classification: one test per difference
between MCP revisions (the module docstring lists them), and the promise that
the default, revision=None, is the course's rules exactly."""

import pytest

from mcp_lesson import (
    CASES,
    INVALID_REQUEST,
    PARSE_ERROR,
    REVISIONS,
    classify,
    classify_json,
    error_response,
    explain,
    explain_json,
    reply_for,
    reply_for_json,
)
from mcp_lesson.exercises.cases import REVISION_CASES
from mcp_lesson.rules.classification import rule_of
from mcp_lesson.rules.explanation import revision_note

INVALID = ("invalid", INVALID_REQUEST)
BATCH = ("batch", None)
RESPONSE = ("response", None)
REQ = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
NOTE = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1}}
ERROR_NO_ID = {"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}}


def test_the_revisions_oldest_first():
    assert REVISIONS == ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")


@pytest.mark.parametrize("case", REVISION_CASES, ids=[c.name for c in REVISION_CASES])
def test_revision_cases(case):
    assert classify(case.message, case.revision) == case.expected, case.reason


@pytest.mark.parametrize("revision", [None, *REVISIONS])
def test_every_case_of_the_table_keeps_its_verdict_under_every_revision(revision):
    """Only lists and id-less error responses differ, and the table has one of each."""
    changed = {case.name for case in CASES if classify(case.message, revision) != case.expected}
    expected = {
        None: set(),
        "2025-03-26": {"batch of one request"},
        "2025-11-25": {"error without id"},
        "2026-07-28": {"error without id"},
    }.get(revision, set())
    assert changed == expected


@pytest.mark.parametrize("bad", ["2025-06-17", "latest", "", 2025, ("2025-03-26",), ["x"]])
def test_an_unknown_revision_is_a_value_error_naming_the_known_ones(bad):
    for fn in (classify, classify_json, explain, explain_json, reply_for, reply_for_json, rule_of):
        with pytest.raises(ValueError) as raised:
            fn("{}", bad)
        for known in REVISIONS:
            assert known in str(raised.value)


# --- batches: 2025-03-26 only ---------------------------------------------------------


@pytest.mark.parametrize("revision", [None, "2024-11-05", "2025-06-18", "2025-11-25", "2026-07-28"])
def test_lists_are_invalid_outside_2025_03_26(revision):
    assert classify([REQ], revision) == INVALID
    assert classify([], revision) == INVALID


def test_a_non_empty_list_is_a_batch_under_2025_03_26():
    assert classify([REQ], "2025-03-26") == BATCH
    assert classify([REQ, NOTE, 42, []], "2025-03-26") == BATCH
    assert classify_json("[1]", "2025-03-26") == BATCH
    assert classify_json("[", "2025-03-26") == ("invalid", PARSE_ERROR)


def test_an_empty_batch_is_invalid_even_under_2025_03_26():
    assert classify([], "2025-03-26") == INVALID
    assert reply_for([], "2025-03-26") == error_response(None, INVALID_REQUEST, "Invalid Request")


def test_the_replies_owed_to_a_batch():
    bad = {"jsonrpc": "2.0", "id": 7, "method": 3}
    # Requests are answered by the application; notifications and responses by nobody.
    assert reply_for([REQ, NOTE, {"jsonrpc": "2.0", "id": 1, "result": {}}], "2025-03-26") is None
    assert reply_for([NOTE, bad, 42, REQ], "2025-03-26") == [
        error_response(7, INVALID_REQUEST, "Invalid Request"),
        error_response(None, INVALID_REQUEST, "Invalid Request"),
    ]
    # A list inside a batch is one invalid member, not a nested batch.
    assert reply_for([[REQ]], "2025-03-26") == [
        error_response(None, INVALID_REQUEST, "Invalid Request")
    ]
    assert reply_for_json('[{"jsonrpc":"2.0","id":2}]', "2025-03-26") == [
        error_response(2, INVALID_REQUEST, "Invalid Request")
    ]


def test_explain_lists_the_members_of_a_batch():
    text = explain(
        [
            REQ,
            {"jsonrpc": "2.0", "id": True, "method": "x"},
            {"jsonrpc": "2.0", "id": 2, "method": "initialize"},
        ],
        "2025-03-26",
    )
    lines = text.splitlines()
    assert lines[0].startswith("Batch: ") and "3 messages" in lines[0]
    assert lines[1].startswith("  1. Request")
    assert lines[2].startswith("  2. Invalid (-32600)") and "bool" in lines[2]
    assert "initialize MUST NOT be part of a batch" in lines[3]
    assert "2025-06-18" in explain([REQ])


def test_explain_of_a_huge_batch_stays_short():
    text = explain([REQ] * 100_000, "2025-03-26")
    assert len(text) < 10_000
    assert "processes the first 1,000 members only" in text


def test_an_unknown_revision_is_shown_briefly():
    with pytest.raises(ValueError) as raised:
        classify({}, "x" * 10_000_000)
    assert len(str(raised.value)) < 400
    assert "10,000,000 characters" in str(raised.value)


# --- a batch's work is bounded: a 10 MB paste is judged in well under a second -----------


def test_the_reply_to_a_huge_batch_answers_the_first_members_and_says_so():
    from mcp_lesson.rules.classification import MAX_BATCH_MEMBERS

    size = 5_000_000  # "[1,1,...]": 10 MB of text
    replies = reply_for_json("[" + ",".join(["1"] * size) + "]", "2025-03-26")
    assert len(replies) == MAX_BATCH_MEMBERS + 1
    assert (
        replies[:-1]
        == [error_response(None, INVALID_REQUEST, "Invalid Request")] * MAX_BATCH_MEMBERS
    )
    last = replies[-1]
    assert last["id"] is None and last["error"]["code"] == INVALID_REQUEST
    assert f"{size:,} members" in last["error"]["data"]
    assert f"the last {size - MAX_BATCH_MEMBERS:,} were not processed" in last["error"]["data"]
    # at the limit, every member is answered and nothing more is said
    assert len(reply_for([42] * MAX_BATCH_MEMBERS, "2025-03-26")) == MAX_BATCH_MEMBERS


def test_a_huge_batch_judges_a_bounded_number_of_members(monkeypatch):
    """Counted, not timed: reply_for is called once per judged member."""
    from mcp_lesson.rules import classification

    calls = []
    real = classification.reply_for
    monkeypatch.setattr(
        classification,
        "reply_for",
        lambda msg, revision=None: calls.append(1) or real(msg, revision),
    )
    classification.reply_for([REQ] * 200_000, "2025-03-26")
    assert len(calls) == 1 + classification.MAX_BATCH_MEMBERS


class _LyingList(list):
    def __iter__(self):
        raise RuntimeError("no iterating me")

    def __getitem__(self, index):
        raise RuntimeError("no indexing me")

    def __len__(self):
        raise RuntimeError("no length")


class _FakeList:
    """Claims to be a list through __class__, stores nothing."""

    @property  # type: ignore[misc]  # the lie under test
    def __class__(self):
        return list


@pytest.mark.parametrize("revision", [None, *REVISIONS])
def test_lists_that_lie_are_judged_by_what_they_store(revision):
    liar = _LyingList([{"jsonrpc": "2.0", "id": 9, "method": 1}])
    plain = [{"jsonrpc": "2.0", "id": 9, "method": 1}]
    assert classify(liar, revision) == classify(plain, revision)
    assert reply_for(liar, revision) == reply_for(plain, revision)
    assert explain(liar, revision) == explain(plain, revision)


@pytest.mark.parametrize("revision", [None, *REVISIONS])
def test_a_fake_list_never_raises(revision):
    fake = _FakeList()
    assert isinstance(fake, list)
    assert classify(fake, revision) == INVALID
    assert reply_for(fake, revision) == error_response(None, INVALID_REQUEST, "Invalid Request")
    assert explain(fake, revision).startswith("Invalid (-32600)")


# --- the id of an error response: optional from 2025-11-25 --------------------------------


@pytest.mark.parametrize(
    "revision, verdict",
    [
        (None, INVALID),
        ("2024-11-05", INVALID),
        ("2025-03-26", INVALID),
        ("2025-06-18", INVALID),
        ("2025-11-25", RESPONSE),
        ("2026-07-28", RESPONSE),
    ],
)
def test_an_error_response_may_leave_out_its_id_from_2025_11_25(revision, verdict):
    assert classify(ERROR_NO_ID, revision) == verdict


@pytest.mark.parametrize("revision", ["2025-11-25", "2026-07-28"])
def test_only_the_error_id_became_optional(revision):
    assert classify({"jsonrpc": "2.0", "result": {}}, revision) == INVALID
    bad_code = {"jsonrpc": "2.0", "error": {"code": "x", "message": "m"}}
    assert classify(bad_code, revision) == INVALID
    assert rule_of(bad_code, revision) == "bad-error-code"
    assert "2025-11-25" in explain(ERROR_NO_ID, revision)
    assert reply_for(ERROR_NO_ID, revision) is None


@pytest.mark.parametrize("revision", [None, *REVISIONS])
def test_a_null_error_id_stays_valid_and_explain_names_the_disagreement(revision):
    message = {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
    assert classify(message, revision) == RESPONSE
    text = explain(message, revision)
    assert "JSON-RPC 2.0 allows" in text and "MCP schema" in text and "TypeScript SDK" in text


def test_explain_says_where_the_missing_error_id_became_allowed():
    assert "from revision 2025-11-25" in explain(ERROR_NO_ID)


# --- one line on how the verdict changes ------------------------------------------------


def test_revision_note():
    assert revision_note(REQ) is None
    assert revision_note(ERROR_NO_ID).startswith("valid since 2025-11-25")
    assert revision_note([REQ]).startswith("valid only under 2025-03-26")
