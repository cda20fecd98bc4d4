"""The examples in the README and in the docstrings are run, so they stay true."""

import doctest
import json
import os
import pathlib
import re
import shlex
import shutil
import subprocess

import pytest

import mcp_lesson
from mcp_lesson import classification, messages

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_readme_examples():
    result = doctest.testfile(str(ROOT / "README.md"), module_relative=False)
    assert result.attempted >= 4 and result.failed == 0


@pytest.mark.parametrize("module", [mcp_lesson, messages, classification])
def test_docstring_examples(module):
    assert doctest.testmod(module).failed == 0


# --- the README's commands -------------------------------------------------------------
# Every command the README shows is collected here (its sh and bat blocks, and inline
# code that starts with a command), and each is either run in a way that cannot change
# the checkout or .venv, or listed in NOT_RUN with the reason. A new command in the
# README that fits neither fails test_every_readme_command_is_covered.

README = ROOT / "README.md"
COMMAND_WORDS = {"make", "bash", "jupyter", "conda", "sudo", "ssh", "docker", "pip", "py",
                 "python", ".venv/bin/python", r".venv\Scripts\python", r".venv\Scripts\jupyter"}
#: Command beginnings that a test cannot run, and why.
NOT_RUN = {
    "conda ": "needs conda (test_setup.py checks environment.yml against pyproject.toml)",
    "bash tools/course_jupyter.sh": "changes an environment's settings "
                                    "(test_setup.py runs it on a stand-in environment)",
    "jupyter lab ": "the conda route's own Jupyter (test_setup.py starts make lab-learner's)",
    "sudo apt-get ": "installs system packages",
    "ssh ": "needs a second machine",
    "docker ": "needs a container engine",
    "py -3.11 ": "Windows (this suite runs on Linux)",
    ".venv\\Scripts\\": "Windows (this suite runs on Linux)",
    "pip config list": "shows the reader's own pip settings",
}
#: Variables a make started by a test must not inherit (the suite may run under make).
MAKE_CONTEXT = ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "ARGS")
FENCE = re.compile(r"^\s*```(\w*)\s*$")


def readme_commands(text=None):
    """The README's commands, in order, without their trailing comments."""
    commands, block = [], None
    for line in (README.read_text() if text is None else text).splitlines():
        fence = FENCE.match(line)
        if fence:
            block = None if block is not None else fence.group(1)
            continue
        if block in ("sh", "bat"):
            command = line.split("  #")[0].strip()
            if command:
                commands.append(command)
        elif block is None:
            for span in re.findall(r"`([^`]+)`", line):
                # A command word and at least one more word: `make test`, not `make`.
                words = [w for w in span.split() if not re.fullmatch(r"[A-Z_]+=\S*", w)]
                if len(words) > 1 and words[0] in COMMAND_WORDS:
                    commands.append(span)
    return list(dict.fromkeys(commands))


def split_env(command):
    """('VAR=value' assignments in front, the words of the command)."""
    words = shlex.split(command)
    env = {}
    while words and re.fullmatch(r"[A-Z_]+=.*", words[0]):
        name, value = words.pop(0).split("=", 1)
        env[name] = value
    return env, words


def test_the_command_collector():
    sample = ("Run `make test ARGS=-x` or `PYTHON=/x`.\n\n```sh\nmake lab   # open it\n```\n"
              "  ```sh\n  make app\n  ```\n```python\n>>> make\n```\n")
    assert readme_commands(sample) == ["make test ARGS=-x", "make lab", "make app"]


def covered(command):
    env, words = split_env(command)
    if words[0] == "make" or command.startswith(".venv/bin/python ") or (
            command == "python -m mcp_lesson.server"):
        return True
    return any(command.startswith(start) for start in NOT_RUN)


def test_every_readme_command_is_covered():
    commands = readme_commands()
    assert "make lab-learner" in commands and "make test" in commands
    assert [c for c in commands if not covered(c)] == []


