"""The audit of a recorded conversation: every request answered once, nothing else
answered, no pollution, the revision each side spoke (:func:`audit`), and the time
to each answer.
"""

import base64
import collections
import json

from ..classification import REVISIONS, classify, explain, parse
from ..recording import time_order as in_time_order
from ._settings import DIRECTIONS, SENDER
from .judge import _short


def id_key(value):
    """An id as a key that keeps ``1``, ``"1"`` and ``True`` apart; None when it is no id
    (JSON-RPC ids are strings or integers, and a bool is not an integer)."""
    if isinstance(value, str):
        return ("string", value)
    if isinstance(value, int) and not isinstance(value, bool):
        return ("integer", value)
    return None


def show_id(value):
    """An id as JSON shows it: ``1``, ``"1"``, ``null``."""
    try:
        return _short(json.dumps(value, ensure_ascii=False), 60)
    except (TypeError, ValueError):
        return _short(repr(value), 60)


def message_of(entry):
    """``(value, reason)`` for a recorded line: its parsed JSON value, or why it is none."""
    if entry.get("truncated"):
        size = entry.get("size")
        long = f"{size:,} bytes long" if type(size) is int else "longer than the tap keeps"
        return None, f"it is {long}, more than the tap kept, so it was not judged"
    if "bytes" in entry:
        try:
            return parse(base64.b64decode(entry["bytes"], validate=True))
        except (ValueError, TypeError):
            return None, "its recorded bytes are not Base64"
    text = entry.get("text")
    if not isinstance(text, str):
        return None, "the recording holds no text for it"
    return parse(text)


def _protocol_version(value, where):
    """The revision a message names: an initialize request's (``"params"``), its answer's
    (``"result"``), or a request's ``params._meta`` (``"_meta"``); None when it names none."""
    try:
        if where == "params":
            found = value["params"]["protocolVersion"]
        elif where == "result":
            found = value["result"]["protocolVersion"]
        else:
            found = value["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"]
    except (KeyError, TypeError, IndexError):
        return None
    return found if isinstance(found, str) else None


#: The code 2025-11-25 names for a request's usual failure, where it names one: the page that
#: says so and the case. A server that answers such a request with a code outside JSON-RPC's
#: reserved range (-32768 to -32000; the SDK's catch-all gave 0) gets a warning.
NAMED_CODES = {
    "tools/call": (-32602, "server/tools.mdx", "an unknown tool"),
    "prompts/get": (-32602, "server/prompts.mdx", "an invalid prompt name"),
    "resources/read": (-32002, "server/resources.mdx", "a resource not found"),
    "logging/setLevel": (-32602, "server/utilities/logging.mdx", "an invalid log level"),
}
#: The problems that are warnings: allowed by the letter of the spec, against its advice.
WARNINGS = ("version_header", "error_code")

#: The errors by which a server says it does not speak the revision of a request with
#: ``_meta``: the method is unknown to it (-32601), the request is not one it takes
#: (-32600), or the version is unsupported (-32022, 2026-07-28's transport).
PROBE_REFUSALS = (-32601, -32600, -32022)


