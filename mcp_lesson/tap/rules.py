"""The MCP rules the audit checks beyond framing and pairing (:func:`message_rules`,
:func:`http_rules`), each finding citing the page of the revision that states the rule:

* ``capability``: a message that needs a capability the other side did not announce in
  the handshake (``notifications/message`` without the server's ``logging``,
  ``sampling/createMessage`` without the client's ``sampling``...);
* ``id_reused``: an id reused after its answer, where the revision says an id MUST NOT
  have been used before by the same requestor in the session (2024-11-05 to 2025-11-25;
  JSON-RPC alone allows it, and so do the course's rules, as lesson 10's audit does);
* ``unknown_tool``: a ``tools/call`` of a tool the server's complete ``tools/list`` never
  named, answered as the tool's own failure (``isError``): tools.mdx lists unknown tools
  among protocol errors (a call answered with a plain result is no finding: the server
  has the tool, unlisted or on a page not read);
* ``reserved_code``: a code of JSON-RPC's reserved range with another meaning (-32601,
  "method not found", for a method the server has; -32700, "parse error", to a request
  that was read);
* ``result_shape``: a result that breaks the revision's ``schema.json`` (:mod:`.schemas`);
* ``progress_token``: a progress notification whose token no request of the other side
  gave; ``cancelled_answered``: a response to a request its sender had cancelled;
  ``version``: an ``initialize`` answered with a ``protocolVersion`` no revision has;
* over HTTP, ``session_status`` (a request on a session that ended, or that the server
  never handed out, answered otherwise than 404) and ``origin`` (an ``Origin`` of
  another site accepted, where the server must answer 403).

Each finding names its rule of :mod:`.citations`, which gives it its keyword, its severity and
the sentence it quotes. A message too long to judge (``slot.cut``) is read by no rule.

The audit (:mod:`.audit`) calls these with what it has read: its scopes of slots, in time
order (each slot a message with its direction, kind, id key and revision).
"""

import bisect
from urllib.parse import urlsplit

from mcp_lesson.protocol.revisions import REVISIONS
from mcp_lesson.shared.recording import time_order as in_time_order
from mcp_lesson.tap.citations import RULES
from mcp_lesson.tap.entries import _http_of, _method, _protocol_version, id_key, show_id
from mcp_lesson.tap.judge import _short
from mcp_lesson.tap.schemas import shape_problem

#: What a message sent by one side needs the other (or the sender) to have announced:
#: method -> (whose capabilities, the path in them, the page that says so).
NEEDS = {
    "notifications/message": ("server", ("logging",), "server/utilities/logging.mdx"),
    "notifications/tools/list_changed": ("server", ("tools", "listChanged"), "server/tools.mdx"),
    "notifications/prompts/list_changed": (
        "server",
        ("prompts", "listChanged"),
        "server/prompts.mdx",
    ),
    "notifications/resources/list_changed": (
        "server",
        ("resources", "listChanged"),
        "server/resources.mdx",
    ),
    "notifications/resources/updated": (
        "server",
        ("resources", "subscribe"),
        "server/resources.mdx",
    ),
    "sampling/createMessage": ("client", ("sampling",), "client/sampling.mdx"),
    "elicitation/create": ("client", ("elicitation",), "client/elicitation.mdx"),
    "roots/list": ("client", ("roots",), "client/roots.mdx"),
    "notifications/roots/list_changed": ("client", ("roots", "listChanged"), "client/roots.mdx"),
}
#: The capability a server announces for the methods it has, where a -32601 means it has not.
SERVES = {
    "tools/call": "tools",
    "tools/list": "tools",
    "prompts/get": "prompts",
    "prompts/list": "prompts",
    "resources/read": "resources",
    "resources/list": "resources",
    "logging/setLevel": "logging",
    "completion/complete": "completions",
}
#: The code the revisions name for a request's usual failure, where it names one: the page that
#: says so and the case. A server that answers such a request with a code outside JSON-RPC's
#: reserved range (-32768 to -32000; the SDK's catch-all gave 0) gets a warning.
NAMED_CODES = {
    "tools/call": (-32602, "server/tools.mdx", "an unknown tool"),
    "prompts/get": (-32602, "server/prompts.mdx", "an invalid prompt name"),
    "resources/read": (-32002, "server/resources.mdx", "a resource not found"),
    "logging/setLevel": (-32602, "server/utilities/logging.mdx", "an invalid log level"),
}
#: The code the SDKs answer a cancelled request with (LSP's RequestCancelled; no MCP revision
#: defines it, and 2025-11-25's basic/utilities/cancellation.mdx asks for no answer at all).
CANCELLED = -32800
_LOOPBACK = {"localhost", "127.0.0.1", "::1"}
_CAPS_KEY = "io.modelcontextprotocol/clientCapabilities"


