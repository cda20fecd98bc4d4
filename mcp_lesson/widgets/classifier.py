"""The classifier: paste a message, see its kind, its code, the rule that decided it
and the reply a strict server would send.
"""

import json

import ipywidgets as widgets

from mcp_lesson.exercises.cases import CASES, TEXT_CASES
from mcp_lesson.rules.classification import REVISIONS, classify, parse, reply_for, switches
from mcp_lesson.rules.explanation import explain, parse_error_explanation, revision_note
from mcp_lesson.rules.messages import ERROR_MESSAGES, PARSE_ERROR, error_response
from mcp_lesson.widgets._html import (
    _MONO,
    _NOTE,
    COURSE_RULES,
    DropdownWithNone,
    _live,
    _pre,
    _styles,
    badge,
    clean,
    escape,
)
from mcp_lesson.widgets._judging import _Judging


def _message_text(message):
    """A parsed example as pretty JSON text, or None if it has no JSON form."""
    try:
        return json.dumps(message, indent=2, ensure_ascii=False)
    except (TypeError, ValueError):
        return None


def _wire_text(text):
    """A raw-text example as a text area holds it, or None (invalid UTF-8 cannot be typed)."""
    if isinstance(text, (bytes, bytearray)):
        try:
            return bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            return None
    return text


def examples():
    """``(label, text)`` for every example a text area can hold, in table order:
    the parsed messages of ``CASES`` as pretty JSON, then ``TEXT_CASES`` as written."""
    found = []
    tables = [
        (CASES, lambda case: _message_text(case.message)),
        (TEXT_CASES, lambda case: _wire_text(case.text)),
    ]
    for table, text_of in tables:
        for case in table:
            text = text_of(case)
            if text is not None:
                code = f" {case.code}" if case.code is not None else ""
                found.append((f"{case.kind}{code}: {case.name}", text))
    return found


def verdict(text, revision=None):
    """``(kind, code, reason, reply, value)`` for pasted text, as the package sees it
    (under ``revision``: None for the course's rules, or one of ``REVISIONS``).

    The text is parsed once; ``value`` is the parsed message, or None when the
    text is not JSON (then the ``*_json`` helpers give the parse-error verdict).
    """
    switches(revision)  # an unknown revision is a ValueError, as everywhere
    value, problem = parse(text)
    if problem is None:
        kind, code = classify(value, revision)
        reason, reply = explain(value, revision), reply_for(value, revision)
        return kind, code, reason, reply, value
    return (
        "invalid",
        PARSE_ERROR,
        parse_error_explanation(problem),
        error_response(None, PARSE_ERROR, ERROR_MESSAGES[PARSE_ERROR]),
        None,
    )


