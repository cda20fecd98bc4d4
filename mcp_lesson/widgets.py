"""Widgets for the playground: classify any message, quiz yourself, check your code,
judge a POST over HTTP, and read a recording of live traffic.

Five tools, each an ``ipywidgets`` box you display by leaving it as the last
line of a cell:

* :class:`Classifier`: paste a message (or pick an example); it shows the kind
  as a coloured badge, the error code, the reason from :func:`explain` and the
  reply a strict server would send.
* :class:`Quiz`: shows a message from the case table; you pick its kind and are
  told whether you are right, and why. Give it a ``seed`` for a fixed order.
  Answered from code, ``"Request"`` counts as ``"request"``; a word that is no
  kind at all is not counted, and the feedback names the four kinds.
* :class:`Checker`: runs the self-check on your own function and shows the
  pass/fail table.
* :class:`HttpView`: paste the headers (``Name: value`` a line) and the body
  of a POST; it shows what a strict 2026-07-28 server answers (lesson 09's
  ``check_headers``), the body's verdict, and what a client of the chosen
  revision would send for it (``http_request_for``), its headers beside yours.
* :class:`RecordingView`: paste or upload a recording made by the tap
  (``python -m mcp_lesson.tap``, JSON Lines); it shows the messages as a
  table, the conversation as a Mermaid sequence diagram (as text: it is not
  drawn, since a recording is anybody's input) and the tap's audit, one line
  per problem. The tap's module is only loaded when a recording is shown, and
  the view still shows the table and the diagram where it cannot be.

Every result goes into a widget value (``HTML`` or ``Label``), never into a
print from a callback, so the tools work alike in JupyterLab, in Voila and
under nbval, and code can drive them: set ``classifier.value`` and read
``classifier.result.value`` (or :func:`as_text` of it).

Safety: an ``ipywidgets.HTML`` value is rendered as markup, unsanitized. So
everything that comes from the pasted text (the message, the reason, which
quotes values from it, and the reply, which may echo its id) is passed
through :func:`html.escape` before it goes in; so is every header, every line
and field of a recording, and every file name. Pasted text is only parsed as
JSON, never evaluated. Bad input gets a line that says what is wrong, by line
number where it has one, never a traceback; big input is cut, and the cut is
said (:data:`HEADERS_LIMIT`, :data:`RECORDING_LIMIT`, :data:`RECORDING_LINES`).

Typing: a text of up to :data:`INSTANT_LIMIT` characters is judged at every
keystroke. A longer one (a big paste) is judged once typing pauses for
:data:`PAUSE` seconds, so the kernel parses a 10 MB paste once, not once per key.
Set from code (``classifier.value = ...``), a text is always judged at once.

Accessibility: every control has a visible label (the buttons their text);
the badge colours keep a contrast of at least 4.5:1 with their white text;
each tool's verdict (the classifier's kind and code, the quiz's answer, the
checker's score) sits in a live region, announced by screen readers when it
changes. ipywidgets cannot set ARIA attributes, so each tool carries a small
fixed script (:data:`LIVE_REGION_SCRIPT`, in an ``Output`` widget) that marks
its ``mcp-live`` parts ``role="status"``; the script holds nothing from the
input.
"""

import asyncio
import base64
import html
import json
import random
import re
from html.parser import HTMLParser

import ipywidgets as widgets
from IPython.display import Javascript
from traitlets import observe

from ._safe import one_line, python_text
from .cases import CASES, HEADER_CHECKS, TEXT_CASES
from .classification import (
    REVISIONS,
    classify,
    classify_json,
    explain,
    json_type,
    parse,
    parse_error_explanation,
    reply_for,
    revision_note,
    switches,
)
from .core.transport import (
    HEADER_MISMATCH,
    HTTP_REVISIONS,
    NAME_OF,
    STATELESS,
    SUPPORTED,
    UNSUPPORTED_PROTOCOL_VERSION,
    check_headers,
    http_request_for,
)
from .messages import ERROR_MESSAGES, INVALID_PARAMS, PARSE_ERROR, error_response
from .recording import DIAGRAM_ARROWS, in_time_order, mermaid_text, sequence_diagram  # noqa: F401
from .selfcheck import run_check

KINDS = ("request", "notification", "response", "invalid")

#: Badge colours (background) per kind; white text on each, at a contrast of
#: 4.5:1 or more (WCAG AA for small text).
COLOURS = {
    "request": "#0969da",
    "notification": "#8250df",
    "response": "#1a7f37",
    "invalid": "#cf222e",
    "batch": "#9a6700",
    "waiting": "#57606a",
    "pass": "#1a7f37",
    "fail": "#cf222e",
}

#: Texts up to this many characters are judged at every keystroke; longer ones
#: once typing pauses for :data:`PAUSE` seconds.
INSTANT_LIMIT = 50_000
PAUSE = 0.5

#: How many characters of a pretty-printed message or reply are shown.
PREVIEW_LIMIT = 4000

#: The label of revision None (the course's rules) in the classifier's Revision drop-down.
COURSE_RULES = "the course's rules"

_MONO = "font-family: var(--jp-code-font-family, monospace); font-size: 12px"
_PRE = (
    f"{_MONO}; white-space: pre-wrap; word-break: break-all; margin: 4px 0;"
    " padding: 6px 8px; border-radius: 4px; background: #f6f8fa; color: #1f2328;"
    " max-height: 24em; overflow: auto; line-height: 1.35"
)
_SURROGATE = re.compile("[\ud800-\udfff]")
_NOTE = "color: #57606a; font-size: 12px; margin: 2px 0; line-height: 1.45"

# Styles for the widgets' own parts (fixed text, nothing from the input).
_CSS = """<style>
.mcp-classifier-input textarea, .mcp-mono textarea {
  font-family: var(--jp-code-font-family, monospace); font-size: 12px; }
.mcp-tool { border: 1px solid #d0d7de; border-radius: 6px; padding: 8px; }
.mcp-sr-only { position: absolute !important; width: 1px; height: 1px; padding: 0;
  margin: -1px; overflow: hidden; clip: rect(0, 0, 0, 0); white-space: nowrap; border: 0; }
</style>"""

#: Marks every element of class ``mcp-live`` as a polite, atomic live region
#: (``role="status"``), now and whenever one appears; runs once per page.
LIVE_REGION_SCRIPT = """(function () {
  if (window.mcpLessonLiveRegions) { return; }
  window.mcpLessonLiveRegions = true;
  var queued = false;
  function mark() {
    queued = false;
    document.querySelectorAll(".mcp-live:not([aria-live])").forEach(function (el) {
      el.setAttribute("role", "status");
      el.setAttribute("aria-live", "polite");
      el.setAttribute("aria-atomic", "true");
    });
  }
  mark();
  new MutationObserver(function () {
    if (!queued) { queued = true; window.requestAnimationFrame(mark); }
  }).observe(document.body, {childList: true, subtree: true});
})();"""


def _styles():
    """The widgets' own style sheet and the live-region script (fixed text)."""
    script = widgets.Output(layout=widgets.Layout(height="0px", overflow="hidden"))
    script.append_display_data(Javascript(LIVE_REGION_SCRIPT))
    return [widgets.HTML(_CSS), script]


def _live(widget):
    """Mark ``widget`` as a live region (see :data:`LIVE_REGION_SCRIPT`)."""
    widget.add_class("mcp-live")
    return widget