def clean_env(extra=()):
    env = {k: v for k, v in os.environ.items() if k not in MAKE_CONTEXT}
    env.update(extra)
    return env


def paths_in(words):
    """The words that name a file of this repository (notebooks/..., tests/..., tools/...)."""
    found = []
    for word in words:
        for part in re.split(r"[= ]", word):
            if re.match(r"(notebooks|tests|tools|benchmarks|docs)/", part) and "*" not in part:
                found.append(part.split("::")[0])
    return found


MAKE_COMMANDS = [c for c in readme_commands() if split_env(c)[1][0] == "make"]


@pytest.mark.skipif(shutil.which("make") is None, reason="`make` is not installed")
@pytest.mark.parametrize("command", MAKE_COMMANDS)
def test_readme_make_command(command):
    """make accepts it as written (a dry run: nothing runs, .venv is left alone),
    ARGS reaches the program, and the files it names exist."""
    env, words = split_env(command)
    done = subprocess.run(["make", "--no-print-directory", "-n", "-o", ".venv/.installed",
                           *words[1:]], cwd=ROOT, env=clean_env(env), text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert done.returncode == 0, done.stdout
    for word in words[1:]:
        if word.startswith("ARGS="):
            assert word[len("ARGS="):] in done.stdout
    for path in paths_in(words):
        assert (ROOT / path).exists(), path


PYTHON_COMMANDS = [c for c in readme_commands() if c.startswith(".venv/bin/python ")]


@pytest.mark.parametrize("command", PYTHON_COMMANDS)
def test_readme_python_command(command):
    """pytest commands collect what they name; the learner check runs (it only reads);
    the server is run by test_the_server_answers_the_readme_lines."""
    words = shlex.split(command)
    for path in paths_in(words):
        assert (ROOT / path).exists(), path
    if words[1:3] == ["-m", "mcp_lesson.server"]:
        return
    if words[1:3] == ["-m", "pytest"]:
        words += ["--collect-only", "-q", "-p", "no:cacheprovider"]
        expected = (0,)
    else:
        assert words[1:] == ["tools/make_learner.py", "--check"]
        expected = (0, 1)  # 1: a copy is stale, which the command is there to report
    done = subprocess.run([str(ROOT / words[0]), *words[1:]], cwd=ROOT, env=clean_env(),
                          text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert done.returncode in expected, done.stdout
    assert "Traceback" not in done.stdout


def readme_server_lines():
    """The message lines the README asks the reader to paste into the server, and the
    answer it promises to the first."""
    text = README.read_text()
    start = text.index(".venv/bin/python -m mcp_lesson.server")
    blocks = re.findall(r"```json\n(.*?)```", text[start:], re.S)[:2]
    lines = [line for block in blocks for line in block.splitlines() if line.strip()]
    promised = re.search(r"it answers `([^`]+)`", text[start:]).group(1)
    return lines, promised


def test_the_server_answers_the_readme_lines():
    """`.venv/bin/python -m mcp_lesson.server`, fed the README's lines one at a time as
    a person would paste them, answers each request; end of input stops it."""
    lines, promised = readme_server_lines()
    assert len(lines) == 4
    server = subprocess.Popen([str(ROOT / ".venv/bin/python"), "-m", "mcp_lesson.server"],
                              cwd=ROOT, env=clean_env(), text=True, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    answers = []
    try:
        for line in lines:
            message = json.loads(line)
            server.stdin.write(line + "\n")
            server.stdin.flush()
            if "id" in message:  # a request: one answer line (pytest-timeout guards a hang)
                answers.append(json.loads(server.stdout.readline()))
        server.stdin.close()
        assert server.wait() == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    assert answers[0] == json.loads(promised)
    assert [a["id"] for a in answers] == [1, 2, 3]
    assert all("result" in a for a in answers), answers
    assert answers[2]["result"]["content"][0]["text"] == "5"
    assert server.stdout.read() == "" and server.stderr.read() == ""