def _latest_before(places, place):
    """The last of ``places`` (sorted) before ``place``, or None."""
    at = bisect.bisect_left(places, place)
    return places[at - 1] if at else None


def _has(capabilities, path):
    node = capabilities
    for part in path:
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return node is not False and node is not None


def _answers(scope):
    """``{place of a request: place of its first answer}`` and the reverse, in one scope."""
    waiting, answer_of, request_of = {}, {}, {}
    for place, slot in enumerate(scope.slots, 1):
        if slot.asks and slot.kind == "request":
            waiting.setdefault((slot.direction, slot.key), place)
        elif slot.kind == "response" and slot.key is not None:
            asker = "to_server" if slot.direction == "from_server" else "from_server"
            asked = waiting.pop((asker, slot.key), None)
            if asked is not None:
                answer_of[asked], request_of[place] = place, asked
    return answer_of, request_of


class _Known:
    """What the whole recording tells about the server: the capabilities each handshake agreed
    (by scope, and by the session an ``initialize`` answer handed out), the server's
    ``server/discover`` capabilities, the tools its ``tools/list`` named, and the methods it
    answered with a result."""

    def __init__(self, conversation, scopes):
        self.caps = {}  # scope -> {"client": ..., "server": ...}
        self.discovered = None
        self.tools, self.tools_complete = set(), None
        self.answered = set()
        for key, scope in scopes.items():
            answer_of, request_of = _answers(scope)
            caps = self.caps.setdefault(key, {})
            for place, slot in enumerate(scope.slots, 1):
                member = slot.member if isinstance(slot.member, dict) else {}
                params = member.get("params") if isinstance(member.get("params"), dict) else {}
                if slot.direction == "to_server" and slot.kind == "request":
                    if member.get("method") == "initialize" and isinstance(
                        params.get("capabilities"), dict
                    ):
                        caps.setdefault("client", params["capabilities"])
                    meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else {}
                    if isinstance(meta.get(_CAPS_KEY), dict):
                        caps.setdefault("client", meta[_CAPS_KEY])
                if place not in request_of or slot.direction != "from_server" or slot.refusal:
                    continue
                result = member.get("result")
                method = scope.slots[request_of[place] - 1].member.get("method")
                if not isinstance(result, dict):
                    continue
                self.answered.add(method)
                if method == "initialize" and isinstance(result.get("capabilities"), dict):
                    caps.setdefault("server", result["capabilities"])
                    session = _session_of(conversation[slot.index])
                    if session is not None:
                        self.caps.setdefault(("session", session), {}).update(
                            {side: found for side, found in caps.items()}
                        )
                elif method == "server/discover" and isinstance(result.get("capabilities"), dict):
                    self.discovered = result["capabilities"]
                elif method == "tools/list" and isinstance(result.get("tools"), list):
                    self.tools.update(
                        tool.get("name") for tool in result["tools"] if isinstance(tool, dict)
                    )
                    complete = result.get("nextCursor") is None
                    self.tools_complete = (
                        complete if self.tools_complete is None else self.tools_complete or complete
                    )

    def of(self, scope_key, side):
        found = self.caps.get(scope_key, {}).get(side)
        if found is None and side == "server":
            return self.discovered
        return found


def _session_of(entry):
    http = _http_of(entry)
    headers = (
        http.get("headers") if http is not None and isinstance(http.get("headers"), dict) else {}
    )
    session = headers.get("mcp-session-id")
    return session if isinstance(session, str) else None