# --- safe text ----------------------------------------------------------------


def clean(text):
    """Text that is safe to send to the browser: lone surrogates become U+FFFD.

    A pasted string can hold half of a surrogate pair, which cannot be encoded
    as UTF-8; the kernel would then fail to send the widget's new value.
    """
    text = str(text)
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)


def escape(text):
    """``html.escape`` of :func:`clean` text: markup in it stays plain text."""
    return html.escape(clean(text), quote=True)


def preview(value, limit=PREVIEW_LIMIT, source_length=None):
    """Pretty-print ``value`` as JSON, at most ``limit`` characters, never raising.

    Returns ``(text, note)``; ``note`` is "" or says what was left out. The
    encoder runs lazily, so a 10 MB message costs no more than its preview.
    """
    pieces, size = [], 0
    try:
        encoder = json.JSONEncoder(indent=2, ensure_ascii=False, allow_nan=True)
        for chunk in encoder.iterencode(value):
            pieces.append(chunk)
            size += len(chunk)
            if size > limit:
                break
    except RecursionError:
        return "", "It is nested too deeply to pretty-print."
    except (TypeError, ValueError) as exc:  # e.g. an integer too long to print
        return "", f"It cannot be pretty-printed ({type(exc).__name__})."
    text = "".join(pieces)
    if size <= limit:
        return text, ""
    note = f"Showing the first {limit:,} characters of the pretty-printed text"
    if source_length is not None:
        note += f"; the pasted text is {source_length:,} characters long"
    return text[:limit], note + "."


def _pre(value, source_length=None):
    text, note = preview(value, source_length=source_length)
    parts = []
    if text:
        # tabindex: a box that scrolls must be reachable from the keyboard.
        parts.append(f'<pre class="mcp-json" tabindex="0" style="{_PRE}">{escape(text)}</pre>')
    if note:
        parts.append(f'<p class="mcp-note" style="{_NOTE}">{escape(note)}</p>')
    return "".join(parts)


def badge(kind, label=None):
    """A coloured badge; ``kind`` picks the colour, ``label`` the text (escaped)."""
    colour = COLOURS.get(kind, COLOURS["waiting"])
    text = escape(label if label is not None else kind.upper())
    return (
        f'<span class="mcp-badge mcp-badge-{escape(kind)}" style="background:{colour};'
        " color:#fff; border-radius:10px; padding:2px 10px; font-weight:600;"
        f' letter-spacing:0.04em; font-size:12px">{text}</span>'
    )


class _TextOf(HTMLParser):
    _BREAKS = {"p", "div", "pre", "br", "h1", "h2", "h3", "h4", "table"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("style", "script"):
            self._skip += 1
        elif tag in self._BREAKS or tag in ("tr", "li"):
            self.parts.append("\n")
        elif tag in ("td", "th"):
            self.parts.append(" | ")

    def handle_endtag(self, tag):
        if tag in ("style", "script"):
            self._skip = max(0, self._skip - 1)
        elif tag in self._BREAKS:
            self.parts.append("\n")

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)


def as_text(html_or_widget):
    """The visible text of an HTML string or an ``HTML``/``Label`` widget.

    Handy in a notebook or a test: it prints what a learner sees, without
    the markup, so the output is short and the same on every run.
    """
    value = getattr(html_or_widget, "value", html_or_widget)
    parser = _TextOf()
    parser.feed(str(value))
    parser.close()
    lines = [
        " ".join(line.split()).removeprefix("| ") if line.startswith(" | ") else line.rstrip()
        for line in "".join(parser.parts).split("\n")
    ]
    text = "\n".join(lines)
    while "\n\n\n" in text:
        text = text.replace("\n\n\n", "\n\n")
    return text.strip("\n")


# --- the classifier -------------------------------------------------------------


