"""Servers the client's tests talk to: a scripted HTTP server (:class:`Scripted`) and a
stdio server in a few lines of Python (:data:`STDIO`), each doing what a test needs."""

import json
import sys


class Scripted:
    """A tiny HTTP server on 127.0.0.1 answering every POST with what ``answer(body)`` gives:
    (status, content type, body bytes); GET gets 405. ``posted`` keeps each POST's
    ``(headers, body)``."""

    def __init__(self, answer):
        import http.server
        import threading

        posted = self.posted = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                posted.append((dict(self.headers), body))
                status, kind, data = answer(body)
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                if body.get("method") == "initialize":
                    self.send_header("Mcp-Session-Id", "s1")
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                self.send_response(405)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_DELETE = do_GET

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/mcp"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def scripted(tools_call):
    """Answers initialize as JSON, notifications with 202, and tools/call with ``tools_call(body)``."""

    def answer(body):
        if body.get("method") == "initialize":
            result = {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "serverInfo": {"name": "s", "version": "1"},
            }
            return (
                200,
                "application/json",
                json.dumps({"jsonrpc": "2.0", "id": body["id"], "result": result}).encode(),
            )
        if "id" not in body:
            return 202, "application/json", b""
        return tools_call(body)

    return Scripted(answer)


def sse(*events):
    return b"".join(event + b"\n\n" for event in events)


#: A stdio server with no SDK: it answers ``initialize`` (or ``server/discover``) and
#: ``tools/list``, appends every line it reads to the file named by its first argument, and
#: answers ``tools/call`` of ``big`` with a text of ``arguments.size`` bytes, of ``env`` with
#: the value of the variable ``arguments.name``, and of ``slow`` never.
STDIO = r"""
import json, os, sys
seen = open(sys.argv[1], "a")
tools = [{"name": name, "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}}
         for name in ("big", "env", "slow")]
def answer(message, result):
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
for line in sys.stdin:
    seen.write(line)
    seen.flush()
    message = json.loads(line)
    method, params = message.get("method"), message.get("params") or {}
    if "id" not in message:
        continue
    if method in ("initialize", "server/discover"):
        answer(message, {"protocolVersion": params.get("protocolVersion", "2025-11-25"),
                         "capabilities": {"tools": {}}, "serverInfo": {"name": "raw", "version": "1"}})
    elif method == "tools/list":
        answer(message, {"tools": tools})
    elif method == "tools/call" and params["name"] == "big":
        answer(message, {"content": [{"type": "text", "text": "b" * params["arguments"]["size"]}]})
    elif method == "tools/call" and params["name"] == "env":
        answer(message, {"content": [{"type": "text", "text": os.environ.get(params["arguments"]["name"], "")}]})
"""


def stdio_server(tmp_path):
    """The command of a :data:`STDIO` server, and the file where it writes what it read."""
    script, seen = tmp_path / "raw_server.py", tmp_path / "seen.jsonl"
    script.write_text(STDIO)
    seen.write_text("")
    return [sys.executable, str(script), str(seen)], seen


def read_lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()]
