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
  table, the conversation as a Mermaid sequence diagram (its text, and drawn
  where the front end can: the text is safe to render) and the tap's audit,
  one line per problem. The tap's module is only loaded when a recording is shown, and
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

The package holds one tool a module (``classifier``, ``quiz``, ``http_view``,
``recording_view``), the HTML they all show with (``_html``) and the judging of
a text as it is typed (``_judging``); every public name is here, at its root.

May import: :mod:`mcp_lesson.protocol`, :mod:`mcp_lesson.core`, :mod:`mcp_lesson.rules`,
:mod:`mcp_lesson.shared`, :mod:`mcp_lesson.exercises` and :mod:`mcp_lesson.tap`.
"""

from mcp_lesson.shared.recording import (
    DIAGRAM_ARROWS,
    in_time_order,
    mermaid_text,
    sequence_diagram,
)
from mcp_lesson.widgets._html import (
    COLOURS,
    COURSE_RULES,
    KINDS,
    LIVE_REGION_SCRIPT,
    PREVIEW_LIMIT,
    DropdownWithNone,
    as_text,
    badge,
    clean,
    escape,
    preview,
)
from mcp_lesson.widgets._judging import (
    INSTANT_LIMIT,
    PAUSE,
)
from mcp_lesson.widgets.classifier import (
    Classifier,
    examples,
    verdict,
)
from mcp_lesson.widgets.http_view import (
    HEADER_LINES,
    HEADERS_LIMIT,
    HTTP_ERROR_NAMES,
    ROUTING_HEADERS,
    SDK_BODY_LIMIT,
    HttpView,
    read_headers,
)
from mcp_lesson.widgets.quiz import (
    Checker,
    Quiz,
)
from mcp_lesson.widgets.recording_view import (
    LEFT_OUT_SHOWN,
    PROBLEMS_SHOWN,
    RECORDING_LIMIT,
    RECORDING_LINES,
    TABLE_ROWS,
    TEXT_SHOWN,
    RecordingView,
    audit_recording,
    read_recording,
)

__all__ = [
    "COLOURS",
    "COURSE_RULES",
    "Checker",
    "Classifier",
    "DIAGRAM_ARROWS",
    "DropdownWithNone",
    "HEADERS_LIMIT",
    "HEADER_LINES",
    "HTTP_ERROR_NAMES",
    "HttpView",
    "INSTANT_LIMIT",
    "KINDS",
    "LEFT_OUT_SHOWN",
    "LIVE_REGION_SCRIPT",
    "PAUSE",
    "PREVIEW_LIMIT",
    "PROBLEMS_SHOWN",
    "Quiz",
    "RECORDING_LIMIT",
    "RECORDING_LINES",
    "ROUTING_HEADERS",
    "RecordingView",
    "SDK_BODY_LIMIT",
    "TABLE_ROWS",
    "TEXT_SHOWN",
    "as_text",
    "audit_recording",
    "badge",
    "clean",
    "escape",
    "examples",
    "in_time_order",
    "mermaid_text",
    "preview",
    "read_headers",
    "read_recording",
    "sequence_diagram",
    "verdict",
]