class DropdownWithNone(widgets.Dropdown):
    """A ``Dropdown`` in which an option whose value is None can be selected.

    ipywidgets reads the value None as "nothing selected": a plain
    ``Dropdown`` made with ``value=None``, or set back to None later (by code,
    or by picking that option in the page), ends with ``index`` None, and the
    page shows the drop-down blank. Here None is looked up among the options
    like any other value, so the option with the value None is selected, its
    label is shown, and ``.value`` is None.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.index is None and self.value is None and None in self._options_values:
            self.index = self._options_values.index(None)

    @observe("value")
    def _propagate_value(self, change):
        if change.new is None and None in self._options_values:
            index = self._options_values.index(None)
            if self.index != index:
                self.index = index
        else:
            super()._propagate_value(change)


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
    tables = [(CASES, lambda case: _message_text(case.message)),
              (TEXT_CASES, lambda case: _wire_text(case.text))]
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
    return "invalid", PARSE_ERROR, parse_error_explanation(problem), error_response(
        None, PARSE_ERROR, ERROR_MESSAGES[PARSE_ERROR]), None


# --- judging as the typing goes, shared by the classifier and the HTTP and recording views


class _Judging:
    """How a tool judges its text: a short text is judged at once, a long one when
    the typing pauses; a text set from code at once.

    A subclass has ``.result`` and ``.announcement`` widgets, and defines
    ``_render()`` (the result's markup) and ``_spoken()`` (the live region's line);
    ``_waiting()`` forgets the last verdict and ``_failed(exc)`` says that the text
    could not be shown.
    """

    def _start_judging(self):
        self.judged = 0
        self._pending = None  # the timer of a text waiting for a pause in typing
        self._from_code = False  # True while texts are being set from code

    def _changed(self, size):
        self._cancel_pending()
        if self._from_code or size <= INSTANT_LIMIT or not self._wait_for_pause(size):
            self._show()

    def _wait_for_pause(self, size):
        """Judge the text once typing pauses; False when no event loop can wait.

        Every keystroke in the browser sends the whole text again; each one
        restarts the timer, so only the text that stays for :data:`PAUSE`
        seconds is judged.
        """
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # plain Python, no kernel: judge at once
            return False
        self._pending = loop.call_later(PAUSE, self._settle)
        self._waiting()
        self.result.value = (
            f'<div class="mcp-verdict" style="line-height: 1.45"><p>{badge("waiting", "WAITING")} '
            f"{size:,} characters: the verdict follows when the typing pauses.</p></div>"
        )
        return True

    def _settle(self):
        self._pending = None
        self._show()

    def _cancel_pending(self):
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None

    def _show(self):
        self.judged += 1
        try:
            self.result.value = self._render()
        except Exception as exc:  # never a traceback; say what happened instead
            self.result.value = self._failed(exc)
        self.announcement.value = escape(self._spoken())

    def _waiting(self):
        """Forget the last verdict (a subclass clears its own data)."""

    def _failed(self, exc):
        """The markup that says the text could not be shown (after ``exc``)."""
        self._waiting()
        return (f"<p>{badge('invalid', 'ERROR')} The playground could not show this "
                f"({escape(type(exc).__name__)}).</p>")


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
        return (f"<p>{self.badge.value} The playground could not show this text "
                f"({escape(type(exc).__name__)}).</p>")

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
        kind, code, reason, reply, value = verdict(wire[1] if wire and wire[0] == text else text,
                                                   self.revision.value)
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
            parts.append(f'<p class="mcp-revisions" style="{_NOTE}">Across MCP revisions: '
                         f"{escape(note)}.</p>")
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


# --- the quiz -------------------------------------------------------------------


class Quiz(widgets.VBox):
    """Shows a message from the case table; you name its kind.

    ``seed`` fixes the order (``Quiz(seed=1)`` asks the same questions every
    time); without it the order is random. Drive it from code with
    :meth:`answer` and :meth:`next`; read ``.question``, ``.feedback`` and
    ``.score``.
    """

    def __init__(self, seed=None, cases=None, **kwargs):
        self.cases = list(CASES if cases is None else cases)
        if not self.cases or not all(hasattr(case, "message") for case in self.cases):
            raise ValueError("a Quiz needs at least one case with a message (see mcp_lesson.CASES)")
        self.order = list(range(len(self.cases)))
        random.Random(seed).shuffle(self.order)
        self.position = 0
        self.right = 0
        self.asked = 0
        self.answered = False
        self.question = widgets.HTML()
        self.question.add_class("mcp-quiz-question")
        self.buttons = []
        for kind in KINDS:
            button = widgets.Button(description=kind, tooltip=f"It is a {kind}")
            button.add_class(f"mcp-quiz-{kind}")
            button.style.button_color = COLOURS[kind]
            button.style.text_color = "white"
            button.on_click(lambda _button, kind=kind: self.answer(kind))
            self.buttons.append(button)
        self.feedback = _live(widgets.HTML())
        self.feedback.add_class("mcp-quiz-feedback")
        self.score = widgets.Label()
        self.score.add_class("mcp-quiz-score")
        self.next_button = widgets.Button(description="Next message")
        self.next_button.on_click(lambda _button: self.next())
        super().__init__(
            [
                *_styles(),
                self.question,
                widgets.HBox(self.buttons),
                self.feedback,
                widgets.HBox([self.next_button, self.score]),
            ],
            **kwargs,
        )
        self.add_class("mcp-tool")
        self.add_class("mcp-quiz")
        self._ask()

    def __repr__(self):
        return "Quiz: the message-kind quiz (run the cell to start the tool)"

    @property
    def current(self):
        """The case being asked about."""
        return self.cases[self.order[self.position % len(self.order)]]

    def _ask(self):
        self.answered = False
        number = self.position % len(self.order) + 1
        self.question.value = (
            f'<div style="line-height: 1.45"><p><b>Message {number} of {len(self.order)}.</b>'
            " What kind is it?</p>" + _pre(self.current.message) + "</div>"
        )
        self.feedback.value = ""
        self._score()

    def _score(self):
        self.score.value = f"Score: {self.right}/{self.asked}"

    def answer(self, kind):
        """Answer the current question; returns True when ``kind`` is right.

        A kind is read whatever its case and the spaces around it (``"Request"``
        is ``"request"``). Anything that is not one of :data:`KINDS` is not
        counted: the feedback names the four kinds, and the question stays open.
        """
        case = self.current
        said = str.lower(str.strip(kind)) if isinstance(kind, str) else None
        correct = said == case.kind
        if self.answered:
            self.feedback.value += (
                f'<p style="{_NOTE}">You have answered this one; press "Next message".</p>'
            )
            return correct
        if said not in KINDS:  # None for anything that is not text
            self.feedback.value = (
                f'<p class="mcp-quiz-verdict">{escape(python_text(kind, 60))} is not a kind, '
                "so it is not counted. Answer with one of "
                f"{', '.join(KINDS)} (or press its button).</p>"
            )
            return False
        kind = said
        self.answered = True
        self.asked += 1
        self.right += correct
        if correct:
            head = f"{badge(case.kind)} Right: it is {_phrase(case.kind)}."
        else:
            head = (
                f"{badge(case.kind)} Not quite: you said {escape(kind)}, but it is "
                f"{_phrase(case.kind)}."
            )
        self.feedback.value = (
            f'<div style="line-height: 1.45"><p class="mcp-quiz-verdict">{head}</p>'
            f"<p>Why: {escape(case.reason)}.</p>"
            f'<p style="{_NOTE}">{escape(explain(case.message))}</p></div>'
        )
        self._score()
        return correct

    def next(self):
        """Move on to the next message (after the last, start again)."""
        self.position += 1
        self._ask()


def _phrase(kind):
    return "invalid" if kind == "invalid" else f"a {kind}"


# --- the checker -----------------------------------------------------------------


class Checker(widgets.VBox):
    """Runs the self-check on your function and shows the pass/fail table.

    ``Checker(classify)`` checks a function named like one of the course's
    targets; pass ``target=`` for any other name. Press the button (or call
    :meth:`run`) after changing the function. ``.summary`` is a ``Label``
    with the score, ``.result`` the ``HTML`` table, failures first.
    """

    def __init__(self, fn, target=None, **kwargs):
        self.fn = fn
        self.target = target
        self.report = None
        name = getattr(fn, "__name__", "your function")
        self.button = widgets.Button(
            description=f"Check {name}", button_style="primary"
        )
        self.button.on_click(lambda _button: self.run())
        self.summary = _live(widgets.Label("Press the button to run the self-check."))
        self.summary.add_class("mcp-checker-summary")
        self.result = widgets.HTML()
        self.result.add_class("mcp-checker-result")
        super().__init__(
            [*_styles(), widgets.HBox([self.button, self.summary]), self.result],
            **kwargs,
        )
        self.add_class("mcp-tool")
        self.add_class("mcp-checker")

    def __repr__(self):
        return "Checker: the self-check table (run the cell to start the tool)"

    def run(self):
        """Run the check now; returns the :class:`CheckReport`."""
        try:
            report = run_check(self.fn, self.target)
        except Exception as exc:  # e.g. an unknown target name
            self.summary.value = f"The check could not run: {clean(exc)}"
            self.result.value = ""
            return None
        self.report = report
        self.summary.value = clean(report.summary())
        colour = COLOURS["response"] if report.all_pass else COLOURS["invalid"]
        self.summary.style.text_color = colour
        rows = sorted(report.rows, key=lambda row: row.ok)  # failures first, stable
        td = 'style="padding: 3px 8px; vertical-align: top; border-bottom: 1px solid #eaeef2'
        cells = "".join(
            f'<tr class="{"mcp-pass" if row.ok else "mcp-fail"}">'
            f'<td {td}; color:{COLOURS["response"] if row.ok else COLOURS["invalid"]};'
            f' font-weight:600">{"pass" if row.ok else "FAIL"}</td>'
            f'<td {td}">{escape(row.name)}</td>'
            f'<td {td}; {_MONO}">{escape(row.shown_input)}</td>'
            f'<td {td}; {_MONO}; white-space: nowrap">{escape(row.expected)}</td>'
            f'<td {td}; {_MONO}; white-space: nowrap">{escape(row.got)}</td>'
            f'<td {td}">{escape(row.reason)}</td></tr>'
            for row in rows
        )
        notes = []
        if report.not_implemented:
            notes.append(f"Write the body of {report.target}, then press the button again.")
        if report.printed:
            notes.append(f"Your function printed {report.printed:,} characters while it ran; "
                         "they are not shown here.")
        head = "".join(
            f'<th style="text-align: left; padding: 3px 8px">{name}</th>'
            for name in ("result", "case", "input", "expected", "got", "why")
        )
        self.result.value = (
            "".join(f'<p style="{_NOTE}">{escape(note)}</p>' for note in notes)
            + f'<div tabindex="0" style="max-height: 26em; overflow: auto;'
            f' border-left: 3px solid {colour}; line-height: 1.35">'
            '<table class="mcp-checker-table" style="border-collapse: collapse; font-size: 12px">'
            f"<thead><tr>{head}</tr></thead><tbody>{cells}</tbody></table></div>"
        )
        return report


def _cut(text, limit):
    """``text`` (made safe with :func:`clean`) on at most ``limit`` characters, "..." where cut."""
    text = clean(text)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _quoted(text, limit=60):
    """Text as JSON writes a string (quotes, escapes), cut to ``limit``; for the notes."""
    return _cut(json.dumps(clean(text), ensure_ascii=False), limit)


def _p(words, cls="mcp-note", style=_NOTE):
    return f'<p class="{cls}" style="{style}">{escape(words)}</p>'


def _table(cls, head, rows):
    """A scrollable table; ``head`` and every cell are plain text (escaped here)."""
    td = 'style="padding: 3px 8px; vertical-align: top; border-bottom: 1px solid #eaeef2'
    heads = "".join(f'<th style="text-align: left; padding: 3px 8px">{escape(name)}</th>'
                    for name in head)
    body = "".join(
        "<tr>" + "".join(
            f'<td {td}{"; " + _MONO if mono else ""}">{escape(cell)}</td>'
            for cell, mono in cells) + "</tr>"
        for cells in rows
    )
    return (f'<div tabindex="0" style="max-height: 26em; overflow: auto; line-height: 1.35">'
            f'<table class="{cls}" style="border-collapse: collapse; font-size: 12px">'
            f"<thead><tr>{heads}</tr></thead><tbody>{body}</tbody></table></div>")


def _plain_pre(text, cls):
    """Text in a ``<pre>``, escaped, at most :data:`PREVIEW_LIMIT` characters (a note says so)."""
    note = ""
    if len(text) > PREVIEW_LIMIT:
        note = _p(f"Showing the first {PREVIEW_LIMIT:,} characters of {len(text):,}.")
        text = text[:PREVIEW_LIMIT]
    return f'<pre class="{cls}" tabindex="0" style="{_PRE}">{escape(text)}</pre>{note}'


# --- the HTTP view -----------------------------------------------------------------------

#: The headers box is read up to this many characters, and this many lines.
HEADERS_LIMIT = 65_536
HEADER_LINES = 200
#: The course's server (the SDK's, mcp 2.3.0) refuses a body longer than this with 413
#: before reading it (tests/test_http_server.py pins it).
SDK_BODY_LIMIT = 4 * 1024 * 1024

#: The names of the JSON-RPC errors of 2026-07-28's HTTP transport, beside the reserved ones.
HTTP_ERROR_NAMES = {HEADER_MISMATCH: "Header mismatch",
                    UNSUPPORTED_PROTOCOL_VERSION: "Unsupported protocol version"}
#: The headers that repeat the body in 2026-07-28 (check_headers compares them).
ROUTING_HEADERS = ("mcp-protocol-version", "mcp-method", "mcp-name")

_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+\Z")
_REQUEST_LINE = re.compile(r"[A-Z]+ \S+ HTTP/\d(\.\d)?\Z")
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


def _error_name(code):
    return HTTP_ERROR_NAMES.get(code) or ERROR_MESSAGES.get(code, "error")


def read_headers(text):
    """``(headers, notes, repeated)`` for pasted header lines, one ``Name: value`` a line.

    ``headers`` is a dict of the lines that are headers (the value without the
    spaces around it; a name given twice keeps its last value); ``notes`` says,
    in plain words and by line number, what was left out and why (a line
    without a colon, a name that is no HTTP token, control characters, a
    request line such as ``POST /mcp HTTP/1.1``, a folded line, text over the
    limits); ``repeated`` lists the names given more than once. Never raises.
    """
    notes, repeated, found = [], [], {}
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", "replace")
    text = clean(text)
    if len(text) > HEADERS_LIMIT:
        notes.append(f"The headers are {len(text):,} characters long; only the first "
                     f"{HEADERS_LIMIT:,} are read.")
        text = text[:HEADERS_LIMIT]
    lines = text.replace("\r\n", "\n").split("\n")
    if len(lines) > HEADER_LINES:
        notes.append(f"The headers have {len(lines):,} lines; only the first {HEADER_LINES} "
                     "are read.")
        lines = lines[:HEADER_LINES]
    first = True
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        if first and _REQUEST_LINE.match(line.strip()):
            notes.append(f"Line {number} is a request line ({_quoted(line)}), not a header; "
                         "left out.")
            first = False
            continue
        first = False
        if line[0] in " \t":
            notes.append(f"Line {number} starts with a space: old HTTP read that as more of the "
                         "header above, which HTTP/1.1 no longer allows; left out.")
            continue
        name, colon, value = line.partition(":")
        if not colon:
            notes.append(f"Line {number} has no colon, so it is no header (a header is "
                         f"Name: value); left out: {_quoted(line)}.")
            continue
        if not _TOKEN.match(name):
            why = ("the name before the colon is empty" if not name.strip() else
                   "a header name is letters, digits and !#$%&'*+-.^_`|~, with no space "
                   "before the colon")
            notes.append(f"Line {number}: {_quoted(name)} is not a header name ({why}); "
                         "left out.")
            continue
        value = value.strip(" \t")
        if _CONTROL.search(value):
            notes.append(f"Line {number}: the value of {name} holds control characters, which "
                         "HTTP does not allow in a header; left out.")
            continue
        if any(ord(ch) > 255 for ch in value):
            notes.append(f"Line {number}: the value of {name} holds characters beyond Latin-1, "
                         "which a header cannot carry as they are (for Mcp-Name a client sends "
                         "the Base64 form); judged as written.")
        lower = name.lower()
        if lower in found:
            repeated.append(name)
            notes.append(f"Line {number}: {name} is given again; the last value counts here.")
        found[lower] = (name, value)
    return {name: value for name, value in found.values()}, notes, repeated


def _media_types(value):
    return {part.split(";")[0].strip().lower() for part in str(value).split(",")}


def _header_examples():
    """``(label, headers text, body text)`` for each case of lesson 09's HEADER_CHECKS."""
    found = []
    for case in HEADER_CHECKS:
        headers, msg = case.args
        said = ("agree" if case.expected is None else
                f"{case.expected[0]} {case.expected[1]['error']['code']}")
        found.append((f"{said}: {case.name}",
                      "\n".join(f"{name}: {value}" for name, value in headers.items()),
                      json.dumps(msg, indent=2, ensure_ascii=False)))
    return found


