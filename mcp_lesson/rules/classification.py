"""Recognising JSON-RPC 2.0 messages: classify, explain, and what to reply.

A parsed message is exactly one of four kinds:

* **request**: ``"jsonrpc": "2.0"``, a string ``"method"`` and an ``"id"`` that
  is a string or an integer; ``"params"``, if present, is an object.
* **notification**: the same with no ``"id"`` key at all. Nobody replies.
* **response**: ``"jsonrpc": "2.0"``, no ``"method"``, an ``"id"`` key, and
  exactly one of ``"result"`` (an object; the id a string or an integer) or
  ``"error"`` (an object with an integer ``"code"`` and a string
  ``"message"``; the id a string, an integer or null).
* **invalid**: anything else, answered with ``INVALID_REQUEST`` (-32600).

Key *presence* decides, never truthiness: ``"id": 0`` is an id. ``bool`` is
never an integer and a float never is either, even ``1.0``. A list (a JSON-RPC
batch) is invalid, because MCP removed batching in revision 2025-06-18.
Members the rules don't mention are ignored, and any ``dict`` subclass is a
dict (judged by the members it really stores).

**Revisions.** Those are the course's rules (``revision=None``, the default).
Every function here also takes ``revision=``, one of :data:`REVISIONS`, to
judge a message as that MCP revision's message layer does. Only two things
differ, and :data:`SWITCHES` holds them as data:

* 2025-03-26 had JSON-RPC batches: a non-empty list is a **batch**, kind
  ``"batch"``, whose members are judged one by one (2025-06-18 removed them);
* from 2025-11-25 an error response may leave out ``"id"`` (the schema's
  ``id?: RequestId``), for a request whose id could not be read.

``"id": null`` on an error response is valid under every revision: JSON-RPC
2.0 allows it, although no MCP schema does (:func:`explain` says so).

**Where it lives.** This module holds the rules (:func:`classify`,
:func:`rule_of`) and the replies; the revisions' table is
:mod:`mcp_lesson.protocol.revisions`, the strict JSON reader :mod:`mcp_lesson.protocol.strict_json`,
and the explanations :mod:`mcp_lesson.rules.explanation`; their names are here too.

**How it is built.** :func:`classify` is lesson 03's own ``classify``, the
masters' exercise cells exported into :mod:`mcp_lesson.core` (``make
export``), inside one thin layer, :func:`classify`'s body here, that adds what
no lesson builds: batches (a list is a batch under 2025-03-26) and the
hardening below. An error response without ``"id"`` is judged by lesson 08's
``classify_at`` where the revisions' table says the id is optional (2025-11-25
on). In the same way :func:`reply_for` is lesson 04's. :func:`explain`, which
no lesson builds, walks the rules in the order above with :func:`rule_of`
(whose id and integer tests are lesson 02's ``is_valid_id`` and
``is_integer``) and names the one that decides; :data:`RULES` maps each name
to its verdict and its words, and a property test (tests/rules/test_properties.py)
holds ``RULES[rule_of(msg)].verdict`` to ``classify(msg)`` on every input and
revision.

**Hostile input.** Everything here takes any Python object and never raises
(but for an unknown ``revision``, a ``ValueError``): one ``except`` turns any
surprise into an invalid verdict. Beyond that, the only defence kept is the
one that changes a verdict a learner could meet: a message that is a dict
subclass, and a batch that is a list subclass, are judged by the members they
store, not by what their methods claim. Lesson 03 meets dict subclasses too.
"""

from typing import NamedTuple

from mcp_lesson.core.classification import classify as _lessons_classify
from mcp_lesson.core.errors import reply_for as _lessons_reply_for
from mcp_lesson.core.revisions import classify_at as _lessons_classify_at
from mcp_lesson.protocol.revisions import REVISIONS, SWITCHES, Switches, switches  # noqa: F401  (re-exported)
from mcp_lesson.protocol.strict_json import MAX_INT_DIGITS, parse  # noqa: F401  (re-exported)
from mcp_lesson.rules.messages import (
    ERROR_MESSAGES,
    INVALID_REQUEST,
    PARSE_ERROR,
    error_response,
    is_integer,
    is_valid_id,
)


class Rule(NamedTuple):
    """One rule: the verdict it gives, a short name for it, and its explanation."""

    verdict: tuple
    short: str
    words: str


_INVALID = ("invalid", INVALID_REQUEST)
#: Stands for a member a message does not have (``msg.get(key, MISSING)``).
MISSING = object()

