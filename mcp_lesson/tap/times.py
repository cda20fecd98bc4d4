"""The time to each answer of a recorded conversation (:func:`answer_times`), for the report."""

from mcp_lesson.rules.classification import classify
from mcp_lesson.shared.recording import time_order as in_time_order
from mcp_lesson.tap._settings import DIRECTIONS
from mcp_lesson.tap.entries import (
    _answers_an_id,
    _http_of,
    _is_number,
    _method,
    id_key,
    line_of,
    message_of,
    refused,
    scope_of,
    unjudged,
)
from mcp_lesson.tap.revision import agreed_revision, revisions_by_scope


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
        settles = refused(entry) or unjudged(entry) is not None
        if (
            direction == "from_server"
            and settles
            and (reason is not None or not _answers_an_id(value))
        ):
            for key in by_exchange.pop(_http_of(entry).get("exchange"), ()):
                row = waiting["to_server"].get(key)
                if row is not None and row["_exchange"] == _http_of(entry).get("exchange"):
                    _answered(waiting["to_server"].pop(key), entry, conversation, index)
            continue
        if reason is not None:
            continue
        if (
            isinstance(value, list)
            and classify(value, per_scope.get(scope, (revision,))[0])[0] != "batch"
        ):
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
                    row = {
                        "line": line_of(conversation, index),
                        "direction": direction,
                        "id": member["id"],
                        "method": _method(member),
                        "answer_line": None,
                        "seconds": None,
                        "_t": entry.get("t"),
                        "_exchange": http.get("exchange") if http else None,
                    }
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
