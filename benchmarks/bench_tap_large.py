"""The tap's cost on large answers (part 4 of ``bench_tap.py``; ``--parts large`` runs it alone).

A tool's answer of 1 MiB and of 8 MiB (a text of many short lines, quotes and tabs
escaped as JSON escapes them), beside a small one (about 100 bytes), over stdio and over
Streamable HTTP, each side by side in one run:

* stdio: a lean client in this process (it writes a line, reads the answer's line to its
  newline) to a small server that has its answers ready, directly, through a bare Python
  pass-through that records nothing (``BARE`` of ``bench_tap.py``), and through
  ``python -m mcp_lesson.tap --record``;
* HTTP: ``http.client`` on one kept connection to a small uvicorn server whose answers are
  ready (plain ``application/json`` with a length, and ``text/event-stream``), directly,
  through the TCP relay, through the bare uvicorn+httpx proxy, and through
  ``python -m mcp_lesson.tap --record --http``.

The sides take turns, a request at a time, the order reversed each round; each row gives
the median round trip of each side and the ratios. The goal, as for small answers: the
tap within 1.25x of the bare relay (the pass-through over stdio, the TCP relay over HTTP).

Each size is measured twice: back to back (the next request as soon as an answer is in,
so what the tap does after passing an answer on, judging and recording it, falls on the
next round trip), and one at a time, every side resting :data:`REST` seconds before each
request (what one answer costs when the tap has finished with the one before).
"""

import gc
import json
import os
import statistics
import subprocess
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

from bench_tap import (
    BARE,
    BARE_HTTP,
    PY,
    RELAY,
    ROOT,
    TAP,
    TARGET_RELAY_RATIO,
    _cpu_seconds,
    _http_tap,
)

MIB = 1 << 20
#: The answers' sizes, in bytes: small, 1 MiB, 8 MiB.
SIZES = (100, MIB, 8 * MIB)
#: Seconds every side rests before each request, in the rows "one at a time".
REST = 0.5


#: A stdio server with its answers ready: ``initialize`` and any request answered at once,
#: ``tools/call`` with a text result of about ``arguments.size`` bytes on one line.
STDIO_SERVER = r"""
import json, sys
out = sys.stdout.buffer
ready = {}
def text_of(size):
    lines, total, i = [], 0, 0
    while total < size:
        line = 'line %07d of the answer, "quoted" and\ttabbed: the quick brown fox\n' % i
        lines.append(line)
        total += len(line) + 4  # the newline, the quotes and the tab take two bytes each in JSON
        i += 1
    return "".join(lines)
def answer(size):
    if size not in ready:
        result = json.dumps({"content": [{"type": "text", "text": text_of(size)}], "isError": False})
        ready[size] = ('{"jsonrpc":"2.0","result":' + result + ',"id":').encode()
    return ready[size]
for line in sys.stdin.buffer:
    message = json.loads(line)
    if "id" not in message:
        continue
    if message.get("method") == "initialize":
        result = {"protocolVersion": message["params"]["protocolVersion"], "capabilities": {"tools": {}},
                  "serverInfo": {"name": "large", "version": "1"}}
        out.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode() + b"\n")
    elif message.get("method") == "tools/call":
        out.write(answer(message["params"]["arguments"]["size"]) + json.dumps(message["id"]).encode() + b"}\n")
    else:
        out.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": {}}).encode() + b"\n")
    out.flush()
"""

#: The same over Streamable HTTP (uvicorn, stateless: no session): ``tools/call`` answered
#: with plain JSON, or with one SSE event when ``arguments.stream`` is true.
HTTP_SERVER = r"""
import json, socket, sys
import uvicorn
exec(compile(sys.argv[1], "answers", "exec"))  # text_of and answer, as the stdio server has them
async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        return await send({"type": "lifespan.shutdown.complete"})
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    message = json.loads(body)
    if "id" not in message:
        await send({"type": "http.response.start", "status": 202, "headers": []})
        return await send({"type": "http.response.body", "body": b""})
    arguments = message.get("params", {}).get("arguments", {})
    line = answer(arguments.get("size", 0)) + json.dumps(message["id"]).encode() + b"}"
    if arguments.get("stream"):
        kind, line = b"text/event-stream", b"event: message\ndata: " + line + b"\n\n"
    else:
        kind = b"application/json"
    headers = [(b"content-type", kind), (b"content-length", str(len(line)).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": line})
listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
listener.bind(("127.0.0.1", 0))
listener.listen(2048)
print(f"listening on http://127.0.0.1:{listener.getsockname()[1]}/mcp", file=sys.stderr, flush=True)
uvicorn.Server(uvicorn.Config(app, log_level="critical", lifespan="on")).run(sockets=[listener])
"""

