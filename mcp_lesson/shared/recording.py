"""A recording of a conversation (the tap's JSON Lines), ordered and drawn.

One home for what lesson 10, the tap's report and the playground's
recording view do with a recording once it is read:

* :func:`time_order` and :func:`in_time_order`: the entries in the order things
  happened (each direction is recorded by a thread of its own, so an answer can
  be written to the file before the request it answers; its ``t`` is never
  earlier);
* :func:`sessions`: the recording cut at each ``start`` event (``--append``);
* :func:`sequence_diagram`: a Mermaid sequence diagram, as text, with one
  escaping rule (:func:`mermaid_text`: every character outside a small safe set
  becomes an entity code), so a message's text can neither end a line of the
  diagram, start an arrow or a comment, nor reach a page as markup. Lesson 10
  and the recording view draw the same text for the same recording.
"""

import json

from mcp_lesson.core.transport import NAME_OF
from mcp_lesson.protocol.strict_json import parse
from mcp_lesson.protocol.values import json_type
from mcp_lesson.rules.classification import classify

#: The characters a Mermaid text may hold as they are; every other one is written as
#: an entity code (``#58;`` for ``:``).
SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _./,()")
#: The most messages a diagram draws (the rest are counted in a note).
DIAGRAM_ARROWS = 200
#: The two directions of a recorded line, and who sends the lines of each.
DIRECTIONS = ("to_server", "from_server")
SENDERS = {"to_server": "client", "from_server": "server"}
_ARROWS = {
    "request": "->>",
    "notification": "-)",
    "response": "-->>",
    "bad": "-x",
    "bad-answer": "--x",
}


def mermaid_text(text, limit=60):
    """``text``, cut to ``limit`` characters ("..." after), with every character but
    letters, digits, space and ``_./,()`` written as a Mermaid entity code: safe
    anywhere in a diagram's text."""
    text = _plain(text)
    if len(text) > limit:
        text = text[:limit] + "..."
    return "".join(ch if ch in SAFE else f"#{ord(ch)};" for ch in text)


def _plain(value):
    """Any value as text, never raising."""
    try:
        return value if type(value) is str else str(value)
    except Exception:
        return f"<a {type(value).__name__}>"


