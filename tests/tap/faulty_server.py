"""A stdio MCP server of the tests' own with one fault for each rule the tap's audit learned
from real traffic, each on asking (the tool called, or the request sent, picks it):

* ``tools/call progress``: a progress notification for a token the client never gave;
* ``resources/read`` of anything: -32602, where 2025-11-25's resources.mdx names -32002;
* ``tools/call ask``: ``sampling/createMessage`` and ``elicitation/create`` sent to a client
  that announced neither (their answers awaited), then a result;
* ``tools/call slow``: its answer waits for the client's next line (a cancellation), then comes;
* ``tools/call big``: a valid answer of ``params.arguments.mib`` MiB (17 by default);
* ``tools/call unlisted``: a tool tools/list does not name, answered with a plain result
  (no fault: lists can be paged, tools unlisted);
* ``ping``: an error with a null id (the request's id was readable).

``python faulty_server.py VERSION`` answers ``initialize`` with that protocolVersion (by
default the one asked).
"""

import json
import sys


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def wait_for_line():
    return json.loads(sys.stdin.readline())


def main():
    version = sys.argv[1] if len(sys.argv) > 1 else None
    for raw in sys.stdin:
        message = json.loads(raw)
        method, ask = message.get("method"), message.get("id")
        params = message.get("params") or {}
        if ask is None:
            continue
        if method == "initialize":
            send(
                {
                    "jsonrpc": "2.0",
                    "id": ask,
                    "result": {
                        "protocolVersion": version or params["protocolVersion"],
                        "capabilities": {"tools": {}, "resources": {}},
                        "serverInfo": {"name": "faulty", "version": "1"},
                    },
                }
            )
        elif method == "tools/list":
            send(
                {
                    "jsonrpc": "2.0",
                    "id": ask,
                    "result": {
                        "tools": [
                            {"name": name, "inputSchema": {"type": "object"}}
                            for name in ("progress", "ask", "slow", "big")
                        ]
                    },
                }
            )
        elif method == "resources/read":
            send(
                {
                    "jsonrpc": "2.0",
                    "id": ask,
                    "error": {"code": -32602, "message": "Unknown resource"},
                }
            )
        elif method == "ping":
            send(
                {
                    "jsonrpc": "2.0",
                    "id": None,
                    "error": {"code": -32600, "message": "Invalid request"},
                }
            )
        elif method == "tools/call":
            name = params.get("name")
            text = "done"
            if name == "progress":
                send(
                    {
                        "jsonrpc": "2.0",
                        "method": "notifications/progress",
                        "params": {"progressToken": "never-given", "progress": 1},
                    }
                )
            elif name == "ask":
                send(
                    {
                        "jsonrpc": "2.0",
                        "id": "s1",
                        "method": "sampling/createMessage",
                        "params": {"messages": [], "maxTokens": 1},
                    }
                )
                wait_for_line()
                send(
                    {
                        "jsonrpc": "2.0",
                        "id": "e1",
                        "method": "elicitation/create",
                        "params": {
                            "message": "name?",
                            "requestedSchema": {"type": "object", "properties": {}},
                        },
                    }
                )
                wait_for_line()
            elif name == "slow":
                wait_for_line()  # the cancellation: answered all the same
            elif name == "big":
                text = "x" * (int(params.get("arguments", {}).get("mib", 17)) << 20)
            send(
                {
                    "jsonrpc": "2.0",
                    "id": ask,
                    "result": {"content": [{"type": "text", "text": text}]},
                }
            )


if __name__ == "__main__":
    main()
