"""The tap: a stdio (or HTTP) pass-through that records and judges live MCP traffic, and audits it.

Record: put the tap in front of any stdio MCP server, in a host's server
configuration or on the command line, in place of the server's command::

    python -m mcp_lesson.tap --record talk.jsonl -- python -m mcp_lesson.server

Or in front of a Streamable HTTP server, as a reverse proxy on 127.0.0.1 (the
client is given the address the tap announces on stderr instead)::

    python -m mcp_lesson.tap --record talk.jsonl --http --port 8001 --to http://127.0.0.1:8000/mcp

Audit what was recorded, in plain words, one line per problem::

    python -m mcp_lesson.tap --report talk.jsonl

**What passes through.** The tap starts the server (``COMMAND [ARGS...]``)
and copies the bytes of its client (whoever started the tap) to the server's
stdin and the server's stdout back to the client, unchanged and in order.
Each chunk is passed on the moment it is read; nothing waits for a line to
end. The server's stderr is the tap's own, so its logs reach the host as
they would without the tap. The tap's own complaints go to stderr too, never
to stdout, which belongs to the protocol.

**What is recorded.** Every line, in each direction, becomes one JSON object
on a line of ``FILE`` (JSON Lines), written as soon as the line is complete::

    {"t":0.012345,"direction":"to_server","kind":"request","code":null,"text":"{...}"}

* ``t``: seconds since the tap started (monotonic clock), taken when the read
  that completed the line returned; the ``start`` event below gives the wall time;
* ``direction``: ``"to_server"`` (the client's lines) or ``"from_server"``;
* ``kind`` and ``code``: the verdict of ``classify_json`` on the line: the
  course's (:func:`mcp_lesson.classify_json`), or with ``--judge my_mcp`` the
  user's own package's. A line that is not JSON (a log line on the server's
  stdout, the classic stdio bug) is ``"invalid"`` with ``-32700``, a parse error;
* ``text``: the line as it travelled, without its newline (a ``"\r"`` before
  it stays);
* only when it applies: ``"bytes"``, the line's exact bytes in Base64 when
  they are not valid UTF-8 (``text`` then shows them with U+FFFD in place of
  what could not be read, so the record stays lossless); ``"newline": false``
  for a last line that ended without one; ``"truncated": true`` and
  ``"size"`` for a line longer than ``--max-line`` bytes (``text`` holds its
  beginning and ``"tail"`` its last 256 bytes, where the report reads its id;
  ``kind`` and ``code`` are null: it was passed on whole, but not judged, and
  the report calls it a note, never a problem); over HTTP, for an answer that
  came compressed (the client's ``Accept-Encoding`` is passed on as it is),
  ``"content_encoding"`` and ``"travelled"`` (its bytes as they travelled, in
  Base64; ``text`` is the decoded message, which is what is judged), or
  ``"undecoded": true`` with its ``size`` for a coding the tap cannot decode;
  ``"judge_error"`` when the user's judge raised or answered
  something that is not a verdict (``kind`` and ``code`` are then null).

Joining the lines of one direction with newlines (and one after each line
but a ``"newline": false`` one) gives back the bytes that travelled.

The tap also records what happened to the connection, as entries with an
``event`` key instead of ``direction``: ``start`` (with ``wall``, the Unix
time, ``command``, the server's ``pid`` and the ``judge``), ``client_closed``
(end of the client's input), ``client_gone`` (the client stopped reading),
``server_closed`` (end of the server's output), ``server_stopped_reading``,
``signal`` (the tap was asked to stop, and passed the signal on),
``stopping`` (the tap ended the server itself, with the ``signal`` and
``why``), ``server_exited`` (with its ``status`` and ``returncode``, negative
for the signal that ended it), ``tap_error`` and ``end`` (with the tap's peak memory,
``max_rss_kb``). ``--append`` adds a recording to the
end of ``FILE`` (a host that restarts its server keeps every session); each
starts with its ``start`` event.

**How it ends.** When either side ends: the client's end of input is passed
on (the server's stdin is closed) and the server gets ``--grace`` seconds (30 by default) to
exit; the end of the server's output is passed on to the client at once. A
server that has not exited by then gets SIGTERM, and SIGKILL a second later.
The server runs in a process group of its own, and when it has exited the
tap ends whatever is left in that group, so nothing it started stays behind
(on Linux the server is also killed if the tap itself is killed). SIGTERM,
SIGINT or SIGHUP sent to the tap are passed on to the server's group the same
way. The tap's exit status is the server's (128 + N when signal N ended it).

**Bad input.** Whatever the two sides send, the tap passes on what it can,
records what happened, and never hangs or crashes: a 10 MB line passes on in
chunks and is recorded whole; a line longer than ``--max-line`` (default 16
MiB) is passed on whole but only its beginning is kept; invalid UTF-8 is
recorded with its bytes; a flooding server is held back by its client's
reading (the tap keeps at most one chunk and one line per direction); a
client that stops reading, a server that dies or stops reading, and a last
line with no newline are each recorded and end the session cleanly.

**Over HTTP** (``--http``; :class:`HttpTap` says how): each request body and
each answer body, or each event of an answer's event stream, is an entry of
the same format, with ``"http"`` (the method, path and MCP headers of a
request; the status and headers of an answer) and, for a stream's event,
``"sse"``. A request or answer with no body (a GET that opens a stream, the
202 that accepts a notification) is an ``http_request`` or ``http_response``
event. It runs until SIGINT or SIGTERM.

**The audit.** :func:`audit` takes a recorded conversation (the entries, as
dicts) and returns its problems; ``--report`` prints them, with the revision
the two sides agreed on and the time each request took to be answered. The
rules are those of JSON-RPC 2.0 as MCP uses it:

* every request (a message with a method and an id) is answered exactly
  once, by a response with the same id (an id is a string or an integer:
  ``1`` and ``"1"`` are different ids); a request the requester cancelled
  (``notifications/cancelled``) may go unanswered;
* a notification gets no answer at all, not even an error;
* no response carries an id the other side never sent;
* no id is reused while the request that first carried it is unanswered;
* the server's stdout carries JSON-RPC messages only (no log lines);
* every message is valid under the revision the two sides agreed on: the
  ``protocolVersion`` of the server's answer to ``initialize``, or, from
  2026-07-28, the ``io.modelcontextprotocol/protocolVersion`` in a request's
  ``params._meta`` (judged by :func:`mcp_lesson.classify` with that
  ``revision``; a revision the course does not know is judged by the
  course's own rules, and the report says so).

Each side numbers its own requests: the client's ids and the server's ids
(a server may ask too, say ``sampling/createMessage``) are kept apart.

The package holds one part of the tap a module: ``judge`` (a line's verdict),
``stdio`` (the stdio tap), ``http`` (the HTTP tap), ``audit`` (the audit of a
conversation), ``report`` (``--report``) and ``cli`` (the command line,
``python -m mcp_lesson.tap``); every public name is here, at its root.

May import: :mod:`mcp_lesson.protocol`, :mod:`mcp_lesson.core`, :mod:`mcp_lesson.rules`,
:mod:`mcp_lesson.shared`, :mod:`mcp_lesson.exercises`, :mod:`mcp_lesson.server`,
:mod:`mcp_lesson.client`, and :mod:`mcp_lesson.version`.
"""

from mcp_lesson.shared.recording import sessions
from mcp_lesson.shared.recording import time_order as in_time_order
from mcp_lesson.tap._settings import (
    CHUNK,
    DIRECTIONS,
    GRACE,
    LOOK,
    MAX_LINE,
    MAX_WAITING,
    PROG,
    SENDER,
    TERM_WAIT,
)
from mcp_lesson.tap.audit import (
    agreed_revision,
    answer_times,
    audit,
    id_key,
    line_of,
    message_of,
    revisions_by_scope,
    show_id,
)
from mcp_lesson.tap.cli import (
    main,
)
from mcp_lesson.tap.http import (
    CONNECT_TIMEOUT,
    HOP_BY_HOP,
    REQUEST_HEADERS,
    SSE,
    HttpTap,
)
from mcp_lesson.tap.judge import (
    CourseJudge,
    UserJudge,
    load_judge,
)
from mcp_lesson.tap.report import (
    read_recording,
    report,
)
from mcp_lesson.tap.serving import serve_http
from mcp_lesson.tap.stdio import (
    Lines,
    Pump,
    Recorder,
    judged,
    record,
    truncated,
)
