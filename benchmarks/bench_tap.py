"""The tap's speed: what it adds to a conversation, and how fast it records, in one run.

    .venv/bin/python benchmarks/bench_tap.py            # --pings 1000 --lines 100000 --rounds 5
    .venv/bin/python benchmarks/bench_tap.py --parts json --pings 500   # the JSON answers alone

1. Round trips over stdio. The official SDK's client (``mcp.ClientSession``)
   talks to the course's calculator server three times at once: directly,
   through a bare Python pass-through that records nothing (what the extra
   hop alone costs), and through ``python -m mcp_lesson.tap --record``. The
   sessions are open side by side and take turns, a block of requests each,
   so the machine's noise falls on all alike; each block's time a request is
   kept, and the report
   gives medians: ``ping`` first, then ``tools/call`` (the calculator on
   "2 + 2"), 1,000 of each by default on each side. The goal: under 10%
   added, or under 100 us a message (a round trip is two messages).
2. The same over Streamable HTTP: the server over HTTP, directly, through a TCP relay
   that passes bytes on and reads no HTTP (one more hop: the floor), through a bare
   uvicorn+httpx proxy (nothing recorded; what the tap was built on once), and through
   ``python -m mcp_lesson.tap --record --http``. Both kinds of answer, in one run: the SDK's
   sessions of 2025-11-25 (``ping``, ``tools/call``), whose answers are streamed
   (``text/event-stream``), and its stateless sessions of 2026-07-28 (``server/discover``,
   then ``tools/list`` and ``tools/call``), each answered with plain ``application/json``
   and a length (the answer a missing ``TCP_NODELAY`` delays by some 40 ms); then the same
   JSON requests from ``http.client``, the leanest client, where the hops are the most of
   a round trip (``--parts json`` runs this part alone), with the CPU time a request of
   each process in the middle. The goal: through the tap within 1.25x of the relay on
   every kind, and within 1.5x of direct.
3. A flood. A server that has 100,000 lines ready (a mix of MCP messages)
   sends them as fast as its client reads, once the client says "go". Timed
   from "go" until the tap has exited (every line passed on and recorded), and
   beside it ``json.loads`` alone on the same lines in this process, in
   interleaved rounds. The goal: the tap's lines a second at least half of
   ``json.loads``'s. The same flood without the tap, straight into this
   process, is shown for scale.

A report, never a test: it fails on no number. The machines are shared, so
every figure is a median of interleaved rounds.
"""

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
TAP = [PY, "-m", "mcp_lesson.tap"]
SERVER = [PY, "-m", "mcp_lesson.server"]

TARGET_ADDED = 0.10  # at most 10% added to a round trip...
TARGET_MESSAGE_US = 100.0  # ...or at most 100 us a message
TARGET_FLOOD = 0.5  # the tap's lines a second, as a share of json.loads's
TARGET_HTTP_RATIO = 1.5  # over HTTP, a round trip within 1.5x of direct...
TARGET_RELAY_RATIO = 1.25  # ...and within 1.25x of a bare TCP relay (one more hop, no HTTP)


# --- 1. round trips -------------------------------------------------------------------------

#: A pass-through in Python that records nothing (two threads, read and write): what the
#: extra hop alone costs, to tell it from what the tap's recording costs.
BARE = r"""
import os, subprocess, sys, threading
server = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
def pump(source, destination, done):
    while data := os.read(source, 65536):
        os.write(destination, data)
    done()
threading.Thread(target=pump, args=(0, server.stdin.fileno(), server.stdin.close),
                 daemon=True).start()
pump(server.stdout.fileno(), 1, lambda: None)
sys.exit(server.wait())
"""

