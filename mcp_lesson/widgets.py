"""Widgets for the playground: classify any message, quiz yourself, check your code.

Three tools, each an ``ipywidgets`` box you display by leaving it as the last
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

Every result goes into a widget value (``HTML`` or ``Label``), never into a
print from a callback, so the tools work alike in JupyterLab, in Voila and
under nbval, and code can drive them: set ``classifier.value`` and read
``classifier.result.value`` (or :func:`as_text` of it).

Safety: an ``ipywidgets.HTML`` value is rendered as markup, unsanitized. So
everything that comes from the pasted text (the message, the reason, which
quotes values from it, and the reply, which may echo its id) is passed
through :func:`html.escape` before it goes in. Pasted text is only parsed as
JSON, never evaluated.

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
import html
import json
import random
import re
from html.parser import HTMLParser

import ipywidgets as widgets
from IPython.display import Javascript
from traitlets import observe

from ._safe import python_text
from .cases import CASES, TEXT_CASES
from .classification import (
    REVISIONS,
    classify,
    explain,
    parse,
    parse_error_explanation,
    reply_for,
    revision_note,
    switches,
)
from .messages import ERROR_MESSAGES, PARSE_ERROR, error_response
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
.mcp-classifier-input textarea { font-family: var(--jp-code-font-family, monospace);
  font-size: 12px; }
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


class Classifier(widgets.VBox):
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
        self.judged = 0
        self._wire = None  # (text shown, the bytes it came from) for a bytes value
        self._from_code = False  # True while .value is being set from code
        self._pending = None  # the timer of a text waiting for a pause in typing
        super().__init__(
            [*_styles(), self.examples, self.revision, self.text, self.announcement, self.result],
            **kwargs,
        )
        self.add_class("mcp-tool")
        self.add_class("mcp-classifier")
        self.examples.observe(self._on_example, names="value")
        self.text.observe(self._on_text, names="value")
        self.revision.observe(self._on_revision, names="value")
        self._show("")
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
                self._show(text)  # no change event fires, but the verdict may differ
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
        self._show(self.text.value)

    def _on_text(self, change):
        text = change["new"]
        chosen = self.examples.value
        if chosen is not None and chosen >= 0 and text != self._examples[chosen][1]:
            self.examples.value = -1  # edited by hand: no longer that example
        self._cancel_pending()
        if self._from_code or len(text) <= INSTANT_LIMIT or not self._wait_for_pause():
            self._show(text)

    def _wait_for_pause(self):
        """Judge the text once typing pauses; False when no event loop can wait.

        Every keystroke in the browser sends the whole text again; each one
        restarts the timer, so only the text that stays for :data:`PAUSE`
        seconds is parsed.
        """
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # plain Python, no kernel: judge at once
            return False
        self._pending = loop.call_later(PAUSE, self._settle)
        size = len(self.text.value)
        self.kind, self.code = None, None
        self.badge.value = badge("waiting", "WAITING")
        self.result.value = (
            f'<div class="mcp-verdict" style="line-height: 1.45"><p>{self.badge.value} '
            f"{size:,} characters: the verdict follows when the typing pauses.</p></div>"
        )
        return True

    def _settle(self):
        self._pending = None
        self._show(self.text.value)

    def _cancel_pending(self):
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None

    def _show(self, text):
        self.judged += 1
        try:
            self.result.value = self._render(text)
        except Exception as exc:  # never a traceback; say what happened instead
            self.kind, self.code = "invalid", None
            self.badge.value = badge("invalid", "ERROR")
            self.result.value = (
                f"<p>{self.badge.value} The playground could not show this text "
                f"({escape(type(exc).__name__)}).</p>"
            )
        self.announcement.value = escape(self._spoken())

    def _spoken(self):
        """The verdict in one sentence, for the live region."""
        if self.kind is None:
            return "Waiting for a message."
        if self.code is None:
            return f"Verdict: {self.kind}, no error code."
        name = ERROR_MESSAGES.get(self.code, "error")
        return f"Verdict: {self.kind}, error code {self.code} ({name})."

    def _render(self, text):
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
