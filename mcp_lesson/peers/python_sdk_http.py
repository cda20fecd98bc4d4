"""Where real implementations disagree over HTTP (lesson 07): the official SDK's
Streamable HTTP server, in both generations (the 2025-11-25 session and the stateless
2026-07-28 protocol), beside the course's rules, case by case (:data:`HTTP_CASES`,
:func:`compare_http`). Its names are at :mod:`mcp_lesson.peers.python_sdk` too.
"""

import json
import urllib.parse
from typing import Any, NamedTuple

from mcp_lesson.core.transport import check_headers, http_request_for, read_sse
from mcp_lesson.protocol.codes import INVALID_REQUEST, METHOD_NOT_FOUND
from mcp_lesson.rules.classification import classify_json, parse, reply_for_json
from mcp_lesson.rules.messages import create_request

#: The two generations of Streamable HTTP the SDK serves: in a session, and stateless.
SESSION, STATELESS = "2025-11-25", "2026-07-28"
GENERATIONS = (SESSION, STATELESS)

#: The requests a client may send, by generation: the methods of ``ClientRequest``
#: in ``schema/<revision>/schema.ts``. Any other method is unknown (-32601).
CLIENT_REQUESTS = {
    SESSION: frozenset(
        {
            "ping",
            "initialize",
            "completion/complete",
            "logging/setLevel",
            "prompts/get",
            "prompts/list",
            "resources/list",
            "resources/templates/list",
            "resources/read",
            "resources/subscribe",
            "resources/unsubscribe",
            "tools/call",
            "tools/list",
            "tasks/get",
            "tasks/result",
            "tasks/list",
            "tasks/cancel",
        }
    ),
    STATELESS: frozenset(
        {
            "server/discover",
            "completion/complete",
            "prompts/get",
            "prompts/list",
            "resources/list",
            "resources/templates/list",
            "resources/read",
            "subscriptions/listen",
            "tools/call",
            "tools/list",
        }
    ),
}

#: The id of every request of :data:`HTTP_CASES`.
HTTP_CASE_ID = 7

#: The ``_meta`` every 2026-07-28 request of the cases carries.
HTTP_META = {
    "io.modelcontextprotocol/protocolVersion": STATELESS,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "mcp-lesson-peers", "version": "1.0"},
}

_PARAMS = {
    "initialize": {
        "protocolVersion": SESSION,
        "capabilities": {},
        "clientInfo": {"name": "mcp-lesson-peers", "version": "1.0"},
    }
}

#: The hosts a web page may come from to talk to a server on this computer
#: (any other ``Origin`` is foreign).
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


class _Mark:
    """A named marker, equal only to itself."""

    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return self._name


#: The ``id`` of an :class:`HttpAnswer` that carries no JSON-RPC message (a 202, a plain-text 403).
NO_MESSAGE = _Mark("NO_MESSAGE")
#: The ``id`` of an :class:`HttpAnswer` whose message has no ``"id"`` member.
NO_ID = _Mark("NO_ID")


class HttpAnswer(NamedTuple):
    """What a POST got back, as far as the differential tests pin it.

    ``status``: the HTTP status. ``code``: the JSON-RPC error code of the
    message in the answer (None for a result, or when there is no message).
    ``id``: that message's id (:data:`NO_MESSAGE` when there is no message,
    :data:`NO_ID` when it has no id). A stream counts by its last message, the
    response. ``str()`` gives it in a few characters: ``202``,
    ``400 -32600 null``, ``200 result 7``.
    """

    status: int
    code: Any = None
    id: Any = NO_MESSAGE

    def __str__(self):
        if self.id is NO_MESSAGE:
            return str(self.status)
        ident = "no id" if self.id is NO_ID else json.dumps(self.id)
        return f"{self.status} {'result' if self.code is None else self.code} {ident}"


