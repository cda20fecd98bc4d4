"""``--report`` (mcp_lesson/tap/report.py) on files that are not what a tap writes: a
clear line for each, never a traceback, never a raw control character, never a read
past its line limit.
"""

import json

import pytest

from .tapping import report


def test_a_recording_that_cannot_be_read(tmp_path):
    done = report(tmp_path / "missing.jsonl")
    assert done.returncode == 2 and "cannot read" in done.stderr
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(
        b'not json\n[1, 2]\n{"t": 0.1, "direction": "to_server", "text": '
        b'"{\\"jsonrpc\\": \\"2.0\\", \\"id\\": 1, \\"method\\": \\"ping\\"}"}\n'
    )
    done = report(bad)
    assert done.returncode == 1
    assert "line 1 of the recording is not JSON; left out" in done.stdout
    assert "line 2 of the recording is no entry" in done.stdout
    assert "line 3: the client's request 1 (ping) was never answered" in done.stdout


@pytest.mark.parametrize(
    "text",
    [
        '{"event":"start","wall":1e20,"command":["x\\u001b[31mred\\u202e"]}\n',
        '{"event":"start","wall":NaN}\n{"t":NaN,"direction":"to_server","text":"{}"}\n',
        '{"t":1e400,"direction":"to_server","text":"{\\"jsonrpc\\":\\"2.0\\",\\"id\\":1,\\"method\\":\\"ping\\"}"}\n',
        '{"event":"start","judge":"my_mcp"}\n{"direction":"to_server","bytes":"!!notbase64","kind":"request"}\n',
        '{"direction":"to_server","judge_error":"a\\u001bb","text":"x"}\n',
        "[" * 100_000 + "\n",
        '{"direction":"from_server","text":"{\\"jsonrpc\\":\\"2.0\\",\\"id\\":1,\\"result\\":{}}","http":'
        '{"status":"x","exchange":1e999}}\n',
    ],
    ids=[
        "forged wall and command",
        "NaN",
        "t of 1e400",
        "bad Base64 under a judge",
        "judge error",
        "too deep",
        "forged http",
    ],
)
def test_the_report_never_shows_a_traceback_or_a_raw_control_character(tmp_path, text):
    path = tmp_path / "forged.jsonl"
    path.write_text(text)
    done = report(path)
    said = done.stdout + done.stderr
    assert done.returncode in (0, 1, 2) and "Traceback" not in said, said
    assert "\x1b" not in said and "\u202e" not in said


def test_an_id_of_thousands_of_digits_is_reported_in_words_and_exactly_in_json(tmp_path):
    """An integer id of 5,000 digits (the strict reader takes up to 20,000, Python writes 4,300):
    the words give its count of digits, the JSON the id itself."""
    digits = "9" * 5000
    path = tmp_path / "big.jsonl"
    path.write_text(
        json.dumps(
            {
                "direction": "to_server",
                "text": f'{{"jsonrpc": "2.0", "id": {digits}, "method": "ping"}}',
            }
        )
        + "\n"
    )
    said = report(path)
    assert said.returncode == 1 and "Traceback" not in said.stdout + said.stderr, said.stderr
    assert "the client's request <a 5,000-digit integer> (ping) was never answered" in said.stdout
    as_json = report(path, "--json")
    assert "Traceback" not in as_json.stderr, as_json.stderr
    [line] = as_json.stdout.splitlines()
    assert (
        f'"id": {digits}' in line
        and json.loads(line.replace(digits, "1"))["problem"] == "unanswered"
    )


def test_the_report_reads_no_line_past_its_limit():
    import io

    from mcp_lesson.tap.report import _lines

    lines = _lines(io.BytesIO(b'{"a":1}\n' + b"x" * 20 + b"\n" + b"x" * 50 + b"\n"), 20)
    assert [next(lines), next(lines), next(lines)] == [b'{"a":1}\n', b"x" * 20 + b"\n", None]
