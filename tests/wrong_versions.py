"""Wrong versions a novice writes of each function a lesson builds into the package, at least
five per function: graduation must fail each one, in words that name the function's call
(tests/exercises/test_wrong_versions.py). Each is Python run in a copy of the namespace of the module of
the masters' export that defines the function (so it sees that module's names), where
``_right_<name>`` is the right version; the package's public name is then the wrong version
alone, and the package's other functions still call the right one, so that the wrong
versions of different functions can graduate together, in one run, without one's failures
being taken for another's.

Many are the right version with one rule forgotten (what a novice who gets most of it right
writes); others are written out, as two learners wrote them.
"""

#: {function: [(the mistake, in words, the source that replaces it)]}
WRONG = {
    "rough_kind": [
        (
            "looks at the id's value, not the key (the id 0 makes a notification)",
            """
def rough_kind(msg):
    if isinstance(msg, dict) and "method" in msg:
        return ("request", None) if msg.get("id") else ("notification", None)
    return _right_rough_kind(msg)
""",
        ),
        (
            "never checks for a dict (a string holding the word method is a message)",
            """
def rough_kind(msg):
    if isinstance(msg, (str, list)) and "method" in msg:
        return ("notification", None)
    return _right_rough_kind(msg)
""",
        ),
        (
            "a response only with a result (an error is invalid)",
            """
def rough_kind(msg):
    if isinstance(msg, dict) and "method" not in msg and "result" not in msg:
        return INVALID
    return _right_rough_kind(msg)
""",
        ),
        (
            "looks for a result before a method",
            """
def rough_kind(msg):
    if isinstance(msg, dict) and ("result" in msg or "error" in msg):
        return ("response", None)
    return _right_rough_kind(msg)
""",
        ),
        (
            "calls anything else a request, not invalid",
            """
def rough_kind(msg):
    kind = _right_rough_kind(msg)
    return ("request", None) if isinstance(msg, dict) and kind == INVALID else kind
""",
        ),
        (
            "the code of an invalid message as a string",
            """
def rough_kind(msg):
    kind = _right_rough_kind(msg)
    return ("invalid", "-32600") if kind == INVALID else kind
""",
        ),
    ],
    "create_request": [
        (
            "keeps the id None as an id",
            """
def create_request(method, params=None, request_id=None):
    message = {"jsonrpc": "2.0", "method": method, "id": request_id}
    if params is not None:
        message["params"] = params
    return message
""",
        ),
        (
            "drops params={}",
            """
def create_request(method, params=None, request_id=None):
    return _right_create_request(method, params or None, request_id)
""",
        ),
        (
            "drops the id 0",
            """
def create_request(method, params=None, request_id=None):
    return _right_create_request(method, params, request_id or None)
""",
        ),
        (
            "takes a bool for an id",
            """
def create_request(method, params=None, request_id=None):
    if isinstance(request_id, bool):
        message = _right_create_request(method, params, 1)
        message["id"] = request_id
        return message
    return _right_create_request(method, params, request_id)
""",
        ),
        (
            "never checks the method's type",
            """
def create_request(method, params=None, request_id=None):
    return _right_create_request(str(method) if not isinstance(method, str) else method, params, request_id)
""",
        ),
        (
            "puts params before the id",
            """
def create_request(method, params=None, request_id=None):
    message = _right_create_request(method, params, request_id)
    if "id" in message and "params" in message:
        message["id"] = message.pop("id")
    return message
""",
        ),
    ],
    "classify": [
        (
            "takes a bool id for an id",
            """
def classify(msg):
    if isinstance(msg, dict) and isinstance(msg.get("id"), bool):
        return _right_classify({**msg, "id": 1})
    return _right_classify(msg)
""",
        ),
        (
            "never checks jsonrpc",
            """
def classify(msg):
    if isinstance(msg, dict) and msg.get("jsonrpc") != "2.0":
        return _right_classify({**msg, "jsonrpc": "2.0"})
    return _right_classify(msg)
""",
        ),
        (
            "takes list params",
            """
def classify(msg):
    if isinstance(msg, dict) and isinstance(msg.get("params"), list):
        return _right_classify({**msg, "params": {}})
    return _right_classify(msg)
""",
        ),
        (
            "calls a message with both result and error a response",
            """
def classify(msg):
    if isinstance(msg, dict) and "result" in msg and "error" in msg and "method" not in msg:
        return _right_classify({key: value for key, value in msg.items() if key != "error"})
    return _right_classify(msg)
""",
        ),
        (
            "refuses an error response with id null",
            """
def classify(msg):
    if isinstance(msg, dict) and "error" in msg and msg.get("id", 0) is None:
        return ("invalid", -32600)
    return _right_classify(msg)
""",
        ),
        (
            "raises on a dict without keys it expects",
            """
def classify(msg):
    if isinstance(msg, dict) and "method" not in msg and "result" not in msg and "error" not in msg:
        return ("invalid", msg["id"] and -32600)
    return _right_classify(msg)
""",
        ),
    ],
    "classify_json": [
        (
            "raises on text that is not JSON",
            """
import json as _json_w

def classify_json(text):
    return classify(_json_w.loads(text))
""",
        ),
        (
            "accepts NaN",
            """
import json as _json_w

def classify_json(text):
    if isinstance(text, str) and "NaN" in text:
        try:
            return classify(_json_w.loads(text))
        except ValueError:
            pass
    return _right_classify_json(text)
""",
        ),
        (
            "strips the text's spaces and calls an empty line a parse error no more",
            """
def classify_json(text):
    if isinstance(text, str) and not text.strip():
        return ("invalid", -32600)
    return _right_classify_json(text)
""",
        ),
        (
            "accepts UTF-16 bytes",
            """
def classify_json(text):
    if isinstance(text, (bytes, bytearray)):
        try:
            text.decode("utf-8")
        except UnicodeDecodeError:
            return _right_classify_json(text.decode("utf-16", "replace"))
    return _right_classify_json(text)
""",
        ),
        (
            "answers a number for what is not text",
            """
def classify_json(text):
    if not isinstance(text, (str, bytes, bytearray)):
        return classify(text)
    return _right_classify_json(text)
""",
        ),
    ],
    "error_response": [
        (
            "drops data that is falsy",
            """
def error_response(id, code, message, data=OMITTED):
    return _right_error_response(id, code, message, data if data else OMITTED)
""",
        ),
        (
            "takes a bool id",
            """
def error_response(id, code, message, data=OMITTED):
    if isinstance(id, bool):
        reply = _right_error_response(1, code, message, data)
        reply["id"] = id
        return reply
    return _right_error_response(id, code, message, data)
""",
        ),
        (
            "takes a float code",
            """
def error_response(id, code, message, data=OMITTED):
    if isinstance(code, float):
        reply = _right_error_response(id, int(code), message, data)
        reply["error"]["code"] = code
        return reply
    return _right_error_response(id, code, message, data)
""",
        ),
        (
            "puts the id after the error",
            """
def error_response(id, code, message, data=OMITTED):
    reply = _right_error_response(id, code, message, data)
    reply["id"] = reply.pop("id")
    return reply
""",
        ),
        (
            "leaves out an id of None",
            """
def error_response(id, code, message, data=OMITTED):
    reply = _right_error_response(id, code, message, data)
    if id is None:
        del reply["id"]
    return reply
""",
        ),
    ],
    "reply_for": [
        (
            "answers a notification's invalid params with None",
            """
def reply_for(msg):
    if isinstance(msg, dict) and "id" not in msg:
        return None
    return _right_reply_for(msg)
""",
        ),
        (
            "echoes a bool id",
            """
def reply_for(msg):
    reply = _right_reply_for(msg)
    if reply is not None and isinstance(msg, dict) and isinstance(msg.get("id"), bool):
        reply["id"] = msg["id"]
    return reply
""",
        ),
        (
            "never echoes the id",
            """
def reply_for(msg):
    reply = _right_reply_for(msg)
    if reply is not None:
        reply["id"] = None
    return reply
""",
        ),
        (
            "answers a valid request too",
            """
def reply_for(msg):
    reply = _right_reply_for(msg)
    if reply is None and isinstance(msg, dict) and "method" in msg and "id" in msg:
        return error_response(msg["id"], -32601, "Method not found")
    return reply
""",
        ),
        (
            "raises on a value that is not a dict",
            """
def reply_for(msg):
    msg.get("id")
    return _right_reply_for(msg)
""",
        ),
    ],
    "reply_for_json": [
        (
            "echoes the id of text that is not JSON as 0",
            """
def reply_for_json(text):
    reply = _right_reply_for_json(text)
    if reply is not None and reply["error"]["code"] == -32700:
        reply["id"] = 0
    return reply
""",
        ),
        (
            "calls a parse error -32600",
            """
def reply_for_json(text):
    reply = _right_reply_for_json(text)
    if reply is not None and reply["error"]["code"] == -32700:
        reply["error"] = {"code": -32600, "message": "Invalid Request"}
    return reply
""",
        ),
        (
            "answers nothing to text that is not JSON",
            """
def reply_for_json(text):
    reply = _right_reply_for_json(text)
    return None if reply is not None and reply["error"]["code"] == -32700 else reply
""",
        ),
        (
            "raises on bytes",
            """
def reply_for_json(text):
    return _right_reply_for_json(text.strip())
""",
        ),
        (
            "never echoes a valid id",
            """
def reply_for_json(text):
    reply = _right_reply_for_json(text)
    if reply is not None:
        reply["id"] = None
    return reply
""",
        ),
    ],
    "is_reply_to": [
        (
            "never calls classify_json",
            """
import json as _json_w

def is_reply_to(line, request_id):
    try:
        return _json_w.loads(line).get("id") == request_id
    except (ValueError, AttributeError):
        return False
""",
        ),
        (
            "takes only a result for a reply, never an error",
            """
import json as _json_w

def is_reply_to(line, request_id):
    if classify_json(line) != ("response", None):
        return False
    message = _json_w.loads(line)
    return "result" in message and message["id"] == request_id
""",
        ),
        (
            "takes a request with the same id for a reply",
            """
import json as _json_w

def is_reply_to(line, request_id):
    if classify_json(line)[0] not in ("response", "request"):
        return False
    return _json_w.loads(line)["id"] == request_id
""",
        ),
        (
            "compares ids as text",
            """
import json as _json_w

def is_reply_to(line, request_id):
    if classify_json(line) != ("response", None):
        return False
    return str(_json_w.loads(line)["id"]) == str(request_id)
""",
        ),
        (
            "raises on text that is not JSON",
            """
import json as _json_w

def is_reply_to(line, request_id):
    message = _json_w.loads(line)
    return classify_json(line) == ("response", None) and message["id"] == request_id
""",
        ),
    ],
    "classify_at": [
        (
            "makes the error's id optional in every revision",
            """
def classify_at(msg, revision):
    return _right_classify_at(msg, "2025-11-25")
""",
        ),
        (
            "never makes it optional",
            """
def classify_at(msg, revision):
    return classify(msg)
""",
        ),
        (
            "makes any message's id optional, a request's too",
            """
def classify_at(msg, revision):
    verdict = _right_classify_at(msg, revision)
    if (verdict == INVALID and revision is not None and revision >= "2025-11-25"
            and isinstance(msg, dict) and "id" not in msg and "method" in msg):
        return ("notification", None)
    return verdict
""",
        ),
        (
            "compares revisions by equality",
            """
def classify_at(msg, revision):
    return _right_classify_at(msg, revision) if revision == "2025-11-25" else classify(msg)
""",
        ),
        (
            "raises for the revision None",
            """
def classify_at(msg, revision):
    if revision.startswith("20"):
        return _right_classify_at(msg, revision)
    return classify(msg)
""",
        ),
    ],
    "http_request_for": [
        (
            "sends the version header on initialize",
            """
def http_request_for(msg, revision):
    post = _right_http_request_for(msg, revision)
    if revision >= "2025-06-18":
        post["headers"]["MCP-Protocol-Version"] = revision
    return post
""",
        ),
        (
            "puts a name that is not ASCII as it is",
            """
def http_request_for(msg, revision):
    post = _right_http_request_for(msg, revision)
    name = post["headers"].get("Mcp-Name")
    if name is not None and name.startswith("=?base64?"):
        params = msg["params"]
        post["headers"]["Mcp-Name"] = params.get("name", params.get("uri"))
    return post
""",
        ),
        (
            "forgets Mcp-Method on a notification",
            """
def http_request_for(msg, revision):
    post = _right_http_request_for(msg, revision)
    if "id" not in msg:
        post["headers"].pop("Mcp-Method", None)
    return post
""",
        ),
        (
            "sends the version header in 2025-03-26 too",
            """
def http_request_for(msg, revision):
    post = _right_http_request_for(msg, revision)
    if msg.get("method") != "initialize":
        post["headers"]["MCP-Protocol-Version"] = revision
    return post
""",
        ),
        (
            "accepts only application/json",
            """
def http_request_for(msg, revision):
    post = _right_http_request_for(msg, revision)
    post["headers"]["Accept"] = "application/json"
    return post
""",
        ),
    ],
    "check_headers": [
        (
            "raises KeyError on a tools/call without params.name",
            """
def check_headers(headers, msg):
    if isinstance(msg, dict) and msg.get("method") == "tools/call":
        msg["params"]["name"]
    return _right_check_headers(headers, msg)
""",
        ),
        (
            "compares header names case by case",
            """
def check_headers(headers, msg):
    if any(name != name.lower() for name in headers):
        return _right_check_headers({}, msg)
    return _right_check_headers(headers, msg)
""",
        ),
        (
            "never decodes the Base64 sentinel",
            """
def check_headers(headers, msg):
    name = {key.lower(): value for key, value in headers.items()}.get("mcp-name", "")
    if isinstance(name, str) and name.startswith("=?base64?"):
        return (400, error_response(msg.get("id"), HEADER_MISMATCH, "Header mismatch"))
    return _right_check_headers(headers, msg)
""",
        ),
        (
            "says -32020 for an unsupported version",
            """
def check_headers(headers, msg):
    answer = _right_check_headers(headers, msg)
    if answer is not None and answer[1]["error"]["code"] == UNSUPPORTED_PROTOCOL_VERSION:
        return (400, error_response(answer[1]["id"], HEADER_MISMATCH, "Header mismatch"))
    return answer
""",
        ),
        (
            "lets a notification without the version header through",
            """
def check_headers(headers, msg):
    if isinstance(msg, dict) and "id" not in msg:
        return None
    return _right_check_headers(headers, msg)
""",
        ),
    ],
    "read_sse": [
        (
            "ignores a byte order mark",
            """
def read_sse(text):
    if text.startswith(chr(0xFEFF)):
        return _right_read_sse("x" + text[1:])  # the mark stays, as part of the first field's name
    return _right_read_sse(text)
""",
        ),
        (
            "splits on LF only",
            """
def read_sse(text):
    return _right_read_sse(text.replace("\\r\\n", "\\n").replace("\\r", ""))
""",
        ),
        (
            "keeps the last event that was never ended",
            """
def read_sse(text):
    return _right_read_sse(text if text.endswith("\\n\\n") else text + "\\n\\n")
""",
        ),
        (
            "leaves the space after data: in",
            """
def read_sse(text):
    return [(" " + data, classify_json(" " + data)) for data, _ in _right_read_sse(text)]
""",
        ),
        (
            "joins data lines with nothing",
            """
def read_sse(text):
    return [(data.replace("\\n", ""), classify_json(data.replace("\\n", ""))) for data, _ in _right_read_sse(text)]
""",
        ),
    ],
    "http_verdict": [
        (
            "reads the content type case by case",
            """
def http_verdict(status, headers, body):
    if "Content-Type" not in headers and "content-type" not in headers:
        return f"unexpected: {status}" if status < 400 else _right_http_verdict(status, {}, body)
    return _right_http_verdict(status, headers, body)
""",
        ),
        (
            "keeps the spaces of a plain-text refusal",
            """
def http_verdict(status, headers, body):
    words = _right_http_verdict(status, headers, body)
    if words.startswith("refused") and body.strip() and not words.endswith(body):
        if body.strip() in words:
            return words.replace(body.strip(), body)
    return words
""",
        ),
        (
            "says accepted for any 202",
            """
def http_verdict(status, headers, body):
    return "accepted, no answer" if status == 202 else _right_http_verdict(status, headers, body)
""",
        ),
        (
            "takes 201 for 200",
            """
def http_verdict(status, headers, body):
    return _right_http_verdict(200 if status == 201 else status, headers, body)
""",
        ),
        (
            "says nothing of a stream's notifications",
            """
def http_verdict(status, headers, body):
    words = _right_http_verdict(status, headers, body)
    if words.startswith("stream: ") and ", " in words:
        return "stream: " + words.split(", ")[-1]
    return words
""",
        ),
    ],
    "audit": [
        (
            "overwrites the first request when an id is reused",
            """
def audit(conversation):
    return [problem for problem in _right_audit(conversation) if problem[1] != "id_reused"]
""",
        ),
        (
            "counts events as no place",
            """
def audit(conversation):
    entries = [entry for entry in conversation if entry.get("direction") in SIDES]
    return _right_audit(entries)
""",
        ),
        (
            "never reports what is unanswered",
            """
def audit(conversation):
    return [problem for problem in _right_audit(conversation) if problem[1] != "unanswered"]
""",
        ),
        (
            "calls every invalid line pollution",
            """
def audit(conversation):
    return [(place, "pollution" if what == "invalid" else what) for place, what in _right_audit(conversation)]
""",
        ),
        (
            "leaves the problems unsorted",
            """
def audit(conversation):
    return list(reversed(_right_audit(conversation)))
""",
        ),
    ],
    "call_tool": [
        (
            "takes a bool for a number",
            """
def call_tool(name, arguments):
    if name == "add" and any(isinstance(arguments.get(key), bool) for key in ("a", "b")):
        return text_result(str(int(arguments["a"]) + int(arguments["b"])))
    return _right_call_tool(name, arguments)
""",
        ),
        (
            "counts past 10",
            """
def call_tool(name, arguments):
    n = arguments.get("n")
    if name == "count" and is_integer(n) and n > 10:
        return text_result(", ".join(str(k) for k in range(1, n + 1)))
    return _right_call_tool(name, arguments)
""",
        ),
        (
            "raises on a missing argument",
            """
def call_tool(name, arguments):
    if name == "add":
        arguments["a"], arguments["b"]
    return _right_call_tool(name, arguments)
""",
        ),
        (
            "answers an unknown tool with an error result",
            """
def call_tool(name, arguments):
    result = _right_call_tool(name, arguments)
    return text_result(f"no tool {name}", is_error=True) if result is None else result
""",
        ),
        (
            "changes the arguments it is given",
            """
def call_tool(name, arguments):
    result = _right_call_tool(name, arguments)
    arguments.clear()
    return result
""",
        ),
    ],
    "answer_request": [
        (
            "answers ping in 2026-07-28",
            """
def answer_request(request, revision):
    if request.get("method") == "ping":
        return respond(request["id"], {}, revision)
    return _right_answer_request(request, revision)
""",
        ),
        (
            "raises KeyError on a tools/call without arguments",
            """
def answer_request(request, revision):
    if request.get("method") == "tools/call":
        request["params"]["arguments"]
    return _right_answer_request(request, revision)
""",
        ),
        (
            "takes any level",
            """
def answer_request(request, revision):
    if request.get("method") == "logging/setLevel" and revision != MODERN:
        return respond(request["id"], {}, revision)
    return _right_answer_request(request, revision)
""",
        ),
        (
            "says -32601 for an unknown tool",
            """
def answer_request(request, revision):
    reply = _right_answer_request(request, revision)
    if "error" in reply and request.get("method") == "tools/call" and isinstance(request.get("params", {}).get("name"), str):
        return fail(request["id"], METHOD_NOT_FOUND)
    return reply
""",
        ),
        (
            "forgets the cache hints in 2026-07-28",
            """
def answer_request(request, revision):
    reply = _right_answer_request(request, revision)
    if "result" in reply:
        for key in CACHE:
            reply["result"].pop(key, None)
    return reply
""",
        ),
    ],
    "handle_message": [
        (
            "answers a notification",
            """
def handle_message(text, session):
    replies, session = _right_handle_message(text, session)
    if not replies and classify_json(text)[0] == "notification":
        return [error_response(None, INVALID_REQUEST, "Invalid Request")], session
    return replies, session
""",
        ),
        (
            "agrees on any revision the client asks",
            """
import json as _json_w

def handle_message(text, session):
    replies, agreed = _right_handle_message(text, session)
    if classify_json(text)[0] == "request":
        message = _json_w.loads(text)
        asked = message.get("params", {}).get("protocolVersion") if isinstance(message.get("params"), dict) else None
        if message.get("method") == "initialize" and isinstance(asked, str) and replies and "result" in replies[0]:
            replies[0]["result"]["protocolVersion"] = asked
            return replies, asked
    return replies, agreed
""",
        ),
        (
            "forgets to keep the revision agreed",
            """
def handle_message(text, session):
    replies, agreed = _right_handle_message(text, session)
    return replies, session
""",
        ),
        (
            "raises on bytes that are not UTF-8",
            """
def handle_message(text, session):
    if isinstance(text, (bytes, bytearray)):
        text = text.decode("utf-8")
    return _right_handle_message(text, session)
""",
        ),
        (
            "never sends progress",
            """
def handle_message(text, session):
    replies, agreed = _right_handle_message(text, session)
    return [reply for reply in replies if reply.get("method") != "notifications/progress"], agreed
""",
        ),
    ],
}