#: Every rule, by name: its verdict, a short description, and the template
#: :func:`explain` fills in.
RULES = {
    "not-object": Rule(
        _INVALID,
        "a message must be a JSON object",
        "a message must be a JSON object, and this is {what}{text_hint}",
    ),
    "batch": Rule(
        _INVALID,
        "a list (a batch) is invalid",
        "this is a list, i.e. a JSON-RPC batch; MCP removed batching in revision "
        "2025-06-18, so every list is invalid, even one holding a good message"
        "{batch_note}",
    ),
    "empty-batch": Rule(
        _INVALID,
        "an empty batch is invalid",
        "this is an empty list; even where batches are allowed (revision "
        "2025-03-26), JSON-RPC 2.0 says an empty batch is invalid",
    ),
    "json-rpc-batch": Rule(
        ("batch", None),
        "a batch of messages (2025-03-26 only)",
        "it is a list of {count}, a JSON-RPC batch, which revision "
        "2025-03-26 allows (receivers MUST accept batches; 2025-06-18 "
        "removed them); each member is judged on its own",
    ),
    "no-jsonrpc": Rule(
        _INVALID,
        'every message needs "jsonrpc"',
        'it has no "jsonrpc" member; every message must say "jsonrpc": "2.0"',
    ),
    "bad-jsonrpc": Rule(
        _INVALID,
        '"jsonrpc" must be exactly the string "2.0"',
        '"jsonrpc" is {version}, but it must be exactly the string "2.0" '
        "(not a number, not another version)",
    ),
    "bad-method": Rule(
        _INVALID,
        "a method name must be a string",
        '"method" is {method_desc}, but a method name must be a string',
    ),
    "bad-params": Rule(
        _INVALID,
        "params, when present, must be an object",
        '"params" is {params_type}, but params, when present, must be an '
        "object (MCP always sends named params)",
    ),
    "bad-request-id": Rule(
        _INVALID,
        "a request id must be a string or an integer",
        "the id is {id_desc}; a request id must be a string or an integer{id_note}",
    ),
    "notification": Rule(
        ("notification", None),
        "a method and no id key: a notification",
        'it has "jsonrpc": "2.0", the method {method} and no "id" key at '
        "all, so it is a notification: nobody replies to it",
    ),
    "request": Rule(
        ("request", None),
        "a method and a good id: a request",
        'it has "jsonrpc": "2.0", the method {method} and the id {id} '
        "({id_type}), so it is a request: the receiver owes it exactly one "
        "response with that id",
    ),
    "both": Rule(
        _INVALID,
        'a response has exactly one of "result" and "error"',
        'it has both "result" and "error"; a response carries exactly one of them',
    ),
    "neither": Rule(
        _INVALID,
        'no method, and neither "result" nor "error"',
        'it has no "method", so it would be a response, but it has neither "result" nor "error"',
    ),
    "no-response-id": Rule(
        _INVALID,
        'a response needs the "id" key',
        'it has no "id" key; a response must name the request it answers {no_id_note}',
    ),
    "bad-result": Rule(
        _INVALID,
        "a result must be an object",
        '"result" is {result_type}, but a result must be an object (MCP\'s '
        "narrowing of JSON-RPC 2.0, where a result may be any value; every MCP "
        "revision's schema makes it an object)",
    ),
    "bad-result-id": Rule(
        _INVALID,
        "a result response needs a string or integer id",
        "the id is {id_desc}; a result response must carry the string or "
        "integer id of the request it answers{id_note}",
    ),
    "result": Rule(
        ("response", None),
        "a success response",
        'it has "jsonrpc": "2.0", no "method", the id {id} and an object '
        '"result", so it is a success response',
    ),
    "bad-error": Rule(
        _INVALID,
        "an error must be an object",
        '"error" is {error_type}, but an error must be an object with "code" and "message"',
    ),
    "bad-error-code": Rule(
        _INVALID,
        "an error code must be an integer",
        'the error "code" is {code_desc}, but it must be an integer{code_note}',
    ),
    "bad-error-message": Rule(
        _INVALID,
        "an error message must be a string",
        'the error "message" is {message_desc}, but it must be a string',
    ),
    "bad-error-id": Rule(
        _INVALID,
        "an error response id must be a string, an integer or null",
        "the id is {id_desc}; an error response's id must be a string, an "
        "integer, or null when the request's id could not be read{id_note}",
    ),
    "error": Rule(
        ("response", None),
        "an error response",
        'it has "jsonrpc": "2.0", no "method", the id {id} and an "error" with '
        "code {code} and a string message, so it is an error response{null_note}",
    ),
    "error-without-id": Rule(
        ("response", None),
        "an error response with no id (2025-11-25 on)",
        'it has "jsonrpc": "2.0", no "method", no "id" and an "error" '
        "with code {code} and a string message; from revision 2025-11-25 "
        "an error response may leave out the id when the request's id "
        "could not be read, so it is an error response",
    ),
    "unreadable": Rule(
        _INVALID,
        "a value that cannot be read as a message",
        "this value could not be read as a message",
    ),
}