class HttpView(_Judging, widgets.VBox):
    """Paste the headers and the body of a POST; see what a strict 2026-07-28 server answers.

    Three answers, from lesson 09's functions (the course's, as exported):

    * the server's: :func:`~mcp_lesson.check_headers` on the headers and the
      body (a body that is not a valid request or notification is refused
      before its headers count);
    * the body's verdict: :func:`verdict`, as the classifier gives it, under
      the revision of the drop-down;
    * the client's: :func:`~mcp_lesson.http_request_for` for the body under
      that revision, and its headers beside the pasted ones.

    ``.headers`` and ``.body`` are the two texts (the boxes are
    ``.headers_box`` and ``.body_box``); :meth:`set` sets both and judges
    once. The verdict is data too: ``.answer`` (None when the headers agree
    with the body, else ``(status, error response)``), ``.agree``
    (True, False, or None when check_headers does not apply), ``.kind`` and
    ``.code`` (the body's), ``.request`` (what the client sends, or None),
    ``.headers_read`` and ``.notes`` (how the header lines were read).
    ``.revision`` is the drop-down of the revisions with Streamable HTTP.
    """

    _HINT = "Paste the headers of a POST and its JSON body above, or pick an example."

    def __init__(self, headers="", body="", revision=STATELESS, **kwargs):
        self._examples = _header_examples()
        self.examples = widgets.Dropdown(
            options=[("Pick an example...", -1)]
            + [(label, i) for i, (label, _, _) in enumerate(self._examples)],
            value=-1, description="Example:", layout=widgets.Layout(width="min(100%, 40em)"))
        self.revision = widgets.Dropdown(
            options=[(f"MCP {r}", r) for r in HTTP_REVISIONS], value=revision,
            description="Revision:", layout=widgets.Layout(width="min(100%, 24em)"))
        self.revision.add_class("mcp-http-revision")
        self.headers_box = widgets.Textarea(
            value="", description="Headers:", continuous_update=True,
            placeholder="MCP-Protocol-Version: 2026-07-28\nMcp-Method: tools/list",
            layout=widgets.Layout(width="100%", height="7em"))
        self.headers_box.add_class("mcp-http-headers")
        self.body_box = widgets.Textarea(
            value="", description="Body:", continuous_update=True,
            placeholder='{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {...}}',
            layout=widgets.Layout(width="100%", height="9em"))
        self.body_box.add_class("mcp-http-body")
        for box in (self.headers_box, self.body_box):
            box.add_class("mcp-mono")
        self.result = widgets.HTML()
        self.result.add_class("mcp-http-result")
        self.announcement = _live(widgets.HTML())
        self.announcement.add_class("mcp-sr-only")
        self.announcement.add_class("mcp-http-announcement")
        self._start_judging()
        self._waiting()
        self._wire = None  # (text shown, the bytes it came from) for a bytes body
        super().__init__(
            [*_styles(), self.examples, self.revision, self.headers_box, self.body_box,
             self.announcement, self.result], **kwargs)
        self.add_class("mcp-tool")
        self.add_class("mcp-http")
        self.examples.observe(self._on_example, names="value")
        self.revision.observe(lambda _change: self._changed(0), names="value")
        self.headers_box.observe(self._on_text, names="value")
        self.body_box.observe(self._on_text, names="value")
        self._show()
        if headers or body:
            self.set(headers, body)

    def __repr__(self):
        return "HttpView: headers and body of a POST, judged (run the cell to start the tool)"

    @property
    def headers(self):
        return self.headers_box.value

    @headers.setter
    def headers(self, text):
        self.set(headers=text)

    @property
    def body(self):
        return self.body_box.value

    @body.setter
    def body(self, text):
        self.set(body=text)

    def set(self, headers=None, body=None):
        """Set the headers, the body or both (None leaves one as it is), and judge once."""
        self._from_code = True
        try:
            if headers is not None:
                if isinstance(headers, (bytes, bytearray)):
                    headers = bytes(headers).decode("utf-8", "replace")
                self.headers_box.value = clean(headers)
            if body is not None:
                self._wire = None
                if isinstance(body, (bytes, bytearray)):
                    raw = bytes(body)
                    body = clean(raw.decode("utf-8", "replace"))
                    self._wire = (body, raw)  # judged as the bytes they are
                self.body_box.value = clean(body)
        finally:
            self._from_code = False
        self._cancel_pending()
        self._show()

    def choose(self, name):
        """Pick an example by its case name (or full label); returns the label."""
        for i, (label, _, _) in enumerate(self._examples):
            if name == label or label.endswith(": " + name):
                self.examples.value = i
                return label
        raise KeyError(f"no example named {name!r}")

    def _on_example(self, change):
        if change["new"] is not None and change["new"] >= 0:
            _, headers, body = self._examples[change["new"]]
            self.set(headers, body)

    def _on_text(self, change):
        if self._from_code:
            return  # set() judges once, after both
        chosen = self.examples.value
        if chosen is not None and chosen >= 0:
            _, headers, body = self._examples[chosen]
            if (self.headers_box.value, self.body_box.value) != (headers, body):
                self.examples.value = -1  # edited by hand: no longer that example
        self._changed(len(self.headers_box.value) + len(self.body_box.value))

    def _waiting(self):
        self.answer = self.agree = self.kind = self.code = self.request = None
        self.headers_read, self.notes = {}, []

    def _spoken(self):
        if self.kind is None:
            return "Waiting for a body."
        if self.agree:
            return "Server: the headers agree with the body."
        if self.answer is not None:
            code = self.answer[1]["error"]["code"]
            return (f"Server: refused with {self.answer[0]}, error code {code} "
                    f"({_error_name(code)}).")
        return "Server: check_headers does not judge this body."

    def _render(self):
        self._waiting()
        headers, notes, repeated = read_headers(self.headers_box.value)
        self.headers_read, self.notes = headers, notes
        text = self.body_box.value
        if text == "":
            return (f'<div class="mcp-verdict" style="line-height: 1.45"><p>'
                    f'{badge("waiting", "WAITING")} {escape(self._HINT)}</p>'
                    + "".join(_p(note) for note in notes) + "</div>")
        wire = self._wire
        raw = wire[1] if wire and wire[0] == text else text
        revision = self.revision.value
        kind, code, reason, reply, value = verdict(raw, revision)
        self.kind, self.code = kind, code
        parts = ['<div class="mcp-verdict" style="line-height: 1.45">']
        parts += self._server_part(headers, value, reply, repeated, raw)
        code_text = "no error code" if code is None else f"error code {code} ({_error_name(code)})"
        parts += [
            f"<p><b>The body, under MCP {escape(revision)}:</b> {badge(kind)} "
            f'<span class="mcp-code" style="{_MONO}">{escape(code_text)}</span></p>',
            f'<p class="mcp-reason" style="white-space: pre-wrap">{escape(reason)}</p>',
        ]
        parts += self._client_part(headers, value, revision)
        if notes:
            parts.append("<p><b>Reading your header lines:</b></p>")
            parts += [_p(note, "mcp-http-note") for note in notes]
        parts.append("</div>")
        return "".join(parts)

    def _server_part(self, headers, value, reply, repeated, raw):
        """What a strict 2026-07-28 server answers: check_headers, or the body refused."""
        parts = ["<p><b>A strict 2026-07-28 server answers:</b></p>"]
        kind = classify(value)[0] if value is not None else "invalid"  # as check_headers judges
        why = None
        if value is None:
            self.answer = (400, reply)
            why = ("The body is not JSON: the server refuses it before it compares a header "
                   "with it.")
        elif kind == "invalid":
            self.answer = (400, reply_for(value))
            why = ("The body is no valid message (under the course's rules, which check_headers "
                   "uses), so there is nothing for the headers to agree with: the server "
                   "refuses the body.")
        elif kind == "response":
            parts.append(f'<p class="mcp-http-server">{badge("waiting", "NOT JUDGED")} '
                         "check_headers judges the headers of requests and notifications; this "
                         "body is a response, which a client of 2026-07-28 never POSTs (before "
                         "2026-07-28 a client POSTed its answers to a server's requests).</p>")
        else:
            try:
                self.answer = check_headers(headers, value)
            except Exception as exc:  # the course's function should never raise here
                parts.append(f'<p class="mcp-http-server">{badge("invalid", "ERROR")} '
                             f"check_headers could not judge it ({escape(type(exc).__name__)}: "
                             f"{escape(_cut(exc, 200))}).</p>")
                return parts
            self.agree = self.answer is None
            if self.agree:
                then = ("it runs the request and answers it (200), or says it does not know "
                        "the method (404, -32601)" if kind == "request" else
                        "it accepts the notification: 202 Accepted, with no body")
                parts.append(f'<p class="mcp-http-server">{badge("pass", "HEADERS AGREE")} '
                             f"The headers agree with the body, so {escape(then)}.</p>")
            else:
                why = {
                    HEADER_MISMATCH: "a header the body is compared with (MCP-Protocol-Version, "
                                     "Mcp-Method, or Mcp-Name for a request that names "
                                     "something) is missing, or says something the body does "
                                     "not; the table below sets yours beside a client's",
                    UNSUPPORTED_PROTOCOL_VERSION: "the headers and the body agree on a version "
                                                  "this server does not speak (it speaks "
                                                  + ", ".join(SUPPORTED) + ")",
                    INVALID_PARAMS: "a request of 2026-07-28 carries params._meta with "
                                    "io.modelcontextprotocol/protocolVersion and "
                                    "io.modelcontextprotocol/clientCapabilities",
                }.get(self.answer[1]["error"]["code"], "check_headers refuses it")
                why = why[0].upper() + why[1:] + "."
        if self.answer is not None:
            status, error = self.answer
            code = error["error"]["code"]
            parts.append(f'<p class="mcp-http-server">{badge("fail", f"{status} REFUSED")} '
                         f'<span class="mcp-code" style="{_MONO}">error code {code} '
                         f"({escape(_error_name(code))})</span></p>")
            parts.append(_p(why, "mcp-http-why", "margin: 2px 0"))
            parts.append(f'<div class="mcp-reply">{_pre(error)}</div>')
        parts += [_p(note, "mcp-http-more") for note in self._more(headers, repeated, raw, kind)]
        return parts

    @staticmethod
    def _more(headers, repeated, raw, kind):
        """What the course's real server (the SDK's) checks beyond check_headers."""
        more, sent = [], {name.lower(): value for name, value in headers.items()}
        twice = [name for name in repeated if name.lower() in ROUTING_HEADERS]
        if twice and kind == "request":
            more.append(f"{twice[0]} is given more than once: check_headers reads one value, but "
                        "the course's server (mcp 2.3.0) refuses a request that repeats "
                        "MCP-Protocol-Version, Mcp-Method or Mcp-Name: 400, -32020.")
        if _media_types(sent.get("content-type", "")) != {"application/json"}:
            more.append("There is no Content-Type: application/json: the course's server "
                        "(mcp 2.3.0) refuses a POST without it (400, Invalid Content-Type "
                        "header) before it reads the body.")
        accepts = _media_types(sent.get("accept", ""))
        if not ({"application/json", "application/*", "*/*"} & accepts
                and {"text/event-stream", "text/*", "*/*"} & accepts):
            more.append("Accept does not list both application/json and text/event-stream, as "
                        "the specification asks of every POST; the course's server (mcp 2.3.0) "
                        "answered an Accept of application/json alone with 406.")
        if isinstance(raw, bytes):
            size = len(raw)
        else:  # a character is at most 4 bytes of UTF-8: most texts need no encoding to tell
            size = (len(raw) if len(raw) * 4 <= SDK_BODY_LIMIT
                    else len(raw.encode("utf-8", "replace")))
        if size > SDK_BODY_LIMIT:
            more.append(f"The body is {size:,} bytes: the course's server (mcp 2.3.0) refuses "
                        f"a body over {SDK_BODY_LIMIT:,} bytes (4 MiB) with 413, unread.")
        return more

    def _client_part(self, headers, value, revision):
        """What a client of ``revision`` sends for the body, and its headers beside yours."""
        parts = [f"<p><b>What a client of MCP {escape(revision)} POSTs for this body:</b></p>"]
        if value is None:
            parts.append(_p("Nothing: a client sends JSON, and this is not JSON.",
                            "mcp-http-client"))
            return parts
        try:
            self.request = http_request_for(value, revision)
        except ValueError as exc:
            parts.append(_p(f"Nothing: http_request_for refuses it ({_cut(exc, 300)}).",
                            "mcp-http-client"))
            return parts
        except Exception as exc:  # nested too deeply to write, say
            parts.append(_p(f"Nothing: http_request_for could not build it "
                            f"({type(exc).__name__}).", "mcp-http-client"))
            return parts
        shown = self.request["headers"]
        text = "POST\n" + "".join(f"{name}: {val}\n" for name, val in shown.items())
        parts.append(_plain_pre(text + "\n" + str(self.request["body"]), "mcp-http-client"))
        theirs = {name.lower(): (name, val) for name, val in shown.items()}
        yours = {name.lower(): (name, val) for name, val in headers.items()}
        rows = []
        for lower in [*theirs, *(name for name in yours if name not in theirs)]:
            mine, client = yours.get(lower), theirs.get(lower)
            if mine is None:
                said = "missing from yours"
            elif client is None:
                said = "yours only"
            else:
                said = "the same" if mine[1] == client[1] else "differs"
            rows.append([((mine or client)[0], True), (_cut(mine[1], 80) if mine else "", True),
                         (_cut(client[1], 80) if client else "", True), (said, False)])
        parts.append("<p><b>Your headers beside the client's:</b></p>")
        parts.append(_table("mcp-http-compare", ("header", "yours", "the client's", "compared"),
                          rows))
        return parts


