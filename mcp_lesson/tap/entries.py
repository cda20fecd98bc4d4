"""What one entry of a recording is (SPEC 14): its message or why it has none, its id as a
key, the HTTP exchange and session it belongs to, and its line in the file. The audit, the
revision and the answer times read entries through these, and nothing else."""

import base64
import json

from mcp_lesson.rules.classification import parse
from mcp_lesson.protocol.values import show_value
from mcp_lesson.tap.judge import _short


def id_key(value):
    """An id as a key that keeps ``1``, ``"1"`` and ``True`` apart; None when it is no id
    (JSON-RPC ids are strings or integers, and a bool is not an integer)."""
    if isinstance(value, str):
        return ("string", value)
    if isinstance(value, int) and not isinstance(value, bool):
        return ("integer", value)
    return None


def show_id(value):
    """An id as JSON shows it: ``1``, ``"1"``, ``null``; a huge integer by its count of digits
    (Python writes no int of more than 4,300 digits as text)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 200:
        return show_value(value)
    try:
        return _short(json.dumps(value, ensure_ascii=False), 60)
    except (TypeError, ValueError):
        return show_value(value)


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


def _answers_an_id(value):
    """True for a response (or a batch of them) that names an id, which the audit can match."""
    members = value if isinstance(value, list) else [value]
    return any(isinstance(member, dict) and id_key(member.get("id")) is not None for member in members)


def _method(value):
    method = value.get("method") if isinstance(value, dict) else None
    return _short(method, 60) if isinstance(method, str) else "no method"


def _quoted(entry):
    text = entry.get("text")
    return _short(json.dumps(text if isinstance(text, str) else "", ensure_ascii=False), 80)


def _is_number(value):
    """A finite time of a recording (a forged one, NaN or 1e400, is no time)."""
    import math

    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
