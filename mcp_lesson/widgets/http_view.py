"""The HTTP view: the headers and body of a POST, judged as a strict 2026-07-28
server would (lesson 09's ``check_headers``), beside what a client would send.
"""

import json
import re

import ipywidgets as widgets

from mcp_lesson.core.transport import (
    HEADER_MISMATCH,
    HTTP_REVISIONS,
    STATELESS,
    SUPPORTED,
    UNSUPPORTED_PROTOCOL_VERSION,
    check_headers,
    http_request_for,
)
from mcp_lesson.exercises.http_cases import HEADER_CHECKS
from mcp_lesson.rules.classification import classify, reply_for
from mcp_lesson.rules.messages import ERROR_MESSAGES, INVALID_PARAMS
from mcp_lesson.widgets._html import (
    _MONO,
    _cut,
    _live,
    _p,
    _plain_pre,
    _pre,
    _quoted,
    _styles,
    _table,
    badge,
    clean,
    escape,
)
from mcp_lesson.widgets._judging import _Judging
from mcp_lesson.widgets.classifier import verdict

#: The headers box is read up to this many characters, and this many lines.
HEADERS_LIMIT = 65_536
HEADER_LINES = 200
#: The course's server (the SDK's, mcp 2.3.0) refuses a body longer than this with 413
#: before reading it (tests/server/test_http_server.py pins it).
SDK_BODY_LIMIT = 4 * 1024 * 1024

