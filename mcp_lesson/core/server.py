# Lesson 11's exported cells, written by the course when they ran.
# Change them in the notebook, not here: running a cell rewrites its part.
# --- written by the course: what this module takes from earlier lessons, and gives ---
from .transport import check_headers
from .classification import classify_json
from .errors import error_response, reply_for_json
from .messages import is_integer, is_valid_id
__all__ = ['SERVER_INFO', 'HANDSHAKE', 'MODERN', 'CAPABILITIES', 'LEVELS', 'TOOLS', 'is_number', 'text_result', 'respond', 'fail', 'call_tool', 'LISTS', 'CACHE', 'answer_request', 'asked_revision', 'unsupported', 'progress', 'handle_message', 'MAX_BODY', 'RETRY_MS', 'STATUS', 'is_local', 'safely', 'serve_stdio', 'Sessions', 'McpHandler', 'serve_http', 'main']
# --- end of what the course writes ---

# --- cell c11-05 ---
import json
import math

from .codes import (CAPABILITIES_KEY, ERROR_MESSAGES, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST,
                        METHOD_NOT_FOUND, UNSUPPORTED_PROTOCOL_VERSION, VERSION_KEY)

#: Who the server says it is.
SERVER_INFO = {"name": "my-mcp", "version": "1.0.0"}
#: The revisions of the handshake it speaks, newest first (2025-11-25 basic/lifecycle.mdx).
HANDSHAKE = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
#: The revision without a handshake: each request names it in params._meta (2026-07-28).
MODERN = "2026-07-28"
#: What it offers: tools, and (empty) lists of prompts and resources; it takes a log level.
CAPABILITIES = {"tools": {}, "prompts": {}, "resources": {}, "logging": {}}
#: The log levels of logging/setLevel (2025-11-25 server/utilities/logging.mdx).
LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
#: Its tools, as tools/list shows them (2025-11-25 server/tools.mdx).
TOOLS = [
    {"name": "add", "description": "Add two numbers.",
     "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                     "required": ["a", "b"]}},
    {"name": "count", "description": "Count from 1 to n (n from 1 to 10), saying how far it got.",
     "inputSchema": {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1, "maximum": 10}},
                     "required": ["n"]}},
]


def is_number(value):
    """True for a JSON number: an int (not a bool) or a finite float."""
    return is_integer(value) or (isinstance(value, float) and math.isfinite(value))


def text_result(text, is_error=False):
    """A tool's result: one piece of text; is_error=True when the tool could not do its job."""
    return {"content": [{"type": "text", "text": text}], "isError": is_error}


def respond(request_id, result, revision):
    """The response that carries `result`. Under 2026-07-28 every result says it is complete and who
    the server is, in _meta (schema/2026-07-28: Result, ResultMetaObject)."""
    if revision == MODERN:
        meta = {"io.modelcontextprotocol/serverInfo": SERVER_INFO, **result.get("_meta", {})}
        result = {"resultType": "complete", **result, "_meta": meta}
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def fail(request_id, code, message=None):
    """An error response with one of JSON-RPC's codes, and its standard message unless one is given."""
    return error_response(request_id, code, message or ERROR_MESSAGES[code])

# --- cell c11-08 ---
def call_tool(name, arguments):
    """What calling the tool `name` with `arguments` (a dict) gives: a tool result, or None for no such tool."""
    if name == "add":
        a, b = arguments.get("a"), arguments.get("b")
        if not (is_number(a) and is_number(b)):
            return text_result("add takes two numbers, a and b", is_error=True)
        return text_result(str(a + b))
    if name == "count":
        n = arguments.get("n")
        if not is_integer(n) or not 1 <= n <= 10:
            return text_result("count takes a whole number n from 1 to 10", is_error=True)
        return text_result(", ".join(str(k) for k in range(1, n + 1)))
    return None

# --- cell c11-14 ---
#: The lists a server keeps, by the method that asks for them: (the result's member, what it holds).
LISTS = {"tools/list": ("tools", TOOLS), "prompts/list": ("prompts", []), "resources/list": ("resources", [])}
#: How long a client may keep a list under 2026-07-28 (0: ask again each time), and who may share it.
CACHE = {"ttlMs": 0, "cacheScope": "public"}


