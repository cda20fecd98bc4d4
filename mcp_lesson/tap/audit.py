"""The tap's audit of a recording (:func:`audit`): lesson 10's own audit
(``mcp_lesson.core.traffic.audit``, the one that pairs requests and answers), run on
each scope of the recording, and what the tap adds around it.

What the tap adds, and nothing else:

* **what a message is** under the revision the sides agreed on (:mod:`.revision`),
  not the course's revision-free rules: it classifies each message and hands lesson
  10's audit a stand-in of the same kind and id (:func:`.slots.stand_in`), so a batch where
  batches are allowed is its members, and an error without an id (allowed since
  2025-11-25) is an error with a null id;
* **where ids count**: one audit per scope, a stdio conversation or an HTTP session
  (:func:`.entries.scope_of`), in the order things happened;
* **HTTP**: a refusal (a status of 400 or more without a usable id) is the answer of
  the requests of its exchange, whatever its body; a client that left during an
  answer is owed nothing there, as a cancelled request is owed nothing;
* its own rules: ``no_newline``, ``revision``, ``version_header``, ``batch_answered``
  and ``broken_off``; each finding's keyword, severity and sentence come from :mod:`.citations`;
* the words: each problem with its line, its direction, its id and a sentence.

What an entry is lives in :mod:`.entries`, the revision agreed in :mod:`.revision`,
the answer times in :mod:`.times`.
"""

import bisect

from mcp_lesson.core.traffic import audit as lesson_audit
from mcp_lesson.rules.classification import classify
from mcp_lesson.rules.explanation import explain
from mcp_lesson.shared.recording import time_order as in_time_order
from mcp_lesson.tap._settings import DIRECTIONS, SENDER
from mcp_lesson.tap.citations import settle
from mcp_lesson.tap.entries import (
    _answers_an_id,
    _http_of,
    _is_number,  # noqa: F401  (report.py takes it from here)
    _method,
    _quoted,
    ended_words,
    id_key,
    line_of,
    message_of,
    refused,
    scope_of,
    show_id,
    unjudged,
)
from mcp_lesson.tap.error_codes import error_code_rules
from mcp_lesson.tap.judge import _short
from mcp_lesson.tap.revision import PROBE_REFUSALS, agreed_revision, revisions_by_scope  # noqa: F401  (re-exported)
from mcp_lesson.tap.rules import _latest_before, http_rules, message_rules
from mcp_lesson.tap.slots import Scope, Slot
from mcp_lesson.tap.tap_errors import tap_error_findings
from mcp_lesson.tap.times import answer_times  # noqa: F401  (re-exported)
from mcp_lesson.tap.version_checks import _check_meta_revision, _check_version_header

#: A line lesson 10's audit reads as no JSON (its verdict: -32700).


