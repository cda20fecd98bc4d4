"""Graduation gives one verdict per package, about the call that went wrong: the same lines on
every run (no example drawn at random), a function that changes what it was given named as the
one at fault (not the later call that read the changed value), and a call that never ends
costing that call alone (the calls after it go to a fresh worker)."""

import re

import pytest

from exercises.test_graduation import ROOT, copy_of, export, graduate_with, lessons_said, redefine


@pytest.fixture(scope="module")
def masters_package(tmp_path_factory):
    return export(ROOT / "notebooks", tmp_path_factory.mktemp("masters"))


#: A reply_for that writes "id": None into the message it was given, where the id is not one.
WRITES_INTO_ITS_ARGUMENT = """
def reply_for(msg):
    kind, code = classify(msg)
    if kind != "invalid":
        return None
    request_id = msg.get("id") if isinstance(msg, dict) else None
    if not is_valid_id(request_id):
        request_id = None
        if isinstance(msg, dict):
            msg["id"] = None
    return error_response(request_id, code, ERROR_MESSAGES[code])
"""


def failures(output):
    return [line for line in output.splitlines() if re.match(r"\s+x ", line)]


def test_three_graduations_of_a_planted_mistake_give_the_same_lines_naming_its_function(
    masters_package, tmp_path
):
    package = copy_of(masters_package, tmp_path)
    redefine(package, "reply_for", WRITES_INTO_ITS_ARGUMENT)
    runs = [graduate_with(package, "-k", "reply_for", limit="10") for _ in range(3)]
    assert runs[0] == runs[1] == runs[2], [output[-1500:] for _, output in runs]
    code, output = runs[0]
    assert code == 1, output[-2000:]
    lines = failures(output)
    assert lines and all(line.startswith("  x lesson 04, ") for line in lines), output[-2000:]
    for line in lines:
        assert "reply_for(" in line and "reply_for_json(" not in line, line  # reply_for itself
        # Said by the sandbox (the argument came back changed) or by graduation's own check
        # (which names the member): either way a change of what reply_for was given.
        assert "changed" in line and "given" in line, line
        call = line[line.index("reply_for(") :].partition(") ")[0] + ")"
        assert call.count("{") == call.count("}") and "..." not in call, line  # the message whole


#: is_reply_to never returns for a line whose id is 2 (and answers every other right).
LOOPS_ON_ONE_INPUT = """
def is_reply_to(line, request_id):
    while '"id":2,' in str(line):
        pass
    if classify_json(line) != ("response", None):
        return False
    return json.loads(line)["id"] == request_id
"""


def test_a_call_that_never_ends_costs_that_call_alone(masters_package, tmp_path):
    """The stuck call is said in one line; every other call of the same function, after it,
    is judged (on a fresh worker) and passes."""
    package = copy_of(masters_package, tmp_path)
    redefine(package, "is_reply_to", LOOPS_ON_ONE_INPUT)
    code, output = graduate_with(package, "-k", "is_reply_to", limit="2")
    assert code == 1, output[-3000:]
    lines = failures(output)
    assert lines, output[-3000:]
    for line in lines:
        assert re.fullmatch(
            r"  x lesson 06, .*: is_reply_to\('.*\"id\":2,.*', \d+\) did not finish in "
            r"[\d.]+ s: a loop that never ends\?",
            line,
        ), line
    passed, total = lessons_said(output)["06"]
    assert passed == total - len(lines) > 0, output[-3000:]


def test_every_lesson_asks_for_every_lesson_and_a_failure_exits_1(masters_package, tmp_path):
    """A package complete up to lesson 04 passes (tests/exercises/test_graduation.py, through
    make); for CI, --every-lesson wants every lesson written; a function it has written that
    fails exits 1 however complete the rest is."""
    package = copy_of(masters_package, tmp_path)
    for name in ("conversation.py", "revisions.py", "transport.py", "traffic.py", "server.py"):
        (package / name).unlink()
    assert graduate_with(package, "-k", "create_request or is_reply_to", limit="10")[0] == 0
    code, output = graduate_with(
        package, "--every-lesson", "-k", "create_request or is_reply_to", limit="10"
    )
    assert code == 1 and "not written yet" in output, output[-3000:]
    redefine(
        package,
        "create_request",
        "def create_request(method, params=None, request_id=None):\n"
        "    return {'jsonrpc': '2.0', 'method': method}\n",
    )
    code, output = graduate_with(package, "-k", "create_request", limit="10")
    assert code == 1 and failures(output), output[-3000:]