class HttpCase(NamedTuple):
    """One POST, sent once to each generation of the SDK's server.

    ``method``: the request the POST is built for. Its headers are what the
    course's ``http_request_for`` gives for that request in each generation
    (with the session's id, in the session); the 2026-07-28 request carries
    :data:`HTTP_META`. ``edit`` turns that request into the body sent (a
    message, or text); None sends it as it is. ``change``: headers changed in
    both generations (None removes one). ``rule``: where the course's answer
    comes from. ``seen``: what the server of ``mcp`` 2.3.0 answered, by
    generation.
    """

    name: str
    method: str
    edit: Any
    change: dict
    rule: str
    seen: dict


def _with(**members):
    """An edit that sets ``members`` on the request."""

    def edit(msg):
        return {**msg, **members}

    return edit


def _instead(message):
    """An edit that sends ``message`` in place of the request."""

    def edit(msg):
        return message

    return edit


def _nan_id(msg):
    """The request as text, its id written ``NaN`` (which is no JSON)."""
    return json.dumps({**msg, "id": "__nan__"}).replace('"__nan__"', "NaN")


def _batch(msg):
    return [msg]


def _seen(session, stateless):
    return {SESSION: session, STATELESS: stateless}


_NULL_ID_REFUSAL = HttpAnswer(400, INVALID_REQUEST, None)