# --- the recording view ----------------------------------------------------------------

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
        notes.append(f"The recording is {size:,} {unit} long; only the first {RECORDING_LIMIT:,} "
                     f"are read, up to line {len(lines):,} (the last whole line); the rest is "
                     "left out.")
    if len(lines) > RECORDING_LINES and any(line.strip() for line in lines[RECORDING_LINES:]):
        notes.append(f"The recording has more than {RECORDING_LINES:,} lines; only the first "
                     f"{RECORDING_LINES:,} are read, the rest is left out.")
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
            left_out.append(f"line {number} is {json_type(value)}, not an entry (a JSON object "
                            "with a direction or an event)")
        elif "direction" in value and value["direction"] not in _DIRECTIONS:
            left_out.append(f"line {number}: its direction "
                            f"{_cut(python_text(value['direction'], 40), 40)} is neither "
                            "to_server nor from_server")
        elif "direction" not in value and "event" not in value:
            left_out.append(f"line {number} is an object with neither a direction nor an event")
        else:
            value["_line"] = number
            entries.append(value)
    if left_out:
        shown = left_out[:LEFT_OUT_SHOWN]
        more = len(left_out) - len(shown)
        notes.append(f"{len(left_out):,} line{'s' if len(left_out) > 1 else ''} left out: "
                     + "; ".join(shown) + (f"; and {more:,} more." if more else "."))
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
    return _cut(python_text(value, limit) if not isinstance(value, (int, float, type(None)))
                else json.dumps(value), limit)


