"""A small Streamable HTTP server of the tests' own, for what the course's server never does:
compress its answers, answer with megabytes, put the id last.

    python tests/tap/small_http_server.py      # announces "listening on URL" on stderr

Each POSTed request gets a result naming what the server saw: ``{"accept_encoding": the
Accept-Encoding header or null, "pad": "x" * params.pad}`` (``initialize`` its own result,
``tools/call`` a text content of the pad); a notification gets 202. The
answer is gzip-compressed when the request's Accept-Encoding names gzip, an event stream
when ``params.stream`` is true, and written with its id last when ``params.id_last`` is. A
DELETE ends the session its ``Mcp-Session-Id`` names, and a request on it then gets 400.
"""

import gzip
import http.server
import json
import sys


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    #: The sessions a DELETE ended: a request on one gets 400 (where the spec asks for 404).
    ended: set = set()

    def do_DELETE(self):
        self.ended.add(self.headers.get("Mcp-Session-Id"))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        size = int(self.headers.get("Content-Length") or 0)
        message = json.loads(self.rfile.read(size))
        if self.headers.get("Mcp-Session-Id") in self.ended:
            body = json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": "server-error",
                    "error": {"code": -32600, "message": "Bad Request: no such session"},
                }
            ).encode()
            self.send_response(400)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        if "id" not in message:
            self.send_response(202)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        params = message.get("params") or {}
        asked = self.headers.get("Accept-Encoding")
        result = {"accept_encoding": asked, "pad": "x" * int(params.get("pad", 0))}
        if message.get("method") == "initialize":
            result = {
                "protocolVersion": params.get("protocolVersion"),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "small", "version": "1"},
            }
        elif message.get("method") == "tools/call":
            result = {"content": [{"type": "text", "text": result["pad"]}]}
        if params.get("id_last"):
            answer = {"result": result, "jsonrpc": "2.0", "id": message["id"]}
        else:
            answer = {"jsonrpc": "2.0", "id": message["id"], "result": result}
        body = json.dumps(answer).encode()
        kind = "application/json"
        if params.get("stream"):
            body = b"event: message\ndata: " + body + b"\n\n"
            kind = "text/event-stream"
        self.send_response(200)
        self.send_header("Content-Type", kind)
        if asked and "gzip" in asked:
            body = gzip.compress(body, mtime=0)  # the same bytes each time (no time in the header)
            self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(
        f"listening on http://127.0.0.1:{server.server_address[1]}/mcp", file=sys.stderr, flush=True
    )
    server.serve_forever()


if __name__ == "__main__":
    main()