def answer_request(request, revision):
    """The response to a valid request (a dict), under `revision`: one of HANDSHAKE, or MODERN."""
    method, params, request_id = request["method"], request.get("params", {}), request["id"]
    modern = revision == MODERN
    if method in LISTS:
        member, items = LISTS[method]
        return respond(request_id, {member: items, **(CACHE if modern else {})}, revision)
    if method == "tools/call":
        name, arguments = params.get("name"), params.get("arguments", {})
        if not isinstance(name, str) or not isinstance(arguments, dict):
            return fail(request_id, INVALID_PARAMS, "tools/call takes a tool's name and an object of arguments")
        result = call_tool(name, arguments)
        if result is None:
            return fail(request_id, INVALID_PARAMS, f"Unknown tool: {name}")
        return respond(request_id, result, revision)
    if method == "server/discover" and modern:
        return respond(request_id, {"supportedVersions": [MODERN], "capabilities": CAPABILITIES, **CACHE},
                       revision)
    if method == "ping" and not modern:
        return respond(request_id, {}, revision)
    if method == "logging/setLevel" and not modern:
        if params.get("level") not in LEVELS:
            return fail(request_id, INVALID_PARAMS, f"level must be one of {', '.join(LEVELS)}")
        return respond(request_id, {}, revision)
    return fail(request_id, METHOD_NOT_FOUND)

# --- cell c11-20 ---
def asked_revision(request):
    """The revision a request names in params._meta (2026-07-28), or None when it names none."""
    params = request.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    return meta.get(VERSION_KEY) if isinstance(meta, dict) else None


def unsupported(request, asked):
    """The error for a request of a revision the server does not serve statelessly (2026-07-28
    basic/versioning.mdx: -32022, with the versions it does serve)."""
    return error_response(request["id"], UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version",
                          {"supported": [MODERN], "requested": asked})


def progress(request, replies):
    """`replies`, with a notifications/progress before the last for each number counted, when the
    request is a call of count that asked for progress (params._meta.progressToken)."""
    params = request.get("params", {})
    token = params.get("_meta", {}).get("progressToken") if isinstance(params.get("_meta"), dict) else None
    n = params.get("arguments", {}).get("n") if isinstance(params.get("arguments"), dict) else None
    if request["method"] != "tools/call" or params.get("name") != "count":
        return replies
    if not (isinstance(token, str) or is_number(token)):  # a token is a string or a number (schema)
        return replies
    if not is_integer(n) or not 1 <= n <= 10 or "result" not in replies[-1]:
        return replies
    steps = [{"jsonrpc": "2.0", "method": "notifications/progress",
              "params": {"progressToken": token, "progress": k, "total": n}} for k in range(1, n + 1)]
    return replies[:-1] + steps + replies[-1:]

# --- cell c11-21 ---
def handle_message(text, session):
    """What the server does with one message, as text: (the messages it sends back, in order; the
    session after it). `session` is the revision the handshake agreed on, or None before one."""
    kind, _ = classify_json(text)
    if kind == "invalid":
        return [reply_for_json(text)], session
    if kind != "request":
        return [], session  # a notification or a response: nothing is owed
    request = json.loads(text)
    asked = asked_revision(request)
    if asked is not None:  # 2026-07-28: the request says its revision, and needs no session
        if asked != MODERN:
            return [unsupported(request, asked)], session
        if not isinstance(request["params"]["_meta"].get(CAPABILITIES_KEY), dict):
            return [fail(request["id"], INVALID_PARAMS, f"_meta needs {CAPABILITIES_KEY}")], session
        return progress(request, [answer_request(request, MODERN)]), session
    if request["method"] == "initialize":
        wanted = request.get("params", {}).get("protocolVersion")
        if not isinstance(wanted, str):
            return [fail(request["id"], INVALID_PARAMS, "initialize needs a protocolVersion")], session
        agreed = wanted if wanted in HANDSHAKE else HANDSHAKE[0]
        return [respond(request["id"], {"protocolVersion": agreed, "capabilities": CAPABILITIES,
                                        "serverInfo": SERVER_INFO}, agreed)], agreed
    if session is None and request["method"] != "ping":
        return [fail(request["id"], INVALID_REQUEST, "initialize first, or name a revision in _meta")], session
    return progress(request, [answer_request(request, session or HANDSHAKE[0])]), session

# --- cell c11-30 ---
import http.server
import itertools
import secrets
import sys
import threading

from .codes import HEADER_MISMATCH, PARSE_ERROR

