"""The audit of a recorded conversation: every request answered once, nothing else
answered, no pollution, the revision each side spoke (:func:`audit`). What an entry is lives
in :mod:`.entries`, the revision agreed in :mod:`.revision`, the answer times in :mod:`.times`.
"""

import collections
import json

from ..classification import classify, explain
from ..recording import time_order as in_time_order
from ._settings import DIRECTIONS, SENDER
from .entries import (_answers_an_id, _http_of, _is_number, _method, _protocol_version, _quoted, id_key,  # noqa: F401
                      line_of, message_of, refused, scope_of, show_id)
from .judge import _short
from .revision import PROBE_REFUSALS, agreed_revision, revisions_by_scope  # noqa: F401
from .times import answer_times  # noqa: F401


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


def _under(revision):
    return f" under revision {revision}" if revision else ""


def _first_sentence(text):
    first = str(text).strip().splitlines()[0] if str(text).strip() else ""
    return _short(first, 300)