def audit(conversation, revision="agreed", first_line=1):
    """The problems of a recorded conversation, in the order of their lines: a list of dicts.

    ``conversation`` is the recorded entries (dicts, as the tap writes them;
    entries without a ``direction`` are events, and only ``server_exited``,
    ``stopping``, ``signal`` and ``client_gone`` are read from them). Each problem has ``line`` (the entry's
    place, counted from ``first_line``), ``problem`` (a name, below),
    ``direction`` and ``detail`` (plain words), and where it applies ``id``.

    Lesson 10's names: ``pollution`` (the server's stdout carries a line that is
    no JSON), ``invalid`` (a message invalid under ``revision``: by default the
    one the sides agreed on, see :func:`agreed_revision`; None for the course's
    rules), ``id_reused``, ``answered_twice``, ``unknown_id`` (a response to an
    id never sent), ``answer_to_notification`` and ``unanswered``, found by
    lesson 10's audit itself. The tap tells two of them apart in words:
    ``not_json`` is lesson 10's ``invalid`` for a client's line that is no
    JSON, and ``unmatched`` its ``unknown_id`` for a response without a usable
    id (null or missing), which answers nothing.

    The tap's own: ``no_newline``, ``revision`` (a request whose ``_meta`` names
    another revision than the same side's earlier ones), ``version_header``
    (over HTTP, after the handshake, a request without ``MCP-Protocol-Version``,
    or with another revision than the one agreed), ``batch_answered`` (an answer
    to a member of a batch the revision does not allow) and ``broken_off`` (an
    HTTP answer that broke off before the response to a request of its
    exchange); the MCP rules of :mod:`.rules`. A message passed on but not
    judged is a note (``not_judged``), and so is a request the HTTP tap could
    not pass on (``not_delivered``). A request cancelled
    (``notifications/cancelled``), or left by a client that went during its
    answer, is not ``unanswered``, and its error gets no ``error_code``.

    Each finding has ``severity`` (``"problem"``, ``"warning"`` or ``"note"``),
    ``keyword`` (the specification's, see :mod:`.citations`) and ``cites`` (the
    page of the revision in use), and its ``detail`` ends with the sentence it
    rests on, quoted.
    """
    per_scope = {}
    if revision == "agreed":
        revision = agreed_revision(conversation)[0]
        per_scope = revisions_by_scope(conversation)
    reading = _Reading(conversation, first_line)
    reading.revision = revision
    reading.revision_of = lambda session: per_scope.get(("session", session), (revision,))[0]
    exchanges = {}  # the HTTP exchange -> the scope its ids count in
    said_revision = {}  # each side's first _meta revision
    for index in in_time_order(conversation):
        entry = conversation[index]
        direction = entry.get("direction")
        scope = scope_of(entry, exchanges)
        http = _http_of(entry)
        exchange = http.get("exchange") if http is not None else None
        if direction not in DIRECTIONS:
            if entry.get("event") == "server_exited":
                reading.ended = entry
            elif entry.get("event") in ("stopping", "signal"):
                reading.stops.append(entry)
            elif entry.get("event") == "client_closed" and reading.closed is None:
                reading.closed = index  # the client's input ended: it can answer nothing sent after
            elif entry.get("event") == "tap_error" and type(entry.get("exchange")) is int:
                reading.tap_errors.append(
                    index
                )  # an HTTP answer that broke off, or a server not reached
            elif entry.get("event") == "client_gone":
                # The client left during the answer (the suite reads one event of a stream,
                # then cancels it): what it asked there is no longer owed, and an answer that
                # still comes (a resumed stream) is allowed, as after a cancel.
                reading.forgive_exchange(entry.get("exchange"), index)
            continue
        value, reason = message_of(entry)
        why = unjudged(entry)
        if why is not None:  # passed on, never a problem: a note, and what it answers where known
            reading.found(index, "not_judged", f"{_what_was_cut(direction, value)} {why}")
            if value is None:
                if direction == "from_server":  # neither id nor method read: its exchange's answer
                    reading.refusal(index, exchange)
                continue
        if (
            direction == "from_server"
            and refused(entry)
            and (
                reason is not None
                or not _answers_an_id(value)
                or not reading.echoes(value, exchange)
            )
        ):
            # A refusal over HTTP (403 for an Origin, 421 for a Host, 404 for a session...):
            # its body may be plain text, or an error without an id, or with an id of its own
            # (the TypeScript SDK's "server-error"); it answers its exchange.
            reading.refusal(index, exchange)
            continue
        if entry.get("newline") is False:
            reading.found(
                index,
                "no_newline",
                f"the {SENDER[direction]}'s last line has no newline at "
                "its end: a reader of lines never sees it as a message",
            )
        if reason is not None:
            reading.add(scope, index, direction, exchange, None, reason=reason)
            continue
        if why is not None:  # what its ends tell, to pair it: no rule reads a cut copy
            reading.add(
                scope,
                index,
                direction,
                exchange,
                value,
                kind="request"
                if "id" in value and "method" in value
                else "notification"
                if "method" in value
                else "response",
                cut=True,
            )
            continue
        judged = per_scope[scope][0] if scope in per_scope else revision
        verdict = classify(value, judged)
        batch = verdict[0] == "batch"
        if isinstance(value, list) and not batch:  # a batch this revision does not allow
            reading.refused_batch(scope, direction, value, index)
        if direction == "to_server" and not batch:
            _check_version_header(entry, value, judged, index, reading.found)
        for member in value if batch else [value]:
            kind = classify(member, judged)[0] if batch else verdict[0]
            reading.add(
                scope, index, direction, exchange, member, kind=kind, revision=judged, batch=batch
            )
            _check_meta_revision(member, index, direction, said_revision, reading.found)
    return reading.problems()


def _first_after(places, place):
    at = bisect.bisect_right(places, place)
    return places[at] if at < len(places) else None