#: The POSTs where the SDK's server answers otherwise than the course's rules
#: (:func:`course_http_answer`), or otherwise in one generation than in the
#: other; ``seen`` is what ``mcp`` 2.3.0 answered.
HTTP_CASES = (
    HttpCase(
        '"id": null on a request',
        "tools/list",
        _with(id=None),
        {},
        "a request id is a string or an integer, never null (2025-11-25 and 2026-07-28, "
        "basic/index, Requests); Invalid Request with id null (JSON-RPC 2.0, section 5).",
        _seen(HttpAnswer(202), _NULL_ID_REFUSAL),
    ),
    HttpCase(
        '"id": NaN on a request',
        "tools/list",
        _nan_id,
        {},
        "NaN is no JSON value (RFC 8259, section 6): Parse error, with id null "
        "(JSON-RPC 2.0, section 5.1).",
        _seen(HttpAnswer(202), _NULL_ID_REFUSAL),
    ),
    HttpCase(
        '"params": null',
        "tools/list",
        _with(params=None),
        {},
        "params, when present, is an array or an object (JSON-RPC 2.0, section 4.2), and an "
        "object in the MCP schema of every revision: Invalid Request, with the id, which could "
        "be read (section 5).",
        _seen(HttpAnswer(200, None, HTTP_CASE_ID), HttpAnswer(400, -32602, HTTP_CASE_ID)),
    ),
    HttpCase(
        '"jsonrpc": "1.0"',
        "tools/list",
        _with(jsonrpc="1.0"),
        {},
        '"jsonrpc" is exactly "2.0" (JSON-RPC 2.0, section 4): Invalid Request, with the '
        "id, which could be read (section 5).",
        _seen(HttpAnswer(400, -32602, None), _NULL_ID_REFUSAL),
    ),
    HttpCase(
        "a batch of one request",
        "tools/list",
        _batch,
        {},
        "a POST carries one message (2025-11-25, transports, Sending Messages to the Server, "
        "item 3; 2026-07-28, streamable-http, Sending Messages, item 4), and batches left MCP in "
        "2025-06-18 (its changelog, item 1): Invalid Request.",
        _seen(HttpAnswer(400, -32602, None), _NULL_ID_REFUSAL),
    ),
    HttpCase(
        "an error response with no id",
        "tools/list",
        _instead({"jsonrpc": "2.0", "error": {"code": -32603, "message": "Internal error"}}),
        {},
        "2025-11-25's schema lets an error response leave its id out (id?: RequestId), and a "
        "response the server takes gets 202 with no body (transports, Sending Messages to the "
        "Server, item 4); in 2026-07-28 a client posts no responses (Sending Messages, item 4).",
        _seen(HttpAnswer(400, -32602, None), _NULL_ID_REFUSAL),
    ),
    HttpCase(
        "both result and error",
        "tools/list",
        _instead({"jsonrpc": "2.0", "id": HTTP_CASE_ID, "result": {}, "error": None}),
        {},
        'a response holds exactly one of "result" and "error" (JSON-RPC 2.0, section 5): '
        "Invalid Request, with the id, which could be read.",
        _seen(HttpAnswer(202), _NULL_ID_REFUSAL),
    ),
    HttpCase(
        "a result response",
        "tools/list",
        _instead({"jsonrpc": "2.0", "id": HTTP_CASE_ID, "result": {}}),
        {},
        "2025-11-25: a client may answer the server, and a response taken gets 202 (transports, "
        "Sending Messages to the Server, item 4); 2026-07-28: a client MUST NOT post one "
        "(streamable-http, Sending Messages, item 4).",
        _seen(HttpAnswer(202), _NULL_ID_REFUSAL),
    ),
    HttpCase(
        "a method nobody has",
        "tools/destroy",
        None,
        {},
        "2025-11-25: Method not found, inside an ordinary answer (JSON-RPC 2.0, section 5.1); "
        "2026-07-28: 404 with -32601 (streamable-http, Protocol Version Header).",
        _seen(
            HttpAnswer(200, METHOD_NOT_FOUND, HTTP_CASE_ID),
            HttpAnswer(404, METHOD_NOT_FOUND, HTTP_CASE_ID),
        ),
    ),
    HttpCase(
        "initialize",
        "initialize",
        None,
        {"Mcp-Session-Id": None},
        "initialize opens a 2025-11-25 session (basic/lifecycle); 2026-07-28 has no initialize "
        "(schema/2026-07-28/schema.ts, ClientRequest), so it is an unknown method: 404 with -32601 "
        "(streamable-http, Protocol Version Header).",
        _seen(HttpAnswer(200, None, HTTP_CASE_ID), HttpAnswer(404, METHOD_NOT_FOUND, HTTP_CASE_ID)),
    ),
    HttpCase(
        "Mcp-Method that lies",
        "tools/list",
        None,
        {"Mcp-Method": "tools/call"},
        "2025-11-25 has no Mcp-Method header; in 2026-07-28 a header that contradicts the body "
        "gets 400 with HeaderMismatch, -32020 (streamable-http, Server Validation).",
        _seen(HttpAnswer(200, None, HTTP_CASE_ID), HttpAnswer(400, -32020, HTTP_CASE_ID)),
    ),
    HttpCase(
        "no MCP-Protocol-Version",
        "tools/list",
        None,
        {"MCP-Protocol-Version": None},
        "2025-11-25: without it a server SHOULD assume 2025-03-26 (transports, Protocol Version "
        "Header); 2026-07-28: a required header missing is a HeaderMismatch, 400 with -32020 "
        "(streamable-http, Server Validation), though a server that serves clients older than "
        "2025-06-18 MAY take it for 2025-03-26 (Protocol Version Header).",
        _seen(HttpAnswer(200, None, HTTP_CASE_ID), _NULL_ID_REFUSAL),
    ),
    HttpCase(
        "version header 2025-06-18",
        "tools/list",
        None,
        {"MCP-Protocol-Version": "2025-06-18"},
        "in a session, 2025-06-18 is a version the server speaks; in 2026-07-28 the header MUST "
        "equal _meta's protocolVersion, or the answer is 400 with HeaderMismatch, -32020 "
        "(streamable-http, Protocol Version Header).",
        _seen(HttpAnswer(200, None, HTTP_CASE_ID), _NULL_ID_REFUSAL),
    ),
    HttpCase(
        "foreign Origin, unknown session",
        "tools/list",
        None,
        {"Origin": "https://evil.example", "Mcp-Session-Id": "no-such-session"},
        "an Origin that is there and invalid MUST get 403, on every incoming connection "
        "(2025-11-25, transports, Security Warning; 2026-07-28, streamable-http, Security & "
        "Endpoint).",
        _seen(HttpAnswer(404, INVALID_REQUEST, None), HttpAnswer(403)),
    ),
)


