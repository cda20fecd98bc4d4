"""The stdio tap (mcp_lesson/tap/stdio.py), run as a process in front of real servers (the
course's calculator, the official SDK's client, small servers written here for one bad
input each): the bytes a client and a server see, what the recording holds, and that no
process is left behind.
"""

import base64
import json
import os
import signal
import sys
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st
from processes import live_processes, patience, wait_for

from mcp_lesson import classify_json
from mcp_lesson.tap import MAX_WAITING, CourseJudge, Lines, Recorder

from .tapping import (
    COURSE_SERVER,
    ECHO,
    INIT,
    INITIALIZED,
    PY,
    ROOT,
    Tapped,
    assert_gone,
    line,
    played_back,
    report,
    server,
)

AWKWARD = (
    line(INIT)
    + b'{"jsonrpc":"2.0","method":"x"}\r\n'
    + b"\n"
    + b"not json at all\n"
    + b"\xff\xfe broken \xc3\x28 utf-8\n"
    + b"\x00nul\x00\n"
    + "caf\u00e9 \u2603\n".encode()
    + b'{"jsonrpc": "2.0", "id": 1, "result": NaN}\n'
    + b'{"jsonrpc":"2.0","id":9,"res'
)


def test_bytes_pass_through_unchanged_both_ways_and_the_recording_plays_them_back(tmp_path):
    tap = Tapped(tmp_path, ECHO)
    tap.send(AWKWARD)
    assert tap.read_until(lambda out: out == AWKWARD) == AWKWARD
    assert tap.finish() == 0
    assert bytes(tap.out) == AWKWARD
    entries = tap.entries()
    assert played_back(entries, "to_server") == AWKWARD
    assert played_back(entries, "from_server") == AWKWARD
    for entry in tap.lines():
        raw = base64.b64decode(entry["bytes"]) if "bytes" in entry else entry["text"]
        assert (entry["kind"], entry["code"]) == classify_json(raw), entry
        assert isinstance(entry["t"], float)
    broken = [entry for entry in tap.lines("to_server") if "bytes" in entry]
    assert len(broken) == 1 and "\ufffd" in broken[0]["text"]
    assert (broken[0]["kind"], broken[0]["code"]) == ("invalid", -32700)
    last = tap.lines("to_server")[-1]
    assert last["newline"] is False and last["text"] == '{"jsonrpc":"2.0","id":9,"res'
    assert tap.event("end")["status"] == 0
    assert_gone(tap.event("start")["pid"])


def test_a_chunk_passes_on_before_its_line_ends(tmp_path):
    tap = Tapped(tmp_path, ECHO)
    tap.send(b'{"jsonrpc": "2.0", ')
    tap.read_until(lambda out: out == b'{"jsonrpc": "2.0", ', what="half a line")
    assert tap.lines() == []  # recorded only when the line is complete
    tap.send(b'"method": "ping", "id": 1}\n')
    tap.read_until(lambda out: out.endswith(b"}\n"))
    assert tap.finish() == 0
    assert [(e["direction"], e["kind"]) for e in tap.lines()] == [
        ("to_server", "request"),
        ("from_server", "request"),
    ]


@given(
    st.lists(
        st.sampled_from([b"{", b"}", b"\n", b"x", b"\xff", b'"jsonrpc"', b"\r\n", b""]), max_size=30
    ),
    st.lists(st.integers(1, 7), min_size=1, max_size=10),
)
def test_lines_are_the_same_however_the_bytes_are_cut(pieces, cuts):
    data = b"".join(pieces)
    whole = Lines("to_server", CourseJudge(), 0.0)
    expected = whole.feed(data, 1.0) + whole.finish(1.0)
    cut = Lines("to_server", CourseJudge(), 0.0)
    got, start, i = [], 0, 0
    while start < len(data):
        size = cuts[i % len(cuts)]
        got.append(cut.feed(data[start : start + size], 1.0))
        start, i = start + size, i + 1
    got.append(cut.finish(1.0))
    assert "".join(got) == expected