def message_rules(reading, flagged):
    """The rules on messages, for each scope of ``reading`` (the audit's :class:`_Reading`):
    a list of problems. ``flagged`` holds, by scope, the places lesson 10's audit found fault
    with (no rule here speaks of them again)."""
    known = _Known(reading.conversation, reading.scopes)
    tokens = _progress_tokens(reading.scopes)
    found = []
    for scope_key, scope in reading.scopes.items():
        answer_of, request_of = _answers(scope)
        skip = flagged.get(scope_key, set())
        answered = {}  # (direction, id key) -> the place of the answer to its latest request
        cancelled = {}  # (direction of the canceller, id key) -> the place of its notifications/cancelled
        for place, slot in enumerate(scope.slots, 1):
            member = slot.member if isinstance(slot.member, dict) else None
            if member is None or place in skip or slot.cut:
                continue
            method = member.get("method")
            if slot.kind in ("request", "notification") and method in NEEDS:
                found += _capability(reading, known, scope_key, slot, method)
            if slot.kind == "notification" and method == "notifications/progress":
                found += _progress(reading, slot, tokens)
            if slot.kind == "notification" and method == "notifications/cancelled":
                params = member.get("params") if isinstance(member.get("params"), dict) else {}
                key = id_key(params.get("requestId"))
                if key is not None:
                    cancelled.setdefault((slot.direction, key), place)
            if slot.kind == "request" and slot.key is not None:
                earlier = answered.get((slot.direction, slot.key))
                if earlier is not None and slot.revision in RULES["id_reused"].where:
                    found.append(_reused(reading, scope, slot, earlier))
                if place in answer_of:
                    answered[(slot.direction, slot.key)] = answer_of[place]
            if slot.kind == "response" and place in request_of and not slot.refusal:
                request = scope.slots[request_of[place] - 1]
                at = cancelled.get((request.direction, request.key))
                if at is not None and request_of[place] < at < place:
                    found.append(_cancelled_answered(reading, request, slot, scope.slots[at - 1]))
                if slot.direction == "from_server" and not request.cut:
                    found += _answer_rules(reading, known, scope_key, request, slot)
    return found


def _progress_tokens(scopes):
    """``{direction: keys of the progress tokens its requests gave}`` over the whole recording
    (a token given in any scope is given), and the directions with a request too long to read,
    whose token may be in what was not kept."""
    given, unread = {"to_server": set(), "from_server": set()}, set()
    for scope in scopes.values():
        for slot in scope.slots:
            if slot.kind != "request" or not isinstance(slot.member, dict):
                continue
            if slot.cut:
                unread.add(slot.direction)
                continue
            params = (
                slot.member.get("params") if isinstance(slot.member.get("params"), dict) else {}
            )
            meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else {}
            token = id_key(meta.get("progressToken"))
            if token is not None:
                given.setdefault(slot.direction, set()).add(token)
    return given, unread


def _progress(reading, slot, tokens):
    given, unread = tokens
    other = "to_server" if slot.direction == "from_server" else "from_server"
    params = slot.member.get("params") if isinstance(slot.member.get("params"), dict) else {}
    token = params.get("progressToken")
    key = id_key(token)
    if key is None or key in given.get(other, ()) or other in unread:
        return []  # no token (the schema's concern), one given, or one that may be in a request not kept
    sender, asker = (
        ("server", "client") if slot.direction == "from_server" else ("client", "server")
    )
    return [
        reading._problem(
            slot.index,
            "progress_token",
            f"the {sender} sent notifications/progress for "
            f"the token {show_id(token)}, which no request of the {asker}'s gave "
            "(params._meta.progressToken)",
            rule="progress_token",
            revision=slot.revision,
        )
    ]


def _cancelled_answered(reading, request, answer, cancel):
    sender = "server" if answer.direction == "from_server" else "client"
    return reading._problem(
        answer.index,
        "cancelled_answered",
        f"the {sender} answered request "
        f"{show_id(request.member['id'])} ({_method(request.member)}, line "
        f"{reading.line(request.index)}), which its sender had cancelled on line "
        f"{reading.line(cancel.index)} (unless the answer was already on its way when "
        "the cancellation came)",
        id=answer.member.get("id"),
        revision=answer.revision,
    )


def _capability(reading, known, scope_key, slot, method):
    whose, path, page = NEEDS[method]
    sender = "server" if slot.direction == "from_server" else "client"
    capabilities = known.of(scope_key, whose)
    if capabilities is None or _has(capabilities, path):
        return []
    announced = "its own" if whose == sender else f"the {whose}'s"
    return [
        reading._problem(
            slot.index,
            "capability",
            f"the {sender} sent {method}, but {announced} "
            f"capabilities in the handshake have no {'.'.join(path)} (see {page}): a side "
            "uses only what was announced",
            revision=slot.revision,
            **({"id": slot.member["id"]} if "id" in slot.member else {}),
        )
    ]