def _shown_row(entry):
    """:func:`_row`, never raising (an entry built to break it is a row saying so), with
    every control and direction character of its cells as an escape (``\\x1b``,
    ``\\u202e``), as the other tables show them."""
    try:
        cells = _row(entry)
    except Exception as exc:  # noqa: BLE001 - a t of 5,000 digits, say
        cells = [(str(entry.get("_line", "")), False), ("", False), ("", False), ("", False),
                 ("", False), (f"(this entry could not be shown: {type(exc).__name__})", False)]
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
        details = [f"{key} {_field(entry[key])}"
                   for key in ("status", "method", "path", "detail", "signal", "transport",
                               "to") if key in entry]
        if isinstance(entry.get("command"), list):
            details.append("command " + _cut(" ".join(map(str, entry["command"])), 60))
        if entry.get("stream") is True:
            details.append("an event stream opens")
        words = _field(event, 40) + (": " + ", ".join(details) if details else "")
        return [(line, False), (t, False), ("event", False), ("", False), ("", False),
                (words, False)]
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
    elif isinstance(kind, str) and (code is None or (isinstance(code, int)
                                                     and not isinstance(code, bool))):
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
    return [(line, False), (t, False), (_WHO[direction], False), (where, True), (said, True),
            (shown, True)]


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
        from . import tap  # the tap's module; loaded only when a recording is shown
    except Exception as exc:
        return None, ("the audit needs mcp_lesson.tap, which cannot be loaded here "
                      f"({type(exc).__name__})")
    found = []
    for number, session in enumerate(tap.sessions(entries), 1):
        try:
            revision, how = tap.agreed_revision(session)
            problems = tap.audit(session, revision)
        except Exception as exc:  # a recording no tap wrote, with fields of odd types
            found.append((number, None, f"the audit could not finish ({type(exc).__name__})",
                          None))
            continue
        found.append((number, revision, how, problems))
    return found, None


