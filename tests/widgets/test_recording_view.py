"""The recording view (mcp_lesson/widgets/recording_view.py): a tap's recording read,
audited and drawn, whatever the file holds.
"""

import json
import re

import pytest

from mcp_lesson import classify_json, tap, widgets
from mcp_lesson.widgets import (
    DIAGRAM_ARROWS,
    INSTANT_LIMIT,
    RECORDING_LIMIT,
    RECORDING_LINES,
    TABLE_ROWS,
    RecordingView,
    as_text,
    mermaid_text,
    read_recording,
    sequence_diagram,
)

from .viewing import ALLOWED_TAGS, HOSTILE, in_a_kernel_loop, sendable, settled, tags


def entry_line(direction, message, t=0.0, **extra):
    text = message if isinstance(message, str) else json.dumps(message)
    kind, code = classify_json(text)
    return json.dumps(
        {"t": t, "direction": direction, "kind": kind, "code": code, "text": text, **extra}
    )


def test_recording_view_finds_the_sloppy_server_s_faults():
    view = RecordingView()
    view.choose("the sloppy server")
    found = {problem["problem"] for problem in view.problems}
    assert {"pollution", "unmatched", "invalid", "unanswered"} <= found
    # The same problems as the tap's own audit of the same lines.
    entries, _ = tap_read(view.value)
    assert [p["detail"] for p in view.problems] == [
        p["detail"] for p in tap.audit(entries, tap.agreed_revision(entries)[0])
    ]
    shown = as_text(view.result)
    assert shown.startswith(f"{len(view.problems)} PROBLEMS 19 entries: 14 messages and 5 events")
    assert 'line 9: the server wrote "sloppy server 1.0 ready" on stdout' in shown
    assert "9 | 0.063 | server → client | | invalid -32700 | sloppy server 1.0 ready" in shown
    assert view.announcement.value == f"Recording: 19 entries, {len(view.problems)} problems."
    assert view.diagram.startswith("sequenceDiagram\n    participant C as Client")
    drawn = decoded(view.diagram)
    assert "    S-xC: (9) not JSON: sloppy server 1.0 ready" in drawn
    assert "    S--xC: (13) invalid: result (id null)" in drawn
    assert "    C-)S: (3) notifications/initialized" in drawn
    assert "    C->>S: (6) tools/call echo (id 4)" in drawn


def decoded(diagram):
    """A diagram's text with Mermaid's entity codes (``#58;``) read back."""
    return re.sub(r"#(\d+);", lambda code: chr(int(code.group(1))), diagram)


def tap_read(text):
    """The tap's own reading of a recording (mcp_lesson.tap.read_recording reads files)."""
    entries = []
    for number, line in enumerate(text.split("\n"), 1):
        if line.strip():
            entries.append({**json.loads(line), "_line": number})
    return entries, []


def test_recording_view_a_clean_conversation_and_one_over_http():
    view = RecordingView()
    view.choose("a clean conversation")
    assert view.problems == [] and "NO PROBLEMS" in as_text(view.result)
    assert view.sessions[0][1] == "2025-11-25"
    view.choose("a 2026-07-28 conversation over HTTP")
    shown = as_text(view.result)
    assert view.problems == [] and view.sessions[0][1] == "2026-07-28"
    assert "| POST /mcp | request |" in shown and "| 200, SSE event | notification |" in shown
    drawn = decoded(view.diagram)
    assert "    S-->>C: (5) 400 error -32020 (id 2)" in drawn
    assert "    S-->>C: (7) 200, a stream begins" in drawn
    assert "    S-->>C: (11) 202, no body" in drawn


def test_recording_view_reports_each_malformed_line_by_number():
    text = "\n".join(
        [
            entry_line("to_server", {"jsonrpc": "2.0", "id": 1, "method": "ping"}),
            '{"t": 1, "direction": "to_server", "text": "cut',
            "",
            "[1, 2]",
            '{"hello": "world"}',
            '{"direction": "sideways", "text": "{}"}',
            "NaN",
            "[" * 100_000,
            entry_line("from_server", {"jsonrpc": "2.0", "id": 1, "result": {}}),
        ]
    )
    view = RecordingView(text)
    assert [entry["_line"] for entry in view.entries] == [1, 9]
    said = " ".join(view.notes)
    assert said.startswith("6 lines left out: line 2 is not JSON (")
    for words in [
        "line 4 is a list, not an entry",
        "line 5 is an object with neither a direction nor an event",
        "line 6: its direction 'sideways' is neither to_server nor from_server",
        "line 7 is not JSON (",
        "line 8 is not JSON (the JSON is nested too deeply",
    ]:
        assert words in said, words
    assert view.problems == [] and "could not" not in as_text(view.result)


