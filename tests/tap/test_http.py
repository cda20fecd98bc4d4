"""The HTTP tap (mcp_lesson/tap/http.py), in front of the course's server over
Streamable HTTP: what passes, what is recorded, and each attack a red team made (a body its
client did not finish, huge lengths, HTTP/1.0, an answer that breaks off, a thousand
requests at once, a client that leaves).
"""

import json
import sys
from pathlib import Path

import pytest
from http_server import HttpTapped, http_client
from processes import patience, wait_for

from mcp_lesson.tap import audit

from .tapping import INITIALIZED, report

MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "test-tap", "version": "1.0"},
}


def test_the_sdks_client_through_the_http_tap(tmp_path, http_server):
    import anyio
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    tap = HttpTapped(tmp_path, http_server.url)
    assert tap.url.endswith("/mcp") and tap.url != http_server.url
    steps = []

    async def talk():
        with anyio.fail_after(patience(60)):
            async with streamable_http_client(tap.url) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    tools = await session.list_tools()

                    async def progress(done, total, message):
                        steps.append(done)

                    counted = await session.call_tool(
                        "count", {"to": 3}, progress_callback=progress
                    )
                    await session.send_ping()
                    return sorted(tool.name for tool in tools.tools), counted

    names, counted = anyio.run(talk)
    assert names == ["add", "calculator", "count"] and counted.structured_content == {"result": 3}
    assert steps == [1, 2, 3]
    entries = tap.stop()
    assert entries[0]["event"] == "start" and entries[0]["to"] == http_server.url
    assert entries[-1]["event"] == "end"
    sent = [e for e in entries if e.get("direction") == "to_server"]
    assert [json.loads(e["text"]).get("method") for e in sent] == [
        "initialize",
        "notifications/initialized",
        "tools/list",
        "tools/call",
        "ping",
    ]
    assert all(e["http"]["method"] == "POST" and e["http"]["path"] == "/mcp" for e in sent)
    assert "mcp-session-id" in sent[-1]["http"]["headers"]
    streamed = [e for e in entries if e.get("direction") == "from_server" and "sse" in e]
    assert [json.loads(e["text"]).get("method") for e in streamed].count(
        "notifications/progress"
    ) == 3
    accepted = [e for e in entries if e.get("event") == "http_response" and e["status"] == 202]
    assert len(accepted) == 1  # the notification: 202 and no body
    done = report(tap.recording)
    assert done.returncode == 0, done.stdout
    assert "no problems" in done.stdout and "4 requests" in done.stdout


def test_the_http_tap_passes_statuses_and_bodies_on_and_the_audit_reads_them(tmp_path, http_server):
    tap = HttpTapped(tmp_path, http_server.url)
    headers = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "MCP-Protocol-Version": "2026-07-28",
    }
    listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": MODERN_META}}
    with http_client() as client:
        direct = client.post(
            http_server.url, json=listing, headers={**headers, "Mcp-Method": "tools/list"}
        )
        tapped = client.post(tap.url, json=listing, headers={**headers, "Mcp-Method": "tools/list"})
        assert tapped.status_code == direct.status_code == 200
        assert tapped.headers["content-type"] == direct.headers["content-type"]
        assert tapped.text == direct.text  # the same answer, byte for byte
        refused = client.post(
            tap.url,
            json=listing,
            headers={**headers, "Mcp-Method": "tools/list", "Origin": "http://evil.example"},
        )
        assert (refused.status_code, refused.text) == (403, "Invalid Origin header")
        cut = client.post(
            tap.url,
            content=b'{"jsonrpc": "2.0", "id": 2, "meth',
            headers={**headers, "Mcp-Method": "tools/list"},
        )
        assert cut.status_code == 400 and cut.json()["id"] is None
    entries = tap.stop()
    said = report(tap.recording).stdout
    assert (
        'the client sent "{\\"jsonrpc\\": \\"2.0\\", \\"id\\": 2, \\"meth", which is '
        "not JSON" in said
    )
    assert "revision: 2026-07-28 (the client's requests carry 2026-07-28 in params._meta" in said
    assert "never answered" not in said
    problems = [json.loads(raw) for raw in report(tap.recording, "--json").stdout.splitlines()]
    # The null-id parse error answers the cut-off body: no problem of its own. The request
    # refused for its Origin got a 403 in plain text, which the transport allows: the
    # refusal answers its request (the tap numbers each exchange), and is no problem.
    assert [p["problem"] for p in problems] == ["not_json"]
    origins = [
        e["http"]["headers"].get("origin")
        for e in entries
        if "http" in e and e.get("direction") == "to_server"
    ]
    assert "http://evil.example" in origins


