"""The recording view: a recording of live traffic (the tap's JSON Lines) as a
table, a sequence diagram (mcp_lesson.shared.recording) and the tap's audit.
"""

import base64
import json

import ipywidgets as widgets

from mcp_lesson.exercises.calling import one_line, python_text
from mcp_lesson.protocol.strict_json import parse
from mcp_lesson.protocol.values import json_type
from mcp_lesson.rules.classification import classify_json
from mcp_lesson.shared.recording import sequence_diagram
from mcp_lesson.widgets._html import (
    _MONO,
    _cut,
    _live,
    _p,
    _plain_pre,
    _quoted,
    _styles,
    _table,
    badge,
    clean,
    escape,
)
from mcp_lesson.widgets._judging import _Judging
from mcp_lesson.widgets.recording_examples import recording_examples

#: A recording is read up to this many characters (pasted) or bytes (a file), and lines.
RECORDING_LIMIT = 5_000_000
RECORDING_LINES = 10_000
#: How much of it is shown: rows of the table, arrows of the diagram, characters of a text,
#: lines that were left out, and the audit's problems.
TABLE_ROWS = 300
TEXT_SHOWN = 80
LEFT_OUT_SHOWN = 20
PROBLEMS_SHOWN = 100

_DIRECTIONS = ("to_server", "from_server")
_WHO = {"to_server": "client → server", "from_server": "server → client"}


def read_recording(data):
    """``(entries, notes)``: the entries of a recording (the tap's JSON Lines), text or bytes.

    Each entry is the line's JSON object, with ``_line``, its line number (as
    ``mcp_lesson.tap.read_recording`` notes it). ``notes`` says in plain words
    what was not read: anything past :data:`RECORDING_LIMIT` characters (bytes,
    for bytes) or :data:`RECORDING_LINES` lines, and, by line number, each line
    that is not UTF-8, not JSON, or no entry (an entry is an object with a
    ``direction`` of ``to_server`` or ``from_server``, or an ``event``).
    Nothing in it is evaluated; never raises.
    """
    notes, entries = [], []
    is_bytes = isinstance(data, (bytes, bytearray, memoryview))
    if is_bytes:
        data = bytes(data)
    elif not isinstance(data, str):
        return [], [f"A recording is text, not {type(data).__name__}."]
    unit = "bytes" if is_bytes else "characters"
    size, cut = len(data), len(data) > RECORDING_LIMIT
    if cut:
        data = data[:RECORDING_LIMIT]
    lines = data.split(b"\n" if is_bytes else "\n")
    if cut:
        lines.pop()  # the line the cut went through
        notes.append(
            f"The recording is {size:,} {unit} long; only the first {RECORDING_LIMIT:,} "
            f"are read, up to line {len(lines):,} (the last whole line); the rest is "
            "left out."
        )
    if len(lines) > RECORDING_LINES and any(line.strip() for line in lines[RECORDING_LINES:]):
        notes.append(
            f"The recording has more than {RECORDING_LINES:,} lines; only the first "
            f"{RECORDING_LINES:,} are read, the rest is left out."
        )
    left_out = []
    for number, line in enumerate(lines[:RECORDING_LINES], 1):
        if not line.strip():
            continue
        if is_bytes:
            try:
                line = line.decode("utf-8")
            except UnicodeDecodeError:
                left_out.append(f"line {number} is not UTF-8 text")
                continue
        value, problem = parse(line)
        if problem is not None:
            left_out.append(f"line {number} is not JSON ({problem})")
        elif not isinstance(value, dict):
            left_out.append(
                f"line {number} is {json_type(value)}, not an entry (a JSON object "
                "with a direction or an event)"
            )
        elif "direction" in value and value["direction"] not in _DIRECTIONS:
            left_out.append(
                f"line {number}: its direction "
                f"{_cut(python_text(value['direction'], 40), 40)} is neither "
                "to_server nor from_server"
            )
        elif "direction" not in value and "event" not in value:
            left_out.append(f"line {number} is an object with neither a direction nor an event")
        else:
            value["_line"] = number
            entries.append(value)
    if left_out:
        shown = left_out[:LEFT_OUT_SHOWN]
        more = len(left_out) - len(shown)
        notes.append(
            f"{len(left_out):,} line{'s' if len(left_out) > 1 else ''} left out: "
            + "; ".join(shown)
            + (f"; and {more:,} more." if more else ".")
        )
    return entries, notes


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _recorded_text(entry):
    """The text of a recorded line (str), or None."""
    text = entry.get("text")
    return text if isinstance(text, str) else None