#: The names of the JSON-RPC errors of 2026-07-28's HTTP transport, beside the reserved ones.
HTTP_ERROR_NAMES = {
    HEADER_MISMATCH: "Header mismatch",
    UNSUPPORTED_PROTOCOL_VERSION: "Unsupported protocol version",
}
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
        notes.append(
            f"The headers are {len(text):,} characters long; only the first "
            f"{HEADERS_LIMIT:,} are read."
        )
        text = text[:HEADERS_LIMIT]
    lines = text.replace("\r\n", "\n").split("\n")
    if len(lines) > HEADER_LINES:
        notes.append(
            f"The headers have {len(lines):,} lines; only the first {HEADER_LINES} are read."
        )
        lines = lines[:HEADER_LINES]
    first = True
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        if first and _REQUEST_LINE.match(line.strip()):
            notes.append(
                f"Line {number} is a request line ({_quoted(line)}), not a header; left out."
            )
            first = False
            continue
        first = False
        if line[0] in " \t":
            notes.append(
                f"Line {number} starts with a space: old HTTP read that as more of the "
                "header above, which HTTP/1.1 no longer allows; left out."
            )
            continue
        name, colon, value = line.partition(":")
        if not colon:
            notes.append(
                f"Line {number} has no colon, so it is no header (a header is "
                f"Name: value); left out: {_quoted(line)}."
            )
            continue
        if not _TOKEN.match(name):
            why = (
                "the name before the colon is empty"
                if not name.strip()
                else "a header name is letters, digits and !#$%&'*+-.^_`|~, with no space "
                "before the colon"
            )
            notes.append(f"Line {number}: {_quoted(name)} is not a header name ({why}); left out.")
            continue
        value = value.strip(" \t")
        if _CONTROL.search(value):
            notes.append(
                f"Line {number}: the value of {name} holds control characters, which "
                "HTTP does not allow in a header; left out."
            )
            continue
        if any(ord(ch) > 255 for ch in value):
            notes.append(
                f"Line {number}: the value of {name} holds characters beyond Latin-1, "
                "which a header cannot carry as they are (for Mcp-Name a client sends "
                "the Base64 form); judged as written."
            )
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
        said = (
            "agree"
            if case.expected is None
            else f"{case.expected[0]} {case.expected[1]['error']['code']}"
        )
        found.append(
            (
                f"{said}: {case.name}",
                "\n".join(f"{name}: {value}" for name, value in headers.items()),
                json.dumps(msg, indent=2, ensure_ascii=False),
            )
        )
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
            value=-1,
            description="Example:",
            layout=widgets.Layout(width="min(100%, 40em)"),
        )
        self.revision = widgets.Dropdown(
            options=[(f"MCP {r}", r) for r in HTTP_REVISIONS],
            value=revision,
            description="Revision:",
            layout=widgets.Layout(width="min(100%, 24em)"),
        )
        self.revision.add_class("mcp-http-revision")
        self.headers_box = widgets.Textarea(
            value="",
            description="Headers:",
            continuous_update=True,
            placeholder="MCP-Protocol-Version: 2026-07-28\nMcp-Method: tools/list",
            layout=widgets.Layout(width="100%", height="7em"),
        )
        self.headers_box.add_class("mcp-http-headers")
        self.body_box = widgets.Textarea(
            value="",
            description="Body:",
            continuous_update=True,
            placeholder='{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {...}}',
            layout=widgets.Layout(width="100%", height="9em"),
        )
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
            [
                *_styles(),
                self.examples,
                self.revision,
                self.headers_box,
                self.body_box,
                self.announcement,
                self.result,
            ],
            **kwargs,
        )
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
            return (
                f"Server: refused with {self.answer[0]}, error code {code} ({_error_name(code)})."
            )
        return "Server: check_headers does not judge this body."

    def _render(self):
        self._waiting()
        headers, notes, repeated = read_headers(self.headers_box.value)
        self.headers_read, self.notes = headers, notes
        text = self.body_box.value
        if text == "":
            return (
                f'<div class="mcp-verdict" style="line-height: 1.45"><p>'
                f"{badge('waiting', 'WAITING')} {escape(self._HINT)}</p>"
                + "".join(_p(note) for note in notes)
                + "</div>"
            )
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
            why = "The body is not JSON: the server refuses it before it compares a header with it."
        elif kind == "invalid":
            self.answer = (400, reply_for(value))
            why = (
                "The body is no valid message (under the course's rules, which check_headers "
                "uses), so there is nothing for the headers to agree with: the server "
                "refuses the body."
            )
        elif kind == "response":
            parts.append(
                f'<p class="mcp-http-server">{badge("waiting", "NOT JUDGED")} '
                "check_headers judges the headers of requests and notifications; this "
                "body is a response, which a client of 2026-07-28 never POSTs (before "
                "2026-07-28 a client POSTed its answers to a server's requests).</p>"
            )
        else:
            try:
                self.answer = check_headers(headers, value)
            except Exception as exc:  # the course's function should never raise here
                parts.append(
                    f'<p class="mcp-http-server">{badge("invalid", "ERROR")} '
                    f"check_headers could not judge it ({escape(type(exc).__name__)}: "
                    f"{escape(_cut(exc, 200))}).</p>"
                )
                return parts
            self.agree = self.answer is None
            if self.agree:
                then = (
                    "it runs the request and answers it (200), or says it does not know "
                    "the method (404, -32601)"
                    if kind == "request"
                    else "it accepts the notification: 202 Accepted, with no body"
                )
                parts.append(
                    f'<p class="mcp-http-server">{badge("pass", "HEADERS AGREE")} '
                    f"The headers agree with the body, so {escape(then)}.</p>"
                )
            else:
                why = {
                    HEADER_MISMATCH: "a header the body is compared with (MCP-Protocol-Version, "
                    "Mcp-Method, or Mcp-Name for a request that names "
                    "something) is missing, or says something the body does "
                    "not; the table below sets yours beside a client's",
                    UNSUPPORTED_PROTOCOL_VERSION: "the headers and the body agree on a version "
                    "this server does not speak (it speaks " + ", ".join(SUPPORTED) + ")",
                    INVALID_PARAMS: "a request of 2026-07-28 carries params._meta with "
                    "io.modelcontextprotocol/protocolVersion and "
                    "io.modelcontextprotocol/clientCapabilities",
                }.get(self.answer[1]["error"]["code"], "check_headers refuses it")
                why = why[0].upper() + why[1:] + "."
        if self.answer is not None:
            status, error = self.answer
            code = error["error"]["code"]
            parts.append(
                f'<p class="mcp-http-server">{badge("fail", f"{status} REFUSED")} '
                f'<span class="mcp-code" style="{_MONO}">error code {code} '
                f"({escape(_error_name(code))})</span></p>"
            )
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
            more.append(
                f"{twice[0]} is given more than once: check_headers reads one value, but "
                "the course's server (mcp 2.3.0) refuses a request that repeats "
                "MCP-Protocol-Version, Mcp-Method or Mcp-Name: 400, -32020."
            )
        if _media_types(sent.get("content-type", "")) != {"application/json"}:
            more.append(
                "There is no Content-Type: application/json: the course's server "
                "(mcp 2.3.0) refuses a POST without it (400, Invalid Content-Type "
                "header) before it reads the body."
            )
        accepts = _media_types(sent.get("accept", ""))
        if not (
            {"application/json", "application/*", "*/*"} & accepts
            and {"text/event-stream", "text/*", "*/*"} & accepts
        ):
            more.append(
                "Accept does not list both application/json and text/event-stream, as "
                "the specification asks of every POST; the course's server (mcp 2.3.0) "
                "answered an Accept of application/json alone with 406."
            )
        if isinstance(raw, bytes):
            size = len(raw)
        else:  # a character is at most 4 bytes of UTF-8: most texts need no encoding to tell
            size = (
                len(raw) if len(raw) * 4 <= SDK_BODY_LIMIT else len(raw.encode("utf-8", "replace"))
            )
        if size > SDK_BODY_LIMIT:
            more.append(
                f"The body is {size:,} bytes: the course's server (mcp 2.3.0) refuses "
                f"a body over {SDK_BODY_LIMIT:,} bytes (4 MiB) with 413, unread."
            )
        return more

    def _client_part(self, headers, value, revision):
        """What a client of ``revision`` sends for the body, and its headers beside yours."""
        parts = [f"<p><b>What a client of MCP {escape(revision)} POSTs for this body:</b></p>"]
        if value is None:
            parts.append(
                _p("Nothing: a client sends JSON, and this is not JSON.", "mcp-http-client")
            )
            return parts
        try:
            self.request = http_request_for(value, revision)
        except ValueError as exc:
            parts.append(
                _p(f"Nothing: http_request_for refuses it ({_cut(exc, 300)}).", "mcp-http-client")
            )
            return parts
        except Exception as exc:  # nested too deeply to write, say
            parts.append(
                _p(
                    f"Nothing: http_request_for could not build it ({type(exc).__name__}).",
                    "mcp-http-client",
                )
            )
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
            rows.append(
                [
                    ((mine or client)[0], True),
                    (_cut(mine[1], 80) if mine else "", True),
                    (_cut(client[1], 80) if client else "", True),
                    (said, False),
                ]
            )
        parts.append("<p><b>Your headers beside the client's:</b></p>")
        parts.append(
            _table("mcp-http-compare", ("header", "yours", "the client's", "compared"), rows)
        )
        return parts