def test_the_http_tap_says_when_the_server_cannot_be_reached(tmp_path):
    import socket

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        nowhere = f"http://127.0.0.1:{probe.getsockname()[1]}/mcp"
    tap = HttpTapped(tmp_path, nowhere)
    with http_client() as client:
        answer = client.post(tap.url, json=INITIALIZED)
    assert answer.status_code == 502 and f"cannot reach {nowhere}" in answer.text
    entries = tap.stop()
    assert any(e.get("event") == "tap_error" and "cannot reach" in e["detail"] for e in entries)
    returncode, problems = _problems(tap.recording)  # never delivered: a note, nobody's fault
    assert (returncode, [(p["problem"], p["severity"]) for p in problems]) == (
        0,
        [("not_delivered", "note")],
    )


def _raw(tap_url, data, keep_open=False):
    """Send raw bytes to the tap's address; the socket (still open when ``keep_open``), else
    what came back until the tap closed the connection."""
    import socket
    import urllib.parse

    where = urllib.parse.urlsplit(tap_url)
    sock = socket.create_connection((where.hostname, where.port), timeout=patience(20))
    line, _, rest = data.partition(b"\r\n")  # the Host a client sends: the tap's own address
    sock.sendall(line + b"\r\nHost: " + where.netloc.encode() + b"\r\n" + rest)
    if keep_open:
        return sock
    got = b""  # until the tap closes the connection (HTTP/1.0 ends an answer so)
    while chunk := sock.recv(65536):
        got += chunk
    sock.close()
    return got


CALL = (
    b'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"add",'
    b'"arguments":{"a":1,"b":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
    b'"io.modelcontextprotocol/clientCapabilities":{}}}}'
)
MODERN_CALL_HEADERS = (
    b"Content-Type: application/json\r\n"
    b"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n"
    b"Mcp-Method: tools/call\r\nMcp-Name: add\r\n"
)


@pytest.mark.full  # the attacker's cases and real SDK runs: the full tier
@pytest.mark.parametrize(
    "unfinished",
    [
        b"Transfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n" % (len(CALL), CALL),  # no last chunk
        b"Content-Length: %d\r\n\r\n%s" % (len(CALL) + 54, CALL),  # 54 bytes short
    ],
    ids=["chunked, no last chunk", "Content-Length, short"],
)
def test_a_body_its_client_did_not_finish_never_reaches_the_server(
    tmp_path, http_server, unfinished
):
    tap = HttpTapped(tmp_path, http_server.url)
    sock = _raw(
        tap.url, b"POST /mcp HTTP/1.1\r\n" + MODERN_CALL_HEADERS + unfinished, keep_open=True
    )
    with http_client() as client:  # the tap goes on meanwhile: a whole request passes
        assert (
            client.post(
                tap.url,
                content=CALL,
                headers={
                    "Content-Type": "application/json",
                    "Accept": "application/json, text/event-stream",
                    "MCP-Protocol-Version": "2026-07-28",
                    "Mcp-Method": "tools/call",
                    "Mcp-Name": "add",
                },
            ).status_code
            == 200
        )
    sock.close()  # the client goes away without finishing its body
    wait_for(
        lambda: '"event": "client_gone"' in tap.recording.read_text(),
        "the tap to record the client gone",
    )
    entries = tap.stop()
    gone = [e for e in entries if e.get("event") == "client_gone"]
    assert len(gone) == 1 and "nothing was passed on" in gone[0]["detail"]
    sent = [e for e in entries if e.get("direction") == "to_server"]
    answers = [e for e in entries if e.get("direction") == "from_server"]
    assert len(sent) == 1 and len(answers) == 1  # only the whole request went on, and was answered