#: The part of :data:`STDIO_SERVER` that makes the answers, handed to the HTTP server.
_ANSWERS = STDIO_SERVER.split("for line in sys.stdin.buffer:")[0].replace(
    "out = sys.stdout.buffer\n", ""
)


def _call(size, request_id=2, stream=False):
    arguments = {"size": size, **({"stream": True} if stream else {})}
    return json.dumps(
        {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": "tools/call",
            "params": {"name": "large", "arguments": arguments},
        }
    ).encode()


_INITIALIZE = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "bench-tap", "version": "1"},
        },
    }
).encode()
_INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'


class LineClient:
    """A lean stdio client: one line written, the answer's line read to its newline. ``pid``:
    the process in the middle (None when the command is the server itself)."""

    def __init__(self, command, middle=True):
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0, cwd=ROOT
        )
        self.pid = self.process.pid if middle else None
        self._out, self._in = self.process.stdin.fileno(), self.process.stdout.fileno()
        self.ask(_INITIALIZE)
        os.write(self._out, _INITIALIZED + b"\n")

    def ask(self, line):
        """Send ``line``; the size of the line that answers it."""
        data = memoryview(line + b"\n")
        while data:
            data = data[os.write(self._out, data) :]
        got = bytearray()
        while True:
            chunk = os.read(self._in, 1 << 20)
            assert chunk, "the server ended"
            got += chunk
            if chunk.endswith(b"\n"):
                return len(got)

    def close(self):
        self.process.stdin.close()
        self.process.wait(30)


class HttpClient:
    """``http.client`` on one kept connection: a POST, the whole answer read. ``pid``: the
    process in the middle, when there is one."""

    def __init__(self, address, pid=None):
        import http.client
        import urllib.parse

        parts = urllib.parse.urlsplit(address)
        self._connection = http.client.HTTPConnection(parts.hostname, parts.port)
        self._path = parts.path
        self.pid = pid
        self._headers = {
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
            "MCP-Protocol-Version": "2025-11-25",
        }
        self.ask(_INITIALIZE)

    def ask(self, body):
        import http.client

        for attempt in (1, 2):
            try:
                self._connection.request("POST", self._path, body, self._headers)
                answer = self._connection.getresponse()
                break
            except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
                self._connection.close()  # a kept connection the server closed while idle: again
                if attempt == 2:
                    raise
        got = answer.read()
        assert answer.status == 200, (answer.status, got[:200])
        return len(got)

    def close(self):
        self._connection.close()


def _turns(clients, requests, rounds, rest=0.0):
    """Each client's median seconds a round trip, for each request; the clients take turns
    (resting ``rest`` seconds, untimed, before each request). ``"cpu"``: the CPU seconds a
    request of each process in the middle (from /proc: what a busy machine's waits do not blur)."""
    found = {}
    for what, body in requests.items():
        for client in clients.values():  # warm up (and check the answer's size)
            client.ask(body)
        middle = {name: client.pid for name, client in clients.items() if client.pid}
        cpu = {name: _cpu_seconds(pid) for name, pid in middle.items()}
        times = {name: [] for name in clients}
        for round_ in range(rounds):
            order = list(clients) if round_ % 2 == 0 else list(reversed(clients))
            for name in order:
                gc.collect()
                time.sleep(rest)
                start = time.perf_counter()
                clients[name].ask(body)
                times[name].append(time.perf_counter() - start)
        found[what] = {name: statistics.median(each) for name, each in times.items()}
        found[what]["cpu"] = {
            name: (_cpu_seconds(pid) - cpu[name]) / rounds for name, pid in middle.items()
        }
    return found


def _label(size):
    return f"{size // MIB} MiB" if size >= MIB else f"{size} B"