def _is_time(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def time_order(entries):
    """The places (indices) of ``entries`` in the order they happened: by ``t``, and
    by place for the same ``t``; file order when an entry has no time."""
    times = [entry.get("t") if isinstance(entry, dict) else None for entry in entries]
    if not all(_is_time(t) for t in times):
        return list(range(len(entries)))
    return sorted(range(len(entries)), key=lambda index: (times[index], index))


def _session_order(entries):
    """The places of ``entries``, session by session, each session in time order (the
    times of a session count from its own start)."""
    order, begun = [], 0
    for session in sessions(entries):
        order += [begun + index for index in time_order(session)]
        begun += len(session)
    return order


def in_time_order(entries):
    """The entries in the order they happened (:func:`time_order`)."""
    return [entries[index] for index in time_order(entries)]


def sessions(entries):
    """The recording cut into sessions, each starting at a ``start`` event (``--append``)."""
    cut = [[]]
    for entry in entries:
        if isinstance(entry, dict) and entry.get("event") == "start" and cut[-1]:
            cut.append([])
        cut[-1].append(entry)
    return [session for session in cut if session]


def _id(value):
    try:
        return json.dumps(value, ensure_ascii=False)[:30]
    except (TypeError, ValueError):
        return "?"


def _message_of(entry):
    """``(value, reason)``: the recorded line's message, or why there is none."""
    text = entry.get("text")
    if not isinstance(text, str):
        return None, "no text recorded"
    return parse(text)


def _what(entry):
    """``(arrow kind, label)`` of one recorded message."""
    if entry.get("truncated"):
        return "bad", f"{_id(entry.get('size'))} bytes, not judged"
    value, reason = _message_of(entry)
    if value is None:
        text = entry.get("text")
        return "bad", "not JSON" + (f": {text}" if isinstance(text, str) else f" ({reason})")
    if isinstance(value, list):
        return ("bad" if classify(value)[0] == "invalid" else "request"), f"a batch of {len(value)}"
    if not isinstance(value, dict):
        return "bad", f"invalid: {json_type(value)}"
    kind = classify(value)[0]
    method = value.get("method")
    if isinstance(method, str):
        params = value.get("params")
        named = params.get(NAME_OF.get(method)) if isinstance(params, dict) else None
        label = (
            method[:40]
            + (f" {named[:30]}" if isinstance(named, str) else "")
            + (f" (id {_id(value['id'])})" if "id" in value else "")
        )
        shape = "request" if "id" in value else "notification"
    elif "result" in value or "error" in value:
        error = value.get("error")
        code = error.get("code") if isinstance(error, dict) else None
        head = "result" if "result" in value else f"error {_id(code)}"
        label = head + (f" (id {_id(value['id'])})" if "id" in value else " (no id)")
        shape = "response"
    else:
        label, shape = "neither a request nor a response", "request"
    if kind == "invalid":
        return ("bad-answer" if shape == "response" else "bad"), "invalid: " + label
    return shape, label


def _notes(problems):
    """{place: [names]} of an audit's ``(place, problem)`` pairs (others left out)."""
    notes = {}
    for problem in problems or ():
        try:
            place, name = problem
        except (TypeError, ValueError):
            continue
        notes.setdefault(place, []).append(name)
    return notes


def _arrow(entry, place):
    """The diagram line of one entry, or None when it draws nothing."""
    direction, event = entry.get("direction"), entry.get("event")
    if direction in DIRECTIONS:
        shape, label = _what(entry)
        http = entry.get("http") if isinstance(entry.get("http"), dict) else {}
        said = http.get("method") if direction == "to_server" else http.get("status")
        if said is not None:
            label = f"{_plain(said)[:12]} {label}"
        ends = "C{}S" if direction == "to_server" else "S{}C"
        return f"    {ends.format(_ARROWS[shape])}: {mermaid_text(f'({place}) {label}')}"
    if event == "http_request":
        said = (
            f"{_plain(entry.get('method', '?'))[:12]} {_plain(entry.get('path', ''))[:30]}".strip()
        )
        return f"    C->>S: {mermaid_text(f'({place}) {said} with no body')}"
    if event == "http_response":
        said = f"{_plain(entry.get('status', '?'))[:12]}, " + (
            "a stream begins" if entry.get("stream") is True else "no body"
        )
        return f"    S-->>C: {mermaid_text(f'({place}) {said}')}"
    if event == "server_exited":
        words = f"({place}) the server exited, status {_plain(entry.get('status'))[:20]}"
        return f"    Note over S: {mermaid_text(words)}"
    if event == "tap_error":
        words = f"({place}) tap error {_plain(entry.get('detail', ''))}"
        return f"    Note over C,S: {mermaid_text(words)}"
    return None


def sequence_diagram(entries, problems=(), limit=DIAGRAM_ARROWS):
    """The recording as a Mermaid sequence diagram (its text), in time order: one arrow
    per message, from the client (C) or the server (S), labelled with its place (the
    entry's ``_line`` when it has one, else its place in ``entries``, from 1) and its
    method or what it answers (solid: a request; open: a notification; dashed: a
    response; a cross: a line that is no valid message); an HTTP exchange without a
    body is an arrow too. Each of ``problems`` (an audit's ``(place, problem)``
    pairs) is a note beside its place; a second session starts with a note. At most
    ``limit`` messages are drawn. Never raises on an entry: one that cannot be drawn
    is a note saying so."""
    entries = [entry for entry in entries if isinstance(entry, dict)] if entries else []
    notes = _notes(problems)
    lines = ["sequenceDiagram", "    participant C as Client", "    participant S as Server"]
    drawn = started = left = 0
    for index in _session_order(entries):
        entry = entries[index]
        place = entry.get("_line", index + 1)
        if entry.get("event") == "start":
            started += 1
            if started > 1:
                words = f"session {started} ({place})"
                lines.append(f"    Note over C,S: {mermaid_text(words)}")
            continue
        try:
            line = _arrow(entry, place)
        except Exception as exc:
            words = f"({place}) not drawn ({type(exc).__name__})"
            line = f"    Note over C,S: {mermaid_text(words)}"
        if line is not None and not line.startswith("    Note"):
            if drawn >= limit:
                left += 1
                continue
            drawn += 1
        if line is not None:
            lines.append(line)
        for name in notes.get(place, ()):
            lines.append(f"    Note over C,S: {mermaid_text(f'({place}) {name}')}")
    if left:
        words = f"{left:,} more not drawn (the first {limit:,} are)"
        lines.append(f"    Note over C,S: {mermaid_text(words)}")
    return "\n".join(lines)