@pytest.mark.full  # the attacker's cases and real SDK runs: the full tier
def test_a_huge_content_length_holds_nothing_and_stops_nothing(tmp_path, http_server):
    tap = HttpTapped(tmp_path, http_server.url)
    sock = _raw(
        tap.url,
        b"POST /mcp HTTP/1.1\r\n"
        + MODERN_CALL_HEADERS
        + b"Content-Length: 100000000000\r\n\r\n"
        + CALL,
        keep_open=True,
    )
    with http_client() as client:
        for _ in range(3):  # later requests are answered and recorded
            assert (
                client.post(
                    tap.url,
                    content=CALL,
                    headers={
                        "Content-Type": "application/json",
                        "Accept": "application/json, text/event-stream",
                        "MCP-Protocol-Version": "2026-07-28",
                        "Mcp-Method": "tools/call",
                        "Mcp-Name": "add",
                    },
                ).status_code
                == 200
            )
        wait_for(
            lambda: tap.recording.read_text().count('"direction":"from_server"') == 3,
            "three answers recorded while the huge body waits",
        )
    sock.close()
    entries = tap.stop()
    assert entries[-1]["event"] == "end"
    assert sum(e.get("direction") == "to_server" for e in entries) == 3


@pytest.mark.full  # the attacker's cases and real SDK runs: the full tier
def test_a_body_over_the_tap_s_limit_is_413_and_not_passed_on(tmp_path, http_server):
    from mcp_lesson.tap.http import MAX_BODY

    tap = HttpTapped(tmp_path, http_server.url)
    with http_client() as client:
        answer = client.post(
            tap.url, content=b" " * (MAX_BODY + 1), headers={"Content-Type": "application/json"}
        )
    assert answer.status_code == 413 and "nothing was passed on" in answer.text
    entries = tap.stop()
    assert [e["event"] for e in entries if e.get("event") == "tap_error"] == ["tap_error"]
    assert not any(e.get("direction") for e in entries)


def test_an_http_1_0_client_gets_no_chunked_answer(tmp_path, http_server):
    """HTTP/1.0 has no chunked encoding: a stream (progress, then the answer) ends with the connection."""
    tap = HttpTapped(tmp_path, http_server.url)
    call = (
        b'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"count","arguments":{"to":2},'
        b'"_meta":{"progressToken":"p","io.modelcontextprotocol/protocolVersion":"2026-07-28",'
        b'"io.modelcontextprotocol/clientCapabilities":{}}}}'
    )
    headers = MODERN_CALL_HEADERS.replace(b"Mcp-Name: add", b"Mcp-Name: count")
    got = _raw(
        tap.url,
        b"POST /mcp HTTP/1.0\r\n" + headers + b"Content-Length: %d\r\n\r\n%s" % (len(call), call),
    )
    head, _, body = got.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200") and b"transfer-encoding" not in head.lower()
    assert body.count(b"notifications/progress") == 2 and b'"id":9' in body
    tap.stop()


