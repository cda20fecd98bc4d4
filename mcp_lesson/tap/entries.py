"""What one entry of a recording is: its message or why it has none, its id as a
key, the HTTP exchange and session it belongs to, and its line in the file. The audit, the
revision and the answer times read entries through these, and nothing else."""

import base64
import json
import re

from mcp_lesson.protocol.values import show_value
from mcp_lesson.rules.classification import parse
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


#: A message's id where a writer puts it: first (after ``"jsonrpc"``) or last (before it).
_FIRST_ID = re.compile(
    r'\A\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d{1,300}|"(?:[^"\\]|\\.){0,1000}")'
)
_LAST_ID = re.compile(
    r'"id"\s*:\s*(-?\d{1,300}|"(?:[^"\\]|\\.){0,1000}")\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*\Z'
)
_FIRST_METHOD = re.compile(r'\A\s*\{[^{}\[\]]{0,2000}?"method"\s*:\s*("(?:[^"\\]|\\.){0,200}")')


def unjudged(entry):
    """Words for a message the tap passed on but did not judge (too long to keep, or
    compressed in a way it cannot decode), to follow its subject ("the server's message is
    ..."); None for any other entry."""
    if entry.get("truncated"):
        size = entry.get("size")
        long = f"{size:,} bytes long" if type(size) is int else "longer than the tap keeps"
        return f"is {long}, too long to judge (the tap judges lines of up to --max-line bytes)"
    if entry.get("undecoded"):
        size = entry.get("size")
        return (
            f"came {_short(str(entry.get('detail') or 'compressed'), 120)}"
            f"{f' ({size:,} bytes)' if type(size) is int else ''}, so it was not judged"
        )
    return None


def _stand_in_of(entry):
    """A message too long to judge, as far as its first and last bytes tell: a request
    (``{"id", "method"}``), an answer (``{"id", "result"}``) or a notification (``{"method"}``);
    None when neither its id nor its method can be read there."""
    head = entry.get("text") if isinstance(entry.get("text"), str) else ""
    tail = entry.get("tail") if isinstance(entry.get("tail"), str) else ""
    found = _FIRST_ID.match(head[:4096]) or _LAST_ID.search(tail or head[-4096:])
    method = _FIRST_METHOD.match(head[:4096])
    try:
        value = json.loads(found.group(1)) if found is not None else None
        name = json.loads(method.group(1)) if method is not None else None
    except ValueError:
        return None
    if found is None:
        return {"jsonrpc": "2.0", "method": name} if name is not None else None
    if name is not None:
        return {"jsonrpc": "2.0", "id": value, "method": name}
    return {"jsonrpc": "2.0", "id": value, "result": {}}


def message_of(entry):
    """``(value, reason)`` for a recorded line: its parsed JSON value, or why it is none. A
    message the tap did not judge (:func:`unjudged`) stands as its id and kind where its first
    and last bytes tell them (so that it answers its request), else it has the reason."""
    why = unjudged(entry)
    if why is not None:
        stand_in = _stand_in_of(entry) if entry.get("truncated") else None
        return (stand_in, None) if stand_in is not None else (None, why)
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
    return any(
        isinstance(member, dict) and id_key(member.get("id")) is not None for member in members
    )


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


def ended_words(ended, stops=()):
    """How a stdio server ended, in words, from its ``server_exited`` event and the tap's
    ``stopping`` and ``signal`` events before it: its exit status, and for a signal which one
    and who sent it (the tap, on its own or passing on one it was sent; else someone else)."""
    import signal

    status, code = ended.get("status"), ended.get("returncode")
    when = f" at {_time(ended.get('t'))}"
    sent = [stop for stop in stops if isinstance(stop, dict)]
    if type(code) is int and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        by = next((stop for stop in reversed(sent) if stop.get("signal") == name), None)
        if by is None:
            who = "not sent by the tap: another process, or the server itself"
        elif by.get("event") == "stopping":
            who = f"sent by the tap: {_short(str(by.get('why') or 'to stop it'), 160)}"
        else:
            who = "sent by the tap, passing on the signal it was sent"
        return f"was ended by {name}{when} (exit status {status}; {who})"
    words = f"exited with status {status}{when}"
    if sent:
        last = sent[-1]
        why = (
            last.get("why")
            if last.get("event") == "stopping"
            else "passing on the signal it was sent"
        )
        words += f", after the tap sent it {last.get('signal')} ({_short(str(why), 160)})"
    return words


def _time(t):
    return f"{t:.3f} s" if _is_number(t) else "the end"
