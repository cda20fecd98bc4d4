# Lesson 09's exported cells, written by the course when they ran.
# Change them in the notebook, not here: running a cell rewrites its part.
# --- written by the course: what this module takes from earlier lessons, and gives ---
from .classification import classify, classify_json
from .errors import error_response
__all__ = ['HTTP_REVISIONS', 'STATELESS', 'SUPPORTED', 'ACCEPT', 'NAME_OF', 'is_sentinel', 'header_value', 'header_text', 'http_request_for', 'check_headers', 'read_sse', 'message_words', 'http_verdict']
# --- end of what the course writes ---

# --- cell c09-07 ---
import base64
import json

# The course gives 2026-07-28's two error codes (-32020 and -32022, schema/2026-07-28/schema.ts)
# and the names of _meta's revision and capabilities, as it gives JSON-RPC's codes.
from .codes import (CAPABILITIES_KEY, ERROR_MESSAGES, HEADER_MISMATCH, INVALID_PARAMS,
                        UNSUPPORTED_PROTOCOL_VERSION, VERSION_KEY)

#: The revisions that have Streamable HTTP (2024-11-05 had HTTP+SSE), and the stateless one.
HTTP_REVISIONS = ("2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
STATELESS = "2026-07-28"
#: The versions a strict 2026-07-28 server speaks.
SUPPORTED = ("2026-07-28",)

ACCEPT = "application/json, text/event-stream"
#: The requests that carry Mcp-Name, and the member of params it repeats.
NAME_OF = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}
BASE64_START, BASE64_END = "=?base64?", "?="


def is_sentinel(value):
    """True when the header value `value` has the form of a Base64 sentinel, =?base64?...?=."""
    return value.startswith(BASE64_START) and value[len(BASE64_START):].endswith(BASE64_END)


def header_value(text):
    """`text` as a header value: as it is when it is plain, else in the Base64 sentinel form.

    Plain means printable ASCII only (space to tilde), no space at either end, and not
    looking like a sentinel itself (2026-07-28, "Value Encoding")."""
    if all(" " <= ch <= "~" for ch in text) and text == text.strip(" ") and not is_sentinel(text):
        return text
    return BASE64_START + base64.b64encode(text.encode("utf-8")).decode("ascii") + BASE64_END


def header_text(value):
    """The text the header value `value` stands for: a sentinel decoded, any other value as it is.
    None for no header (None), and for a sentinel that does not decode: it matches nothing."""
    if value is None or not is_sentinel(value):
        return value
    try:
        return base64.b64decode(value[len(BASE64_START):-len(BASE64_END)], validate=True).decode("utf-8")
    except ValueError:  # not Base64, or not UTF-8 (UnicodeDecodeError is a ValueError too)
        return None

# --- cell c09-08 ---
def http_request_for(msg, revision):
    """The POST a client of `revision` sends for `msg`: {"method": "POST", "headers": ..., "body": ...}."""
    # The refusals (written for you): what a client must not POST.
    if revision not in HTTP_REVISIONS:
        raise ValueError(f"Streamable HTTP is in the revisions {', '.join(HTTP_REVISIONS)}, not in {revision!r}")
    kind, code = classify(msg)
    if kind == "invalid":
        raise ValueError(f"a client sends valid messages only, and classify calls this one invalid ({code})")
    named = NAME_OF.get(msg["method"]) if kind == "request" else None  # the member Mcp-Name repeats
    if revision >= STATELESS:
        if kind == "response":
            raise ValueError("from 2026-07-28 on, a client never POSTs a response")
        params = msg.get("params", {})
        meta = params.get("_meta")
        if isinstance(meta, dict) and VERSION_KEY in meta and meta[VERSION_KEY] != revision:
            raise ValueError(f"its _meta says version {meta[VERSION_KEY]!r}, its header would say {revision!r}")
        if named and not isinstance(params.get(named), str):
            raise ValueError(f"{msg['method']} needs a string in params.{named} for Mcp-Name")
    # The headers (yours to write): build the dict `headers` that the last line sends.
    headers = {"Accept": ACCEPT, "Content-Type": "application/json"}
    if revision >= STATELESS or (revision >= "2025-06-18" and msg.get("method") != "initialize"):
        headers["MCP-Protocol-Version"] = revision
    if revision >= STATELESS:
        headers["Mcp-Method"] = msg["method"]
        if named:
            headers["Mcp-Name"] = header_value(msg["params"][named])
    return {"method": "POST", "headers": headers, "body": json.dumps(msg)}