#: The longest request body the HTTP server reads (the SDK's server takes 4 MiB too).
MAX_BODY = 4 * 1024 * 1024
#: Milliseconds a client waits before it comes back for a stream (SSE's retry field).
RETRY_MS = 1000
#: The HTTP status of a 2026-07-28 error answer, by its code: lesson 09's table, which is the SDK's
#: (mcp/shared/inbound.py). An unknown method MUST get 404 (2026-07-28 streamable-http); any other
#: error, and every result, goes with 200.
STATUS = {PARSE_ERROR: 400, INVALID_REQUEST: 400, INVALID_PARAMS: 400, HEADER_MISMATCH: 400,
          UNSUPPORTED_PROTOCOL_VERSION: 400, METHOD_NOT_FOUND: 404}


def is_local(host):
    """True for a Host (or an Origin's host) of this machine: 127.0.0.1, localhost or [::1],
    with any port or none (a tap or a proxy in front of the server has a port of its own)."""
    name, colon, port = (host or "").rpartition(":")
    if not colon or "]" in port:  # no port: the whole is the name ("[::1]" has colons of its own)
        name, port = host or "", "0"
    return name in ("127.0.0.1", "localhost", "[::1]") and port.isdigit()


def safely(text, session, headers=None):
    """handle_message, after lesson 09's check_headers when `headers` are given (a 2026-07-28 POST's);
    when either fails (a bug, a sum too long to write), the error JSON-RPC names for it, -32603, and
    the reason on stderr: one message never stops the server, nor drops its connection."""
    step = "check_headers"
    try:
        if headers is not None:
            refused = check_headers(headers, json.loads(text))  # (400, the error) or None
            if refused is not None:
                return [refused[1]], session
        step = "handle_message"
        return handle_message(text, session)
    except Exception as exc:  # noqa: BLE001 - whatever the rules' code raises
        print(f"{step} failed: {type(exc).__name__}: {exc}"[:500], file=sys.stderr, flush=True)
        try:
            request_id = json.loads(text).get("id")
        except (ValueError, AttributeError, RecursionError):
            request_id = None
        return [fail(request_id if is_valid_id(request_id) else None, INTERNAL_ERROR)], session


def serve_stdio(read=None, write=None):
    """The server over stdio: a message a line in, each reply a line out, until the input ends."""
    read, write = read or sys.stdin.buffer, write or sys.stdout.buffer
    session = None
    for line in read:
        replies, session = safely(line.rstrip(b"\r\n"), session)
        for reply in replies:
            write.write(json.dumps(reply).encode() + b"\n")
        write.flush()


class Sessions:
    """The HTTP sessions of the handshake: Mcp-Session-Id -> the revision agreed (safe across threads)."""

    def __init__(self):
        self._agreed, self._lock = {}, threading.Lock()

    def open(self, revision):
        with self._lock:
            session_id = secrets.token_hex(16)
            self._agreed[session_id] = revision
            return session_id

    def get(self, session_id):
        with self._lock:
            return self._agreed.get(session_id)

    def agree(self, session_id, revision):
        """A handshake again inside the session: the revision it agreed now counts."""
        with self._lock:
            if session_id in self._agreed and revision:
                self._agreed[session_id] = revision

    def close(self, session_id):
        with self._lock:
            return self._agreed.pop(session_id, None) is not None