def _plain(mapping):
    """The members a dict subclass really stores, as a plain dict."""
    return dict(dict.items(mapping))


def rule_of(msg, revision=None):
    """The name of the rule (a key of :data:`RULES`) that decides ``msg``.

    The rules are tried in the order of the module docstring; the first that
    applies decides. Never raises, but for an unknown ``revision`` (a
    ``ValueError``).
    """
    rules = switches(revision)  # a ValueError for an unknown revision
    try:
        if type(msg) is not dict:
            if isinstance(msg, dict):
                msg = _plain(msg)  # a dict subclass: judged by the members it stores
            elif isinstance(msg, list):
                if not rules.batches:
                    return "batch"
                # the members it really stores: a fake list (through __class__) raises
                return "json-rpc-batch" if list.__len__(msg) else "empty-batch"
            else:
                return "not-object"
        version = msg.get("jsonrpc", MISSING)
        if version is MISSING:
            return "no-jsonrpc"
        if not (isinstance(version, str) and version == "2.0"):
            return "bad-jsonrpc"

        if "method" in msg:  # a request or a notification; "result"/"error" do not count
            if not isinstance(msg["method"], str):
                return "bad-method"
            if "params" in msg and not isinstance(msg["params"], dict):
                return "bad-params"
            if "id" not in msg:
                return "notification"
            return "request" if is_valid_id(msg["id"]) else "bad-request-id"

        if "result" in msg:
            if "error" in msg:
                return "both"
            if "id" not in msg:
                return "no-response-id"
            if not isinstance(msg["result"], dict):
                return "bad-result"
            return "result" if is_valid_id(msg["id"]) else "bad-result-id"

        if "error" not in msg:
            return "neither"
        if "id" not in msg and not rules.error_id_optional:
            return "no-response-id"
        error = msg["error"]
        if not isinstance(error, dict):
            return "bad-error"
        if not is_integer(error.get("code")):
            return "bad-error-code"
        if not isinstance(error.get("message"), str):
            return "bad-error-message"
        if "id" not in msg:
            return "error-without-id"
        return "error" if msg["id"] is None or is_valid_id(msg["id"]) else "bad-error-id"
    except Exception:  # a hostile object (say, a str subclass whose == raises)
        return "unreadable"


def classify(msg, revision=None):
    """Return ``(kind, error_code)`` for any parsed JSON value; never raises.

    ``kind`` is "request", "notification", "response" or "invalid" (and
    "batch" for a list under revision 2025-03-26); the code is None but for
    invalid, which gets ``INVALID_REQUEST`` (-32600). The rules are those of
    the module docstring, applied by lesson 03's ``classify``
    (:mod:`mcp_lesson.core.classification`) with the revisions and the
    hardening of this module around it.
    """
    if revision is None:
        if type(msg) is dict:
            try:  # the plain case, and nearly every message: lesson 03's classify alone
                return _lessons_classify(msg)
            except Exception:  # a hostile member (say, a str subclass whose == raises)
                return _INVALID
        if not isinstance(msg, dict):
            return _INVALID  # a list (the course's rules have no batches), a string, anything
    return _classify(msg, revision)


def _classify(msg, revision):
    """:func:`classify` for a revision, an error response, or a value that is no plain dict."""
    rules = switches(revision)  # a ValueError for an unknown revision
    try:
        if type(msg) is not dict:
            if isinstance(msg, dict):
                msg = _plain(msg)  # a dict subclass: judged by the members it stores
            elif isinstance(msg, list):
                if rules.batches and list.__len__(msg):  # what a list really stores
                    return _BATCH
                return _INVALID
            else:
                return _INVALID
        # Lesson 08's classify_at: from 2025-11-25 on (the table's error_id_optional) an error
        # response may leave out the id it could not read; before, lesson 03's classify alone.
        return _lessons_classify_at(msg, revision if rules.error_id_optional else None)
    except Exception:  # a hostile object (say, a str subclass whose == raises)
        return _INVALID