def test_recording_view_reads_a_file_that_is_not_utf8_line_by_line():
    data = (
        entry_line("to_server", {"jsonrpc": "2.0", "method": "notifications/initialized"}).encode()
        + b"\n\xff\xfe<script>\n\x00\x01\x02"
    )
    view = RecordingView()
    view.load(data, name="<img src=x onerror=alert(1)>.jsonl")
    assert len(view.entries) == 1
    assert view.notes == [
        "2 lines left out: line 2 is not UTF-8 text; line 3 is not JSON (the "
        "text is not valid JSON: Expecting value (line 1, column 1))."
    ]
    markup = view.result.value
    assert tags(markup) <= ALLOWED_TAGS and "<img" not in markup and "<script" not in markup
    assert 'The file "<img src=x onerror=alert(1)>.jsonl", ' in as_text(view.result)


@pytest.mark.parametrize("payload", HOSTILE)
def test_recording_view_escapes_html_everywhere(payload):
    text = "\n".join(
        [
            json.dumps({"t": 0, "event": "start", "command": [payload], "judge": payload}),
            entry_line(
                "to_server",
                {"jsonrpc": "2.0", "id": payload, "method": payload},
                http={"method": payload, "path": payload},
            ),
            entry_line("from_server", payload, http={"status": payload}),
            json.dumps(
                {"t": 1, "direction": "to_server", "kind": payload, "code": None, "text": payload}
            ),
            json.dumps({"t": 2, "event": "tap_error", "detail": payload}),
            json.dumps({"t": 3, "event": "server_exited", "status": payload}),
        ]
    )
    view = RecordingView(text)
    markup = view.result.value
    assert tags(markup) <= ALLOWED_TAGS, tags(markup)
    assert payload in as_text(view.result)  # shown, as text
    for line in view.diagram.splitlines()[3:]:  # and no markup reaches Mermaid either
        assert "<" not in line and ">" not in line.split(": ", 1)[1], line


def test_mermaid_text_keeps_a_message_on_one_line_and_plain():
    """One escaping rule (mcp_lesson.shared.recording): all but letters, digits, space and
    ``_./,()`` becomes an entity code, line ends and lone surrogates included."""
    assert mermaid_text("a;b#c<br>d%e\nf\r\x00g\u2028h") == (
        "a#59;b#35;c#60;br#62;d#37;e#10;f#13;#0;g#8232;h"
    )
    assert mermaid_text("\ud800") == "#55296;"


