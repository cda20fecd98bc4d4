"""The official Python SDK's verdict on a message, beside this package's.

The ``mcp`` SDK reads every incoming message with one pydantic validator,
``mcp_types.jsonrpc.jsonrpc_message_adapter``. It tries the four message models
(``JSONRPCRequest``, ``JSONRPCNotification``, ``JSONRPCResponse``,
``JSONRPCError``) and keeps one that fits; if none fits it raises a
``ValidationError``. This module turns that into this package's words:

===================================  ================
SDK outcome                          kind
===================================  ================
``JSONRPCRequest``                   ``"request"``
``JSONRPCNotification``              ``"notification"``
``JSONRPCResponse``, ``JSONRPCError`` ``"response"``
``ValidationError`` (or any error)   ``"invalid"``
===================================  ================

Lesson 07 and ``tests/peers/test_peers.py`` compare the two on the shared case table.
Importing this module does not import the SDK; the first verdict does.

Two more peers' views live here:

* **the TypeScript SDK** (``@modelcontextprotocol/sdk``): its verdicts on the
  case tables are stored data (:func:`ts_data`, :func:`compare_three`), made
  by ``tests/peers/test_ts_peer.py`` with Node.js, so a learner needs no Node;
* **the SDK's stdio transport at the limits of its JSON parser**: valid
  requests a server built with the SDK never answers (:data:`PARSER_LIMITS`),
  and :func:`lines_after`, which shows that silence without waiting for a
  reply that never comes;
* **the SDK's server over Streamable HTTP**, in its two generations (a
  2025-11-25 session and 2026-07-28 stateless requests): :data:`HTTP_CASES`,
  the POSTs where its answer differs from the course's rules or from one
  generation to the other, and :func:`compare_http`, which sends them to a
  running server (``python -m mcp_lesson.server --http``) or, without one,
  gives the answers seen with ``mcp`` 2.3.0 (they live in http_peers.py, and
  their names are here too).
"""

import json
from functools import lru_cache
from importlib import resources
from typing import Any, NamedTuple

from mcp_lesson.exercises.cases import CASES, TEXT_CASES
from mcp_lesson.rules.classification import classify, classify_json, parse, rule_of

_KINDS = {
    "JSONRPCRequest": "request",
    "JSONRPCNotification": "notification",
    "JSONRPCResponse": "response",
    "JSONRPCError": "response",
}


@lru_cache(maxsize=1)
def _adapter():
    from mcp_types.jsonrpc import jsonrpc_message_adapter

    return jsonrpc_message_adapter


def sdk_version():
    """The installed ``mcp`` SDK's version, e.g. ``"2.3.0"`` (None if it is missing)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mcp")
    except PackageNotFoundError:
        return None


def sdk_model(msg):
    """The name of the SDK model ``msg`` validates as, or ``"ValidationError"``; never raises."""
    try:
        model = _adapter().validate_python(msg)
    except Exception as exc:  # pydantic's ValidationError, or anything a hostile object raises
        return type(exc).__name__
    return type(model).__name__


def sdk_verdict(msg):
    """The SDK's verdict on a parsed message, in this package's kinds; never raises."""
    return _KINDS.get(sdk_model(msg), "invalid")


def sdk_stdio_model(line):
    """The SDK model a stdio server makes of one line of text or bytes; never raises.

    This is what ``mcp.server.stdio`` does with each line it reads: bytes are
    decoded as UTF-8 with bad bytes *replaced* (not refused), then the text is
    validated by the SDK's own JSON parser (which, unlike strict JSON, reads
    ``NaN``). Text the parser refuses is ``"ValidationError"``.
    """
    try:
        if isinstance(line, (bytes, bytearray, memoryview)):
            line = bytes(line).decode("utf-8", errors="replace")
        model = _adapter().validate_json(line, by_name=False)
    except Exception as exc:
        return type(exc).__name__
    return type(model).__name__


def sdk_stdio_verdict(line):
    """:func:`sdk_stdio_model` in this package's kinds; never raises."""
    return _KINDS.get(sdk_stdio_model(line), "invalid")


# --- side by side --------------------------------------------------------


class Comparison(NamedTuple):
    """One message judged by this package (``ours``) and by the SDK (``sdk``)."""

    name: str
    message: Any
    ours: str
    sdk: str
    sdk_model: str

    @property
    def agree(self):
        return self.ours == self.sdk


def _compare(cases, given, ours, sdk):
    rows = []
    for case in cases:
        message = given(case)
        model = sdk(message)
        rows.append(
            Comparison(case.name, message, ours(message)[0], _KINDS.get(model, "invalid"), model)
        )
    return rows


def compare(cases=CASES, classify=classify):
    """Compare ``classify`` (the course's, or a learner's) with the SDK on every
    case (parsed messages)."""
    return _compare(cases, lambda case: case.message, classify, sdk_model)


def compare_text(cases=TEXT_CASES, classify_json=classify_json):
    """Compare ``classify_json`` (the course's, or a learner's) with a stdio server
    built with the SDK on raw text."""
    return _compare(cases, lambda case: case.text, classify_json, sdk_stdio_model)