def _reused(reading, scope, slot, answer_place):
    answer = scope.slots[answer_place - 1]
    sender = "server" if slot.direction == "from_server" else "client"
    words = (
        f"the {sender} reused the id {show_id(slot.member['id'])} ({_method(slot.member)}), already "
        f"answered on line {reading.line(answer.index)}"
    )
    return reading._problem(
        slot.index,
        "id_reused",
        f"{words}: an id is not used twice by the same requestor in a session",
        id=slot.member["id"],
        revision=slot.revision,
    )


def _answer_rules(reading, known, scope_key, request, slot):
    """The rules on the server's answer ``slot`` to the client's ``request``."""
    method = request.member.get("method")
    member = slot.member
    found = []
    params = request.member.get("params") if isinstance(request.member.get("params"), dict) else {}
    if "result" in member:
        result = member["result"]
        name = params.get("name")
        if (
            method == "tools/call"
            and isinstance(name, str)
            and known.tools_complete
            and name not in known.tools
            and isinstance(result, dict)
            and result.get("isError") is True
        ):
            found.append(
                reading._problem(
                    slot.index,
                    "unknown_tool",
                    f"the client called the tool "
                    f"{_short(name, 60)!r}, which the server's tools/list never named, "
                    "and the server answered with the tool's own failure (isError): an "
                    "unknown tool is a protocol error, a JSON-RPC error (-32602 in the "
                    "page's example)",
                    id=member.get("id"),
                    revision=slot.revision,
                )
            )
        if method == "initialize":
            found += _version(reading, request, slot)
        words = shape_problem(method, result, slot.revision)
        if words is not None:
            found.append(
                reading._problem(
                    slot.index,
                    "result_shape",
                    f"the server's answer to {method}: {words} "
                    f"(schema/{slot.revision}/schema.json)",
                    id=member.get("id"),
                    revision=slot.revision,
                )
            )
        return found
    error = member.get("error") if isinstance(member.get("error"), dict) else {}
    code = error.get("code")
    if code == -32601 and method in SERVES:
        capabilities = known.of(scope_key, "server") or {}
        has = method in known.answered or _has(capabilities, (SERVES[method],))
        if has:
            why = (
                "answered it with a result elsewhere in the recording"
                if method in known.answered
                else f"announced the {SERVES[method]} capability"
            )
            found.append(
                reading._problem(
                    slot.index,
                    "reserved_code",
                    f"the server answered {method} with "
                    f'-32601, "method not found", though it {why}: -32601 says the '
                    f"method does not exist (an unknown name, or arguments it refuses, "
                    f"are invalid params, -32602, in {_page_of(method)}; an error passed "
                    "on from elsewhere, such as a client's refusal, keeps a code that "
                    "means something else here)",
                    id=member.get("id"),
                    rule="reserved_code.-32601",
                    revision=slot.revision,
                )
            )
    elif code == -32700:
        found.append(
            reading._problem(
                slot.index,
                "reserved_code",
                'the server answered with -32700, "parse '
                f'error", a request it could read ({_method(request.member)}, line '
                f"{reading.line(request.index)}): -32700 is for a message that is no JSON",
                id=member.get("id"),
                rule="reserved_code.-32700",
                revision=slot.revision,
            )
        )
    return found


def _version(reading, request, slot):
    """An ``initialize`` answered with a ``protocolVersion`` no revision of MCP has: one before the
    first (2024-11-05), between the known ones, or no date at all. One later than the latest
    the course knows may be a newer revision, and is no finding."""
    answered = _protocol_version(slot.member, "result")
    if answered is None or answered in REVISIONS:
        return []
    dated = (
        len(answered) == 10
        and answered[4] == answered[7] == "-"
        and answered.replace("-", "").isdigit()
    )
    if dated and answered > REVISIONS[-1]:
        return []
    asked = _protocol_version(request.member, "params")
    offered = (
        f"the client offered {_short(asked, 40)}"
        if asked is not None
        else "the client offered no protocolVersion"
    )
    return [
        reading._problem(
            slot.index,
            "version",
            f"the server answered initialize with protocolVersion "
            f"{_short(answered, 40)!r}, a version no revision of MCP has (they are "
            f"{', '.join(REVISIONS)}); {offered}: a server that does not support the version "
            "asked answers with another one it supports",
            id=slot.member.get("id"),
            revision=None,
        )
    ]


def _page_of(method):
    return {
        "tools": "server/tools.mdx",
        "prompts": "server/prompts.mdx",
        "resources": "server/resources.mdx",
        "logging": "server/utilities/logging.mdx",
        "completions": "server/utilities/completion.mdx",
    }[SERVES[method]]