def _audit(*, count_down=True, result_as_owed_error=False, move_reused=False):
    """Lesson 10's audit, as a learner wrote it with one of three mistakes the shared table's
    operators do not make (mutmut never drops an else, nor changes which entry a mistake
    overwrites): a notification never counted down, a result taken for the error an invalid
    line is owed, a reused id's place moved to the second request."""
    owed_test = (
        'message["id"] in owed[other]'
        if result_as_owed_error
        else '"error" in message and message["id"] in owed[other]'
    )
    reused = (
        'in_flight[side][message["id"]] = place\n                problems.append((place, "id_reused"))'
        if move_reused
        else 'problems.append((place, "id_reused"))'
    )
    down = "notified[other] -= 1" if count_down else "pass"
    return f"""
import json as _json_w


def audit(conversation):
    problems = []
    in_flight = {{side: {{}} for side in SIDES}}
    answered = {{side: set() for side in SIDES}}
    owed = {{side: [] for side in SIDES}}
    notified = {{side: 0 for side in SIDES}}
    for place, entry in enumerate(conversation, 1):
        side = entry.get("direction")
        if side not in SIDES:
            continue
        other = "from_server" if side == "to_server" else "to_server"
        kind, code = classify_json(entry.get("text"))
        if kind == "invalid":
            problems.append((place, "pollution" if side == "from_server" and code == PARSE_ERROR else "invalid"))
            owed[side].append(reply_for_json(entry.get("text"))["id"])
            continue
        message = _json_w.loads(entry["text"])
        if kind == "request":
            if message["id"] in in_flight[side]:
                {reused}
            else:
                in_flight[side][message["id"]] = place
        elif kind == "notification":
            notified[side] += 1
        elif message["id"] in in_flight[other]:
            del in_flight[other][message["id"]]
            answered[other].add(message["id"])
        elif {owed_test}:
            owed[other].remove(message["id"])
        elif message["id"] is None and notified[other]:
            {down}
            problems.append((place, "answer_to_notification"))
        elif message["id"] in answered[other]:
            problems.append((place, "answered_twice"))
        else:
            problems.append((place, "unknown_id"))
    for side in SIDES:
        problems += [(place, "unanswered") for place in in_flight[side].values()]
    return sorted(problems)
"""