def agreed_revision(conversation):
    """``(revision, words)``: the revision the two sides agreed on, and how it was agreed.

    The server's answer to ``initialize`` names it (``result.protocolVersion``);
    without a handshake (2026-07-28), a request's ``params._meta`` does
    (``io.modelcontextprotocol/protocolVersion``), once the server has answered
    it with a result, an error of the method's own, or not at all. A *probe* that
    the server refused (one of :data:`PROBE_REFUSALS`: the SDK's ``mcp.Client``
    first sends ``server/discover`` at 2026-07-28, and a server of the handshake
    era answers -32601) agrees on nothing: the handshake that follows decides. ``revision`` is None when nothing says, or when the course
    does not know the revision said (the words say which).
    """
    asked = initialize_id = None
    probe = refused = None  # (revision, id, method) of a request with _meta; the refused one's words
    for entry in conversation:
        if entry.get("direction") not in DIRECTIONS:
            continue
        value, reason = message_of(entry)
        if reason or not isinstance(value, dict):
            continue
        key = id_key(value.get("id"))
        if entry["direction"] == "to_server" and value.get("method") == "initialize":
            if initialize_id is None:
                initialize_id = key
                asked = _protocol_version(value, "params")
        elif (entry["direction"] == "from_server" and initialize_id is not None
              and "method" not in value and key == initialize_id):
            answered = _protocol_version(value, "result")
            if answered is None:
                return None, ("the server did not answer initialize with a protocolVersion; "
                              "judged by the course's rules")
            how = (f"the client asked for {answered} in initialize and the server agreed"
                   if asked == answered else
                   f"the client asked for {asked} in initialize and the server answered {answered}")
            return _known(answered, (refused + "; then " + how) if refused else how)
        elif entry["direction"] == "to_server" and initialize_id is None and probe is None:
            meta = _protocol_version(value, "_meta")
            if meta is not None and key is not None:
                probe = (meta, key, _method(value))
        elif (entry["direction"] == "from_server" and probe is not None and initialize_id is None
              and "method" not in value and key == probe[1]):
            revision, _, method = probe
            error = value.get("error") if isinstance(value.get("error"), dict) else {}
            if error.get("code") not in PROBE_REFUSALS:  # a result, or an error of the method's own
                return _known(revision, f"the client's requests carry {revision} in params._meta "
                                        "(no handshake)")
            refused = (f"the client tried {revision} ({method}) and the server refused it "
                       f"(error {show_id(error.get('code'))})")
            probe = None
    if initialize_id is not None:
        return None, "initialize was never answered; judged by the course's rules"
    if probe is not None:
        return _known(probe[0], f"the client's requests carry {probe[0]} in params._meta (no handshake)")
    if refused:
        return None, f"{refused}, and no handshake followed; judged by the course's rules"
    return None, "no initialize and no params._meta name a revision; judged by the course's rules"


def revisions_by_scope(conversation):
    """``{scope: (revision, words)}``: the revision each HTTP scope settled for itself.

    Over HTTP a recording holds many conversations (:func:`scope_of`), and
    each agrees on its own revision: a session (2025-11-25) on the one its
    ``initialize`` answer named (the answer whose ``Mcp-Session-Id`` header
    gave the session its id); an exchange outside any session (a stateless
    request of 2026-07-28, an ``initialize``) on what its own messages say
    (:func:`agreed_revision`). A scope that settles nothing is left out (the
    recording's :func:`agreed_revision` judges it), and so is everything over
    stdio, which is one conversation.
    """
    exchanges, by_scope = {}, {}
    for index in in_time_order(conversation):
        scope = scope_of(conversation[index], exchanges)
        if scope is not None:
            by_scope.setdefault(scope, []).append(conversation[index])
    found = {}
    for scope, entries in by_scope.items():
        if scope[0] != "exchange":
            continue
        revision, how = agreed_revision(entries)
        if revision is None:
            continue
        found[scope] = (revision, how)
        for entry in entries:  # an initialize answer that opens a session settles that session
            http = _http_of(entry)
            session = _session_header(http) if http is not None else None
            if entry.get("direction") == "from_server" and session:
                found.setdefault(("session", session), (revision, f"{how} (session {_short(session, 40)})"))
    return found


def _known(revision, how):
    if revision in REVISIONS:
        return revision, how
    return None, f"{how}; the course does not know {revision}, so judged by the course's rules"


def _http_of(entry):
    """The HTTP members of an entry: its ``http`` (a message), or the entry itself (an event)."""
    if isinstance(entry.get("http"), dict):
        return entry["http"]
    return entry if entry.get("event") in ("http_request", "http_response") else None


def _session_header(http):
    headers = http.get("headers") if isinstance(http.get("headers"), dict) else {}
    session = headers.get("mcp-session-id")
    return session if isinstance(session, str) else None


def scope_of(entry, exchanges):
    """Where an entry's ids count: ``None`` over stdio (one conversation), else an HTTP session.

    Over HTTP, ids are the client's per session (2025-11-25: the ``Mcp-Session-Id``
    its requests carry) or, without a session (``initialize``; 2026-07-28's
    stateless requests), per HTTP exchange. An answer counts where the request of
    its exchange (the tap numbers them, ``"exchange"``) counts. ``exchanges`` maps
    each exchange seen to its scope. A recording without exchange numbers is
    one scope, as before the tap numbered them.
    """
    http = _http_of(entry)
    exchange = http.get("exchange") if http is not None else None
    if type(exchange) is not int:
        return None
    if entry.get("direction") == "to_server" or entry.get("event") == "http_request":
        session = _session_header(http)
        exchanges[exchange] = ("session", session) if session else ("exchange", exchange)
        return exchanges[exchange]
    return exchanges.get(exchange)


def refused(entry):
    """True for an answer over HTTP with a status of 400 or more: it settles its request."""
    http = _http_of(entry)
    status = http.get("status") if http is not None else None
    return type(status) is int and status >= 400