def _verdict_words(kind, code):
    return kind if code is None else f"{kind} {code}"


def _field(value, limit=60):
    """A recorded field as plain words: a string as it is, anything else as JSON; cut short."""
    if isinstance(value, str):
        return _cut(value, limit)
    return _cut(
        python_text(value, limit)
        if not isinstance(value, (int, float, type(None)))
        else json.dumps(value),
        limit,
    )


def _shown_row(entry):
    """:func:`_row`, never raising (an entry built to break it is a row saying so), with
    every control and direction character of its cells as an escape (``\\x1b``,
    ``\\u202e``), as the other tables show them."""
    try:
        cells = _row(entry)
    except Exception as exc:
        cells = [
            (str(entry.get("_line", "")), False),
            ("", False),
            ("", False),
            ("", False),
            ("", False),
            (f"(this entry could not be shown: {type(exc).__name__})", False),
        ]
    return [(one_line(cell, 10**6), mono) for cell, mono in cells]


def _seconds(t):
    """A recorded time, in seconds, as the table shows it."""
    if not _number(t):
        return ""
    try:
        return f"{t:.3f}"
    except (OverflowError, ValueError):
        return "(a number too large to show)"


def _row(entry):
    """One row of the table: line, t, who, HTTP, verdict, text (all plain text)."""
    t = _seconds(entry.get("t"))
    line = str(entry.get("_line", ""))
    direction = entry.get("direction")
    http = entry.get("http") if isinstance(entry.get("http"), dict) else {}
    if direction not in _DIRECTIONS:
        event = entry.get("event")
        details = [
            f"{key} {_field(entry[key])}"
            for key in ("status", "method", "path", "detail", "signal", "transport", "to")
            if key in entry
        ]
        if isinstance(entry.get("command"), list):
            details.append("command " + _cut(" ".join(map(str, entry["command"])), 60))
        if entry.get("stream") is True:
            details.append("an event stream opens")
        words = _field(event, 40) + (": " + ", ".join(details) if details else "")
        return [
            (line, False),
            (t, False),
            ("event", False),
            ("", False),
            ("", False),
            (words, False),
        ]
    where = ""
    if direction == "to_server" and http:
        where = f"{_cut(str(http.get('method', '')), 12)} {_cut(str(http.get('path', '')), 30)}"
    elif http:
        where = _cut(str(http.get("status", "")), 12) + (", SSE event" if "sse" in entry else "")
    kind, code = entry.get("kind"), entry.get("code")
    if entry.get("truncated"):
        said = f"not judged ({_cut(python_text(entry.get('size'), 20), 20)} bytes, cut by the tap)"
    elif "judge_error" in entry:
        said = "the judge failed"
    elif isinstance(kind, str) and (
        code is None or (isinstance(code, int) and not isinstance(code, bool))
    ):
        said = _verdict_words(_cut(kind, 20), code)
        raw = _raw(entry)
        if raw is not None:
            course = classify_json(raw)
            if list(course) != [kind, code]:
                said += f"; the course's rules: {_verdict_words(*course)}"
    else:
        said = "no verdict recorded"
    text = _recorded_text(entry)
    shown = "" if text is None else _cut(text, TEXT_SHOWN)
    if "bytes" in entry:
        shown += " (not UTF-8: shown with U+FFFD)"
    return [
        (line, False),
        (t, False),
        (_WHO[direction], False),
        (where, True),
        (said, True),
        (shown, True),
    ]


def _raw(entry):
    if "bytes" in entry:
        try:
            return base64.b64decode(str(entry["bytes"]), validate=True)
        except (ValueError, TypeError):
            return None
    return _recorded_text(entry)