def disagreements(rows):
    """``{case name: SDK verdict}`` for the rows where the two disagree."""
    return {row.name: row.sdk for row in rows if not row.agree}


# --- why they disagree ----------------------------------------------------

#: The rules of this course the SDK does not enforce, in plain words.
LOOSE_RULES = {
    "bad-id-dropped": (
        "A request's id must be a string or an integer. The SDK's request model "
        "refuses a null, bool, float or object id, but its notification model has "
        "no id field and ignores members it does not know, so the message passes "
        "as a notification with the id thrown away. Nobody answers a notification: "
        "the sender waits forever for its reply."
    ),
    "params-null": (
        "Params, when present, must be an object. The SDK declares params as "
        '"an object or None", so "params": null passes. Harmless to the SDK itself, '
        "but a stricter peer answers the same message with Invalid Request."
    ),
    "result-and-error": (
        'A response has exactly one of "result" and "error". The SDK keeps the first '
        "model that fits and ignores the other member, so a confused reply is read "
        "as a success or as a failure, silently."
    ),
    "lax-error-code": (
        "An error code must be an integer. The SDK's error model converts what it can "
        '(true becomes 1, the text "-32601" becomes -32601, -32600.0 becomes -32600), '
        "so a peer's mistake turns into a plausible code."
    ),
    "lax-json": (
        "Text that is not strict JSON is a parse error. The SDK's stdio reader replaces "
        "bytes that are not UTF-8 and its JSON parser accepts NaN, so such a line can "
        "still become a message (here, a notification)."
    ),
}


#: Which of this course's rules (:data:`mcp_lesson.rules.classification.RULES`) the SDK
#: does not enforce, by the rule that decided our verdict.
_LOOSE_BY_RULE = {
    "bad-params": "params-null",
    "both": "result-and-error",
    "bad-error-code": "lax-error-code",
}


def loose_rule(message, sdk_kind):
    """Which rule of :data:`LOOSE_RULES` explains a disagreement ("other" if none does).

    It reads the rule that decided our own verdict (:func:`rule_of`), so the
    course's rules are written once, in :mod:`mcp_lesson.rules.classification`.
    """
    if isinstance(message, (str, bytes, bytearray)):
        message, reason = parse(message)
        if reason is not None:
            return "lax-json"
    rule = rule_of(message)
    if rule == "bad-request-id" and sdk_kind == "notification":
        return "bad-id-dropped"
    if rule == "bad-params" and dict.get(message, "params", 0) is not None:
        return "other"
    return _LOOSE_BY_RULE.get(rule, "other")


# --- the TypeScript SDK, as stored data -------------------------------------

#: The stored verdicts of the TypeScript SDK, in ``mcp_lesson/data/``. Made by
#: ``.venv/bin/python tests/peers/test_ts_peer.py --dump > mcp_lesson/data/ts_sdk_verdicts.json``
#: (the file records its command and the versions it was made with).
TS_DATA = "ts_sdk_verdicts.json"

#: The kinds of a message accepted by a peer (anything else is a refusal).
ACCEPTED = ("request", "notification", "response")


def ts_data():
    """The stored TypeScript SDK verdicts, as a fresh dict every call.

    Keys: ``command`` (what made the file), ``versions`` (SDK, zod, Node),
    ``classes`` (each known reason for a disagreement with ``classify``, in
    words), ``cases`` and ``text_cases`` (one row per case of :data:`CASES`
    and :data:`TEXT_CASES`: ``name``, ``ours``, ``ts`` (the verdict: a kind,
    ``"invalid"``, or ``"parse-error"`` for text), ``ts_schema``, ``ts_issue``,
    ``ts_seen`` (the message as Node's ``JSON.parse`` read it) and, where the
    two disagree, ``class``), and ``mutations`` (a summary over thousands of
    messages mutated near every rule).
    """
    text = resources.files("mcp_lesson").joinpath("data", TS_DATA).read_text(encoding="utf-8")
    return json.loads(text)


def ts_verdicts(table="cases"):
    """``{case name: the TypeScript SDK's verdict}`` for ``"cases"`` or ``"text_cases"``."""
    if table not in ("cases", "text_cases"):
        raise ValueError(f'table must be "cases" or "text_cases", not {table!r}')
    return {row["name"]: row["ts"] for row in ts_data()[table]}


class ThreeWay(NamedTuple):
    """One message judged by this package, the Python SDK and the TypeScript SDK.

    ``ts`` is ``"not stored"`` for a case the stored data does not hold (a case
    added after the data was made: remake it with the command in :data:`TS_DATA`).
    """

    name: str
    message: Any
    ours: str
    python: str
    ts: str

    @property
    def all_agree(self):
        return self.ours == self.python == self.ts


def compare_three(cases=CASES, classify=classify):
    """``classify`` (the course's, or a learner's), the Python SDK and the stored
    TypeScript SDK verdicts, case by case."""
    ts = ts_verdicts("cases")
    return [
        ThreeWay(
            case.name,
            case.message,
            classify(case.message)[0],
            sdk_verdict(case.message),
            ts.get(case.name, "not stored"),
        )
        for case in cases
    ]