@pytest.mark.full  # the attacker's cases and real SDK runs: the full tier
def test_an_answer_that_breaks_off_is_a_tap_error_and_cut_for_the_client(tmp_path):
    """A server that promises 100 bytes and sends 10: the client's answer is cut off too."""
    import socket
    import threading

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)

    def serve():
        conn, _ = listener.accept()
        conn.recv(65536)
        conn.sendall(
            b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"jsonrpc"'
        )
        conn.close()

    threading.Thread(target=serve, daemon=True).start()
    tap = HttpTapped(tmp_path, f"http://127.0.0.1:{listener.getsockname()[1]}/mcp")
    import httpx

    with http_client() as client, pytest.raises(httpx.HTTPError):
        client.post(
            tap.url,
            content=b'{"jsonrpc":"2.0","id":1,"method":"ping"}',
            headers={"Content-Type": "application/json"},
        ).read()
    entries = tap.stop()
    listener.close()
    errors = [e for e in entries if e.get("event") == "tap_error"]
    assert len(errors) == 1 and errors[0]["detail"].startswith("reading the answer failed")
    # the bytes that came are kept, and the report says the answer broke off, once
    assert (errors[0]["size"], errors[0]["arrived"], errors[0]["reached"]) == (
        10,
        '{"jsonrpc"',
        True,
    )
    returncode, problems = _problems(tap.recording)
    assert returncode == 1
    assert [(p["problem"], p["keyword"]) for p in problems] == [("broken_off", "MUST")]
    assert "request 1 (ping" in problems[0]["detail"] and "10 bytes" in problems[0]["detail"]


def test_an_event_stream_that_breaks_off_mid_event_keeps_what_came(tmp_path):
    """A stream with one whole event (progress), then half of the response's event, then the end
    of the connection: the whole event is an entry, the half is in the tap_error, and the report
    says the request's answer broke off, once."""
    import socket
    import threading

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    progress = (
        b'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress",'
        b'"params":{"progressToken":"p","progress":1}}\n\n'
    )
    half = b'event: message\ndata: {"jsonrpc":"2.0","id":1,"resu'

    def serve():
        conn, _ = listener.accept()
        conn.recv(65536)
        conn.sendall(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        for part in (progress, half):
            conn.sendall(b"%x\r\n%s\r\n" % (len(part), part))
        conn.close()

    threading.Thread(target=serve, daemon=True).start()
    tap = HttpTapped(tmp_path, f"http://127.0.0.1:{listener.getsockname()[1]}/mcp")
    import httpx

    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "t", "arguments": {}, "_meta": {"progressToken": "p"}},
    }
    with http_client() as client, pytest.raises(httpx.HTTPError):
        client.post(tap.url, json=call).read()
    entries = tap.stop()
    listener.close()
    assert [
        json.loads(e["text"])["method"] for e in entries if e.get("direction") == "from_server"
    ] == ["notifications/progress"]
    [error] = [e for e in entries if e.get("event") == "tap_error"]
    assert error["arrived"] == 'data: {"jsonrpc":"2.0","id":1,"resu' and error["size"] == len(
        error["arrived"]
    )
    returncode, problems = _problems(tap.recording)
    assert (returncode, [(p["problem"], p["keyword"]) for p in problems]) == (
        1,
        [("broken_off", "MUST")],
    )
    assert "request 1 (tools/call" in problems[0]["detail"]


def test_a_server_that_takes_the_request_then_dies_was_reached(tmp_path):
    """A server that reads the request and closes its connection without a word: the client's
    502 and the tap_error say it was reached, and the report names the request it never
    answered, once."""
    import socket
    import threading

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)

    def serve():
        conn, _ = listener.accept()
        conn.recv(65536)
        conn.close()

    threading.Thread(target=serve, daemon=True).start()
    to = f"http://127.0.0.1:{listener.getsockname()[1]}/mcp"
    tap = HttpTapped(tmp_path, to)
    with http_client() as client:
        answer = client.post(
            tap.url,
            content=b'{"jsonrpc":"2.0","id":1,"method":"ping"}',
            headers={"Content-Type": "application/json"},
        )
    entries = tap.stop()
    listener.close()
    assert (
        answer.status_code == 502
        and "cannot reach" not in answer.text
        and "took the request" in answer.text
    )
    [error] = [e for e in entries if e.get("event") == "tap_error"]
    assert error["reached"] is True and error["size"] == 0
    returncode, problems = _problems(tap.recording)
    assert (returncode, [p["problem"] for p in problems]) == (1, ["broken_off"])