def test_recording_view_guards_its_size():
    line = entry_line("to_server", {"jsonrpc": "2.0", "method": "x" * 500})
    big = "\n".join([line] * (RECORDING_LIMIT // len(line) + 100))
    view = RecordingView(big)
    kept = RECORDING_LIMIT // (len(line) + 1)
    assert len(view.entries) == kept
    assert view.notes == [
        f"The recording is {len(big):,} characters long; only the first "
        f"{RECORDING_LIMIT:,} are read, up to line {kept:,} (the last whole "
        "line); the rest is left out."
    ]
    assert f"Showing the first {TABLE_ROWS:,} entries of {kept:,}." in as_text(view.result)
    assert f"{kept - DIAGRAM_ARROWS:,} more not drawn" in view.diagram
    assert len(view.diagram.splitlines()) == DIAGRAM_ARROWS + 4
    assert len(view.result.value) < 600_000
    short = "\n".join([json.dumps({"event": "x"})] * (RECORDING_LINES + 5))
    entries, notes = read_recording(short)
    assert len(entries) == RECORDING_LINES
    assert notes == [
        f"The recording has more than {RECORDING_LINES:,} lines; only the first "
        f"{RECORDING_LINES:,} are read, the rest is left out."
    ]
    assert read_recording(short.encode())[1] == notes


def test_recording_view_ten_megabytes_in_one_line():
    view = RecordingView(entry_line("to_server", "<b>" * 3_500_000))
    assert view.entries == []  # the line is cut, so it is not read at all
    assert "only the first 5,000,000 are read, up to line 0" in view.notes[0]
    assert "NOTHING READ" in as_text(view.result)
    assert view.announcement.value == "Recording: no entry could be read."


def test_recording_view_upload():
    view = RecordingView()
    data = view._examples[0][1].encode()
    # What the page sends when a file is picked (ipywidgets 8's FileUpload).
    view.upload.set_state(
        {
            "value": [
                {
                    "name": "talk.jsonl",
                    "type": "",
                    "size": len(data),
                    "content": memoryview(data),
                    "last_modified": 0,
                }
            ]
        }
    )
    assert view.upload.value == ()  # the bytes are not kept in the widget
    assert len(view.entries) == 19 and view.value == ""
    assert as_text(view.result).startswith(f'The file "talk.jsonl", {len(data):,} bytes.')
    view.text.value = entry_line("to_server", {"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert len(view.entries) == 1 and "The file" not in as_text(view.result)  # typed: the box
    assert [p["problem"] for p in view.problems] == ["unanswered"]


def test_recording_view_several_sessions_are_audited_apart():
    one = [
        json.dumps({"t": 0, "event": "start"}),
        entry_line("to_server", {"jsonrpc": "2.0", "id": 1, "method": "ping"}, 0.1),
        entry_line("from_server", {"jsonrpc": "2.0", "id": 1, "result": {}}, 0.2),
    ]
    view = RecordingView("\n".join(one + one))  # the same id again, in a new session: fine
    assert [number for number, *_ in view.sessions] == [1, 2] and view.problems == []
    assert "Session 2: revision none" in as_text(view.result)
    assert "    Note over C,S: session 2 (4)" in view.diagram


def test_recording_view_fails_soft_without_the_audit(monkeypatch):
    text = RecordingView()._examples[0][1]
    monkeypatch.setattr(tap, "audit", lambda *args: 1 / 0)
    view = RecordingView(text)
    assert "the audit could not finish (ZeroDivisionError)" in as_text(view.result)
    assert view.diagram and len(view.entries) == 19
    monkeypatch.setitem(__import__("sys").modules, "mcp_lesson.tap", None)
    monkeypatch.delattr(__import__("mcp_lesson"), "tap")
    view = RecordingView(text)
    shown = as_text(view.result)
    assert "NO AUDIT" in shown and "cannot be loaded here (ModuleNotFoundError)" in shown
    assert view.announcement.value == "Recording: 19 entries; no audit here."
    assert "sequenceDiagram" in shown


@pytest.mark.parametrize(
    "entry",
    [
        {"direction": "to_server", "truncated": True, "size": 99},
        {"direction": "to_server", "truncated": True, "size": "<big>"},
        {"direction": "from_server", "bytes": "!!!", "text": "x"},
        {"direction": "from_server", "bytes": 5},
        {"direction": "to_server", "text": 5, "kind": {"a": 1}, "code": True, "t": "soon"},
        {"direction": "from_server", "http": [1, 2], "text": "{}"},
        {"direction": "from_server", "http": {"status": {"x": 1}}, "sse": 3, "text": "{}"},
        {"event": {"a": 1}, "status": [1], "t": 1e308},
        {"event": "start", "command": "not a list"},
        {"event": "start", "command": [1, None, {"x": 2}]},
        {"direction": "to_server", "judge_error": "boom", "text": "x"},
        {
            "direction": "to_server",
            "text": '{"jsonrpc":"2.0","id":1,"method":"initialize",'
            '"params":{"protocolVersion":{"x":1}}}',
        },
    ],
)
def test_recording_view_takes_entries_of_odd_shapes(entry):
    view = RecordingView(json.dumps(entry))
    assert "could not show" not in as_text(view.result)
    assert len(view.entries) == 1
    sendable(view.result)


def test_recording_view_a_long_paste_waits_for_the_typing_to_pause():
    async def steps():
        view = RecordingView()
        line = entry_line("to_server", {"jsonrpc": "2.0", "id": 1, "method": "ping"})
        text = "\n".join([line] * (INSTANT_LIMIT // len(line) + 10))
        judged = view.judged
        view.text.value = text[:-1]
        view.text.value = text
        assert view.judged == judged and "when the typing pauses" in as_text(view.result)
        await settled(view, judged + 1)
        assert view.judged == judged + 1 and len(view.entries) == text.count("\n") + 1

    widgets._judging.PAUSE, pause = 0.05, widgets._judging.PAUSE
    try:
        in_a_kernel_loop(steps)
    finally:
        widgets._judging.PAUSE = pause


def test_the_diagram_follows_the_times_not_the_file_order():
    request = entry_line("to_server", {"jsonrpc": "2.0", "id": 1, "method": "ping"}, 0.5)
    answer = entry_line("from_server", {"jsonrpc": "2.0", "id": 1, "result": {}}, 0.7)
    entries, _ = read_recording(answer + "\n" + request)  # written out of order, as can happen
    assert sequence_diagram(entries).splitlines()[3:] == [
        "    C->>S: (2) ping (id 1)",
        "    S-->>C: (1) result (id 1)",
    ]
    assert RecordingView(answer + "\n" + request).problems == []


def test_recording_view_shows_the_rest_when_one_entry_breaks_and_escapes_controls():
    """One bad entry (a t of 5,000 digits) does not blank the view; ESC, BEL and
    U+202E are shown as escapes; the diagram is drawn as a picture beside its text."""
    good = entry_line("to_server", {"jsonrpc": "2.0", "id": 1, "method": "ping"}, 0.1)
    huge = (
        '{"t": ' + "9" * 5000 + ', "direction": "from_server", "kind": "response", '
        '"code": null, "text": "{\\"jsonrpc\\": \\"2.0\\", \\"id\\": 1, \\"result\\": {}}"}'
    )
    hostile = json.dumps(
        {
            "t": 0.3,
            "direction": "to_server",
            "kind": "invalid",
            "code": -32700,
            "text": "\x1b[2J\x07\u202eevil",
        }
    )
    view = RecordingView("\n".join([good, huge, hostile]))
    shown = as_text(view.result)
    assert "could not show this" not in shown and len(view.entries) == 3
    assert "(a number too large to show)" in shown
    assert "\\x1b[2J\\x07\\u202eevil" in shown
    assert not any(char in view.result.value for char in "\x1b\x07\u202e")
    drawn = view.picture.outputs
    assert (
        len(drawn) == 1 and drawn[0]["data"]["text/markdown"] == f"```mermaid\n{view.diagram}\n```"
    )