def line_of(conversation, index, first_line=1):
    """Where the entry at ``index`` is: its line in the file when it was read from one
    (:func:`read_recording` notes it as ``_line``), else its place counted from ``first_line``."""
    line = conversation[index].get("_line")
    return line if isinstance(line, int) else index + first_line


def _problem(conversation, index, first_line, problem, detail, **extra):
    entry = conversation[index] if index is not None else {}
    found = {"line": line_of(conversation, index, first_line) if index is not None else None,
             "problem": problem, "direction": entry.get("direction"), "detail": detail}
    found.update(extra)
    return found


def audit(conversation, revision="agreed", first_line=1):
    """The problems of a recorded conversation, in the order of their lines: a list of dicts.

    ``conversation`` is the recorded entries (dicts, as the tap writes them;
    entries without a ``direction`` are events, and only ``server_exited`` is
    read from them). Each problem has ``line`` (the entry's place, counted
    from ``first_line``), ``problem`` (a name, below), ``direction`` and
    ``detail`` (plain words), and where it applies ``id``. The rules are
    those of the module docstring; the names:

    ``pollution`` (the server's stdout carries a line that is no JSON),
    ``not_json`` (so does the client's), ``invalid`` (a message invalid under
    ``revision``: by default the one the sides agreed on, see
    :func:`agreed_revision`; None for the course's rules), ``id_reused``,
    ``answered_twice``, ``unknown_id`` (a response to an id never sent),
    ``answer_to_notification``, ``unmatched`` (a response without a usable
    id that answers nothing), ``unanswered``, ``no_newline``, ``revision``
    (a request whose ``_meta`` names another revision than the earlier ones),
    and two warnings, marked ``"severity": "warning"`` (:data:`WARNINGS`):
    ``version_header`` (over HTTP, a request whose ``MCP-Protocol-Version``
    is not the revision agreed) and ``error_code`` (see :data:`NAMED_CODES`).

    Which request a response answers is decided by its id alone, as lesson
    06's ``is_reply_to`` decides it: a string or an integer, equal in type
    and value. A response with no usable id (null, missing, or no string or
    integer) can only be JSON-RPC's error for a message whose id could not be
    read, or a fault. It is matched with the other side's messages that no
    answer has shown to be dealt with yet (those after the latest request it
    answered): the first unreadable one, for an error with a null or missing
    id; else the first notification, and then it is an answer to that
    notification; else it answers nothing.
    """
    per_scope = {}
    if revision == "agreed":
        revision = agreed_revision(conversation)[0]
        per_scope = revisions_by_scope(conversation)
    problems = []
    sides = {direction: _Side() for direction in DIRECTIONS}
    ended = None

    def found(index, problem, detail, **extra):
        problems.append(_problem(conversation, index, first_line, problem, detail, **extra))

    exchanges = {}  # the HTTP exchange -> the scope its ids count in
    for index in in_time_order(conversation):
        entry = conversation[index]
        direction = entry.get("direction")
        scope = scope_of(entry, exchanges)
        if direction not in DIRECTIONS:
            if entry.get("event") == "server_exited":
                ended = entry
            elif entry.get("event") == "client_gone":
                # The client left during the answer (the suite reads one event of a stream,
                # then cancels it): what it asked there is no longer owed on that exchange,
                # and an answer that still comes (a resumed stream) is allowed, as after a cancel.
                _settle(sides["to_server"], entry.get("exchange"), index, abandoned=True)
            continue
        sender, mine = SENDER[direction], sides[direction]
        mine.order += 1
        value, reason = message_of(entry)
        if direction == "from_server" and refused(entry) and (reason is not None or not _answers_an_id(value)):
            # A refusal over HTTP (403 for an Origin, 421 for a Host, 404 for a session...):
            # its body may be plain text, or an error without an id; it answers its exchange.
            _settle(sides["to_server"], _http_of(entry).get("exchange"), index)
            continue
        if entry.get("newline") is False:
            found(index, "no_newline", f"the {sender}'s last line has no newline at its end: "
                                       "a reader of lines never sees it as a message")
        if reason is not None:
            why = f" ({reason})" if "bytes" in entry or entry.get("truncated") else ""
            said = entry.get("http") if isinstance(entry.get("http"), dict) else None
            if direction == "from_server" and said is not None:
                found(index, "pollution", f"the server answered with {_quoted(entry)} (HTTP "
                      f"{said.get('status', '?')}), which is not JSON{why}: an MCP client "
                      "cannot read it as a message")
            elif direction == "from_server":
                found(index, "pollution", f"the server wrote {_quoted(entry)} on stdout, which "
                      f"is not JSON{why}: stdout is for JSON-RPC messages only, logs belong on "
                      "stderr")
            else:
                found(index, "not_json", f"the client sent {_quoted(entry)}, which is not JSON"
                                         f"{why}")
            mine.wait(index, "unreadable")
            continue
        judged = per_scope[scope][0] if scope in per_scope else revision
        verdict = classify(value, judged)
        batch = verdict[0] == "batch"
        if direction == "to_server" and not batch:
            _check_version_header(entry, value, judged, index, found)
        if verdict[0] == "invalid":
            found(index, "invalid", f"the {sender} sent an invalid message{_under(judged)}: "
                  f"{_first_sentence(explain(value, judged))}")
        for member in value if batch else [value]:
            if batch and classify(member, judged)[0] == "invalid":
                found(index, "invalid", f"a member of the {sender}'s batch is invalid"
                      f"{_under(judged)}: {_first_sentence(explain(member, judged))}")
            _follow(member, index, direction, sides, conversation, first_line, found, scope)
    for direction in DIRECTIONS:
        for request in sides[direction].in_flight.values():
            answerer = SENDER[_other(direction)]
            why = ""
            if ended is not None and direction == "to_server":
                why = (f" (the server exited with status {ended.get('status')} at "
                       f"{_seconds(ended.get('t'))})")
            found(request["index"], "unanswered", f"the {SENDER[direction]}'s request "
                  f"{show_id(request['id'])} ({request['method']}) was never answered by the "
                  f"{answerer}{why}", id=request["id"])
    problems.sort(key=lambda problem: (problem["line"] is None, problem["line"] or 0))
    return problems