def _requests(sizes, rest, kinds):
    label = ", one at a time" if rest else ""
    return {
        f"tools/call, {_label(size)}{', ' + kind if kind else ''}{label}": _call(
            size, stream=kind == "SSE"
        )
        for size in sizes
        for kind in kinds
    }


def stdio_rows(rounds, sizes=SIZES, rest_rounds=0):
    server = [PY, "-c", STDIO_SERVER]
    with tempfile.TemporaryDirectory() as folder, ExitStack() as stack:
        recording = Path(folder) / "large.jsonl"
        clients = {
            "direct": LineClient(server, middle=False),
            "bare": LineClient([PY, "-c", BARE, *server]),
            "tap": LineClient([*TAP, "--record", str(recording), "--", *server]),
        }
        for client in clients.values():
            stack.callback(client.close)
        rows = _turns(clients, _requests(sizes, 0, [""]), rounds)
        large = [size for size in sizes if size >= MIB]
        if rest_rounds and large:
            rows.update(_turns(clients, _requests(large, REST, [""]), rest_rounds, REST))
        return rows


def http_rows(rounds, sizes=SIZES, rest_rounds=0):
    with tempfile.TemporaryDirectory() as folder, ExitStack() as stack:
        recording = Path(folder) / "large.jsonl"
        server, url = _http_tap(recording, "", [PY, "-c", HTTP_SERVER, _ANSWERS])
        stack.callback(lambda: (server.terminate(), server.wait(30)))
        addresses, pids = {"direct": url}, {}
        for name, command in (
            ("relay", [PY, "-c", RELAY, url]),
            ("bare", [PY, "-c", BARE_HTTP, url]),
            ("tap", None),
        ):
            proc, addresses[name] = _http_tap(recording, url, command)
            pids[name] = proc.pid
            stack.callback(lambda proc=proc: (proc.terminate(), proc.wait(30)))
        clients = {name: HttpClient(address, pids.get(name)) for name, address in addresses.items()}
        for client in clients.values():
            stack.callback(client.close)
        rows = _turns(clients, _requests(sizes, 0, ["JSON", "SSE"]), rounds)
        large = [size for size in sizes if size >= MIB]
        if rest_rounds and large:
            rows.update(_turns(clients, _requests(large, REST, ["JSON", "SSE"]), rest_rounds, REST))
        return rows


def report(rows, floor):
    """Print the rows; True when the tap met the goal (within the ratio of ``floor``) on every row."""
    verdicts = []
    for what, found in rows.items():
        cpu = found.pop("cpu", {})
        direct, tapped, under = found["direct"], found["tap"], found[floor]
        sides = "  ".join(f"{name} {seconds * 1e3:8.2f} ms" for name, seconds in found.items())
        ratio = tapped / under
        verdicts.append(ratio <= TARGET_RELAY_RATIO)
        print(
            f"  {what:<40} {sides}  | tap/{floor} {ratio:5.2f}x, tap/direct {tapped / direct:5.2f}x, "
            f"tap adds {(tapped - under) * 1e3:+7.2f} ms to the {floor} "
            f"(goal <= {TARGET_RELAY_RATIO}x: {'met' if verdicts[-1] else 'NOT met'})"
        )
        if cpu:
            print(
                f"  {'':<40} CPU a request, the process in the middle: "
                + ", ".join(f"{name} {seconds * 1e3:.2f} ms" for name, seconds in cpu.items())
            )
    return all(verdicts)


def main(rounds, sizes=SIZES):
    rest_rounds = max(3, rounds // 3)
    print(
        f"4. large answers beside a small one, {rounds} round trips a side back to back, sides in turn, "
        f"then {rest_rounds} one at a time ({REST:g} s of rest before each); medians"
    )
    print(
        "  over stdio: a lean client, directly, through a bare Python pass-through, through the tap"
    )
    stdio_met = report(stdio_rows(rounds, sizes, rest_rounds), "bare")
    print(
        "  over Streamable HTTP: http.client, directly, through a TCP relay, a uvicorn+httpx proxy, the tap"
    )
    http_met = report(http_rows(rounds, sizes, rest_rounds), "relay")
    print(
        f"  the goal on every size, in this run: {'met' if stdio_met and http_met else 'NOT met'}"
    )