@pytest.mark.full
def test_a_thousand_requests_at_once_are_all_answered(tmp_path, http_server):
    """The attacker's load: 1,000 concurrent requests (the old tap's queue of 5 lost 204)."""
    import anyio
    import httpx

    tap = HttpTapped(tmp_path, http_server.url)
    with http_client() as client:
        from http_server import open_session

        headers = open_session(client, tap.url)
    statuses = []

    async def one(client, number):
        answer = await client.post(
            tap.url, headers=headers, json={"jsonrpc": "2.0", "id": 100 + number, "method": "ping"}
        )
        statuses.append(answer.status_code)

    async def flood():
        limits = httpx.Limits(max_connections=1000)
        async with httpx.AsyncClient(
            timeout=patience(120), limits=limits, trust_env=False
        ) as client:
            async with anyio.create_task_group() as group:
                for number in range(1000):
                    group.start_soon(one, client, number)

    anyio.run(flood)
    entries = tap.stop()
    errors = [e.get("detail") for e in entries if e.get("event") == "tap_error"]
    assert statuses == [200] * 1000, errors[:5]
    assert sum(e.get("direction") == "from_server" for e in entries) == 1001  # and initialize's
    done = report(tap.recording)
    assert done.returncode == 0, done.stdout[:2000]


class _AnswerInTwoParts:
    """A one-shot HTTP server on 127.0.0.1 that reads a request, sends ``first`` (``sent`` is
    set then), and ``rest`` only once ``go_on`` is set; and the tap in front of it, with a
    client's ping on its way (``sock``, kept open)."""

    def __init__(self, tmp_path, first, rest):
        import socket
        import threading

        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(8)
        self.sent, self.go_on = threading.Event(), threading.Event()
        threading.Thread(target=self._serve, args=(first, rest), daemon=True).start()
        self.tap = HttpTapped(tmp_path, f"http://127.0.0.1:{self.listener.getsockname()[1]}/mcp")
        self.sock = _raw(
            self.tap.url,
            b"POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 40\r\n\r\n"
            b'{"jsonrpc":"2.0","id":7,"method":"ping"}',
            keep_open=True,
        )

    def _serve(self, first, rest):
        conn, _ = self.listener.accept()
        conn.recv(65536)
        conn.sendall(first)
        self.sent.set()
        self.go_on.wait(patience(30))
        try:
            conn.sendall(rest)
        except OSError:
            pass
        conn.close()

    def leave(self):
        """The client leaves; once the tap has seen it go, the server sends the rest. The
        tap's entries."""
        self.sock.close()
        wait_for(
            lambda: '"client_gone"' in self.tap.recording.read_text(),
            "the tap to see the client gone",
        )
        self.go_on.set()  # the rest comes only now, for a client that is gone
        entries = self.tap.stop()
        self.listener.close()
        return entries


@pytest.mark.full  # the attacker's cases and real SDK runs: the full tier
def test_a_client_that_leaves_during_the_answer_is_owed_nothing_there(tmp_path):
    """As the conformance suite's server-sse-multiple-streams does: it reads the first event of
    a stream (the priming event) and cancels it. The request is not the server's fault then:
    not "unanswered", and an answer that still comes later is allowed, as after a cancel."""
    answer = b'data: {"jsonrpc":"2.0","id":7,"result":{}}\n\n'
    served = _AnswerInTwoParts(
        tmp_path,
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"e\r\nid: 1\ndata: \n\n\r\n",
        b"%x\r\n%s\r\n0\r\n\r\n" % (len(answer), answer),
    )
    got = b""
    while b"id: 1" not in got:  # the head, then the priming event
        more = served.sock.recv(65536)
        assert more, got
        got += more
    entries = served.leave()
    assert audit(entries) == []


def test_a_client_that_leaves_before_a_json_answer_is_whole_is_owed_nothing_there(tmp_path):
    """The same for an answer with a length, which the tap reads whole before passing it on:
    the client leaves after the server has sent the head, before the body."""
    answer = b'{"jsonrpc":"2.0","id":7,"result":{}}'
    served = _AnswerInTwoParts(
        tmp_path,
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
        % len(answer),
        answer,
    )
    assert served.sent.wait(patience(30))
    entries = served.leave()
    assert [e["exchange"] for e in entries if e.get("event") == "client_gone"] == [1]
    assert not [e for e in entries if e.get("direction") == "from_server"]
    assert audit(entries) == []