def _other(direction):
    return "from_server" if direction == "to_server" else "to_server"


def _seconds(t):
    return f"{t:.3f} s" if isinstance(t, (int, float)) else "the end"


def _check_version_header(entry, value, revision, index, found):
    """2025-11-25 basic/transports.mdx: after the handshake a client MUST send
    ``MCP-Protocol-Version`` on every request over HTTP, and SHOULD send the negotiated one."""
    http = entry.get("http") if isinstance(entry.get("http"), dict) else None
    headers = http.get("headers") if http is not None and isinstance(http.get("headers"), dict) else None
    if (headers is None or not isinstance(revision, str) or not "2025-06-18" <= revision < "2026-07-28"
            or not isinstance(value, dict) or value.get("method") == "initialize"):
        return
    sent = headers.get("mcp-protocol-version")
    if sent == revision:
        return
    said = f"{_short(json.dumps(sent), 40)}" if sent is not None else "no MCP-Protocol-Version header"
    found(index, "version_header", f"the client sent {said if sent is None else 'MCP-Protocol-Version ' + said} "
          f"in a session that agreed on {revision}: after the handshake each request carries the "
          "negotiated revision (2025-11-25 basic/transports.mdx)", severity="warning")


def _check_error_code(member, request, index, found):
    """A warning for an error code outside JSON-RPC's reserved range, where the spec names one."""
    named = NAMED_CODES.get(request.get("method"))
    error = member.get("error")
    code = error.get("code") if isinstance(error, dict) else None
    if named is None or (type(code) is int and -32768 <= code <= -32000):
        return
    expected, page, case = named
    found(index, "error_code", f"the server answered {request['method']} with error code "
          f"{show_id(code)}, which no spec defines; for {case} 2025-11-25's {page} names {expected}",
          id=member.get("id"), severity="warning")


def _answers_an_id(value):
    """True for a response (or a batch of them) that names an id, which the audit can match."""
    members = value if isinstance(value, list) else [value]
    return any(isinstance(member, dict) and id_key(member.get("id")) is not None for member in members)


def _settle(requester, exchange, index, abandoned=False):
    """The requests ``requester`` sent in HTTP exchange ``exchange`` are answered (at ``index``),
    or, ``abandoned``, no longer owed (as a cancelled request is not)."""
    if type(exchange) is not int:
        return
    for key in requester.by_exchange.pop(exchange, ()):
        request = requester.in_flight.get(key)
        if request is None or request.get("exchange") != exchange:
            continue
        del requester.in_flight[key]
        if abandoned:
            requester.cancelled.add(key)
        else:
            requester.answered[key] = {**request, "answer": index}