def sdk_split(rows):
    """Where the two SDKs differ: ``{"python only", "typescript only", "other kind"}`` -> case names.

    "python only": the Python SDK accepts what the TypeScript SDK refuses;
    "typescript only": the reverse; "other kind": both accept, as different kinds.
    """
    split = {"python only": [], "typescript only": [], "other kind": []}
    for row in rows:
        if row.python == row.ts or row.ts == "not stored":
            continue
        if row.python in ACCEPTED and row.ts in ACCEPTED:
            split["other kind"].append(row.name)
        elif row.python in ACCEPTED:
            split["python only"].append(row.name)
        else:
            split["typescript only"].append(row.name)
    return split


# --- valid requests the SDK's stdio server never answers ----------------------
#
# mcp.server.stdio reads each line with the SDK's JSON parser (pydantic's jiter,
# written in Rust). A line it cannot parse is dropped: the dispatcher logs it
# at DEBUG level only, so no reply goes out and a server logging warnings (as
# the calculator does) logs nothing. JSON itself sets none of these limits.


def nested_ping(levels, request_id="deep"):
    """The text of a ping nested ``levels`` deep, counting the message's own braces."""
    params = {}
    for _ in range(levels - 2):
        params = {"x": params}
    return json.dumps(
        {"jsonrpc": "2.0", "id": request_id, "method": "ping", "params": params},
        separators=(",", ":"),
    )


def add_call(digits, request_id):
    """The text of a ``tools/call`` of ``add`` whose ``a`` is written with ``digits`` sevens.

    Written by hand: Python's ``json.dumps`` refuses an integer of over 4,300 digits.
    """
    return (
        '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"add",'
        '"arguments":{"a":%s,"b":1}}}' % (json.dumps(request_id), "7" * digits)
    )


def ping_with_id(digits):
    """The text of a ping whose id is the integer written with ``digits`` ones."""
    return '{"jsonrpc":"2.0","id":%s,"method":"ping"}' % ("1" * digits)


class ParserLimit(NamedTuple):
    """A limit of the SDK's JSON parser that JSON does not have.

    ``silent`` is a valid request just beyond it (the SDK's stdio server sends
    nothing back), ``answered`` the same request just inside it (answered as
    usual), and ``cause`` says why in one sentence.
    """

    name: str
    silent: str
    answered: str
    cause: str


PARSER_LIMITS = (
    ParserLimit(
        "params nested 202 deep",
        nested_ping(202, "deep-202"),
        nested_ping(201, "deep-201"),
        "the SDK's JSON parser stops at a fixed depth of nesting; JSON itself sets no limit.",
    ),
    ParserLimit(
        "a lone surrogate escape",
        '{"jsonrpc":"2.0","id":"lone","method":"ping","params":{"text":"\\ud800"}}',
        '{"jsonrpc":"2.0","id":"pair","method":"ping","params":{"text":"\\ud83d\\ude00"}}',
        "the parser, written in Rust, only builds valid Unicode text, and a lone \\ud800 "
        "is half of a character (a pair such as \\ud83d\\ude00 is a whole one).",
    ),
    ParserLimit(
        "an add argument of 4,301 digits",
        add_call(4301, "add-4301"),
        add_call(4300, "add-4300"),
        "the parser refuses integers over 4,300 digits (the same cap as Python's int() "
        "default, built into the parser).",
    ),
    ParserLimit(
        "an id of 4,301 digits",
        ping_with_id(4301),
        ping_with_id(4300),
        "the same cap on integers over 4,300 digits, met by the id this time.",
    ),
)


def lines_after(server, message, grace=None):
    """Send ``message`` and return the lines the server sends back for it (``[]``: silence).

    :meth:`StdioServer.probe <mcp_lesson.client.stdio.StdioServer.probe>`
    without waiting for the reply a valid request is owed (that reply may never
    come): once the server's follow-up request (a ``ping``, or
    ``server/discover`` for a stateless revision) is answered, it has read
    ``message``, and the client listens ``grace`` seconds more for a late
    answer. Raises :class:`~mcp_lesson.client.stdio.ServerError` when the
    follow-up is not answered within the server's timeout.
    """
    return server.probe(message, grace, await_reply=False)


# Lesson 07's HTTP half (http_peers.py), where the lesson imports it from.
from mcp_lesson.peers.python_sdk_http import (  # noqa: E402,F401  (after the setup above)
    CLIENT_REQUESTS,
    GENERATIONS,
    HTTP_CASE_ID,
    HTTP_CASES,
    HTTP_META,
    LOCAL_HOSTS,
    NO_ID,
    NO_MESSAGE,
    SESSION,
    STATELESS,
    HttpAnswer,
    HttpCase,
    HttpRow,
    compare_http,
    course_http_answer,
    http_answer,
    http_message,
    http_post,
    open_session,
)