def test_entries_are_written_in_the_order_their_chunks_were_read(tmp_path):
    recorder = Recorder(tmp_path / "order.jsonl", waiting=MAX_WAITING)
    first, second, third = (recorder.ticket()[0] for _ in range(3))
    recorder.write(third, "3\n")
    recorder.write(second, "2\n")
    recorder.write(first, "1\n")
    assert (tmp_path / "order.jsonl").read_text() == "1\n2\n3\n"
    # A chunk stuck on its way (its reader reads nothing) holds the others back only so long.
    stuck = recorder.ticket()[0]
    for _ in range(3):
        recorder.write(recorder.ticket()[0], "x" * (MAX_WAITING // 2) + "\n")
    assert (tmp_path / "order.jsonl").stat().st_size > MAX_WAITING
    recorder.write(stuck, "late\n")
    recorder.close()
    assert (tmp_path / "order.jsonl").read_text().splitlines()[-1] == "late"


def test_a_line_longer_than_max_line_passes_whole_and_is_kept_in_part():
    lines = Lines("from_server", CourseJudge(), 0.0, max_line=10)
    text = lines.feed(b"0123456789abcdef", 1.0) + lines.feed(b"ghi\nok\n", 1.0)
    first, second = [json.loads(raw) for raw in text.splitlines()]
    assert first == {
        "t": 1.0,
        "direction": "from_server",
        "kind": None,
        "code": None,
        "truncated": True,
        "size": 19,
        "text": "0123456789",
        "tail": "0123456789abcdefghi",
    }
    assert second["text"] == "ok" and second["kind"] == "invalid"


def test_the_course_server_through_the_tap(tmp_path):
    tap = Tapped(tmp_path, COURSE_SERVER)
    tap.send(line(INIT))
    first = json.loads(tap.lines_out(1)[0])
    assert first["id"] == 1 and first["result"]["protocolVersion"] == "2025-11-25"
    tap.send(
        line(INITIALIZED)
        + line({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        + line(
            {
                "jsonrpc": "2.0",
                "id": "c",
                "method": "tools/call",
                "params": {"name": "add", "arguments": {"a": 2, "b": 40}},
            }
        )
    )
    replies = [json.loads(raw) for raw in tap.lines_out(3)]
    assert [reply["id"] for reply in replies] == [1, 2, "c"]
    assert replies[2]["result"]["structuredContent"] == {"result": 42}
    assert tap.finish() == 0
    kinds = [(e["direction"], e["kind"]) for e in tap.lines()]
    assert kinds.count(("to_server", "request")) == 3
    assert kinds.count(("to_server", "notification")) == 1
    assert kinds.count(("from_server", "response")) == 3
    events = [e["event"] for e in tap.entries() if "event" in e]
    assert events[0] == "start" and events[-1] == "end"
    assert events.index("client_closed") < events.index("server_closed")
    assert sorted(events[1:-1]) == ["client_closed", "server_closed", "server_exited"]
    done = report(tap.recording)
    assert done.returncode == 0, done.stdout
    assert (
        "revision: 2025-11-25 (the client asked for 2025-11-25 in initialize and the server "
        "agreed)" in done.stdout
    )
    assert "no problems" in done.stdout
    assert 'the client\'s request "c" (tools/call): ' in done.stdout
    assert_gone(tap.event("start")["pid"])


def _sdk_session(recording, pings):
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def talk():
        params = StdioServerParameters(
            command=PY,
            args=["-m", "mcp_lesson.tap", "--record", str(recording), "--", *COURSE_SERVER],
            cwd=str(ROOT),
        )
        with anyio.fail_after(patience(60)):
            async with stdio_client(params) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    tools = await session.list_tools()
                    called = await session.call_tool("calculator", {"expression": "6 * 7"})
                    for _ in range(pings):
                        await session.send_ping()
                    return sorted(tool.name for tool in tools.tools), called

    return anyio.run(talk)


def test_the_sdks_client_through_the_tap(tmp_path):
    recording = tmp_path / "sdk.jsonl"
    names, called = _sdk_session(recording, pings=20)
    assert names == ["add", "calculator"]
    assert called.content[0].text == "42"
    entries = [json.loads(raw) for raw in recording.read_text().splitlines()]
    methods = [
        json.loads(e["text"]).get("method") for e in entries if e.get("direction") == "to_server"
    ]
    assert methods[:4] == ["initialize", "notifications/initialized", "tools/list", "tools/call"]
    assert methods.count("ping") == 20
    assert all(e["kind"] != "invalid" for e in entries if "direction" in e)
    done = report(recording)
    assert done.returncode == 0, done.stdout
    assert "no problems" in done.stdout and "23 requests" in done.stdout
    start = next(e for e in entries if e.get("event") == "start")
    assert_gone(start["pid"])
    assert [p for p in live_processes() if str(recording) in p.command] == []


def test_a_ten_megabyte_line_both_ways(tmp_path):
    big = create_big_request(10 * 1024 * 1024)
    tap = Tapped(tmp_path, ECHO)
    tap.send(big)
    assert tap.read_until(lambda out: len(out) >= len(big), limit=60) == big
    assert tap.finish(limit=60) == 0
    entries = tap.lines()
    assert [(e["direction"], e["kind"]) for e in entries] == [
        ("to_server", "request"),
        ("from_server", "request"),
    ]
    assert all(e["text"].encode() + b"\n" == big for e in entries)


def test_a_recording_cut_by_a_full_disk_ends_with_a_whole_line(tmp_path):
    pings = b"".join(
        line({"jsonrpc": "2.0", "id": n, "method": "ping", "params": {"pad": "x" * 50}})
        for n in range(200)
    )
    tap = Tapped(tmp_path, ECHO, file_limit=5000)
    tap.send(pings)
    assert tap.read_until(lambda out: len(out) >= len(pings)) == pings  # the traffic passes on
    assert tap.finish() == 0
    text = tap.recording.read_text()
    assert 0 < len(text) <= 5000 and text.endswith("\n")
    assert all(json.loads(raw) for raw in text.splitlines())  # each line whole
    assert bytes(tap.err).count(b"cannot write the recording any more") == 1


def create_big_request(size):
    head = b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"text": "'
    return head + b"x" * (size - len(head) - 4) + b'"}}\n'


def test_a_line_over_max_line_passes_on_whole_and_is_recorded_in_part(tmp_path):
    big = create_big_request(300_000)
    tap = Tapped(tmp_path, ECHO, "--max-line", "1000")
    tap.send(big + line(INITIALIZED))
    assert tap.read_until(lambda out: len(out) >= len(big) + len(line(INITIALIZED))) == (
        big + line(INITIALIZED)
    )
    assert tap.finish() == 0
    first, second = tap.lines("to_server")
    assert first["truncated"] is True and first["size"] == len(big) - 1
    assert len(first["text"]) == 1000 and first["kind"] is None
    assert second["kind"] == "notification"
    assert "too long to judge" in report(tap.recording).stdout


@pytest.mark.parametrize("id_last", [False, True])
def test_an_answer_too_long_to_judge_is_no_problem_and_answers_its_request(tmp_path, id_last):
    # An answer past --max-line (16 MiB by default) was stdout pollution and its
    # request "never answered". It is a note now, with its size, and it answers its request
    # (its id read from its first bytes, or its last, where the TypeScript SDK writes it).
    long = server(f"""
        import json, sys
        for line in sys.stdin:
            asked = json.loads(line)
            if "id" not in asked:
                continue
            result = {{"content": [{{"type": "text", "text": "x" * 5000}}]}}
            answer = ({{"result": result, "jsonrpc": "2.0", "id": asked["id"]}} if {id_last}
                      else {{"jsonrpc": "2.0", "id": asked["id"], "result": result}})
            sys.stdout.write(json.dumps(answer) + "\\n")
            sys.stdout.flush()
    """)
    tap = Tapped(tmp_path, long, "--max-line", "1000")
    tap.send(
        line(INIT) + line(INITIALIZED) + line({"jsonrpc": "2.0", "id": "two", "method": "ping"})
    )
    tap.lines_out(2)
    assert tap.finish() == 0
    assert [e.get("truncated") for e in tap.lines("from_server")] == [True, True]
    done = report(tap.recording, "--json")
    assert done.returncode == 0, done.stdout
    found = [json.loads(raw) for raw in done.stdout.splitlines()]
    assert [(p["problem"], p["severity"]) for p in found] == [("not_judged", "note")] * 2


def test_a_last_line_without_newline_and_a_server_that_dies(tmp_path):
    dying = server("""
        import os, sys
        sys.stdin.readline()
        os.write(1, b'{"jsonrpc": "2.0", "id": 1, "result": {}')
        os._exit(3)
    """)
    tap = Tapped(tmp_path, dying)
    tap.send(line(INIT) + line({"jsonrpc": "2.0", "id": 2, "method": "ping"}))
    assert tap.finish(close=False) == 3  # it ends with the server, its client still there
    assert bytes(tap.out) == b'{"jsonrpc": "2.0", "id": 1, "result": {}'
    last = tap.lines("from_server")[-1]
    assert last["newline"] is False and last["kind"] == "invalid" and last["code"] == -32700
    assert tap.event("server_exited")["status"] == 3
    said = report(tap.recording).stdout
    assert "the server's last line has no newline at its end" in said
    assert "was never answered by the server (the server exited with status 3" in said
    assert_gone(tap.event("start")["pid"])


def test_a_server_killed_by_a_signal(tmp_path):
    tap = Tapped(tmp_path, server("import os, signal; os.kill(os.getpid(), signal.SIGKILL)"))
    assert tap.finish(close=False) == 128 + 9
    assert tap.event("server_exited")["returncode"] == -9


@pytest.mark.full  # a flood of lines: slow by design
def test_a_flooding_server_is_held_back_by_its_reader_and_everything_arrives(tmp_path):
    lines, size = 200_000, len(line(INITIALIZED))
    flood = server(f"""
        import sys
        block = {line(INITIALIZED)!r} * 1000
        for _ in range({lines // 1000}):
            sys.stdout.buffer.write(block)
        sys.stdout.buffer.flush()
    """)
    tap = Tapped(tmp_path, flood)
    tap.server_pid()
    # The client reads nothing yet: the tap must not read the flood ahead into memory.
    recorded = lambda: tap.recording.stat().st_size  # noqa: E731  (a one-line probe)
    wait_for(lambda: recorded() > 0, "the first lines")
    settled, previous = 0, -1
    deadline = time.monotonic() + patience(30)
    while settled < 5:  # the recording stops growing when the client's pipe is full
        now = recorded()
        settled = settled + 1 if now == previous else 0
        previous = now
        assert time.monotonic() < deadline, "the flood was never held back"
        time.sleep(0.05)
    held = len(tap.lines("from_server"))
    assert held * size < 8 * 65536 + 4 * 65536, f"{held} lines read ahead"
    tap.read_until(lambda out: len(out) >= lines * size, limit=60)
    assert tap.finish(limit=60) == 0
    assert bytes(tap.out) == line(INITIALIZED) * lines
    assert len(tap.lines("from_server")) == lines
    assert tap.event("end")["max_rss_kb"] < 200_000


def test_a_client_that_stops_reading_and_goes(tmp_path):
    flood = server("""
        import sys
        while True:
            sys.stdout.write('{"jsonrpc": "2.0", "method": "notifications/message"}\\n')
    """)
    tap = Tapped(tmp_path, flood, "--grace", "0.2")
    tap.read_until(lambda out: len(out) > 100_000)
    tap.stop_reading()  # the client goes: it reads nothing more
    assert tap.finish() == 128 + signal.SIGTERM  # and closes its input
    events = [e["event"] for e in tap.entries() if "event" in e]
    assert "client_gone" in events and "client_closed" in events
    assert "stopping" in events  # the flooding server did not end by itself
    assert_gone(tap.event("start")["pid"])


def test_a_server_deaf_to_the_end_of_input_and_to_sigterm_is_killed(tmp_path):
    deaf = server("""
        import signal, sys, time
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        print("ready", flush=True)
        while True:
            time.sleep(1)
    """)
    tap = Tapped(tmp_path, deaf, "--grace", "0.1")
    tap.read_until(lambda out: out == b"ready\n")
    started = time.monotonic()
    assert tap.finish() == 128 + 9
    assert time.monotonic() - started < patience(10)
    stops = [e for e in tap.entries() if e.get("event") == "stopping"]
    assert [stop["signal"] for stop in stops] == ["SIGTERM", "SIGKILL"]
    assert_gone(tap.event("start")["pid"])


def test_what_the_server_leaves_in_its_group_is_ended(tmp_path):
    leaves = server(f"""
        import subprocess, sys
        child = subprocess.Popen([{PY!r}, "-c", "import time; time.sleep(3600)"])
        print(child.pid, flush=True)
        sys.stdin.read()
    """)
    tap = Tapped(tmp_path, leaves)
    child = int(tap.lines_out(1)[0])
    assert tap.finish() == 0
    assert [p for p in live_processes() if p.pid == child] == []
    assert_gone(tap.event("start")["pid"])


def test_a_signal_to_the_tap_is_passed_on_to_the_server(tmp_path):
    tap = Tapped(tmp_path, COURSE_SERVER)
    tap.send(line(INIT))
    tap.lines_out(1)
    os.kill(tap.tap_pid(), signal.SIGTERM)
    assert tap.finish(close=False) == 128 + signal.SIGTERM
    assert tap.event("signal")["signal"] == "SIGTERM"
    assert_gone(tap.event("start")["pid"])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_killed_tap_takes_its_server_along(tmp_path):
    tap = Tapped(tmp_path, server("import sys; print('up', flush=True); sys.stdin.read()"))
    tap.read_until(lambda out: out == b"up\n")
    pid = tap.server_pid()
    os.kill(tap.tap_pid(), signal.SIGKILL)  # no chance to clean up: the kernel ends the server
    wait_for(lambda: not [p for p in live_processes() if p.pid == pid], "the server's end")
    tap.end()


def test_a_command_that_cannot_start(tmp_path):
    tap = Tapped(tmp_path, ["/no/such/server", "--flag"])
    assert tap.finish() == 127
    assert tap.out == b""
    assert "mcp_lesson.tap: cannot start /no/such/server --flag" in tap.err.decode()
    assert tap.event("tap_error")["detail"].startswith("cannot start the server")


def test_the_report_says_which_signal_ended_the_server_and_who_sent_it(tmp_path):
    """ "exited with status 143" did not say that the tap sent the SIGTERM, nor why."""
    from mcp_lesson.tap.entries import ended_words

    stubborn = server("""
        import sys, time
        sys.stdin.read()  # to the end of its input, then it stays
        while True:
            time.sleep(1)
    """)
    tap = Tapped(tmp_path, stubborn, "--grace", "0.2")
    tap.send(line(INIT))
    assert tap.finish() == 128 + signal.SIGTERM
    said = report(tap.recording).stdout
    assert "SIGTERM" in said and "sent by the tap" in said
    ended = {"status": 137, "returncode": -signal.SIGKILL, "t": 1.0}
    assert "not sent by the tap" in ended_words(ended, [])
    assert "passing on" in ended_words(ended, [{"event": "signal", "signal": "SIGKILL"}])
    assert "status 0" in ended_words({"status": 0, "returncode": 0}, [])