#: The same over HTTP: uvicorn listens and httpx passes each request on and streams its
#: answer back, as the HTTP tap does, recording nothing and judging nothing.
BARE_HTTP = r"""
import socket, sys
import httpx, uvicorn
to = sys.argv[1]
origin = to.split("/mcp")[0]
HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "accept-encoding", "upgrade"}
client = None
async def app(scope, receive, send):
    global client
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            client = httpx.AsyncClient(timeout=None, trust_env=False)
            await send({"type": "lifespan.startup.complete"})
        return await send({"type": "lifespan.shutdown.complete"})
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    headers = [(k.decode(), v.decode()) for k, v in scope["headers"] if k.decode().lower() not in HOP]
    request = client.build_request(scope["method"], origin + scope["path"], headers=headers, content=body)
    answer = await client.send(request, stream=True)
    out = [(k.encode(), v.encode()) for k, v in answer.headers.items() if k.lower() not in HOP]
    await send({"type": "http.response.start", "status": answer.status_code, "headers": out})
    async for chunk in answer.aiter_raw():
        await send({"type": "http.response.body", "body": chunk, "more_body": True})
    await answer.aclose()
    await send({"type": "http.response.body", "body": b"", "more_body": False})
listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)  # TCP_NODELAY, as the tap
listener.bind(("127.0.0.1", 0))
listener.listen(2048)
print(f"listening on http://127.0.0.1:{listener.getsockname()[1]}/mcp", file=sys.stderr, flush=True)
uvicorn.Server(uvicorn.Config(app, log_level="critical", lifespan="on")).run(sockets=[listener])
"""


#: A TCP relay on asyncio streams: each connection's bytes passed on both ways as they come,
#: no HTTP read, nothing recorded. What one more hop costs on this machine, before any HTTP.
RELAY = r"""
import asyncio, sys, urllib.parse
to = urllib.parse.urlsplit(sys.argv[1])
async def pipe(reader, writer):
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    finally:
        writer.close()
async def relay(client_reader, client_writer):
    try:
        server_reader, server_writer = await asyncio.open_connection(to.hostname, to.port)
    except OSError:
        client_writer.close()
        return
    await asyncio.gather(pipe(client_reader, server_writer), pipe(server_reader, client_writer),
                         return_exceptions=True)
async def main():
    listener = await asyncio.start_server(relay, "127.0.0.1", 0, backlog=2048)
    port = listener.sockets[0].getsockname()[1]
    print(f"listening on http://127.0.0.1:{port}{to.path}", file=sys.stderr, flush=True)
    await listener.serve_forever()
asyncio.run(main())
"""


async def _stdio_sessions(stack, recording):
    """Sessions over stdio: direct, through a bare pass-through, through the tap."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    sides = {
        "direct": StdioServerParameters(command=PY, args=SERVER[1:], cwd=str(ROOT)),
        "bare": StdioServerParameters(command=PY, args=["-c", BARE, *SERVER], cwd=str(ROOT)),
        "tap": StdioServerParameters(
            command=PY, args=[*TAP[1:], "--record", str(recording), "--", *SERVER], cwd=str(ROOT)
        ),
    }
    sessions = {}
    for name, params in sides.items():
        read, write = await stack.enter_async_context(stdio_client(params))
        sessions[name] = await stack.enter_async_context(ClientSession(read, write))
        await sessions[name].initialize()
    return sessions


def _http_tap(recording, to, command=None):
    """Start the HTTP tap (or ``command``, announcing its address the same way) in front of
    ``to``; (its process, its address)."""
    import re
    import select

    tap = subprocess.Popen(
        command or [*TAP, "--record", str(recording), "--http", "--port", "0", "--to", to],
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    said, deadline = b"", time.monotonic() + 60
    while b"\n" not in said and time.monotonic() < deadline:
        if select.select([tap.stderr], [], [], 0.1)[0]:
            said += os.read(tap.stderr.fileno(), 4096) or b"\n"
    return tap, re.search(r"listening on (\S+)", said.decode()).group(1)


async def _http_sessions(stack, recording):
    """Sessions over Streamable HTTP, direct, through a TCP relay, through a bare proxy and
    through the HTTP tap, twice: the SDK's sessions of 2025-11-25 (an ``initialize``
    handshake; answers streamed), and its stateless sessions of 2026-07-28
    (``server/discover``; each answer plain JSON with a length)."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    from mcp_lesson.server.running import HttpServer

    server = stack.enter_context(HttpServer())
    addresses = {"direct": server.url}
    for name, command in (
        ("relay", [PY, "-c", RELAY, server.url]),
        ("bare", [PY, "-c", BARE_HTTP, server.url]),
        ("tap", None),
    ):
        proc, addresses[name] = _http_tap(recording, server.url, command)
        stack.callback(lambda proc=proc: (proc.terminate(), proc.wait(30)))
    streamed, stateless = {}, {}
    for name, address in addresses.items():
        for sessions, start in ((streamed, "initialize"), (stateless, "discover")):
            read, write = await stack.enter_async_context(streamable_http_client(address))
            sessions[name] = await stack.enter_async_context(ClientSession(read, write))
            await getattr(sessions[name], start)()
    return streamed, stateless


