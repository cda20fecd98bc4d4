"""A deliberately sloppy stdio MCP server: four classic faults, for the tap's audit to find.

Run it as ``python -m mcp_lesson.server.sloppy`` (plain Python, no SDK). It
reads one JSON-RPC message a line on stdin and mostly answers well
(``initialize``, ``tools/list``, ``tools/call`` of ``echo``, -32601 for an
unknown method, -32700 for a line that is not JSON), but it has the four
faults real stdio servers are found with:

1. **Log lines on stdout.** It greets with ``sloppy server 1.0 ready`` on
   stdout before any message, and logs each tool call there too
   (``[sloppy] calling echo``). Stdout is the protocol's: a strict client
   takes each such line for a broken message.
2. **A null-id result.** It answers ``ping`` with
   ``{"jsonrpc": "2.0", "id": null, "result": {}}``: it lost the id, so the
   result answers no request (JSON-RPC allows a null id only on an error
   response, for a request whose id could not be read), and the ping is
   never answered.
3. **An answer to a notification.** It treats every method it does not know
   as a request, notifications included: ``notifications/initialized`` gets a
   -32601 "Method not found" error (with the id it does not have: null). A
   notification gets no answer, not even an error.
4. **A forgotten request.** ``tools/call`` of the tool ``forget`` is never
   answered: the server goes on with the next message, and the client waits
   forever.

It ends at the end of its input. Nothing here is to be copied: the course's
real server is :mod:`mcp_lesson.server.calculator`.
"""

import json
import sys

NAME = "sloppy-server"
VERSION = "1.0"
#: The revision it answers initialize with when the client asks for one it does not know.
REVISION = "2025-11-25"
KNOWN_REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")

TOOLS = [
    {
        "name": "echo",
        "description": "Say the text back.",
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
    },
    {
        "name": "forget",
        "description": "Never answers (a fault, on purpose).",
        "inputSchema": {"type": "object", "properties": {}},
    },
]


def send(message):
    """One message, one line, flushed at once (the one thing it does right)."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def log_on_stdout(words):
    """Fault 1: a log line where only messages belong (stderr is the right place)."""
    print(words, flush=True)


def result(request_id, value):
    return {"jsonrpc": "2.0", "id": request_id, "result": value}


def error(request_id, code, words):
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": words}}


def answer(message):
    """The reply to one parsed message, or None for no reply at all."""
    if not isinstance(message, dict) or not isinstance(message.get("method"), str):
        return error(
            message.get("id") if isinstance(message, dict) else None, -32600, "Invalid Request"
        )
    method, request_id = message["method"], message.get("id")  # fault 3: None for a notification
    params = message.get("params") if isinstance(message.get("params"), dict) else {}
    if method == "initialize":
        asked = params.get("protocolVersion")
        return result(
            request_id,
            {
                "protocolVersion": asked if asked in KNOWN_REVISIONS else REVISION,
                "capabilities": {"tools": {}},
                "serverInfo": {"name": NAME, "version": VERSION},
            },
        )
    if method == "ping":
        return result(None, {})  # fault 2: the id is lost
    if method == "tools/list":
        return result(request_id, {"tools": TOOLS})
    if method == "tools/call":
        name = params.get("name")
        log_on_stdout(f"[sloppy] calling {name}")
        if name == "forget":
            return None  # fault 4: never answered
        if name == "echo":
            text = (params.get("arguments") or {}).get("text", "")
            return result(
                request_id, {"content": [{"type": "text", "text": str(text)}], "isError": False}
            )
        return error(request_id, -32602, f"Unknown tool: {name}")
    return error(request_id, -32601, "Method not found")  # fault 3, for a notification


def main():
    """Serve stdin until its end."""
    log_on_stdout(f"sloppy server {VERSION} ready")
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            message = json.loads(line)
        except ValueError:
            send(error(None, -32700, "Parse error"))
            continue
        reply = answer(message)
        if reply is not None:
            send(reply)


if __name__ == "__main__":
    main()