def _sockets_of(pid):
    """Copies of the TCP sockets process ``pid`` holds (pidfd_getfd, Linux 5.6 and later), or
    None where the system does not allow it."""
    import ctypes
    import os
    import socket

    syscall = ctypes.CDLL(None, use_errno=True).syscall
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None
    found = []
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                if not os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:"):
                    continue
            except OSError:  # closed meanwhile
                continue
            copy = syscall(438, pidfd, int(fd), 0)  # SYS_pidfd_getfd
            if copy < 0:
                if ctypes.get_errno() in (1, 38):  # EPERM, ENOSYS: not allowed here
                    return None
                continue
            sock = socket.socket(fileno=copy)
            if sock.family == socket.AF_INET and sock.type == socket.SOCK_STREAM:
                found.append(sock)
            else:
                sock.close()
    finally:
        os.close(pidfd)
    return found


def test_every_connection_of_the_http_tap_has_tcp_nodelay(tmp_path, http_server):
    """Without TCP_NODELAY an answer written in two parts waits for the client's delayed ACK
    (some 40 ms): the tap's accepted and outgoing sockets must have it."""
    import http.client
    import socket
    import urllib.parse

    from processes import descendants

    tap = HttpTapped(tmp_path, http_server.url)
    where = urllib.parse.urlsplit(tap.url)
    server_port = urllib.parse.urlsplit(http_server.url).port
    connection = http.client.HTTPConnection(where.hostname, where.port, timeout=patience(20))
    try:
        connection.request(
            "POST",
            where.path,
            json.dumps(INITIALIZED),
            {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"},
        )
        connection.getresponse().read()  # both connections are kept open after this
        taps = [
            pid
            for pid in descendants(tap.proc.pid)
            if b"mcp_lesson.tap" in open(f"/proc/{pid}/cmdline", "rb").read()
        ]
        assert len(taps) == 1, taps
        sockets = _sockets_of(taps[0])
        if sockets is None:
            pytest.skip("this system does not let a process read another's sockets (pidfd_getfd)")
        try:
            kinds = {}
            for sock in sockets:
                nodelay = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
                if sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN):
                    kinds.setdefault("listening", []).append(nodelay)
                elif sock.getsockname()[1] == where.port:
                    kinds.setdefault("accepted", []).append(nodelay)
                elif sock.getpeername()[1] == server_port:
                    kinds.setdefault("outgoing", []).append(nodelay)
        finally:
            for sock in sockets:
                sock.close()
    finally:
        connection.close()
        tap.stop()
    assert set(kinds) >= {"accepted", "outgoing"}, kinds
    assert all(kinds["accepted"]) and all(kinds["outgoing"]), kinds


SMALL_SERVER = [sys.executable, str(Path(__file__).with_name("small_http_server.py"))]


@pytest.fixture(scope="module")
def small_server():
    from http_server import serving

    yield from serving(SMALL_SERVER)


def _post(url, message, accept_encoding=None, **more):
    """POST ``message`` with exactly the Accept-Encoding given (none: no such header), and the
    headers ``more``; ``(status, headers (names in lower case), the body as it came)``."""
    import http.client
    import urllib.parse

    where = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(where.hostname, where.port, timeout=patience(20))
    try:
        connection.putrequest("POST", where.path, skip_accept_encoding=True)
        body = json.dumps(message).encode()
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "Content-Length": str(len(body)),
        }
        if accept_encoding is not None:
            headers["Accept-Encoding"] = accept_encoding
        headers.update(more)
        for name, value in headers.items():
            connection.putheader(name, value)
        connection.endheaders(body)
        answer = connection.getresponse()
        return (
            answer.status,
            {name.lower(): value for name, value in answer.getheaders()},
            answer.read(),
        )
    finally:
        connection.close()