def http_rules(reading, revision_of):
    """The rules on HTTP exchanges (sessions, ``Origin``): a list of problems.
    ``revision_of(session)`` is the revision a session agreed (None where unknown)."""
    conversation = reading.conversation
    asked, answered = {}, {}  # exchange -> index of its request, of its answer (the first)
    handed, ended = set(), {}  # sessions handed out; ended ones -> the index where they ended
    found = []
    own = _own_hosts(conversation)
    for index in in_time_order(conversation):
        entry = conversation[index]
        http = _http_of(entry)
        exchange = http.get("exchange") if http is not None else None
        if type(exchange) is not int:
            continue
        if entry.get("direction") == "to_server" or entry.get("event") == "http_request":
            asked.setdefault(exchange, index)
            continue
        if (
            not (entry.get("direction") == "from_server" or entry.get("event") == "http_response")
            or exchange in answered
            or exchange not in asked
        ):
            continue
        answered[exchange] = index
        status = http.get("status")
        request = _http_of(conversation[asked[exchange]])
        headers = request.get("headers") if isinstance(request.get("headers"), dict) else {}
        session = headers.get("mcp-session-id")
        given = _session_of(entry)
        if type(status) is not int:
            continue
        if isinstance(session, str) and session in ended:
            found += _session(reading, index, session, status, ended[session], revision_of(session))
        elif isinstance(session, str) and session not in handed | {given}:
            found += _session(reading, index, session, status, None, revision_of(session))
        if given is not None and status < 300:
            handed.add(given)
        if (
            isinstance(session, str)
            and session not in ended
            and (status == 404 or (request.get("method") == "DELETE" and status < 300))
        ):
            ended[session] = index
        found += _origin(reading, index, headers, status, revision_of(session), own)
    return found


def _session(reading, index, session, status, ended_at, revision):
    if isinstance(revision, str) and revision >= "2026":
        return []  # no sessions in a stateless revision
    if ended_at is None:
        if status < 300 or status == 404:
            return []  # a server without sessions may ignore the header
        return [
            reading._problem(
                index,
                "session_status",
                f"a request on the session {_short(session, 40)!r}, "
                f"which the server never handed out, got HTTP {status}: such a session does "
                "not exist, as one that ended, which gets 404 Not Found",
                rule="session_status.unknown",
                revision=revision,
            )
        ]
    if status == 404:
        return []
    return [
        reading._problem(
            index,
            "session_status",
            f"a request on the session {_short(session, 40)!r}, which "
            f"ended on line {reading.line(ended_at)}, got HTTP {status}: once a session has "
            "ended the server answers its requests with 404 Not Found",
            revision=revision,
        )
    ]


def _own_hosts(conversation):
    """The names the server answers to: the hosts of the HTTP tap's ``start`` event (where it
    listens, where the server is), all loopback names for one on the loopback."""
    own = set()
    for entry in conversation:
        if entry.get("event") == "start":
            for where in (entry.get("listen"), entry.get("to")):
                try:
                    host = urlsplit(where).hostname if isinstance(where, str) else None
                except ValueError:
                    host = None
                if host:
                    own |= _LOOPBACK if host in _LOOPBACK else {host}
            break
    return own


def _origin(reading, index, headers, status, revision, own):
    """An ``Origin`` of another site accepted: one whose host is none of the server's own names
    (:func:`_own_hosts`; without them, the request's ``Host``). A rebinding page sends its own
    name in both ``Host`` and ``Origin``, so the two agreeing proves nothing."""
    origin, host = headers.get("origin"), headers.get("host")
    if not isinstance(origin, str) or origin == "null" or status >= 400:
        return []
    try:
        theirs = urlsplit(origin).hostname
        ours = urlsplit(f"//{host}").hostname if isinstance(host, str) else None
    except ValueError:
        theirs, ours = origin, host
    names = own or ({ours} | (_LOOPBACK if ours in _LOOPBACK else set()))
    if theirs is None or theirs in names:
        return []
    return [
        reading._problem(
            index,
            "origin",
            f"the server accepted a request with Origin "
            f"{_short(origin, 60)!r} (HTTP {status}), a site other than its own "
            f"({_short(', '.join(sorted(n for n in names if n)) or str(host), 60)}): servers "
            "validate Origin and answer an invalid one with 403 Forbidden, against DNS "
            "rebinding",
            revision=revision,
        )
    ]