async def _timed_turns(sessions, request, pings, block):
    """Each session's median time a request, the sessions taking turns a block at a time."""
    for session in sessions.values():  # warm up each
        for _ in range(block):
            await request(session)
    times = {name: [] for name in sessions}
    rounds = max(1, pings // block)
    for round_ in range(rounds):
        order = list(sessions) if round_ % 2 == 0 else list(reversed(sessions))
        for name in order:
            gc.collect()
            start = time.perf_counter()
            for _ in range(block):
                await request(sessions[name])
            times[name].append((time.perf_counter() - start) / block)
    found = {name: statistics.median(each) for name, each in times.items()}
    found["count"] = rounds * block
    return found


async def _round_trips(pings, block, recording, transport):
    from contextlib import AsyncExitStack

    async def ping(session):
        await session.send_ping()

    async def call(session):
        await session.call_tool("calculator", {"expression": "2 + 2"})

    async def listing(session):
        await session.list_tools()

    async with AsyncExitStack() as stack:
        results = {}
        if transport == "stdio":
            sessions = await _stdio_sessions(stack, recording)
            for what, request in (("ping", ping), ("tools/call", call)):
                results[what] = await _timed_turns(sessions, request, pings, block)
            return results
        streamed, stateless = await _http_sessions(stack, recording)
        for what, request in (("ping", ping), ("tools/call", call)):
            results[f"{what}, streamed (2025-11-25)"] = await _timed_turns(
                streamed, request, pings, block
            )
        for what, request in (("tools/list", listing), ("tools/call", call)):
            results[f"{what}, JSON (2026-07-28)"] = await _timed_turns(
                stateless, request, pings, block
            )
    return results


def _stamped(method, params=None):
    """A stateless 2026-07-28 request, stamped as the SDK's client stamps it: the server
    answers it with plain ``application/json`` and a length."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "bench-tap", "version": "1.0"},
    }
    body = json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**(params or {}), "_meta": meta}}
    ).encode()
    headers = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": method,
    }
    if params and "name" in params:
        headers["Mcp-Name"] = params["name"]
    return body, headers


JSON_LISTING, JSON_HEADERS = _stamped("tools/list")
JSON_REQUESTS = {
    "tools/list": (JSON_LISTING, JSON_HEADERS),
    "tools/call": _stamped(
        "tools/call", {"name": "calculator", "arguments": {"expression": "2 + 2"}}
    ),
}


def _cpu_seconds(pid):
    """A process's CPU time so far (user and system), in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def json_round_trips(pings, block):
    """Stateless ``tools/list`` and ``tools/call`` round trips answered with plain JSON,
    one kept connection (``http.client``, the leanest client: the most of a round trip is
    the hops') to each side: direct, the TCP relay, the bare proxy, the tap; the sides take
    turns a block at a time. Medians of each block's time a request, and the CPU time a
    request of each proxy's process (``"cpu"``; from /proc, where there is one)."""
    import http.client
    import urllib.parse
    from contextlib import ExitStack

    from mcp_lesson.server.running import HttpServer

    with tempfile.TemporaryDirectory() as folder, ExitStack() as stack:
        recording = Path(folder) / "json.jsonl"
        server = stack.enter_context(HttpServer())
        addresses, pids = {"direct": server.url}, {}
        for name, command in (
            ("relay", [PY, "-c", RELAY, server.url]),
            ("bare", [PY, "-c", BARE_HTTP, server.url]),
            ("tap", None),
        ):
            proc, addresses[name] = _http_tap(recording, server.url, command)
            pids[name] = proc.pid
            stack.callback(lambda proc=proc: (proc.terminate(), proc.wait(30)))
        connections = {}
        for name, address in addresses.items():
            parts = urllib.parse.urlsplit(address)
            connections[name] = (http.client.HTTPConnection(parts.hostname, parts.port), parts.path)
            stack.callback(connections[name][0].close)

        def ask(name, body, headers):
            connection, path = connections[name]
            try:
                connection.request("POST", path, body, headers)
                answer = connection.getresponse()
            except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
                # a kept connection left idle past the server's keep-alive (5 s) while the other
                # sides took their turns on a busy machine: http.client connects again
                connection.close()
                connection.request("POST", path, body, headers)
                answer = connection.getresponse()
            got = answer.read()
            assert (
                answer.status == 200 and answer.getheader("content-type") == "application/json"
            ), (name, answer.status, got[:200])

        results = {}
        for what, (body, headers) in JSON_REQUESTS.items():
            for name in connections:  # warm up
                for _ in range(block):
                    ask(name, body, headers)
            times = {name: [] for name in connections}
            rounds = max(1, pings // block)
            cpu = {name: _cpu_seconds(pid) for name, pid in pids.items()}
            for round_ in range(rounds):
                order = list(connections) if round_ % 2 == 0 else list(reversed(connections))
                for name in order:
                    gc.collect()
                    start = time.perf_counter()
                    for _ in range(block):
                        ask(name, body, headers)
                    times[name].append((time.perf_counter() - start) / block)
            found = {name: statistics.median(each) for name, each in times.items()}
            found["count"] = rounds * block
            found["cpu"] = {
                name: (_cpu_seconds(pid) - cpu[name]) / (rounds * block)
                for name, pid in pids.items()
            }
            results[f"{what}, JSON (2026-07-28), http.client"] = found
    return results


def round_trips(pings, block, transport="stdio"):
    import anyio

    with tempfile.TemporaryDirectory() as folder:
        recording = Path(folder) / "round_trips.jsonl"
        results = anyio.run(_round_trips, pings, block, recording, transport)
        recorded = sum(1 for _ in recording.open())
    return results, recorded


# --- 2. a flood -----------------------------------------------------------------------------


def flood_lines(count):
    """``count`` lines, a mix of what a busy server sends: progress and log notifications,
    tool results, and a few log lines on stdout."""
    kinds = []
    for i in range(count):
        if i % 4 == 0:
            message = {
                "jsonrpc": "2.0",
                "method": "notifications/progress",
                "params": {
                    "progressToken": f"job-{i % 97}",
                    "progress": i,
                    "total": count,
                    "message": f"step {i} of {count}",
                },
            }
        elif i % 4 == 1:
            message = {
                "jsonrpc": "2.0",
                "method": "notifications/message",
                "params": {
                    "level": "info",
                    "logger": "worker",
                    "data": {"done": i, "file": f"/data/part-{i}.csv"},
                },
            }
        elif i % 4 == 2:
            message = {
                "jsonrpc": "2.0",
                "id": i,
                "result": {
                    "content": [{"type": "text", "text": f"row {i}: ok"}],
                    "isError": False,
                    "structuredContent": {"result": i * 2},
                },
            }
        elif i % 40 == 3:
            kinds.append(f"INFO worker: finished part {i}")  # a log line on stdout
            continue
        else:
            message = {
                "jsonrpc": "2.0",
                "id": f"r-{i}",
                "error": {"code": -32602, "message": "Invalid params", "data": {"field": "a"}},
            }
        kinds.append(json.dumps(message))
    return kinds


FLOOD_SERVER = r"""
import sys
data = open(sys.argv[1], "rb").read()
sys.stdout.buffer.write(b"ready\n")
sys.stdout.buffer.flush()
sys.stdin.readline()  # "go"
sys.stdout.buffer.write(data)
sys.stdout.buffer.flush()
"""


def _drain(fd):
    total = 0
    while True:
        data = os.read(fd, 1 << 20)
        if not data:
            return total
        total += len(data)


def _flood_once(command, size):
    """Seconds from "go" until ``command`` has ended, everything read; and the bytes read."""
    proc = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0, cwd=ROOT
    )
    try:
        ready = b""
        while not ready.endswith(b"ready\n"):  # started (start-up is not what is measured)
            more = os.read(proc.stdout.fileno(), 6 - len(ready))
            assert more, "the flood server did not start"
            ready += more
        start = time.perf_counter()
        proc.stdin.write(b"go\n")
        proc.stdin.close()
        got = _drain(proc.stdout.fileno())
        proc.wait()
        return time.perf_counter() - start, got
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def flood(count, rounds):
    lines = flood_lines(count)
    data = ("\n".join(lines) + "\n").encode()
    loads = json.loads

    def parse_all():
        for text in lines:
            try:
                loads(text)
            except ValueError:
                pass

    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "flood.txt"
        source.write_bytes(data)
        recording = Path(folder) / "flood.jsonl"
        direct = [PY, "-c", FLOOD_SERVER, str(source)]
        tapped = [*TAP, "--record", str(recording), "--", *direct]
        times = {"tap": [], "direct": [], "json.loads": []}
        for round_ in range(rounds):
            steps = [
                ("tap", lambda: _flood_once(tapped, len(data))),
                ("direct", lambda: _flood_once(direct, len(data))),
                ("json.loads", lambda: (_timed(parse_all), len(data))),
            ]
            for name, step in steps[:: 1 if round_ % 2 == 0 else -1]:
                seconds, got = step()
                assert got == len(data), f"{name}: {got} of {len(data)} bytes"
                times[name].append(seconds)
            recorded = sum(1 for entry in recording.open() if '"from_server"' in entry)
            assert recorded == count + 1, f"the tap recorded {recorded - 1} of {count} lines"
    return {name: count / statistics.median(found) for name, found in times.items()}, len(data)


def _timed(fn):
    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter()
        fn()
        return time.perf_counter() - start
    finally:
        gc.enable()


# --- the report -----------------------------------------------------------------------------


def _print_found(what, found, transport):
    direct, tapped = found["direct"] * 1e6, found["tap"] * 1e6
    added = tapped - direct
    share = added / direct
    per_message = added / 2
    print(f"  {what}, {found['count']:,} on each side, a round trip:")
    print(f"    direct                     {direct:7.0f} us")
    if "relay" in found:
        relay = found["relay"] * 1e6
        print(
            f"    a TCP relay, no HTTP read  {relay:7.0f} us  ({relay - direct:+.0f} us, "
            f"{relay / direct:.2f}x: one more hop, the floor)"
        )
    if "bare" in found:
        bare = found["bare"] * 1e6
        kind = "a bare Python pass-through" if transport == "stdio" else "a uvicorn+httpx proxy    "
        print(f"    {kind} {bare:7.0f} us  ({bare - direct:+.0f} us, {bare / direct:.2f}x)")
    print(
        f"    through the tap, recorded  {tapped:7.0f} us  ({added:+.0f} us, {share:+.1%}, "
        f"{tapped / direct:.2f}x direct; {per_message:+.0f} us a message)"
    )
    if transport == "stdio":
        met = share < TARGET_ADDED or per_message < TARGET_MESSAGE_US
        print(
            f"    goal < {TARGET_ADDED:.0%} added or < {TARGET_MESSAGE_US:.0f} us a message: "
            f"{'met' if met else 'NOT met'}"
        )
        return
    if "cpu" in found:
        print(
            "    CPU time a request of the process in the middle: "
            + ", ".join(f"{name} {seconds * 1e6:.0f} us" for name, seconds in found["cpu"].items())
        )
    to_relay, to_direct = tapped / (found["relay"] * 1e6), tapped / direct
    met = to_relay <= TARGET_RELAY_RATIO and to_direct <= TARGET_HTTP_RATIO
    print(
        f"    the tap / the relay {to_relay:.2f}x (goal <= {TARGET_RELAY_RATIO}: "
        f"{'met' if to_relay <= TARGET_RELAY_RATIO else 'NOT met'}); the tap / direct "
        f"{to_direct:.2f}x (goal <= {TARGET_HTTP_RATIO}: "
        f"{'met' if to_direct <= TARGET_HTTP_RATIO else 'NOT met'})"
    )
    return met


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pings", type=int, default=1000, help="requests of each kind, each side")
    parser.add_argument(
        "--block",
        type=int,
        default=20,
        help="requests a turn (small turns: the noise of a shared machine falls on every side alike)",
    )
    parser.add_argument("--lines", type=int, default=100_000, help="lines in the flood")
    parser.add_argument("--rounds", type=int, default=5, help="flood rounds")
    parser.add_argument(
        "--parts",
        default="stdio,http,json,flood,large",
        help="which parts, of stdio,http,json,flood,large (json: the http.client part of 2 "
        "alone; large: answers of 1 and 8 MiB beside a small one)",
    )
    parser.add_argument(
        "--large-rounds",
        type=int,
        default=21,
        help="round trips of each large answer, each side (part 4)",
    )
    args = parser.parse_args(argv)
    parts = set(args.parts.split(","))

    import importlib.metadata as md

    print(
        f"python {sys.version.split()[0]}, mcp {md.version('mcp')}, {os.cpu_count()} cores; "
        "medians of interleaved rounds"
    )
    for _number, transport in ((1, "stdio"), (2, "http")):
        results, recorded = (
            ({}, 0) if transport not in parts else round_trips(args.pings, args.block, transport)
        )
        if transport == "stdio" and results:
            print(
                f"1. round trips, the SDK's ClientSession to the course's server over stdio "
                f"({recorded:,} entries recorded through the tap)"
            )
        elif transport == "http" and (results or "json" in parts):
            print(
                f"2. round trips over Streamable HTTP to the course's server, direct, through a TCP relay, "
                f"a uvicorn+httpx proxy and the tap ({recorded:,} entries recorded through the tap): the SDK's "
                f"ClientSession, its answers streamed (text/event-stream, 2025-11-25) and plain JSON "
                f"(application/json, a length: stateless 2026-07-28); then the same JSON requests from "
                f"http.client, one kept connection to each side"
            )
            if "json" in parts:
                results.update(json_round_trips(args.pings, args.block))
        verdicts = [_print_found(what, found, transport) for what, found in results.items()]
        if transport == "http" and verdicts:
            print(
                f"  the goal on every kind of answer, in this run: {'met' if all(verdicts) else 'NOT met'}"
            )
    if "flood" in parts:
        _print_flood(args)
    if "large" in parts:
        import bench_tap_large

        bench_tap_large.main(args.large_rounds)


def _print_flood(args):
    rates, size = flood(args.lines, args.rounds)
    share = rates["tap"] / rates["json.loads"]
    print(f"3. a flood of {args.lines:,} lines ({size / 1e6:.1f} MB) from a server")
    print(f"  through the tap, recorded  {rates['tap']:>11,.0f} lines/s")
    print(f"  json.loads alone           {rates['json.loads']:>11,.0f} lines/s")
    print(f"  straight, no tap           {rates['direct']:>11,.0f} lines/s  (for scale)")
    print(
        f"  the tap / json.loads       {share:>11.2f}  (goal >= {TARGET_FLOOD}: "
        f"{'met' if share >= TARGET_FLOOD else 'NOT met'})"
    )


if __name__ == "__main__":
    main()