def _ask(number, **params):
    return {"jsonrpc": "2.0", "id": number, "method": "tools/list", "params": params}


def _problems(recording):
    done = report(recording, "--json")
    return done.returncode, [json.loads(raw) for raw in done.stdout.splitlines()]


def test_the_http_tap_passes_on_the_clients_accept_encoding_only_and_judges_answers_decoded(
    tmp_path, small_server
):
    import base64
    import gzip

    tap = HttpTapped(tmp_path, small_server.url)
    asked = {}
    for number, (coding, params) in enumerate(
        [(None, {}), ("gzip", {}), ("gzip", {"stream": True}), ("identity", {})], 1
    ):
        status, headers, body = _post(tap.url, _ask(number, **params), coding)
        direct = _post(small_server.url, _ask(number, **params), coding)
        assert status == 200 and body == direct[2]  # the bytes as they came, compressed or not
        plain = gzip.decompress(body) if headers.get("content-encoding") == "gzip" else body
        if params.get("stream"):
            plain = plain.split(b"data: ", 1)[1]
        asked[number] = json.loads(plain)["result"]["accept_encoding"]
    # The server saw the client's Accept-Encoding, no more (httpx would add "gzip, deflate").
    assert asked == {1: None, 2: "gzip", 3: "gzip", 4: "identity"}
    entries = tap.stop()
    answers = {
        json.loads(e["text"])["id"]: e for e in entries if e.get("direction") == "from_server"
    }
    assert answers[2]["content_encoding"] == "gzip" and answers[2]["kind"] == "response"
    assert gzip.decompress(base64.b64decode(answers[2]["travelled"])) == answers[2]["text"].encode()
    assert answers[3]["content_encoding"] == "gzip" and answers[3]["kind"] == "response"
    assert "content_encoding" not in answers[1]
    returncode, problems = _problems(tap.recording)
    assert (returncode, problems) == (0, [])
    assert "gzip" in report(tap.recording).stdout  # the report says an answer came compressed


@pytest.mark.parametrize("id_last", [False, True])
def test_an_answer_too_long_to_judge_is_a_note_and_still_answers_its_request(
    tmp_path, small_server, id_last
):
    tap = HttpTapped(tmp_path, small_server.url, "--max-line", "2000")
    sent = [
        _ask(1, pad=5000, id_last=id_last),
        _ask(2, pad=5000, id_last=id_last, stream=True),
        _ask(3, pad=5000, id_last=id_last),
        _ask(4),
    ]
    for message, coding in zip(sent, [None, None, "gzip", None]):
        status, _, body = _post(tap.url, message, coding)
        assert status == 200 and len(body) > (
            5000 if message["params"].get("pad") and not coding else 20
        )
    entries = tap.stop()
    long = [e for e in entries if e.get("truncated")]
    assert len(long) == 3 and all(e["size"] > 5000 for e in long)
    returncode, problems = _problems(tap.recording)
    assert returncode == 0
    assert [(p["problem"], p.get("severity")) for p in problems] == [("not_judged", "note")] * 3
    said = report(tap.recording).stdout
    assert "never answered" not in said


def test_a_valid_answer_too_long_to_judge_is_never_judged_on_its_cut_copy(tmp_path, small_server):
    """Under a revision agreed, a tools/call answer over --max-line: its cut copy would break
    CallToolResult's schema; it is a note only, and the report exits 0."""
    tap = HttpTapped(tmp_path, small_server.url, "--max-line", "2000")
    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "c", "version": "1"},
        },
    }
    status, _, _ = _post(tap.url, hello)
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "t", "arguments": {}, "pad": 5000},
    }
    status, _, body = _post(tap.url, call, **{"MCP-Protocol-Version": "2025-11-25"})
    assert status == 200 and len(body) > 5000
    tap.stop()
    returncode, problems = _problems(tap.recording)
    assert (returncode, [(p["problem"], p["severity"]) for p in problems]) == (
        0,
        [("not_judged", "note")],
    )
    assert problems[0]["detail"].startswith("the server's answer to request 2 (its id read from")