_BATCH = ("batch", None)


def classify_json(text, revision=None):
    """Classify raw text or bytes as it arrives off the wire; never raises.

    Text that is not strict JSON gives ``("invalid", PARSE_ERROR)``; anything
    that parses is judged by :func:`classify`.
    """
    switches(revision)
    value, reason = parse(text)
    if reason is not None:
        return ("invalid", PARSE_ERROR)
    return classify(value, revision)


#: How many members of a batch an explanation names one by one.
SHOWN_MEMBERS = 20


def batch_members(batch, limit=None):
    """The first ``limit`` members a list really stores (all when ``limit`` is
    None), whatever its methods claim: a list subclass whose ``__iter__`` or
    ``__getitem__`` lies is read through ``list``'s own. Raises ``TypeError``
    for an object that only pretends to be a list."""
    return list.__getitem__(batch, slice(0, limit))


#: The most members of one batch that :func:`reply_for` judges and answers.
#: JSON-RPC 2.0 sets no size for a batch, and a server may refuse work it
#: cannot do: members past this one are not processed, and the reply says so
#: in one more error object (id null) instead of one error per member.
MAX_BATCH_MEMBERS = 1_000


def reply_for(msg, revision=None):
    """What a strict server sends back for the parsed message ``msg``: a reply, or None.

    * A request, notification or response: None. The application answers a
      request (with a result, or ``METHOD_NOT_FOUND`` and friends); nobody
      answers the other two.
    * Anything invalid: ``INVALID_REQUEST``, echoing the message's id when that
      id is a valid one (a string or an integer), and null otherwise.
    * A batch (revision 2025-03-26): the list of the replies its members are
      owed by the message layer, as JSON-RPC 2.0 prescribes, or None when
      none is owed (all notifications or valid messages; the application adds
      its responses to requests in the same list). An empty list is invalid.
      Only the first :data:`MAX_BATCH_MEMBERS` members are judged; a longer
      batch gets their replies and one more error, id null, saying how many
      members were not processed.

    ``msg`` is a parsed value (a ``str`` is a JSON string, never a message);
    for raw wire text use :func:`reply_for_json`.
    """
    verdict = classify(msg, revision)
    if verdict[0] == "batch":
        try:
            return _batch_replies(msg, revision)
        except Exception:  # an object that only pretends to be a list
            verdict = _INVALID
    if verdict[0] != "invalid":
        return None
    try:  # lesson 04's reply_for, on the members the message really stores
        plain = _plain(msg) if isinstance(msg, dict) and type(msg) is not dict else msg
        reply = _lessons_reply_for(plain)
    except Exception:  # an object that only pretends to be a dict
        reply = None
    if reply is None:  # what lesson 04's code could not read: its reply to the id alone
        try:
            request_id = dict.get(msg, "id") if isinstance(msg, dict) else None
        except Exception:  # an object that only pretends to be a dict
            request_id = None
        reply = _lessons_reply_for({} if request_id is None else {"id": request_id})
    return reply


def _batch_replies(batch, revision):
    """The replies a batch is owed, for at most :data:`MAX_BATCH_MEMBERS` members."""
    members = batch_members(batch, MAX_BATCH_MEMBERS)
    owed = [
        reply
        for reply in (reply_for(member, _member_revision(revision)) for member in members)
        if reply is not None
    ]
    left = list.__len__(batch) - len(members)
    if left > 0:
        owed.append(
            error_response(
                None,
                INVALID_REQUEST,
                ERROR_MESSAGES[INVALID_REQUEST],
                data=f"this batch has {list.__len__(batch):,} members; this server processes at most "
                f"{MAX_BATCH_MEMBERS:,} per batch, so the last {left:,} were not processed",
            )
        )
    return owed or None


def _member_revision(revision):
    """Members of a batch are single messages: a list inside a batch is invalid."""
    return "2025-06-18" if revision == "2025-03-26" else revision


def reply_for_json(text, revision=None):
    """What a strict server sends back for raw wire text or bytes.

    Text that does not parse gets ``PARSE_ERROR`` with id null; anything that
    parses is answered as :func:`reply_for` answers the parsed value.
    """
    switches(revision)
    value, reason = parse(text)
    if reason is not None:
        return error_response(None, PARSE_ERROR, ERROR_MESSAGES[PARSE_ERROR])
    return reply_for(value, revision)