# --- cell c09-21 ---
def check_headers(headers, msg):
    """What a strict 2026-07-28 server answers when the headers of a POST disagree with its body:
    (400, an error response), or None when they agree."""
    # What every check needs (written for you).
    kind, _ = classify(msg)
    if kind not in ("request", "notification"):
        raise ValueError("check_headers judges the headers of a request or a notification")
    sent = {name.lower(): value for name, value in headers.items()}
    version = sent.get("mcp-protocol-version")
    request_id = msg["id"] if kind == "request" else None
    invalid_params = (400, error_response(request_id, INVALID_PARAMS, ERROR_MESSAGES[INVALID_PARAMS]))
    mismatch = (400, error_response(request_id, HEADER_MISMATCH, "Header mismatch"))
    unsupported = (400, error_response(request_id, UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version",
                                       {"supported": list(SUPPORTED), "requested": version}))
    # The checks, in the SDK's order (yours to write).
    if kind == "notification":
        if version is None:
            return mismatch
        return None if version in SUPPORTED else unsupported
    params = msg.get("params", {})
    meta = params.get("_meta")
    if not isinstance(meta, dict) or VERSION_KEY not in meta or CAPABILITIES_KEY not in meta:
        return invalid_params
    if version is None or version != meta[VERSION_KEY] or sent.get("mcp-method") != msg["method"]:
        return mismatch
    named = params.get(NAME_OF.get(msg["method"]))
    if named is not None and header_text(sent.get("mcp-name")) != named:
        return mismatch
    return None if version in SUPPORTED else unsupported

# --- cell c09-33 ---
def read_sse(text):
    """The messages of an SSE stream, in order: [(data, classify_json(data)), ...]."""
    if text.startswith("\ufeff"):  # one byte order mark at the start is no part of the stream
        text = text[1:]
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    messages, data = [], []
    for line in lines[:-1]:  # the last piece was never ended: a line cut off, or nothing
        if line == "":
            joined = "\n".join(data)
            if joined:
                messages.append((joined, classify_json(joined)))
            data = []
        elif not line.startswith(":"):
            field, _, value = line.partition(":")
            if field == "data":
                data.append(value[1:] if value.startswith(" ") else value)
    return messages

# --- cell c09-41 ---
def message_words(data, verdict):
    """What one message is, in the words of the table above, from its text and classify_json's verdict."""
    kind, code = verdict
    if kind == "invalid":
        return f"invalid {code}"
    message = json.loads(data)
    if kind == "notification":
        return message["method"]
    if kind == "request":
        return f"request {message['method']}"
    return f"error {message['error']['code']}" if "error" in message else "result"


def http_verdict(status, headers, body):
    """What the client got for its POST, in a few fixed words (the table above)."""
    sent = {name.lower(): value for name, value in headers.items()}
    content_type = sent.get("content-type", "").split(";")[0].strip().lower()
    if status == 202 and body == "":
        return "accepted, no answer"
    if status == 200 and content_type == "application/json":
        return "answer: " + message_words(body, classify_json(body))
    if status == 200 and content_type == "text/event-stream":
        return "stream: " + (", ".join(message_words(data, verdict) for data, verdict in read_sse(body)) or "nothing")
    if status >= 400 and content_type == "application/json":
        return f"refused ({status}): " + message_words(body, classify_json(body))
    if status >= 400:
        return f"refused ({status}): {body.strip()}" if body.strip() else f"refused ({status})"
    return f"unexpected: {status}"
