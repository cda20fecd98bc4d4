"""What every tool of the playground shows with: escaped HTML, badges, tables, previews.

An ``ipywidgets.HTML`` value is rendered as markup, unsanitized, so everything that
comes from a pasted text goes through :func:`escape` before it goes in.
"""

import html
import json
import re
from html.parser import HTMLParser

import ipywidgets as widgets
from IPython.display import Javascript
from traitlets import observe

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


def _cut(text, limit):
    """``text`` (made safe with :func:`clean`) on at most ``limit`` characters, "..." where cut."""
    text = clean(text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _quoted(text, limit=60):
    """Text as JSON writes a string (quotes, escapes), cut to ``limit``; for the notes."""
    return _cut(json.dumps(clean(text), ensure_ascii=False), limit)


def _p(words, cls="mcp-note", style=_NOTE):
    return f'<p class="{cls}" style="{style}">{escape(words)}</p>'


def _table(cls, head, rows):
    """A scrollable table; ``head`` and every cell are plain text (escaped here)."""
    td = 'style="padding: 3px 8px; vertical-align: top; border-bottom: 1px solid #eaeef2'
    heads = "".join(
        f'<th style="text-align: left; padding: 3px 8px">{escape(name)}</th>' for name in head
    )
    body = "".join(
        "<tr>"
        + "".join(
            f'<td {td}{"; " + _MONO if mono else ""}">{escape(cell)}</td>' for cell, mono in cells
        )
        + "</tr>"
        for cells in rows
    )
    return (
        f'<div tabindex="0" style="max-height: 26em; overflow: auto; line-height: 1.35">'
        f'<table class="{cls}" style="border-collapse: collapse; font-size: 12px">'
        f"<thead><tr>{heads}</tr></thead><tbody>{body}</tbody></table></div>"
    )


def _plain_pre(text, cls):
    """Text in a ``<pre>``, escaped, at most :data:`PREVIEW_LIMIT` characters (a note says so)."""
    note = ""
    if len(text) > PREVIEW_LIMIT:
        note = _p(f"Showing the first {PREVIEW_LIMIT:,} characters of {len(text):,}.")
        text = text[:PREVIEW_LIMIT]
    return f'<pre class="{cls}" tabindex="0" style="{_PRE}">{escape(text)}</pre>{note}'