class _Reading:
    """The audit while it reads: the scopes, the tap's own problems and what is forgiven."""

    def __init__(self, conversation, first_line):
        self.conversation, self.first_line = conversation, first_line
        self.scopes = {}
        self.by_exchange = {}  # HTTP exchange -> (scope, slot) of the client's requests sent in it
        self.forgiven = {}  # (scope, direction, id key) -> the index from which it is forgiven
        self.own = []  # the tap's own problems
        self.ended = None
        self.stops = []  # the tap's "stopping" and "signal" events: who sent the server what
        self.batch_ids = {}  # (scope, direction, id key) -> the index of an invalid batch holding it
        self.revision_of = lambda session: None  # the revision an HTTP session agreed
        self.closed = None  # the index of the stdio client's client_closed event
        self.tap_errors = []  # the indexes of the HTTP tap's tap_error events of an exchange
        self.revision = (
            None  # the revision the recording agreed (a finding's, unless it says its own)
        )
        self.broken = set()  # the requests (their slots' id()) whose HTTP answer broke off

    def found(self, index, problem, detail, **extra):
        self.own.append(self._problem(index, problem, detail, **extra))

    def _problem(self, index, problem, detail, **extra):
        entry = self.conversation[index]
        found = {
            "line": line_of(self.conversation, index, self.first_line),
            "problem": problem,
            "direction": entry.get("direction"),
            "detail": detail,
        }
        found.update(extra)
        return found

    def line(self, index):
        return line_of(self.conversation, index, self.first_line)

    def add(
        self,
        scope,
        index,
        direction,
        exchange,
        member,
        kind="invalid",
        reason=None,
        revision=None,
        batch=False,
        cut=False,
    ):
        slot = Slot(index, direction, member, kind, reason, revision, batch, exchange, cut=cut)
        self.scopes.setdefault(scope, Scope()).add(slot)
        if direction == "to_server" and type(exchange) is int and slot.asks:
            self.by_exchange.setdefault(exchange, []).append((scope, slot))
        if kind == "notification" and not cut and member.get("method") == "notifications/cancelled":
            params = member.get("params")
            cancelled = id_key(params.get("requestId")) if isinstance(params, dict) else None
            if cancelled is not None:
                self.forgiven.setdefault((scope, direction, cancelled), index)

    def echoes(self, value, exchange):
        """True when a response (or a batch of them) names an id of a request of its exchange (or
        when the recording numbers no exchanges, and only its id can tell)."""
        if type(exchange) is not int:
            return True
        asked = {slot.key for _, slot in self.by_exchange.get(exchange, ())}
        members = value if isinstance(value, list) else [value]
        return any(
            isinstance(member, dict) and id_key(member.get("id")) in asked for member in members
        )

    def refused_batch(self, scope, direction, members, index):
        """Note the ids of a batch that is invalid under the revision (2025-03-26 alone has
        batches): an answer to one of them answers a member of that batch."""
        for member in members:
            key = (
                id_key(member.get("id"))
                if isinstance(member, dict) and "method" in member
                else None
            )
            if key is not None:
                self.batch_ids.setdefault((scope, direction, key), index)

    def refusal(self, index, exchange):
        """An HTTP refusal answers each request of its exchange: an error to each, for lesson 10."""
        for scope, request in self.by_exchange.get(exchange, ()) if type(exchange) is int else ():
            stand_in = {
                "jsonrpc": "2.0",
                "id": request.member["id"],
                "error": {"code": 0, "message": ""},
            }
            self.scopes[scope].add(
                Slot(
                    index,
                    "from_server",
                    stand_in,
                    "response",
                    None,
                    None,
                    False,
                    exchange,
                    refusal=True,
                )
            )

    def forgive_exchange(self, exchange, index):
        for scope, request in self.by_exchange.get(exchange, ()) if type(exchange) is int else ():
            self.forgiven.setdefault((scope, "to_server", request.key), index)

    def problems(self):
        """Lesson 10's audit of each scope, in words, with the tap's own problems, each with its
        keyword, its severity and the page and sentence of the specification it rests on
        (:func:`.citations.settle`)."""
        found = list(self.own)
        flagged_by_scope, audited = {}, {}
        for scope_key, scope in self.scopes.items():
            named = audited[scope_key] = lesson_audit(scope.text())
            for place, name in named:
                if name == "unanswered" and not self._forgiven(scope_key, scope.slots[place - 1]):
                    scope.unanswered.setdefault(scope.slots[place - 1].direction, []).append(place)
        found += tap_error_findings(self)
        for scope_key, scope in self.scopes.items():
            flagged = flagged_by_scope.setdefault(scope_key, set())
            named = audited[scope_key]
            for place, name in named:
                problem = self._word(scope_key, scope, place, name)
                if problem is not None:
                    if name != "unanswered":  # a request unanswered is still judged by the rules
                        flagged.add(place)
                    found.append(problem)
            found += error_code_rules(self, scope_key, scope, flagged)
        found += message_rules(self, flagged_by_scope)
        found += http_rules(self, self.revision_of)
        settled = [settle(problem, self.revision) for problem in found]
        found = [problem for problem in settled if problem is not None]
        found.sort(key=lambda problem: (problem["line"] is None, problem["line"] or 0))
        return found

    def _word(self, scope_key, scope, place, name):
        """One problem of lesson 10's audit, in words (None for one the tap forgives)."""
        slot = scope.slots[place - 1]
        sender, other = SENDER[slot.direction], _other(slot.direction)
        member, index = slot.member, slot.index
        if name == "pollution" or (name == "invalid" and slot.reason is not None):
            return self._not_json(slot)
        if name == "answer_to_notification" and slot.key is None:
            name = (
                "unknown_id"  # an error with a null id answers no notification: it answers nothing
            )
        if name == "invalid":
            judged = slot.revision
            if slot.batch:
                return self._problem(
                    index,
                    "invalid",
                    f"a member of the {sender}'s batch is invalid"
                    f"{_under(judged)}: {_first_sentence(explain(member, judged))}",
                )
            return self._problem(
                index,
                "invalid",
                f"the {sender} sent an invalid message{_under(judged)}: "
                f"{_first_sentence(explain(member, judged))}{self._meant(scope, slot, place)}",
            )
        if name == "id_reused":
            first = _latest_before(scope.requests.get((slot.direction, slot.key), []), place)
            earlier = scope.slots[first - 1] if first else slot
            return self._problem(
                index,
                "id_reused",
                f"the {sender} reused the id {show_id(member['id'])} "
                f"while its request on line {self.line(earlier.index)} "
                f"({_method(earlier.member)}) is still unanswered",
                id=member["id"],
                rule="id_reused.in_flight",
                revision=slot.revision,
            )
        if name == "answered_twice":
            asked = _latest_before(scope.requests.get((other, slot.key), []), place)
            request = scope.slots[asked - 1] if asked else slot
            first = _first_after(scope.answers.get((slot.direction, slot.key), []), asked or 0)
            answer = scope.slots[first - 1] if first else slot
            return self._problem(
                index,
                "answered_twice",
                f"a second answer to the {SENDER[other]}'s "
                f"request {show_id(member['id'])} ({_method(request.member)}, line "
                f"{self.line(request.index)}), first answered on line "
                f"{self.line(answer.index)}",
                id=member["id"],
                revision=slot.revision,
            )
        if name == "answer_to_notification":
            at = _latest_before(scope.notifications[other], place)
            notice = scope.slots[at - 1] if at else slot
            return self._problem(
                index,
                "answer_to_notification",
                f"the {sender} answered the "
                f"notification {_method(notice.member)} (line {self.line(notice.index)}): "
                "a notification gets no answer, not even an error",
                id=member.get("id"),
                revision=slot.revision,
            )
        if name == "unknown_id" and slot.key is not None:
            asked = _latest_before(scope.requests.get((other, slot.key), []), place)
            if asked is not None:  # an invalid request, owed an error
                request = scope.slots[asked - 1]
                return self._problem(
                    index,
                    "unknown_id",
                    f"a result to the {SENDER[other]}'s invalid "
                    f"request {show_id(member['id'])} ({_method(request.member)}, line "
                    f"{self.line(request.index)}), which is owed an error",
                    id=member["id"],
                    revision=slot.revision,
                )
            batch = self.batch_ids.get((scope_key, other, slot.key))
            if batch is not None and batch < index:
                judged = slot.revision
                return self._problem(
                    index,
                    "batch_answered",
                    f"an answer to the id {show_id(member['id'])}, "
                    f"a member of the {SENDER[other]}'s batch on line {self.line(batch)}"
                    f"{_under(judged) and ', which revision ' + str(judged) + ' does not allow'}"
                    " (2025-03-26 alone has batches): the batch was answered as if it were "
                    "allowed, where the revision asks for one error",
                    id=member["id"],
                    revision=judged,
                )
            return self._problem(
                index,
                "unknown_id",
                f"a response to the id {show_id(member['id'])}, "
                f"which the {SENDER[other]} never sent",
                id=member["id"],
                revision=slot.revision,
            )
        if name == "unknown_id":
            has = "no id" if "id" not in member else f"the id {show_id(member.get('id'))}"
            kind = "an error" if "error" in member else "a response"
            return self._problem(
                index,
                "unmatched",
                f"{kind} with {has} answers none of the "
                f"{SENDER[other]}'s messages{self._meant(scope, slot, place)}",
                id=member.get("id"),
                revision=slot.revision,
            )
        if name == "unanswered":
            if self._forgiven(scope_key, slot) or id(slot) in self.broken:
                return None  # cancelled, or its client left: owed nothing; or said with the answer that broke off
            if (
                slot.direction == "from_server"
                and self.closed is not None
                and slot.index > self.closed
            ):
                return None  # asked of a client whose input had already ended (stdio): it cannot answer
            why = ""
            if self.ended is not None and slot.direction == "to_server":
                why = f" (the server {ended_words(self.ended, self.stops)})"
            return self._problem(
                index,
                "unanswered",
                f"the {sender}'s request {show_id(member['id'])} "
                f"({_method(member)}) was never answered by the {SENDER[other]}{why}",
                id=member["id"],
                revision=slot.revision,
            )
        return self._problem(index, name, f"lesson 10's audit found {name}")

    def _forgiven(self, scope_key, slot):
        """True for a request cancelled after it was sent, or left by its client."""
        since = self.forgiven.get((scope_key, slot.direction, slot.key))
        return since is not None and since > slot.index

    def _meant_slot(self, scope, slot, place):
        """For a response without a usable id: the oldest request of the other side before it
        that is never answered, which it may have been meant for (None when there is none)."""
        member = slot.member
        if (
            not isinstance(member, dict)
            or slot.key is not None
            or "method" in member
            or not ("result" in member or "error" in member)
        ):
            return None
        waiting = scope.unanswered.get(_other(slot.direction), ())
        if not waiting or waiting[0] > place:
            return None
        return scope.slots[waiting[0] - 1]

    def _meant(self, scope, slot, place):
        """Words for :meth:`_meant_slot`: the request it was meant for (whose own finding says
        it was never answered)."""
        oldest = self._meant_slot(scope, slot, place)
        if oldest is None:
            return ""
        return (
            f"; was it meant for request {show_id(oldest.member['id'])} ({_method(oldest.member)}, "
            f"line {self.line(oldest.index)})?"
        )

    def _not_json(self, slot):
        entry = self.conversation[slot.index]
        reason = slot.reason or "not JSON"
        why = f" ({reason})" if "bytes" in entry or entry.get("truncated") else ""
        said = entry.get("http") if isinstance(entry.get("http"), dict) else None
        if slot.direction == "from_server" and said is not None:
            return self._problem(
                slot.index,
                "pollution",
                f"the server answered with {_quoted(entry)} (HTTP "
                f"{said.get('status', '?')}), which is not JSON{why}: an MCP client "
                "cannot read it as a message",
                rule="pollution.http",
            )
        if said is not None:
            return self._problem(
                slot.index,
                "not_json",
                f"the client sent {_quoted(entry)}, which is not JSON{why}",
                rule="not_json.http",
            )
        if slot.direction == "from_server":
            return self._problem(
                slot.index,
                "pollution",
                f"the server wrote {_quoted(entry)} on stdout, which "
                f"is not JSON{why}: stdout is for JSON-RPC messages only, logs belong on "
                "stderr",
            )
        return self._problem(
            slot.index, "not_json", f"the client sent {_quoted(entry)}, which is not JSON{why}"
        )


def _what_was_cut(direction, value):
    """The subject of a note on a message too long to judge: what its ends tell of it."""
    sender = SENDER[direction]
    if not isinstance(value, dict):
        return f"the {sender}'s message"
    read = "read from its first or last bytes"
    if "method" in value and "id" in value:
        return f"the {sender}'s request {show_id(value['id'])} ({_method(value)}; its id and method {read})"
    if "method" in value:
        return f"the {sender}'s notification {_method(value)} (its method {read})"
    return f"the {sender}'s answer to request {show_id(value['id'])} (its id {read})"


def _other(direction):
    return "from_server" if direction == "to_server" else "to_server"


def _seconds(t):
    return f"{t:.3f} s" if isinstance(t, (int, float)) else "the end"


def _under(revision):
    return f" under revision {revision}" if revision else ""


def _first_sentence(text):
    first = str(text).strip().splitlines()[0] if str(text).strip() else ""
    return _short(first, 300)
