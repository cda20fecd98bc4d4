"""Lesson 10's table: :data:`CONVERSATIONS`, recorded conversations (the entries the tap
writes) and the problems ``audit(conversation)`` must find in each."""

import json

from mcp_lesson.exercises.cases import _INIT, _TOOL_CALL, Build, _m

# --- lesson 10: a recorded conversation, audited ------------------------------------------
#
# Lesson 10's ``audit(conversation)`` (my_mcp/traffic.py): the entries of a recording, as
# ``python -m mcp_lesson.tap --record`` writes them (one dict a line: "direction" and "text"
# for a line that travelled, "event" for what happened to the connection), and the problems
# it must find, as a sorted list of ``(place, problem)`` pairs, each place counted from 1.


def _line(direction, message):
    """A recorded line: ``message`` (a dict, sent as compact JSON, or raw text) going ``direction``."""
    text = message if isinstance(message, str) else json.dumps(message, separators=(",", ":"))
    return {"direction": direction, "text": text}


def _up(message):
    """A line from the client to the server."""
    return _line("to_server", message)


def _down(message):
    """A line from the server to the client."""
    return _line("from_server", message)


def _happened(name, **fields):
    """An event of the connection: no line, but it still has a place in the recording."""
    return {"event": name, **fields}


def _conversation(name, entries, expected, reason):
    return Build(name, (entries,), {}, expected, reason)


_ASK_INIT = _m(id=1, method="initialize", params=_INIT)
_INIT_DONE = _m(
    id=1,
    result={
        "protocolVersion": "2025-11-25",
        "capabilities": {"tools": {}},
        "serverInfo": {"name": "calculator", "version": "1.0"},
    },
)
_READY = _m(method="notifications/initialized")
_LIST = _m(id=2, method="tools/list")
_LISTED = _m(id=2, result={"tools": []})
_PING_3 = _m(id=3, method="ping")
_PONG_3 = _m(id=3, result={})
_NOT_FOUND_NULL = _m(id=None, error={"code": -32601, "message": "Method not found"})
_PARSE_NULL = _m(id=None, error={"code": -32700, "message": "Parse error"})

#: Lesson 10's ``audit(conversation)``: the problems of a recorded conversation.
CONVERSATIONS = [
    _conversation(
        "a clean handshake",
        [
            _happened("start"),
            _up(_ASK_INIT),
            _down(_INIT_DONE),
            _up(_READY),
            _up(_LIST),
            _down(_LISTED),
            _happened("client_closed"),
            _happened("end"),
        ],
        [],
        "every request answered once, the notification left alone",
    ),
    _conversation(
        "nothing but events",
        [_happened("start"), _happened("server_exited", status=0)],
        [],
        "events are no lines: there is nothing to audit",
    ),
    _conversation(
        "a log line on stdout",
        [_happened("start"), _down("Server started on stdio"), _up(_PING_3), _down(_PONG_3)],
        [(2, "pollution")],
        "stdout is for JSON-RPC messages only: logs go to stderr",
    ),
    _conversation(
        "a request never answered",
        [_up(_PING_3)],
        [(1, "unanswered")],
        "it is reported at the request's own place",
    ),
    _conversation(
        "answers out of order",
        [_up(_LIST), _up(_PING_3), _down(_PONG_3), _down(_LISTED)],
        [],
        "the id says which request an answer is for, not the order",
    ),
    _conversation(
        "an error answers a request too",
        [
            _up(_m(id=7, method="tools/destroy")),
            _down(_m(id=7, error={"code": -32601, "message": "Method not found"})),
        ],
        [],
        "a request gets a result or an error, either is its answer",
    ),
    _conversation(
        "answered twice",
        [_up(_PING_3), _down(_PONG_3), _down(_PONG_3)],
        [(3, "answered_twice")],
        "a request is answered exactly once",
    ),
    _conversation(
        "a response to an id never sent",
        [_up(_PING_3), _down(_m(id=4, result={})), _down(_PONG_3)],
        [(2, "unknown_id")],
        "nobody asked a question with the id 4",
    ),
    _conversation(
        'the id "3" is not 3',
        [_up(_PING_3), _down(_m(id="3", result={}))],
        [(1, "unanswered"), (2, "unknown_id")],
        "ids match by type and value, as in is_reply_to",
    ),
    _conversation(
        "an id reused while in flight",
        [
            _up(_m(id=5, method="tools/list")),
            _up(_m(id=5, method="ping")),
            _down(_m(id=5, result={"tools": []})),
        ],
        [(2, "id_reused")],
        "while 5 waits for its answer, a second 5 is ambiguous",
    ),
    _conversation(
        "an id used again after its answer",
        [_up(_PING_3), _down(_PONG_3), _up(_PING_3), _down(_PONG_3)],
        [],
        "once answered, an id is free again",
    ),
    _conversation(
        "an answer to a notification",
        [_up(_READY), _down(_NOT_FOUND_NULL)],
        [(2, "answer_to_notification")],
        "a notification gets no answer, not even an error",
    ),
    _conversation(
        "one notification, two answers",
        [_up(_READY), _down(_NOT_FOUND_NULL), _down(_NOT_FOUND_NULL)],
        [(2, "answer_to_notification"), (3, "unknown_id")],
        "each notification is counted once: the second error with id null answers nothing",
    ),
    _conversation(
        "junk from the client, and the error it gets back",
        [_up('{"jsonrpc": "2.0", "id": 1, "meth'), _down(_PARSE_NULL)],
        [(1, "invalid")],
        "the line is at fault; the error with id null is the answer JSON-RPC prescribes",
    ),
    _conversation(
        "the error for junk carries the id null",
        [
            _up('{"jsonrpc": "2.0", "id": 4, "meth'),
            _down(_m(id=4, error={"code": -32700, "message": "Parse error"})),
        ],
        [(1, "invalid"), (2, "unknown_id")],
        "the id of a line that does not parse cannot be read: lesson 04's reply is null",
    ),
    _conversation(
        "an invalid request, answered with its id",
        [
            _up(_m(id=9, method="ping", params=None)),
            _down(_m(id=9, error={"code": -32600, "message": "Invalid Request"})),
        ],
        [(1, "invalid")],
        "lesson 04's strict reply: the error keeps the id it could read",
    ),
    _conversation(
        "an error with id null that answers nothing",
        [_up(_PING_3), _down(_PARSE_NULL), _down(_PONG_3)],
        [(2, "unknown_id")],
        "nothing unreadable, no notification: null is an id nobody sent",
    ),
    _conversation(
        "a result with id null",
        [_up(_PING_3), _down(_m(id=None, result={}))],
        [(1, "unanswered"), (2, "invalid")],
        "null is allowed on an error only, so the ping is never answered",
    ),
    _conversation(
        "the server asks too",
        [
            _up(_m(id=1, method="tools/call", params=_TOOL_CALL)),
            _down(_m(id=1, method="sampling/createMessage", params={"messages": []})),
            _up(_m(id=1, result={"role": "assistant", "content": {"type": "text", "text": "4"}})),
            _down(_m(id=1, result={"content": []})),
        ],
        [],
        "each side numbers its own requests: the two ids 1 are apart",
    ),
]

#: The row of the shared case table for lesson 10 (as cases.py's CHECKS).
CHECKS = {"audit": ("same_problems", CONVERSATIONS)}
