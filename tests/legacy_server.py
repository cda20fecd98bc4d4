"""A legacy stdio MCP server for the tests, with no SDK: revisions up to 2025-11-25 only.

It knows ``initialize`` (agreeing to 2025-11-25, 2025-06-18 or 2025-03-26, else offering
2025-11-25), ``ping`` and ``tools/list`` (no tools); every other request gets -32601,
``server/discover`` (2026-07-28's probe) included, as a server of the handshake era
answers it. Notifications get nothing. Run: ``python tests/legacy_server.py``.
"""

import json
import sys

KNOWN = ("2025-11-25", "2025-06-18", "2025-03-26")


def answer(message):
    method, request_id = message.get("method"), message.get("id")
    if "id" not in message:
        return None
    if method == "initialize":
        asked = (message.get("params") or {}).get("protocolVersion")
        result = {
            "protocolVersion": asked if asked in KNOWN else KNOWN[0],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "legacy-test-server", "version": "1.0"},
        }
    elif method == "ping":
        result = {}
    elif method == "tools/list":
        result = {"tools": []}
    else:
        return {
            "jsonrpc": "2.0",
            "id": request_id,
            "error": {"code": -32601, "message": "Method not found"},
        }
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def main():
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        reply = answer(message) if isinstance(message, dict) else None
        if reply is not None:
            print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