class Classifier(_Judging, widgets.VBox):
    """Paste a message, see what it is: kind, code, reason and the server's reply.

    ``.value`` is the text in the text area; ``.result`` is the ``HTML``
    widget that shows the verdict; ``.kind`` and ``.code`` hold it as data and
    ``.badge`` the badge alone. ``.examples`` is the drop-down of examples.
    ``.announcement`` is the live region a screen reader reads out: one line
    with the kind and the code (visually hidden: the result shows the same).
    ``.judged`` counts the texts judged so far. ``.revision`` is the drop-down
    of MCP revisions (a :class:`DropdownWithNone`; by default it shows the course's
    rules, and its ``.value`` is then None); when the verdict differs between
    revisions, one line under the reason says how.
    """

    _HINT = "Paste a JSON-RPC message above, or pick an example."

    def __init__(self, value="", **kwargs):
        self._examples = examples()
        self.examples = widgets.Dropdown(
            options=[("Pick an example...", -1)]
            + [(label, i) for i, (label, _) in enumerate(self._examples)],
            value=-1,
            description="Example:",
            layout=widgets.Layout(width="min(100%, 40em)"),
        )
        self.revision = DropdownWithNone(
            options=[(COURSE_RULES, None)] + [(f"MCP {r}", r) for r in REVISIONS],
            value=None,
            description="Revision:",
            layout=widgets.Layout(width="min(100%, 24em)"),
        )
        self.revision.add_class("mcp-classifier-revision")
        self.text = widgets.Textarea(
            value="",
            description="Message:",
            placeholder='{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}',
            continuous_update=True,
            layout=widgets.Layout(width="100%", height="9em"),
        )
        self.text.add_class("mcp-classifier-input")
        self.badge = widgets.HTML()
        self.badge.add_class("mcp-classifier-badge")
        self.result = widgets.HTML()
        self.result.add_class("mcp-classifier-result")
        self.announcement = _live(widgets.HTML())
        self.announcement.add_class("mcp-sr-only")
        self.announcement.add_class("mcp-classifier-announcement")
        self.kind, self.code = None, None
        self._wire = None  # (text shown, the bytes it came from) for a bytes value
        self._start_judging()
        super().__init__(
            [*_styles(), self.examples, self.revision, self.text, self.announcement, self.result],
            **kwargs,
        )
        self.add_class("mcp-tool")
        self.add_class("mcp-classifier")
        self.examples.observe(self._on_example, names="value")
        self.text.observe(self._on_text, names="value")
        self.revision.observe(self._on_revision, names="value")
        self._show()
        if value:
            self.value = value

    def __repr__(self):
        return "Classifier: the message classifier (run the cell to start the tool)"

    @property
    def value(self):
        return self.text.value

    @value.setter
    def value(self, text):
        self._wire = None
        if isinstance(text, (bytes, bytearray)):
            # The text area holds text, so bad UTF-8 is shown replaced, but the
            # verdict is still about the bytes as they came (a parse error).
            raw = bytes(text)
            text = clean(raw.decode("utf-8", "replace"))
            self._wire = (text, raw)
        text = clean(text)
        self._from_code = True
        try:
            if text == self.text.value:
                self._cancel_pending()
                self._show()  # no change event fires, but the verdict may differ
            self.text.value = text
        finally:
            self._from_code = False

    def choose(self, name):
        """Pick an example by its case name (or full label); returns the label."""
        for i, (label, _) in enumerate(self._examples):
            if name == label or label.endswith(": " + name):
                self.examples.value = i
                return label
        raise KeyError(f"no example named {name!r}")

    def _on_example(self, change):
        if change["new"] is not None and change["new"] >= 0:
            self.value = self._examples[change["new"]][1]

    def _on_revision(self, change):
        self._cancel_pending()
        self._show()

    def _on_text(self, change):
        text = change["new"]
        chosen = self.examples.value
        if chosen is not None and chosen >= 0 and text != self._examples[chosen][1]:
            self.examples.value = -1  # edited by hand: no longer that example
        self._changed(len(text))

    def _waiting(self):
        self.kind, self.code = None, None
        self.badge.value = badge("waiting", "WAITING")

    def _failed(self, exc):
        self.kind, self.code = "invalid", None
        self.badge.value = badge("invalid", "ERROR")
        return (
            f"<p>{self.badge.value} The playground could not show this text "
            f"({escape(type(exc).__name__)}).</p>"
        )

    def _spoken(self):
        """The verdict in one sentence, for the live region."""
        if self.kind is None:
            return "Waiting for a message."
        if self.code is None:
            return f"Verdict: {self.kind}, no error code."
        name = ERROR_MESSAGES.get(self.code, "error")
        return f"Verdict: {self.kind}, error code {self.code} ({name})."

    def _render(self):
        text = self.text.value
        if text == "":
            self.kind, self.code = None, None
            self.badge.value = badge("waiting", "WAITING")
            return (
                '<div class="mcp-verdict" style="line-height: 1.45">'
                f"<p>{self.badge.value} {escape(self._HINT)}</p>"
                f'<p class="mcp-note" style="{_NOTE}">(Empty text is not a message: '
                "a server would answer it with a parse error, -32700.)</p></div>"
            )
        wire = self._wire
        kind, code, reason, reply, value = verdict(
            wire[1] if wire and wire[0] == text else text, self.revision.value
        )
        self.kind, self.code = kind, code
        self.badge.value = badge(kind)
        if code is None:
            code_text = "no error code"
        else:
            code_text = f"error code {code} ({ERROR_MESSAGES.get(code, 'error')})"
        parts = [
            '<div class="mcp-verdict" style="line-height: 1.45">',
            f'<p>{self.badge.value} <span class="mcp-code" style="{_MONO}">'
            f"{escape(code_text)}</span></p>",
            f'<p class="mcp-reason" style="white-space: pre-wrap">{escape(reason)}</p>',
        ]
        note = revision_note(value) if value is not None else None
        if note is not None:
            parts.append(
                f'<p class="mcp-revisions" style="{_NOTE}">Across MCP revisions: '
                f"{escape(note)}.</p>"
            )
        parts.append("<p><b>A strict server replies:</b></p>")
        if reply is None:
            why = {
                "request": "the application answers it with a result or an error for this id",
                "notification": "nobody replies to a notification",
                "response": "a response is an answer; nobody replies to it",
                "batch": "no member of the batch is owed an error; the application adds its "
                "answers to the requests in one list",
            }[kind]
            parts.append(f'<p class="mcp-reply" style="{_NOTE}">nothing ({escape(why)})</p>')
        else:
            parts.append(f'<div class="mcp-reply">{_pre(reply)}</div>')
        if value is not None:
            parts.append("<p><b>The message, pretty-printed:</b></p>")
            parts.append(f'<div class="mcp-message">{_pre(value, len(text))}</div>')
        parts.append("</div>")
        return "".join(parts)
