"""Recordings to try in the recording view: what the tap wrote for the sloppy server over
stdio, a clean conversation over stdio, and a 2026-07-28 conversation over HTTP, each as
``(label, JSON Lines text)`` in the tap's format."""

import json

from mcp_lesson.rules.classification import classify_json


def recording_examples():
    """``(label, JSON Lines text)``: recordings to try, in the tap's format."""

    def line(entry):
        return json.dumps(entry, ensure_ascii=False, separators=(",", ":"))

    def said(t, direction, message, **extra):
        text = message if isinstance(message, str) else json.dumps(message)
        kind, code = classify_json(text)
        return {"t": t, "direction": direction, "kind": kind, "code": code, "text": text, **extra}

    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "demo", "version": "1"},
        },
    }
    ready = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    welcome = {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "sloppy-server", "version": "1.0"},
        },
    }
    # What `python -m mcp_lesson.tap --record` wrote for the sloppy server (times rounded).
    sloppy = [
        {
            "t": 0.010,
            "event": "start",
            "wall": 1796124900.5,
            "command": ["python", "-m", "mcp_lesson.server.sloppy"],
            "pid": 23724,
            "judge": "mcp_lesson",
            "tap": "0.2.0",
        },
        said(0.014, "to_server", init),
        said(0.014, "to_server", ready),
        said(0.014, "to_server", {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        said(0.014, "to_server", {"jsonrpc": "2.0", "id": 3, "method": "ping"}),
        said(
            0.014,
            "to_server",
            {
                "jsonrpc": "2.0",
                "id": 4,
                "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": "<b>hi</b>"}},
            },
        ),
        said(
            0.014,
            "to_server",
            {
                "jsonrpc": "2.0",
                "id": 5,
                "method": "tools/call",
                "params": {"name": "forget", "arguments": {}},
            },
        ),
        {"t": 0.015, "event": "client_closed"},
        said(0.063, "from_server", "sloppy server 1.0 ready"),
        said(0.063, "from_server", welcome),
        said(
            0.063,
            "from_server",
            {
                "jsonrpc": "2.0",
                "id": None,
                "error": {"code": -32601, "message": "Method not found"},
            },
        ),
        said(
            0.063,
            "from_server",
            {
                "jsonrpc": "2.0",
                "id": 2,
                "result": {
                    "tools": [
                        {
                            "name": "echo",
                            "inputSchema": {
                                "type": "object",
                                "properties": {"text": {"type": "string"}},
                                "required": ["text"],
                            },
                        },
                        {"name": "forget", "inputSchema": {"type": "object", "properties": {}}},
                    ]
                },
            },
        ),
        said(0.063, "from_server", {"jsonrpc": "2.0", "id": None, "result": {}}),
        said(0.063, "from_server", "[sloppy] calling echo"),
        said(
            0.063,
            "from_server",
            {
                "jsonrpc": "2.0",
                "id": 4,
                "result": {"content": [{"type": "text", "text": "<b>hi</b>"}], "isError": False},
            },
        ),
        said(0.063, "from_server", "[sloppy] calling forget"),
        {"t": 0.071, "event": "server_closed"},
        {"t": 0.072, "event": "server_exited", "status": 0, "returncode": 0},
        {"t": 0.072, "event": "end", "status": 0},
    ]
    calc = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "calculator", "arguments": {"expression": "2 + 2"}},
    }
    clean_talk = [
        {
            "t": 0.002,
            "event": "start",
            "wall": 1796124900.5,
            "command": ["python", "-m", "mcp_lesson.server"],
            "pid": 4242,
            "judge": "mcp_lesson",
            "tap": "0.2.0",
        },
        said(0.610, "to_server", init),
        said(
            0.640,
            "from_server",
            {
                **welcome,
                "result": {
                    **welcome["result"],
                    "serverInfo": {"name": "calculator", "version": "1.0"},
                },
            },
        ),
        said(0.641, "to_server", ready),
        said(0.642, "to_server", {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        said(
            0.650,
            "from_server",
            {
                "jsonrpc": "2.0",
                "id": 2,
                "result": {"tools": [{"name": "calculator", "inputSchema": {"type": "object"}}]},
            },
        ),
    ]
    clean_talk += [
        said(0.651, "to_server", {**calc, "id": 3}),
        said(
            0.655,
            "from_server",
            {
                "jsonrpc": "2.0",
                "id": 3,
                "result": {"content": [{"type": "text", "text": "4"}], "isError": False},
            },
        ),
        {"t": 0.700, "event": "client_closed"},
        {"t": 0.720, "event": "server_exited", "status": 0, "returncode": 0},
        {"t": 0.720, "event": "end", "status": 0},
    ]
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    post = {"method": "POST", "path": "/mcp"}

    def asked(method, **headers):
        return {
            **post,
            "headers": {
                "content-type": "application/json",
                "mcp-protocol-version": "2026-07-28",
                "mcp-method": method,
                **headers,
            },
        }

    def answered(status, kind="application/json"):
        return {"status": status, "headers": {"content-type": kind}}

    over_http = [
        {
            "t": 0.001,
            "event": "start",
            "wall": 1796124900.5,
            "transport": "http",
            "listen": "http://127.0.0.1:8001/mcp",
            "to": "http://127.0.0.1:8000/mcp",
            "judge": "mcp_lesson",
            "tap": "0.2.0",
        },
        said(
            0.120,
            "to_server",
            {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}},
            http=asked("tools/list"),
        ),
        said(
            0.135,
            "from_server",
            {
                "jsonrpc": "2.0",
                "id": 1,
                "result": {
                    "tools": [
                        {"name": "calculator", "inputSchema": {"type": "object"}},
                        {"name": "count", "inputSchema": {"type": "object"}},
                    ],
                    "resultType": "complete",
                    "cacheScope": "public",
                    "ttlMs": 0,
                },
            },
            http=answered(200),
        ),
        said(
            0.140,
            "to_server",
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": meta}},
            http=asked("tools/call"),
        ),
        said(
            0.142,
            "from_server",
            {"jsonrpc": "2.0", "id": 2, "error": {"code": -32020, "message": "Header mismatch"}},
            http=answered(400),
        ),
        said(
            0.150,
            "to_server",
            {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "tools/call",
                "params": {
                    "name": "count",
                    "arguments": {"to": 1},
                    "_meta": {**meta, "progressToken": "p"},
                },
            },
            http=asked("tools/call", **{"mcp-name": "count"}),
        ),
        {
            "t": 0.151,
            "event": "http_response",
            "stream": True,
            **answered(200, "text/event-stream"),
        },
        said(
            0.160,
            "from_server",
            {
                "jsonrpc": "2.0",
                "method": "notifications/progress",
                "params": {"progressToken": "p", "progress": 1, "total": 1},
            },
            http=answered(200, "text/event-stream"),
            sse={"event": "message"},
        ),
        said(
            0.170,
            "from_server",
            {
                "jsonrpc": "2.0",
                "id": 3,
                "result": {"content": [{"type": "text", "text": "1"}], "resultType": "complete"},
            },
            http=answered(200, "text/event-stream"),
            sse={"event": "message"},
        ),
        said(
            0.180,
            "to_server",
            {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}},
            http=asked("notifications/cancelled"),
        ),
        {"t": 0.181, "event": "http_response", **answered(202, "")},
        {"t": 0.300, "event": "signal", "signal": "SIGINT"},
        {"t": 0.301, "event": "end", "status": 0},
    ]
    return [
        (
            "the sloppy server over stdio (as the tap recorded it)",
            "\n".join(map(line, sloppy)) + "\n",
        ),
        ("a clean conversation over stdio", "\n".join(map(line, clean_talk)) + "\n"),
        ("a 2026-07-28 conversation over HTTP", "\n".join(map(line, over_http)) + "\n"),
    ]
