"""The tap's judges (mcp_lesson/tap/judge.py): the course's verdict on each recorded line,
and a user's own package as the judge, with the course taking over when it fails.
"""

import json
import textwrap

import pytest

from mcp_lesson import classify_json
from mcp_lesson.exercises.cases import TEXT_CASES
from mcp_lesson.tap import CourseJudge

from .tapping import ECHO, INITIALIZED, Tapped, line, report

#: Lines where the tap's quick path must hand over to classify_json itself.
AWKWARD_TEXTS = [
    ' {"jsonrpc": "2.0", "method": "x"}',
    '{"jsonrpc": "2.0", "method": "x"}\r',
    '{"jsonrpc": "2.0", "method": "x"} {}',
    '{"jsonrpc": "2.0", "method": "x"}x',
    '\ufeff{"jsonrpc": "2.0", "method": "x"}',
    "",
    " ",
    "[]",
    "1e400",
    "NaN",
    "-Infinity",
    '{"jsonrpc": "2.0", "id": 1, "result": {"n": NaN}}',
    "[" * 100_000 + "]" * 100_000,
    '{"jsonrpc": "2.0", "id": ' + "9" * 5000 + ', "method": "x"}',
    '{"jsonrpc": "2.0", "id": ' + "9" * 30_000 + ', "method": "x"}',
    '{"jsonrpc": "2.0", "method": "\ud800"}',
    '"just a string"',
    "null",
    "true",
]


def test_the_recorded_verdict_is_classify_jsons():
    judge = CourseJudge()
    texts = [case.text for case in TEXT_CASES] + AWKWARD_TEXTS
    for text in texts:
        if isinstance(text, (bytes, bytearray)):
            fields = judge.fields(None, bytes(text))
        elif isinstance(text, str):
            fields = judge.fields(text, None)
        else:
            continue
        verdict = json.loads("{" + fields[:-1] + "}")
        assert (verdict["kind"], verdict["code"]) == classify_json(text), text[:80]


def _package(folder, code):
    folder.mkdir()
    (folder / "__init__.py").write_text(textwrap.dedent(code))
    return folder


def test_judge_with_the_users_own_package(tmp_path):
    mine = _package(
        tmp_path / "my_mcp",
        """
        print("importing my judge")  # must not reach the protocol's stdout
        def classify_json(text):
            if "boom" in text:
                raise ValueError("boom")
            return ("request", None)
    """,
    )
    tap = Tapped(tmp_path, ECHO, "--judge", str(tmp_path))  # the folder that holds my_mcp
    sent = b'{"jsonrpc": "2.0", "method": "x"}\nnot json\nboom\n'
    tap.send(sent)
    tap.read_until(lambda out: out == sent)
    assert tap.finish() == 0
    assert bytes(tap.out) == sent
    assert "importing my judge" in tap.err.decode()
    assert str(mine) in tap.event("start")["judge"]
    verdicts = [(e["kind"], e.get("judge_error")) for e in tap.lines("to_server")]
    assert verdicts == [("request", None), ("request", None), (None, "ValueError: boom")]
    said = report(tap.recording).stdout
    assert "the course's rules disagree on 6 lines" in said  # the echo says each line back
    assert (
        '"not json": the judge says ("request", null), the course\'s rules ("invalid", -32700)'
    ) in said


@pytest.mark.parametrize(
    "code, words",
    [
        ("def classify_json(text):\n    return (", "SyntaxError"),
        ("x = 1\n", "has no classify_json"),
        (
            "def classify_json(text):\n    raise NotImplementedError('not yet')\n",
            "raised NotImplementedError on a ping request",
        ),
    ],
)
def test_a_judge_that_fails_is_said_and_the_course_judges(tmp_path, code, words):
    _package(tmp_path / "my_mcp", code)
    tap = Tapped(tmp_path, ECHO, "--judge", str(tmp_path / "my_mcp"))
    tap.send(line(INITIALIZED))
    tap.read_until(lambda out: out == line(INITIALIZED))
    assert tap.finish() == 0
    err = tap.err.decode()
    assert "mcp_lesson.tap: --judge" in err and "judging with the course's classify_json" in err
    assert words in err, err
    assert tap.event("start")["judge"] == "mcp_lesson"
    assert tap.lines("to_server")[0]["kind"] == "notification"