#: Mistakes two learners made that the visible checks of their own lesson once let through,
#: each with the rule it breaks, as the lesson's master declares it (its prose cell's
#: ``teaches``, mcp_lesson.exercises.declared.rules): ``[(function, rule, the mistake, source)]``,
#: the source as in :data:`WRONG`. tests/exercises/test_wrong_versions.py plants each in the
#: lesson, right after the cell that defines the function, and holds the cell that checks the
#: rule to failing in words; those of a function that graduates are in :data:`WRONG` too.
TAUGHT = [
    (
        "classify_json",
        "strict-utf8",
        "reads bytes with json.loads, which skips a byte order mark and reads UTF-16",
        """
import json as _json_w

def classify_json(text):
    if isinstance(text, (bytes, bytearray)):
        try:
            value = _json_w.loads(bytes(text))
        except (ValueError, RecursionError):
            return ("invalid", -32700)
        return classify(value)
    return _right_classify_json(text)
""",
    ),
    (
        "create_request",
        "names-what-was-wrong",
        "refuses in words that name nothing",
        """
def create_request(method, params=None, request_id=None):
    try:
        return _right_create_request(method, params, request_id)
    except TypeError:
        raise TypeError("bad argument") from None
""",
    ),
    (
        "is_valid_id",
        "true-or-false",
        "returns the id itself where True is asked",
        """
def is_valid_id(value):
    if isinstance(value, str) and value:
        return value
    return _right_is_valid_id(value)
""",
    ),
    (
        "error_response",
        "names-what-was-wrong",
        "refuses in words that name nothing",
        """
def error_response(id, code, message, data=OMITTED):
    try:
        return _right_error_response(id, code, message, data)
    except TypeError:
        raise TypeError("wrong input") from None
""",
    ),
    (
        "reply_for",
        "leaves-its-argument",
        "writes the id it answers with into the message it was given",
        """
def reply_for(msg):
    reply = _right_reply_for(msg)
    if isinstance(msg, dict):
        msg["id"] = None
    return reply
""",
    ),
    (
        "fixed_stream",
        "split-at-newlines-only",
        "splits the stream with str.splitlines",
        """
def fixed_stream(text):
    return [package_classify_json(line) for line in text.splitlines() if line.strip()]
""",
    ),
    (
        "fixed_server",
        "classify-first",
        "looks for an id before it classifies",
        """
def fixed_server(msg):
    if isinstance(msg, dict) and "id" not in msg:
        return None
    return _right_fixed_server(msg)
""",
    ),
    (
        "classify_at",
        "error-id-optional",
        "calls every error without an id a response, from 2025-11-25 on",
        """
def classify_at(msg, revision):
    if (revision is not None and revision >= "2025-11-25" and isinstance(msg, dict)
            and "error" in msg and "id" not in msg):
        return ("response", None)
    return _right_classify_at(msg, revision)
""",
    ),
    (
        "read_sse",
        "sse-byte-order-mark",
        "keeps the byte order mark in the first line",
        """
def read_sse(text):
    if isinstance(text, str) and text.startswith(chr(0xFEFF)):
        return _right_read_sse("x" + text[1:])  # the mark kept: the first line's field is no longer data
    return _right_read_sse(text)
""",
    ),
    (
        "read_sse",
        "sse-exact-field-names",
        "reads Data: as data:",
        """
import re as _re_w

def read_sse(text):
    if isinstance(text, str):
        text = _re_w.sub(r"(?m)^Data:", "data:", text)
    return _right_read_sse(text)
""",
    ),
    (
        "audit",
        "notification-counted-once",
        "never counts a notification down",
        _audit(count_down=False),
    ),
]

#: Mistakes of lesson 10's audit that only graduation's hidden cases catch (no visible case
#: teaches more than the table of problems does): ``[(function, the mistake, source)]``.
HIDDEN_ONLY = [
    (
        "audit",
        "takes a result whose id is owed an error for that error",
        _audit(result_as_owed_error=True),
    ),
    ("audit", "moves a reused id's place to the second request", _audit(move_reused=True)),
]

for _name, _rule, _mistake, _source in TAUGHT:
    if _name in WRONG:
        WRONG[_name].append((_mistake, _source))
for _name, _mistake, _source in HIDDEN_ONLY:
    WRONG[_name].append((_mistake, _source))