def http_message(method, generation, request_id=HTTP_CASE_ID):
    """The valid request a case starts from; in 2026-07-28 its params carry :data:`HTTP_META`."""
    if generation not in GENERATIONS:
        raise ValueError(f"generation must be one of {GENERATIONS}, not {generation!r}")
    params = dict(_PARAMS.get(method, {}))
    if generation == STATELESS:
        params["_meta"] = HTTP_META
    return create_request(method, params or None, request_id)


def http_post(case, generation, session_id=None):
    """``(headers, body)`` of the POST ``case`` sends to ``generation``; the body is text.

    ``session_id`` goes into the session's POSTs (``case.change`` may take it out).
    """
    msg = http_message(case.method, generation)
    headers = dict(http_request_for(msg, generation)["headers"])
    if generation == SESSION and session_id is not None:
        headers["Mcp-Session-Id"] = session_id
    for name, value in case.change.items():
        headers = {key: old for key, old in headers.items() if key.lower() != name.lower()}
        if value is not None:
            headers[name] = value
    body = msg if case.edit is None else case.edit(msg)
    return headers, body if isinstance(body, str) else json.dumps(body)


def http_answer(status, headers, body):
    """The :class:`HttpAnswer` of a real answer; never raises.

    The message is the body when it is declared ``application/json``, the last
    event of an SSE stream (``text/event-stream``, read with the course's
    ``read_sse``), and none otherwise (no body, plain text).
    """
    try:
        sent = {str(name).lower(): str(value) for name, value in dict(headers).items()}
        kind = sent.get("content-type", "").split(";")[0].strip().lower()
        if kind == "application/json":
            message = json.loads(body)
        elif kind == "text/event-stream":
            events = read_sse(body)
            message = json.loads(events[-1][0]) if events else None
        else:
            message = None
    except (ValueError, TypeError):
        message = None
    if not isinstance(message, dict):
        return HttpAnswer(status)
    error = message.get("error")
    code = error.get("code") if isinstance(error, dict) else None
    return HttpAnswer(status, code, message.get("id", NO_ID))


def _foreign(origin):
    if origin is None:
        return False
    try:
        host = urllib.parse.urlsplit(origin).hostname
    except ValueError:
        return True
    return host not in LOCAL_HOSTS


def course_http_answer(headers, body, generation):
    """What a server holding to the course's rules answers a POST, as an :class:`HttpAnswer`.

    In this order: a foreign ``Origin`` gets 403; a body that is not a valid
    message of the generation's revision gets 400 with ``reply_for_json``'s
    error (so a parse error is -32700 and an invalid message -32600, with its
    id when that could be read); a response gets 202 in a session and 400 with
    -32600 in 2026-07-28, where a client posts none; there, the headers are
    judged with the course's ``check_headers``; a notification gets 202; a
    request whose method is not one of :data:`CLIENT_REQUESTS` gets -32601 (in
    a 200 answer in a session, with 404 in 2026-07-28); any other request a
    200 answer with its result. The session itself (its id, whether it was
    opened) is taken as given.
    """
    if generation not in GENERATIONS:
        raise ValueError(f"generation must be one of {GENERATIONS}, not {generation!r}")
    sent = {name.lower(): value for name, value in headers.items()}
    if _foreign(sent.get("origin")):
        return HttpAnswer(403)
    kind, _ = classify_json(body, revision=generation)
    if kind == "invalid":
        reply = reply_for_json(body, revision=generation)
        return HttpAnswer(400, reply["error"]["code"], reply["id"])
    msg, _ = parse(body)
    if kind == "response":
        return HttpAnswer(202) if generation == SESSION else HttpAnswer(400, INVALID_REQUEST, None)
    if generation == STATELESS:
        refused = check_headers(headers, msg)
        if refused is not None:
            status, reply = refused
            return HttpAnswer(status, reply["error"]["code"], reply["id"])
    if kind == "notification":
        return HttpAnswer(202)
    if msg["method"] not in CLIENT_REQUESTS[generation]:
        return HttpAnswer(200 if generation == SESSION else 404, METHOD_NOT_FOUND, msg["id"])
    return HttpAnswer(200, None, msg["id"])