class _Side:
    """What the audit keeps of one side (the client or the server) while it reads.

    Every step costs the same however long the conversation is (the report runs
    in time linear in the entries): the messages waiting for an answer without
    an id are two queues in the order they were read, and an answer to a
    request marks everything up to that request as dealt with (``dealt``)
    instead of searching the queues.
    """

    def __init__(self):
        self.in_flight = {}  # (scope, id) -> the request, oldest first
        self.answered = {}  # (scope, id) -> the request, with the place of its answer
        self.cancelled = set()
        self.by_exchange = {}  # HTTP exchange -> the keys of the requests sent in it
        self.said_revision = None
        self.order = 0  # this side's messages read so far
        self.dealt = 0  # its messages up to this one have been dealt with by an answer
        self.queues = {"unreadable": collections.deque(), "notification": collections.deque()}

    def wait(self, index, kind):
        """A message of this side that an id-less answer may be meant for."""
        self.queues[kind].append((self.order, index))

    def first(self, kind):
        """The place of the oldest message of ``kind`` not yet dealt with, taken off its
        queue; None when there is none."""
        queue = self.queues[kind]
        while queue and queue[0][0] <= self.dealt:
            queue.popleft()
        return queue.popleft()[1] if queue else None


def _follow(member, index, direction, sides, conversation, first_line, found, scope=None):
    """One message of the conversation: a request, a notification, a response or neither."""
    sender, mine = SENDER[direction], sides[direction]
    if not isinstance(member, dict):
        mine.wait(index, "unreadable")
        return
    plain = id_key(member.get("id"))
    key = None if plain is None else (scope, plain)
    if "method" not in member and ("result" in member or "error" in member):
        _answer(member, key, index, direction, sides, conversation, first_line, found)
    elif key is not None:  # a request (valid or not, its id can be read): owed one answer
        first = mine.in_flight.get(key)
        if first is not None:
            found(index, "id_reused", f"the {sender} reused the id {show_id(member['id'])} "
                  f"while its request on line {first['line']} ({first['method']}) is still "
                  "unanswered", id=member["id"])
            return
        http = _http_of(conversation[index])
        exchange = http.get("exchange") if http is not None else None
        mine.in_flight[key] = {"line": line_of(conversation, index, first_line), "index": index,
                               "method": _method(member), "id": member["id"],
                               "exchange": exchange, "order": mine.order}
        if type(exchange) is int:
            mine.by_exchange.setdefault(exchange, []).append(key)
        said = _protocol_version(member, "_meta")
        if said is not None:
            if mine.said_revision is None:
                mine.said_revision = said
            elif said != mine.said_revision:
                found(index, "revision", f"this request's params._meta names revision {said}, "
                      f"the {sender}'s earlier ones {mine.said_revision}")
    elif isinstance(member.get("method"), str) and "id" not in member:
        mine.wait(index, "notification")
        if member["method"] == "notifications/cancelled":
            params = member.get("params")
            cancelled = id_key(params.get("requestId")) if isinstance(params, dict) else None
            if cancelled is not None and mine.in_flight.pop((scope, cancelled), None) is not None:
                mine.cancelled.add((scope, cancelled))
    else:  # a method with an id that is no id, or no method and no result or error
        mine.wait(index, "unreadable")


def _answer(member, key, index, direction, sides, conversation, first_line, found):
    """A response from ``direction``'s sender: match it with the other side's messages."""
    sender, other = SENDER[direction], _other(direction)
    theirs = sides[other]
    if key is not None:
        request = theirs.in_flight.pop(key, None)
        if request is not None:
            theirs.answered[key] = {**request, "answer": index}
            if direction == "from_server" and "error" in member:
                _check_error_code(member, request, index, found)
            # the other side's messages up to this request have been dealt with
            theirs.dealt = max(theirs.dealt, request["order"])
        elif key in theirs.answered:
            first = theirs.answered[key]
            found(index, "answered_twice", f"a second answer to the {SENDER[other]}'s request "
                  f"{show_id(member['id'])} ({first['method']}, line {first['line']}), first "
                  f"answered on line {line_of(conversation, first['answer'], first_line)}",
                  id=member["id"])
        elif key not in theirs.cancelled:  # a late answer to a cancelled request is allowed
            found(index, "unknown_id", f"a response to the id {show_id(member['id'])}, which "
                  f"the {SENDER[other]} never sent", id=member["id"])
        return
    if "error" in member and member.get("id") is None and theirs.first("unreadable") is not None:
        return  # the error JSON-RPC prescribes for an unreadable message
    at = theirs.first("notification")
    if at is not None:
        notice, _ = message_of(conversation[at])
        found(index, "answer_to_notification", f"the {sender} answered the notification "
              f"{_method(notice)} (line {line_of(conversation, at, first_line)}): a "
              "notification gets no answer, not even an error", id=member.get("id"))
        return
    has = "no id" if "id" not in member else f"the id {show_id(member.get('id'))}"
    hint = ""
    if theirs.in_flight:  # the oldest still unanswered (the dict keeps the order they came)
        oldest = next(iter(theirs.in_flight.values()))
        hint = (f"; was it meant for request {show_id(oldest['id'])} ({oldest['method']}, "
                f"line {oldest['line']}), which is still unanswered?")
    found(index, "unmatched", f"a response with {has} answers none of the "
          f"{SENDER[other]}'s messages{hint}", id=member.get("id"))