def _recording_examples():
    """``(label, JSON Lines text)``: recordings to try, in the tap's format."""
    def line(entry):
        return json.dumps(entry, ensure_ascii=False, separators=(",", ":"))

    def said(t, direction, message, **extra):
        text = message if isinstance(message, str) else json.dumps(message)
        kind, code = classify_json(text)
        return {"t": t, "direction": direction, "kind": kind, "code": code, "text": text, **extra}

    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "demo", "version": "1"}}}
    ready = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    welcome = {"jsonrpc": "2.0", "id": 1, "result": {
        "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
        "serverInfo": {"name": "sloppy-server", "version": "1.0"}}}
    # What `python -m mcp_lesson.tap --record` wrote for the sloppy server (times rounded).
    sloppy = [
        {"t": 0.010, "event": "start", "wall": 1796124900.5,
         "command": ["python", "-m", "mcp_lesson.sloppy_server"], "pid": 23724,
         "judge": "mcp_lesson", "tap": "0.2.0"},
        said(0.014, "to_server", init),
        said(0.014, "to_server", ready),
        said(0.014, "to_server", {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        said(0.014, "to_server", {"jsonrpc": "2.0", "id": 3, "method": "ping"}),
        said(0.014, "to_server", {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
            "name": "echo", "arguments": {"text": "<b>hi</b>"}}}),
        said(0.014, "to_server", {"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                                  "params": {"name": "forget", "arguments": {}}}),
        {"t": 0.015, "event": "client_closed"},
        said(0.063, "from_server", "sloppy server 1.0 ready"),
        said(0.063, "from_server", welcome),
        said(0.063, "from_server", {"jsonrpc": "2.0", "id": None, "error": {
            "code": -32601, "message": "Method not found"}}),
        said(0.063, "from_server", {"jsonrpc": "2.0", "id": 2, "result": {"tools": [
            {"name": "echo"}, {"name": "forget"}]}}),
        said(0.063, "from_server", {"jsonrpc": "2.0", "id": None, "result": {}}),
        said(0.063, "from_server", "[sloppy] calling echo"),
        said(0.063, "from_server", {"jsonrpc": "2.0", "id": 4, "result": {
            "content": [{"type": "text", "text": "<b>hi</b>"}], "isError": False}}),
        said(0.063, "from_server", "[sloppy] calling forget"),
        {"t": 0.071, "event": "server_closed"},
        {"t": 0.072, "event": "server_exited", "status": 0, "returncode": 0},
        {"t": 0.072, "event": "end", "status": 0},
    ]
    calc = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "calculator", "arguments": {"expression": "2 + 2"}}}
    clean_talk = [
        {"t": 0.002, "event": "start", "wall": 1796124900.5,
         "command": ["python", "-m", "mcp_lesson.server"], "pid": 4242, "judge": "mcp_lesson",
         "tap": "0.2.0"},
        said(0.610, "to_server", init),
        said(0.640, "from_server", {**welcome, "result": {**welcome["result"], "serverInfo": {
            "name": "calculator", "version": "1.0"}}}),
        said(0.641, "to_server", ready),
        said(0.642, "to_server", {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        said(0.650, "from_server", {"jsonrpc": "2.0", "id": 2, "result": {
            "tools": [{"name": "calculator"}]}}),
    ]
    clean_talk += [
        said(0.651, "to_server", {**calc, "id": 3}),
        said(0.655, "from_server", {"jsonrpc": "2.0", "id": 3, "result": {
            "content": [{"type": "text", "text": "4"}], "isError": False}}),
        {"t": 0.700, "event": "client_closed"},
        {"t": 0.720, "event": "server_exited", "status": 0, "returncode": 0},
        {"t": 0.720, "event": "end", "status": 0},
    ]
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}
    post = {"method": "POST", "path": "/mcp"}

    def asked(method, **headers):
        return {**post, "headers": {"content-type": "application/json",
                                    "mcp-protocol-version": "2026-07-28",
                                    "mcp-method": method, **headers}}

    def answered(status, kind="application/json"):
        return {"status": status, "headers": {"content-type": kind}}

    over_http = [
        {"t": 0.001, "event": "start", "wall": 1796124900.5, "transport": "http",
         "listen": "http://127.0.0.1:8001/mcp", "to": "http://127.0.0.1:8000/mcp",
         "judge": "mcp_lesson", "tap": "0.2.0"},
        said(0.120, "to_server", {"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                                  "params": {"_meta": meta}}, http=asked("tools/list")),
        said(0.135, "from_server", {"jsonrpc": "2.0", "id": 1, "result": {
            "tools": [{"name": "calculator"}], "resultType": "complete"}}, http=answered(200)),
        said(0.140, "to_server", {"jsonrpc": "2.0", "id": 2, "method": "tools/list",
                                  "params": {"_meta": meta}}, http=asked("tools/call")),
        said(0.142, "from_server", {"jsonrpc": "2.0", "id": 2, "error": {
            "code": -32020, "message": "Header mismatch"}}, http=answered(400)),
        said(0.150, "to_server", {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "count", "arguments": {"to": 1}, "_meta": {**meta, "progressToken": "p"}}},
             http=asked("tools/call", **{"mcp-name": "count"})),
        {"t": 0.151, "event": "http_response", "stream": True,
         **answered(200, "text/event-stream")},
        said(0.160, "from_server", {"jsonrpc": "2.0", "method": "notifications/progress",
                                    "params": {"progressToken": "p", "progress": 1, "total": 1}},
             http=answered(200, "text/event-stream"), sse={"event": "message"}),
        said(0.170, "from_server", {"jsonrpc": "2.0", "id": 3, "result": {
            "content": [{"type": "text", "text": "1"}], "resultType": "complete"}},
             http=answered(200, "text/event-stream"), sse={"event": "message"}),
        said(0.180, "to_server", {"jsonrpc": "2.0", "method": "notifications/cancelled",
                                  "params": {"requestId": 9}},
             http=asked("notifications/cancelled")),
        {"t": 0.181, "event": "http_response", **answered(202, "")},
        {"t": 0.300, "event": "signal", "signal": "SIGINT"},
        {"t": 0.301, "event": "end", "status": 0},
    ]
    return [
        ("the sloppy server over stdio (as the tap recorded it)",
         "\n".join(map(line, sloppy)) + "\n"),
        ("a clean conversation over stdio", "\n".join(map(line, clean_talk)) + "\n"),
        ("a 2026-07-28 conversation over HTTP", "\n".join(map(line, over_http)) + "\n"),
    ]


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

    _HINT = ("Paste a recording (JSON Lines, as the tap writes them), upload one, or pick an "
             "example.")

    def __init__(self, value="", **kwargs):
        self._examples = _recording_examples()
        self.examples = widgets.Dropdown(
            options=[("Pick an example...", -1)]
            + [(label, i) for i, (label, _) in enumerate(self._examples)],
            value=-1, description="Example:", layout=widgets.Layout(width="min(100%, 40em)"))
        self.upload = widgets.FileUpload(
            accept=".jsonl,.json,.txt,.log", multiple=False, description="Upload a recording",
            layout=widgets.Layout(width="auto"))
        self.upload.add_class("mcp-recording-upload")
        self.text = widgets.Textarea(
            value="", description="Recording:", continuous_update=True,
            placeholder='{"t":0.01,"direction":"to_server","kind":"request","code":null,'
                        '"text":"..."}',
            layout=widgets.Layout(width="100%", height="9em"))
        self.text.add_class("mcp-recording-input")
        self.text.add_class("mcp-mono")
        self.result = widgets.HTML()
        self.result.add_class("mcp-recording-result")
        #: The diagram drawn as a picture, where the front end draws Mermaid (JupyterLab
        #: does; its text is in the result beside it). Safe to render: every character of
        #: it outside a small safe set is an entity code (mcp_lesson.recording).
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
            [*_styles(), self.examples, self.upload, self.text, self.announcement, self.result,
             self.picture], **kwargs)
        self.add_class("mcp-tool")
        self.add_class("mcp-recording")
        self.examples.observe(self._on_example, names="value")
        self.text.observe(self._on_text, names="value")
        self.upload.observe(self._on_upload, names="value")
        self._show()
        if value:
            self.value = value

    def __repr__(self):
        return ("RecordingView: a recording's table, diagram and audit (run the cell to start "
                "the tool)")

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
            files = [{"name": name, **entry.get("metadata", {}), "content": entry.get("content")}
                     for name, entry in files.items()]
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
            self.picture.outputs = ({"output_type": "display_data", "metadata": {},
                                     "data": {"text/markdown": drawn, "text/plain": self.diagram}},
                                    ) if self.diagram else ()

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
                return (f'<div class="mcp-verdict" style="line-height: 1.45"><p>'
                        f'{badge("waiting", "WAITING")} {escape(self._HINT)}</p></div>')
        entries, notes = read_recording(data)
        self.entries, self.notes = entries, notes
        parts = ['<div class="mcp-verdict" style="line-height: 1.45">']
        if source:
            parts.append(_p(source, "mcp-recording-source"))
        if not entries:
            self._state = "empty"
            parts.append(f'<p>{badge("fail", "NOTHING READ")} No line is an entry of a recording '
                         "(a JSON object with a direction or an event, one a line).</p>")
            parts += [_p(one_line(note, 10**6), "mcp-recording-note") for note in notes]
            return "".join(parts) + "</div>"
        audited, trouble = audit_recording(entries)
        messages = sum(entry.get("direction") in _DIRECTIONS for entry in entries)
        head = (f"{len(entries):,} entries: {messages:,} messages and "
                f"{len(entries) - messages:,} events")
        if audited is None:
            self._state = "no audit"
            parts.append(f'<p>{badge("waiting", "NO AUDIT")} {escape(head)}; '
                         f"{escape(trouble)}.</p>")
        else:
            self._state = "audited"
            self.sessions = audited
            self.problems = [{"session": number, **problem}
                             for number, _, _, problems in audited for problem in problems or ()]
            count = len(self.problems)
            mark = (badge("fail", f"{count} PROBLEM{'S' if count > 1 else ''}") if count
                    else badge("pass", "NO PROBLEMS"))
            finds = f"{count:,} problem{'s' if count > 1 else ''}" if count else "no problem"
            parts.append(f"<p>{mark} {escape(head)}; the audit finds {escape(finds)}.</p>")
        parts += [_p(one_line(note, 10**6), "mcp-recording-note") for note in notes]
        parts.append("<p><b>The messages:</b></p>")
        rows = [_shown_row(entry) for entry in entries[:TABLE_ROWS]]
        parts.append(_table("mcp-recording-table",
                            ("line", "t (s)", "from → to", "HTTP", "verdict", "text"), rows))
        if len(entries) > TABLE_ROWS:
            parts.append(_p(f"Showing the first {TABLE_ROWS:,} entries of {len(entries):,}."))
        self.diagram = sequence_diagram(entries)
        parts.append("<p><b>The conversation as a Mermaid sequence diagram</b> (drawn below "
                     "where JupyterLab can; the text, to paste into any Mermaid viewer; solid "
                     "arrows are requests, open ones notifications, dashed ones answers, "
                     "crossed ones no valid message):</p>")
        parts.append(_plain_pre(self.diagram, "mcp-recording-diagram"))
        if audited is not None:
            parts += self._audit_part(audited)
        return "".join(parts) + "</div>"

    @staticmethod
    def _audit_part(audited):
        parts = ["<p><b>The audit</b> (mcp_lesson.tap's, as <span "
                 f'style="{_MONO}">python -m mcp_lesson.tap --report</span> gives it):</p>']
        shown = 0
        for number, revision, how, problems in audited:
            lead = f"Session {number}" if len(audited) > 1 else "The conversation"
            if problems is None:
                parts.append(_p(f"{lead}: {how}.", "mcp-recording-audit", "margin: 2px 0"))
                continue
            parts.append(_p(f"{lead}: revision {revision or 'none'} ({how}).",
                            "mcp-recording-audit", "margin: 2px 0"))
            if not problems:
                parts.append(_p("No problems: every request answered once, nothing else "
                                "answered, only JSON-RPC from the server, every message valid.",
                                "mcp-recording-problem", "margin: 2px 0 2px 1.5em"))
            for problem in problems:
                if shown == PROBLEMS_SHOWN:
                    break
                shown += 1
                line = problem.get("line")
                where = f"line {line}" if line is not None else "at the end"
                parts.append(_p(f"{where}: {one_line(_cut(problem.get('detail', ''), 400), 10**6)}",
                                "mcp-recording-problem", "margin: 2px 0 2px 1.5em"))
        total = sum(len(problems or ()) for _, _, _, problems in audited)
        if total > shown:
            parts.append(_p(f"Showing the first {shown:,} problems of {total:,}; "
                            "python -m mcp_lesson.tap --report lists them all."))
        return parts
