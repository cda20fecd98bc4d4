"""The tap's command line (mcp_lesson/tap/cli.py): what it refuses, said on stderr."""

import pytest
from processes import run_to_end

from .tapping import ECHO, ROOT, TAP


def test_the_recording_cannot_go_to_the_protocols_stdout():
    done = run_to_end([*TAP, "--record", "/dev/stdout", "--", *ECHO], 30, cwd=ROOT)
    assert done.returncode == 2 and done.stdout == ""
    assert "the recording cannot go to /dev/stdout: that is the tap's stdout" in done.stderr


@pytest.mark.parametrize(
    "arguments, words",
    [
        (["--record", "x.jsonl", "python"], "give the server's command after --"),
        (["--report", "x.jsonl", "--", "python"], "--report reads a recording"),
        (["--report", "x.jsonl", "--revision", "2030-01-01"], "unknown revision '2030-01-01'"),
        ([], "one of the arguments --record --report is required"),
    ],
)
def test_usage_errors_are_said_on_stderr(arguments, words):
    done = run_to_end([*TAP, *arguments], 30, cwd=ROOT)
    assert done.returncode == 2 and done.stdout == ""
    assert words in done.stderr


@pytest.mark.parametrize(
    "arguments, words",
    [
        (["--record", "x.jsonl", "--http"], "--http passes on to a server's address"),
        (
            ["--record", "x.jsonl", "--http", "--to", "http://127.0.0.1:1/mcp", "--", "python"],
            "not a command",
        ),
        (
            ["--record", "x.jsonl", "--to", "http://127.0.0.1:1/mcp", "--", "python"],
            "--to goes with --http",
        ),
    ],
)
def test_http_usage_errors(arguments, words):
    done = run_to_end([*TAP, *arguments], 30, cwd=ROOT)
    assert done.returncode == 2 and words in done.stderr


def test_the_grace_after_a_side_ends_is_an_option_whose_default_a_slow_server_survives():
    """With a fixed 5 s, a server still starting when its piped input ended was
    stopped before it answered. --grace sets it; the default waits long enough."""
    from mcp_lesson.tap.cli import _arguments

    assert _arguments(["--record", "x.jsonl", "--", "server"])[0].grace >= 30
    assert _arguments(["--record", "x.jsonl", "--grace", "2.5", "--", "server"])[0].grace == 2.5
    done = run_to_end([*TAP, "--record", "x.jsonl", "--grace", "-1", "--", *ECHO], 30, cwd=ROOT)
    assert done.returncode == 2 and "--grace" in done.stderr