def audit_recording(entries):
    """The tap's audit of each session: ``[(session, revision, how, problems)]``, or
    ``(None, words)`` when the tap's module cannot be loaded here. ``problems`` are the dicts of
    ``mcp_lesson.tap.audit``; a session whose audit fails has None and says why in ``how``."""
    try:
        from mcp_lesson import tap  # the tap's module; loaded only when a recording is shown
    except Exception as exc:
        return None, (
            f"the audit needs mcp_lesson.tap, which cannot be loaded here ({type(exc).__name__})"
        )
    found = []
    for number, session in enumerate(tap.sessions(entries), 1):
        try:
            revision, how = tap.agreed_revision(session)
            problems = tap.audit(session, revision)
        except Exception as exc:  # a recording no tap wrote, with fields of odd types
            found.append((number, None, f"the audit could not finish ({type(exc).__name__})", None))
            continue
        found.append((number, revision, how, problems))
    return found, None


class RecordingView(_Judging, widgets.VBox):
    """Paste or upload a recording (the tap's JSON Lines); see its table, its sequence
    diagram and the audit.

    * the table: one row per entry (line, time, who sent it, its HTTP method
      or status, the recorded verdict, the text cut short), at most
      :data:`TABLE_ROWS` rows;
    * the diagram: :func:`sequence_diagram`, as Mermaid text, and drawn as a
      picture (``.picture``) where the front end draws Mermaid (JupyterLab): the
      text is safe to render, whatever the recording holds, as every character
      outside a small safe set is an entity code;
    * the audit: ``mcp_lesson.tap.audit`` of each session, one line per problem.

    ``.value`` is the pasted text (``.text`` its box); :meth:`load` takes the
    bytes of a file, as the upload button (``.upload``) does. The results are
    data too: ``.entries``, ``.notes`` (what was not read, and why),
    ``.sessions`` (the audit: ``(number, revision, how, problems)`` each),
    ``.problems`` (all of them, each with its ``session``) and ``.diagram``.
    Everything shown is escaped; nothing in a recording is evaluated.
    """

    _HINT = (
        "Paste a recording (JSON Lines, as the tap writes them), upload one, or pick an example."
    )

    def __init__(self, value="", **kwargs):
        self._examples = recording_examples()
        self.examples = widgets.Dropdown(
            options=[("Pick an example...", -1)]
            + [(label, i) for i, (label, _) in enumerate(self._examples)],
            value=-1,
            description="Example:",
            layout=widgets.Layout(width="min(100%, 40em)"),
        )
        self.upload = widgets.FileUpload(
            accept=".jsonl,.json,.txt,.log",
            multiple=False,
            description="Upload a recording",
            layout=widgets.Layout(width="auto"),
        )
        self.upload.add_class("mcp-recording-upload")
        self.text = widgets.Textarea(
            value="",
            description="Recording:",
            continuous_update=True,
            placeholder='{"t":0.01,"direction":"to_server","kind":"request","code":null,'
            '"text":"..."}',
            layout=widgets.Layout(width="100%", height="9em"),
        )
        self.text.add_class("mcp-recording-input")
        self.text.add_class("mcp-mono")
        self.result = widgets.HTML()
        self.result.add_class("mcp-recording-result")
        #: The diagram drawn as a picture, where the front end draws Mermaid (JupyterLab
        #: does; its text is in the result beside it). Safe to render: every character of
        #: it outside a small safe set is an entity code (mcp_lesson.shared.recording).
        self.picture = widgets.Output()
        self.picture.add_class("mcp-recording-picture")
        self._drawn = None
        self.announcement = _live(widgets.HTML())
        self.announcement.add_class("mcp-sr-only")
        self.announcement.add_class("mcp-recording-announcement")
        self._start_judging()
        self._file = None  # (name, bytes) of the file shown, until the box is typed in
        self._waiting()
        super().__init__(
            [
                *_styles(),
                self.examples,
                self.upload,
                self.text,
                self.announcement,
                self.result,
                self.picture,
            ],
            **kwargs,
        )
        self.add_class("mcp-tool")
        self.add_class("mcp-recording")
        self.examples.observe(self._on_example, names="value")
        self.text.observe(self._on_text, names="value")
        self.upload.observe(self._on_upload, names="value")
        self._show()
        if value:
            self.value = value

    def __repr__(self):
        return (
            "RecordingView: a recording's table, diagram and audit (run the cell to start the tool)"
        )

    @property
    def value(self):
        return self.text.value

    @value.setter
    def value(self, text):
        if isinstance(text, (bytes, bytearray, memoryview)):
            self.load(bytes(text))
            return
        self._file = None
        self._from_code = True
        try:
            self.text.value = clean(text)
        finally:
            self._from_code = False
        self._cancel_pending()
        self._show()

    def load(self, data, name="the file"):
        """Show the recording in ``data`` (the bytes of a file); the text box is emptied."""
        self._file = (clean(name), bytes(data))
        self._from_code = True
        try:
            self.text.value = ""
            self.examples.value = -1
        finally:
            self._from_code = False
        self._cancel_pending()
        self._show()

    def choose(self, name):
        """Pick an example by its label (or the start of it); returns the label."""
        for i, (label, _) in enumerate(self._examples):
            if label == name or label.startswith(name):
                self.examples.value = i
                return label
        raise KeyError(f"no example named {name!r}")

    def _on_example(self, change):
        if change["new"] is not None and change["new"] >= 0 and not self._from_code:
            self.value = self._examples[change["new"]][1]

    def _on_upload(self, change):
        files = change["new"]
        if isinstance(files, dict):  # ipywidgets 7: {name: {"metadata": ..., "content": ...}}
            files = [
                {"name": name, **entry.get("metadata", {}), "content": entry.get("content")}
                for name, entry in files.items()
            ]
        if not files:
            return
        chosen = files[0]
        try:
            data = bytes(chosen.get("content") or b"")
        except (TypeError, ValueError):
            data = b""
        name = str(chosen.get("name") or "the file")
        try:
            self.upload.value = ()  # let go of the bytes (and let the same file come again)
        except Exception:
            pass
        self.load(data, name)

    def _on_text(self, change):
        if self._from_code:
            return
        self._file = None  # typed or pasted into: the box is what is shown now
        chosen = self.examples.value
        if chosen is not None and chosen >= 0 and change["new"] != self._examples[chosen][1]:
            self.examples.value = -1
        self._changed(len(change["new"]))

    def _waiting(self):
        self.entries, self.notes, self.sessions, self.problems = [], [], [], []
        self.diagram = ""
        self._state = "waiting"

    def _show(self):
        super()._show()
        if self.diagram != self._drawn:  # draw the picture again only when it changed
            self._drawn = self.diagram
            drawn = f"```mermaid\n{self.diagram}\n```"
            self.picture.outputs = (
                (
                    {
                        "output_type": "display_data",
                        "metadata": {},
                        "data": {"text/markdown": drawn, "text/plain": self.diagram},
                    },
                )
                if self.diagram
                else ()
            )

    def _spoken(self):
        if self._state == "waiting":
            return "Waiting for a recording."
        if self._state == "empty":
            return "Recording: no entry could be read."
        said = f"Recording: {len(self.entries):,} entries"
        if self._state == "no audit":
            return said + "; no audit here."
        count = len(self.problems)
        if not count:
            return said + ", no problems."
        return said + f", {count:,} problem{'s' if count > 1 else ''}."

    def _render(self):
        self._waiting()
        if self._file is not None:
            name, data = self._file
            source = f"The file {_quoted(name, 80)}, {len(data):,} bytes."
        else:
            data, source = self.text.value, ""
            if data.strip() == "":
                return (
                    f'<div class="mcp-verdict" style="line-height: 1.45"><p>'
                    f"{badge('waiting', 'WAITING')} {escape(self._HINT)}</p></div>"
                )
        entries, notes = read_recording(data)
        self.entries, self.notes = entries, notes
        parts = ['<div class="mcp-verdict" style="line-height: 1.45">']
        if source:
            parts.append(_p(source, "mcp-recording-source"))
        if not entries:
            self._state = "empty"
            parts.append(
                f"<p>{badge('fail', 'NOTHING READ')} No line is an entry of a recording "
                "(a JSON object with a direction or an event, one a line).</p>"
            )
            parts += [_p(one_line(note, 10**6), "mcp-recording-note") for note in notes]
            return "".join(parts) + "</div>"
        audited, trouble = audit_recording(entries)
        messages = sum(entry.get("direction") in _DIRECTIONS for entry in entries)
        head = (
            f"{len(entries):,} entries: {messages:,} messages and "
            f"{len(entries) - messages:,} events"
        )
        if audited is None:
            self._state = "no audit"
            parts.append(
                f"<p>{badge('waiting', 'NO AUDIT')} {escape(head)}; {escape(trouble)}.</p>"
            )
        else:
            self._state = "audited"
            self.sessions = audited
            self.problems = [
                {"session": number, **problem}
                for number, _, _, problems in audited
                for problem in problems or ()
            ]
            count = len(self.problems)
            mark = (
                badge("fail", f"{count} PROBLEM{'S' if count > 1 else ''}")
                if count
                else badge("pass", "NO PROBLEMS")
            )
            finds = f"{count:,} problem{'s' if count > 1 else ''}" if count else "no problem"
            parts.append(f"<p>{mark} {escape(head)}; the audit finds {escape(finds)}.</p>")
        parts += [_p(one_line(note, 10**6), "mcp-recording-note") for note in notes]
        parts.append("<p><b>The messages:</b></p>")
        rows = [_shown_row(entry) for entry in entries[:TABLE_ROWS]]
        parts.append(
            _table(
                "mcp-recording-table",
                ("line", "t (s)", "from → to", "HTTP", "verdict", "text"),
                rows,
            )
        )
        if len(entries) > TABLE_ROWS:
            parts.append(_p(f"Showing the first {TABLE_ROWS:,} entries of {len(entries):,}."))
        self.diagram = sequence_diagram(entries)
        parts.append(
            "<p><b>The conversation as a Mermaid sequence diagram</b> (drawn below "
            "where JupyterLab can; the text, to paste into any Mermaid viewer; solid "
            "arrows are requests, open ones notifications, dashed ones answers, "
            "crossed ones no valid message):</p>"
        )
        parts.append(_plain_pre(self.diagram, "mcp-recording-diagram"))
        if audited is not None:
            parts += self._audit_part(audited)
        return "".join(parts) + "</div>"

    @staticmethod
    def _audit_part(audited):
        parts = [
            "<p><b>The audit</b> (mcp_lesson.tap's, as <span "
            f'style="{_MONO}">python -m mcp_lesson.tap --report</span> gives it):</p>'
        ]
        shown = 0
        for number, revision, how, problems in audited:
            lead = f"Session {number}" if len(audited) > 1 else "The conversation"
            if problems is None:
                parts.append(_p(f"{lead}: {how}.", "mcp-recording-audit", "margin: 2px 0"))
                continue
            parts.append(
                _p(
                    f"{lead}: revision {revision or 'none'} ({how}).",
                    "mcp-recording-audit",
                    "margin: 2px 0",
                )
            )
            if not problems:
                parts.append(
                    _p(
                        "No problems: every request answered once, nothing else "
                        "answered, only JSON-RPC from the server, every message valid.",
                        "mcp-recording-problem",
                        "margin: 2px 0 2px 1.5em",
                    )
                )
            for problem in problems:
                if shown == PROBLEMS_SHOWN:
                    break
                shown += 1
                line = problem.get("line")
                where = f"line {line}" if line is not None else "at the end"
                parts.append(
                    _p(
                        f"{where}: {one_line(_cut(problem.get('detail', ''), 400), 10**6)}",
                        "mcp-recording-problem",
                        "margin: 2px 0 2px 1.5em",
                    )
                )
        total = sum(len(problems or ()) for _, _, _, problems in audited)
        if total > shown:
            parts.append(
                _p(
                    f"Showing the first {shown:,} problems of {total:,}; "
                    "python -m mcp_lesson.tap --report lists them all."
                )
            )
        return parts