def test_a_session_ended_by_delete_then_answered_400_is_a_problem(tmp_path, small_server):
    """transports.mdx: once a session has ended, the server MUST answer its requests with 404."""
    import http.client
    import urllib.parse

    tap = HttpTapped(tmp_path, small_server.url)
    session = {"Mcp-Session-Id": "ended-one", "MCP-Protocol-Version": "2025-11-25"}
    assert _post(tap.url, {"jsonrpc": "2.0", "id": 1, "method": "ping"}, **session)[0] == 200
    where = urllib.parse.urlsplit(tap.url)
    connection = http.client.HTTPConnection(where.hostname, where.port, timeout=patience(20))
    connection.request("DELETE", where.path, headers=session)
    assert connection.getresponse().status == 200
    connection.close()
    assert _post(tap.url, {"jsonrpc": "2.0", "id": 2, "method": "ping"}, **session)[0] == 400
    tap.stop()
    returncode, problems = _problems(tap.recording)
    assert returncode == 1
    assert [(p["problem"], p["keyword"]) for p in problems] == [("session_status", "MUST")]
    assert "404" in problems[0]["detail"] and problems[0]["cites"].endswith(
        "basic/transports.mdx, the latest revision with a handshake"
    )


@pytest.mark.parametrize(
    "answer, body, kept",
    [
        (b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello", b"hello", True),
        (
            b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
            b"3;ext=1\r\nhel\r\n2\r\nlo\r\n0\r\nx-trailer: 1\r\n\r\n",
            b"hello",
            True,
        ),
        (
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\nhello",
            b"hello",
            False,
        ),  # until closed
        (
            b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 5\r\n\r\nhello",
            b"hello",
            False,
        ),
    ],
)
def test_the_taps_upstream_reads_each_framing_of_http_1_1(answer, body, kept):
    """upstream.py frames an answer's body as RFC 9112 says, and keeps a connection only when
    its answer was read whole with a known length and neither side said close."""
    import asyncio

    from mcp_lesson.tap.upstream import Upstream

    async def talk():
        async def serve(reader, writer):
            await reader.readuntil(b"\r\n\r\n")
            writer.write(answer)
            await writer.drain()
            if not kept:
                writer.close()

        listener = await asyncio.start_server(serve, "127.0.0.1", 0)
        upstream = Upstream("127.0.0.1", listener.sockets[0].getsockname()[1], 2.0, patience(10))
        try:
            got = await upstream.request("GET", "/mcp", [("host", "x")], None)
            data = b"".join([chunk async for chunk in got.chunks()])
            got.close()
            return got.status, data, len(upstream._idle)
        finally:
            upstream.close()
            listener.close()

    assert asyncio.run(asyncio.wait_for(talk(), patience(30))) == (200, body, 1 if kept else 0)


def test_a_client_that_leaves_after_its_answer_came_on_the_stream_is_not_gone(tmp_path):
    """The SDKs close a POST's SSE stream once their response is on it, before the server ends
    the stream: the answer was whole (its one request answered), so the tap records no
    ``client_gone`` and passes the stream on to its end."""
    import socket

    response = b'data: {"jsonrpc":"2.0","id":7,"result":{}}\n\n'
    served = _AnswerInTwoParts(
        tmp_path,
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"%x\r\n%s\r\n" % (len(response), response),
        b"0\r\n\r\n",
    )
    got = b""
    while b'"id":7' not in got:  # the head, then the response
        more = served.sock.recv(65536)
        assert more, got
        got += more
    served.sock.shutdown(socket.SHUT_WR)  # the client is done; the tap closes its side on that
    served.sock.settimeout(patience(30))
    while served.sock.recv(65536):
        pass
    served.sock.close()
    served.go_on.set()  # the server ends the stream only now
    entries = served.tap.stop()
    served.listener.close()
    assert not [e for e in entries if e.get("event") == "client_gone"], entries
    assert [e["kind"] for e in entries if e.get("direction") == "from_server"] == ["response"]