class McpHandler(http.server.BaseHTTPRequestHandler):
    """Streamable HTTP at /mcp (2025-11-25 and 2026-07-28 basic/transports): a POST carries one message,
    and its replies come back as an event stream (or as JSON when the client takes no stream)."""

    protocol_version = "HTTP/1.1"
    sessions = Sessions()
    events = itertools.count(1)

    def log_message(self, format, *args):  # stderr stays quiet: one line per request is noise
        pass

    def _plain(self, status, words, headers=()):
        """A refusal in words. The connection closes after it: a body left unread must never be
        taken for the next request."""
        body = (words + "\n").encode()
        self.close_connection = True
        self.send_response(status)
        for name, value in [*headers, ("Connection", "close")]:
            self.send_header(name, value)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _refused(self):
        """The transport's checks before any message is read: the path, the Host and the Origin
        (2025-11-25 basic/transports.mdx, Security Warning: a page elsewhere must not reach a local server)."""
        if self.path.split("?")[0] != "/mcp":
            return 404, "no such endpoint: the server is at /mcp"
        if not is_local(self.headers.get("Host")):
            return 421, "this server answers to 127.0.0.1, localhost and [::1] only"
        origin = self.headers.get("Origin")
        if origin is not None and not (origin.startswith("http://") and is_local(origin[len("http://"):])):
            return 403, "requests from other origins are refused"
        return None

    def _empty(self, status, headers=()):
        """An answer with no body: nothing a client could take for a message."""
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):  # no stream of the server's own: 405, as the transports page allows
        refused = self._refused()
        self._plain(*refused) if refused else self._empty(405, [("Allow", "POST, DELETE")])

    def do_DELETE(self):  # the client ends its session
        refused = self._refused()
        if refused:
            return self._plain(*refused)
        if self.sessions.close(self.headers.get("Mcp-Session-Id")):
            return self._empty(200)
        self._plain(404, "no such session")

    def do_POST(self):
        refused = self._refused()
        if refused:
            return self._plain(*refused)
        length = self.headers.get("Content-Length")
        if length is None or not (length.isascii() and length.isdigit()):
            return self._plain(411, "a POST needs a Content-Length")
        if int(length) > MAX_BODY:
            return self._plain(413, f"a message may be {MAX_BODY:,} bytes at most")
        body = self.rfile.read(int(length))
        kind, _ = classify_json(body)
        if kind == "invalid":  # a body that is no message gets its error, with 400
            return self._json(400, [reply_for_json(body)])
        message = json.loads(body)
        if kind in ("request", "notification") and asked_revision(message) is not None:
            replies, _ = safely(body, None, dict(self.headers.items()))  # lesson 09: headers and body agree
            if len(replies) == 1 and "error" in replies[0]:  # an error goes alone, with its status
                return self._json(STATUS.get(replies[0]["error"].get("code"), 200), replies)
            return self._send(replies)
        session_id = self.headers.get("Mcp-Session-Id")
        if kind == "request" and message["method"] == "initialize" and session_id is None:
            replies, agreed = safely(body, None)
            opened = [("Mcp-Session-Id", self.sessions.open(agreed))] if agreed else []
            return self._send(replies, opened)
        if session_id is None:
            return self._plain(400, "no Mcp-Session-Id: initialize first, or name a revision in _meta")
        agreed = self.sessions.get(session_id)
        if agreed is None:
            return self._plain(404, "no such session (it ended, or never began): initialize again")
        if self.headers.get("MCP-Protocol-Version", agreed) not in HANDSHAKE:
            return self._plain(400, f"unsupported MCP-Protocol-Version: {self.headers['MCP-Protocol-Version']}")
        replies, now = safely(body, agreed)
        self.sessions.agree(session_id, now)
        self._send(replies)

    def _send(self, replies, headers=()):
        if not replies:  # a notification or a response: accepted, nothing to say
            return self._empty(202, headers)
        if "text/event-stream" not in self.headers.get("Accept", ""):
            return self._json(200, replies[-1:], headers)
        self.send_response(200)
        for name, value in [*headers, ("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache"),
                            ("Connection", "close")]:
            self.send_header(name, value)
        self.end_headers()
        self.close_connection = True
        # First a priming event: an id to come back with, and how long to wait (2025-11-25 transports).
        self.wfile.write(f"id: {next(self.events)}\nretry: {RETRY_MS}\ndata: \n\n".encode())
        for reply in replies:
            self.wfile.write(f"id: {next(self.events)}\nevent: message\ndata: {json.dumps(reply)}\n\n".encode())
            self.wfile.flush()

    def _json(self, status, replies, headers=()):
        body = json.dumps(replies[0]).encode()
        self.send_response(status)
        for name, value in [*headers, ("Content-Type", "application/json")]:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def serve_http(port=0, announce=None):
    """The server over Streamable HTTP on 127.0.0.1:`port` (0: a free one), until stopped (Ctrl-C)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), McpHandler)
    server.daemon_threads = True
    url = f"http://127.0.0.1:{server.server_address[1]}/mcp"
    (announce or (lambda address: print(f"listening on {address}", file=sys.stderr, flush=True)))(url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


def main(args=None):
    """`python -m my_mcp.server` serves over stdio; `--http [--port N]` over HTTP."""
    args = list(sys.argv[1:] if args is None else args)
    if "--http" in args:
        port = int(args[args.index("--port") + 1]) if "--port" in args else 0
        serve_http(port)
    else:
        serve_stdio()


if __name__ == "__main__" and "get_ipython" not in globals():  # run as a program, not in a notebook
    main()