def _method(value):
    method = value.get("method") if isinstance(value, dict) else None
    return _short(method, 60) if isinstance(method, str) else "no method"


def _quoted(entry):
    text = entry.get("text")
    return _short(json.dumps(text if isinstance(text, str) else "", ensure_ascii=False), 80)


def _under(revision):
    return f" under revision {revision}" if revision else ""


def _first_sentence(text):
    first = str(text).strip().splitlines()[0] if str(text).strip() else ""
    return _short(first, 300)


def answer_times(conversation, revision="agreed"):
    """Each request of the conversation, in order, with how long its answer took: a list of
    dicts with ``line``, ``direction`` (the requester's), ``id``, ``method``, ``answer_line``
    and ``seconds`` (both None when it was never answered). The first answer with the same
    id from the other side counts. A batch's members count as requests only where
    ``revision`` (as for :func:`audit`) allows batches (2025-03-26)."""
    per_scope = {}
    if revision == "agreed":
        revision = agreed_revision(conversation)[0]
        per_scope = revisions_by_scope(conversation)
    times, waiting = [], {"to_server": {}, "from_server": {}}
    exchanges, by_exchange = {}, {}  # by_exchange: HTTP exchange -> the keys of its requests
    for index in in_time_order(conversation):
        entry = conversation[index]
        direction = entry.get("direction")
        scope = scope_of(entry, exchanges)  # ids count per HTTP session, as in the audit
        if direction not in DIRECTIONS:
            continue
        value, reason = message_of(entry)
        if direction == "from_server" and refused(entry) and (reason is not None or not _answers_an_id(value)):
            for key in by_exchange.pop(_http_of(entry).get("exchange"), ()):
                row = waiting["to_server"].get(key)
                if row is not None and row["_exchange"] == _http_of(entry).get("exchange"):
                    _answered(waiting["to_server"].pop(key), entry, conversation, index)
            continue
        if reason is not None:
            continue
        if isinstance(value, list) and classify(value, per_scope.get(scope, (revision,))[0])[0] != "batch":
            continue  # an invalid batch: no member of it is a request
        for member in value if isinstance(value, list) else [value]:
            if not isinstance(member, dict):
                continue
            key = id_key(member.get("id"))
            if key is None:
                continue
            key = (scope, key)
            if "method" in member or ("result" not in member and "error" not in member):
                if key not in waiting[direction]:
                    http = _http_of(entry)
                    row = {"line": line_of(conversation, index), "direction": direction,
                           "id": member["id"],
                           "method": _method(member), "answer_line": None, "seconds": None,
                           "_t": entry.get("t"), "_exchange": http.get("exchange") if http else None}
                    waiting[direction][key] = row
                    times.append(row)
                    if direction == "to_server" and type(row["_exchange"]) is int:
                        by_exchange.setdefault(row["_exchange"], []).append(key)
            else:
                other = "from_server" if direction == "to_server" else "to_server"
                row = waiting[other].pop(key, None)
                if row is not None:
                    _answered(row, entry, conversation, index)
    for row in times:
        del row["_t"], row["_exchange"]
    return sorted(times, key=lambda row: row["line"])


def _answered(row, entry, conversation, index):
    row["answer_line"] = line_of(conversation, index)
    if _is_number(row["_t"]) and _is_number(entry.get("t")):
        row["seconds"] = max(0.0, entry["t"] - row["_t"])


def _is_number(value):
    """A finite time of a recording (a forged one, NaN or 1e400, is no time)."""
    import math

    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