class HttpRow(NamedTuple):
    """One case of :data:`HTTP_CASES`: the SDK's answers and the course's, by generation.

    ``live`` says whether ``sdk`` was just asked of a running server (True) or
    is the case's ``seen`` (False).
    """

    name: str
    sdk: dict
    course: dict
    rule: str
    live: bool

    @property
    def departs(self):
        """The generations in which the SDK's answer is not the course's."""
        return tuple(
            generation
            for generation in GENERATIONS
            if tuple(self.sdk[generation]) != tuple(self.course[generation])
        )

    @property
    def generations_differ(self):
        """Whether the SDK's two answers differ in their status or their code."""
        session, stateless = (self.sdk[generation] for generation in GENERATIONS)
        return (session.status, session.code) != (stateless.status, stateless.code)


def _course(case):
    return {
        generation: course_http_answer(*http_post(case, generation, "the-session"), generation)
        for generation in GENERATIONS
    }


def open_session(http, url):
    """Open a 2025-11-25 session with ``http`` (an ``httpx.Client``) at ``url``; its id."""
    post = http_request_for(create_request("initialize", _PARAMS["initialize"], "open"), SESSION)
    opened = http.post(url, headers=post["headers"], content=post["body"])
    session = opened.headers.get("mcp-session-id")
    if opened.status_code != 200 or not session:
        raise RuntimeError(
            f"the server at {url} opened no session: {opened.status_code} {opened.text[:200]!r}"
        )
    post = http_request_for(create_request("notifications/initialized"), SESSION)
    done = http.post(
        url, headers={**post["headers"], "Mcp-Session-Id": session}, content=post["body"]
    )
    if done.status_code != 202:
        raise RuntimeError(
            f"the server at {url} refused notifications/initialized: {done.status_code}"
        )
    return session


def compare_http(cases=HTTP_CASES, url=None, timeout=30.0):
    """Each case's answers from the SDK's server beside the course's, as :class:`HttpRow`.

    With ``url`` (a running ``python -m mcp_lesson.server --http``), every case
    is POSTed there, once in a session this function opens and once stateless;
    the sessions it opened are ended before it returns. Without ``url``, the
    SDK's answers are the ones seen with ``mcp`` 2.3.0 (each case's ``seen``).
    The course's answers are :func:`course_http_answer` either way. Needs
    ``httpx`` (the SDK brings it) only with a ``url``.
    """
    if url is None:
        return [
            HttpRow(case.name, dict(case.seen), _course(case), case.rule, False) for case in cases
        ]
    import httpx

    rows = []
    with httpx.Client(timeout=timeout, trust_env=False) as http:
        sessions = [open_session(http, url)]
        try:
            for case in cases:
                sdk = {}
                for generation in GENERATIONS:
                    headers, body = http_post(case, generation, sessions[0])
                    answer = http.post(url, headers=headers, content=body)
                    sdk[generation] = http_answer(answer.status_code, answer.headers, answer.text)
                    minted = answer.headers.get("mcp-session-id")
                    if answer.status_code == 200 and minted and minted not in sessions:
                        sessions.append(minted)  # initialize opened one more
                rows.append(HttpRow(case.name, sdk, _course(case), case.rule, True))
        finally:
            for session in sessions:
                try:
                    http.delete(
                        url, headers={"Mcp-Session-Id": session, "MCP-Protocol-Version": SESSION}
                    )
                except httpx.HTTPError:
                    pass
    return rows
