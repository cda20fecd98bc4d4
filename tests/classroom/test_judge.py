"""The judge (tools/judge): the wire format, the sandbox's walls and limits, the
stand-in mcp_lesson, and the learner's functions seen from outside.

Each test starts real workers in the real sandbox (bubblewrap where it runs, the
fallback otherwise, and the fallback on purpose in one test), a few tenths of
a second each.
"""

import math
import os
import textwrap
import time
from pathlib import Path

import pytest
from processes import live_processes, patience

from tools.judge import sandbox, stand_in, wire
from tools.judge.learner import ChangedArgument, DidNotFinish, NotLoaded, Submission

ROOT = Path(__file__).resolve().parents[2]
BWRAP = sandbox.kind() == "bwrap"
needs_bwrap = pytest.mark.skipif(
    not BWRAP and not os.environ.get("CI"),
    reason="bubblewrap is not installed (Debian: apt-get install bubblewrap)",
)


# --- the wire format --------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        None,
        True,
        False,
        0,
        -7,
        10**40,
        -(2**70),
        1.5,
        -0.0,
        "",
        "naïve\n\u2028",
        b"\x00\xff",
        bytearray(b"ab"),
        [],
        [1, [2, (3,)]],
        (),
        {"b": 1, "a": [None]},
        {1: "int key", (1, 2): "tuple"},
    ],
)
def test_values_cross_with_their_exact_types(value):
    back = wire.decode(wire.loads(wire.dumps({"v": wire.encode(value)}))["v"])
    assert type(back) is type(value) and repr(back) == repr(value)
    if isinstance(value, dict):
        assert list(back) == list(value)  # the order of the keys too


def test_nan_crosses_as_nan():
    assert math.isnan(wire.decode(wire.loads(wire.dumps({"v": wire.encode(math.nan)}))["v"]))


def test_a_liar_crosses_as_an_honest_subclass_or_an_opaque_value():
    class Liar(str):
        def __eq__(self, other):
            return True

        __hash__ = str.__hash__

    back = wire.decode(wire.encode(Liar("x")))
    assert type(back) is not str and isinstance(back, str) and back != "y"
    opaque = wire.decode(wire.encode(object()))
    assert (
        isinstance(opaque, wire.Opaque)
        and type(opaque).__name__ == "object"
        and opaque != opaque.text
    )
    loop = []
    loop.append(loop)
    assert "contains itself" in repr(wire.decode(wire.encode(loop))[0])


@pytest.mark.parametrize(
    "data", [["?"], ["D", "k"], ["X", "S", ["O", "x", "y"]], {"a": 1}, ["i", 3]]
)
def test_the_decoder_refuses_what_the_encoder_never_makes(data):
    with pytest.raises(ValueError):
        wire.decode(data)


# --- a learner's code, in the sandbox ---------------------------------------------------------


@pytest.fixture
def cells(tmp_path):
    made = []

    def make(*sources, lesson=None, **options):
        """A submission of ``sources`` (cells) for ``lesson``: it may borrow what the
        lessons before it built (registry.may_borrow)."""
        options.setdefault("call_limit", patience(3))
        submission = Submission.for_lesson(lesson, **options)
        made.append(submission)
        for number, source in enumerate(sources, 1):
            printed, error = submission.run_cell(
                textwrap.dedent(source), f"<cell {number}>", patience(5)
            )
            submission.last = (printed, error)
        return submission

    yield make
    for submission in made:
        submission.close()


def test_a_function_answers_with_plain_values_and_its_errors_as_builtin_types(cells):
    learner = cells("""
        class BadId(TypeError):
            pass
        def build(method, request_id=None):
            if isinstance(request_id, bool):
                raise BadId("request_id must not be a bool")
            return {"jsonrpc": "2.0", "method": method, "id": request_id}
        def grow(msg):
            msg["seen"] = True
    """)
    assert learner.function("build")("ping", 1) == {"jsonrpc": "2.0", "method": "ping", "id": 1}
    with pytest.raises(TypeError) as raised:
        learner.function("build")("ping", True)
    assert type(raised.value).__name__ == "BadId" and "bool" in str(raised.value)
    message = {"id": 1}
    with pytest.raises(ChangedArgument, match="first argument"):  # a change to an argument is seen
        learner.function("grow")(message)
    assert message == {"id": 1}  # and compared: never written into the judge's own value


SWAPPED_ENCODER = """
    import sys
    wire = sys.modules["wire"]
    honest = wire.encode
    def inflated(value, *rest, **options):
        if type(value) is list and value and type(value[0]) is dict:  # the arguments, coming back
            return honest([{f"key {n}": n for n in range(300_000)}], *rest, **options)
        return honest(value, *rest, **options)
    wire.encode = inflated
    def classify(msg):
        return ("request", None)
"""


@pytest.mark.full  # a sandbox per call, answers of megabytes
def test_an_answer_is_capped_and_compared_never_kept(cells):
    """A cell that swaps the worker's encoder sends each call's dict argument back "changed"
    into a million keys: the judge compares it with what it sent and keeps none of it (the
    case it passed is the same after), and the call fails in words; an answer past the cap
    of items fails as too large, and so do the submission's later calls once its answers
    passed the cap of all of them."""
    learner = cells(
        SWAPPED_ENCODER, "def many():\n    return list(range(300_000))\n", call_limit=patience(10)
    )
    case = {"jsonrpc": "2.0", "method": "ping", "id": 1}
    for _ in range(3):
        with pytest.raises((ChangedArgument, DidNotFinish)):
            learner.function("classify")(case)
    assert case == {"jsonrpc": "2.0", "method": "ping", "id": 1}
    assert learner.function("classify")("text") == ("request", None)  # no dict: nothing inflated
    with pytest.raises(DidNotFinish, match=f"more than {wire.DECODED_ITEMS:,} items"):
        learner.function("many")()
    with pytest.raises(DidNotFinish, match="many answered with"):  # at once, the second time
        learner.function("many")()


def test_decoding_counts_items_against_a_cap():
    data = wire.encode([[1, 2], {"a": (3, 4)}])
    cap = wire.Cap(100)
    assert wire.decode(data, cap=cap) == [[1, 2], {"a": (3, 4)}] and cap.items < 100
    with pytest.raises(wire.TooLarge):
        wire.decode(data, cap=wire.Cap(4))
    with pytest.raises(wire.TooLarge):
        wire.decode(wire.encode(list(range(wire.DECODED_ITEMS + 1))))


REPLAYED_SLEEP = """
    import os, time
    if os.path.exists("ran {0}"):  # only when run again, after a restart
        time.sleep({1})
    open("ran {0}", "w").close()
"""


@pytest.mark.full  # waits out the judge's time budget
def test_loading_again_is_charged_to_the_budget_with_one_deadline(cells, monkeypatch):
    """Cells that sleep only when they are run again (each well within its own limit), then a
    cell that loops (the worker is started again, and the cells before run again): loading
    again stops at one deadline, what the cells took the first time and one call limit more,
    where each cell's own limit let all ten sleep; it is charged to the budget, and the later
    cells are not run. (In the fallback, whose folder outlives a restart of the worker, as the
    marks the cells leave must.)"""
    monkeypatch.setenv(sandbox.FORCE_VARIABLE, "fallback")
    limit = patience(5)
    learner = cells(
        *[REPLAYED_SLEEP.format(n, round(0.6 * limit, 2)) for n in range(10)],
        call_limit=limit,
        budget=patience(300),
    )
    took, before = learner.steps_took, learner.spent
    _, error = learner.run_cell("while True:\n    pass\n", "<cell 11>", limit)
    assert error["type"] == "DidNotFinish"
    assert learner.reload_failure and "first time" in learner.reload_failure
    # the loop's limit, and the reload's deadline (ten sleeps would be 6 limits)
    assert learner.spent - before < took + 2 * limit + patience(3)
    _, error = learner.run_cell("x = 1\n", "<cell 12>", limit)
    assert error["type"] == "DidNotFinish" and "not run" in error["text"]
    with pytest.raises(NotLoaded):
        learner.function("anything")()


def test_no_request_outlives_the_budget(cells):
    learner = cells(
        "import time\ndef slow():\n    time.sleep(60)\n",
        call_limit=patience(30),
        budget=patience(2),
    )
    with pytest.raises(DidNotFinish, match="used up"):
        learner.function("slow")()
    assert learner.spent < patience(2) + patience(2)
    with pytest.raises(DidNotFinish, match="used up"):
        learner.function("slow")()


@pytest.mark.full  # waits out the judge's time limit
def test_a_loop_costs_one_time_limit(cells):
    learner = cells("def spin(x):\n    while True:\n        pass\ndef ok():\n    return 'ok'\n")
    with pytest.raises(DidNotFinish, match="did not finish within"):
        learner.function("spin")(1)
    with pytest.raises(DidNotFinish):  # at once, the second time
        learner.function("spin")(2)
    assert learner.function("ok")() == "ok"  # the others still answer, in a fresh worker


def test_os_exit_and_sys_exit_cost_their_call(cells):
    learner = cells(
        "import os, sys\ndef die():\n    os._exit(0)\ndef leave():\n    sys.exit(3)\n"
        "def ok():\n    return 1\n"
    )
    with pytest.raises(DidNotFinish, match="os._exit"):
        learner.function("die")()
    with pytest.raises(Exception, match="SystemExit"):
        learner.function("leave")()
    assert learner.function("ok")() == 1


def test_the_learners_builtins_do_not_reach_the_judge(cells):
    learner = cells(
        "import builtins\nbuiltins.repr = lambda o: 'x'\nisinstance = lambda *a: True\n"
        "def answer():\n    return ('request', None)\n"
    )
    got = learner.function("answer")()
    assert repr(got) == "('request', None)" and not isinstance(got, list)


@needs_bwrap
def test_the_sandbox_sees_no_course_no_home_and_no_network(cells):
    learner = cells(f"""
        import os, socket
        def look():
            seen = [os.path.exists(p) for p in ({str(ROOT)!r}, {str(ROOT / "notebooks")!r},
                                                os.path.expanduser('~root'), '/etc/passwd')]
            try:
                socket.create_connection(("1.1.1.1", 53), timeout=2)
                seen.append("network")
            except OSError:
                pass
            return seen, os.getuid()
    """)
    seen, uid = learner.function("look")()
    assert seen[:3] == [False, False, False] and "network" not in seen and uid == 65534


@needs_bwrap
def test_nothing_it_starts_outlives_it(cells):
    marker = f"judge-test-{os.getpid()}"
    learner = cells(f"""
        import os, sys
        def leave_one_behind():
            if os.fork() == 0:
                os.setsid()
                os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)  # {marker}"])
            return True
    """)
    assert learner.function("leave_one_behind")() is True
    deadline = time.monotonic() + patience(10)
    while not _with_marker(marker) and time.monotonic() < deadline:
        time.sleep(0.02)  # polling for the left-behind process to show
    assert _with_marker(marker), "the process meant to be left behind never started"
    learner.close()
    alive = _with_marker(marker)
    assert alive == []


def _with_marker(marker):
    return [process.pid for process in live_processes() if marker in process.command]


def test_memory_is_limited(cells):
    learner = cells("def hog():\n    return len(bytearray(8 * 1024**3))\n")
    with pytest.raises((MemoryError, DidNotFinish)):
        learner.function("hog")()


def test_the_course_is_borrowed_only_where_allowed(cells):
    learner = cells(
        "from mcp_lesson import classify, PARSE_ERROR\nfrom mcp_lesson.course import check\n"
        "def mine(msg):\n    return classify(msg)\ndef code():\n    return PARSE_ERROR\n"
        "def helper():\n    return check(mine)\n",
        lesson="04",
    )
    msg = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    assert learner.function("mine")(msg) == (
        "request",
        None,
    )  # lesson 03 built it: the judge runs it
    learner.refused = {"mine", "classify"}
    with pytest.raises(LookupError, match="what this test grades"):
        learner.function("mine")(msg)
    assert learner.function("code")() == -32700
    assert "nothing" in repr(learner.function("helper")())  # course helpers are stand-ins


BORROWERS = {  # lesson: the function it grades, written on the course's own answers
    "03": "from mcp_lesson import classify_at\ndef classify(msg):\n    return classify_at(msg, None)\n",
    "04": "import json\nimport mcp_lesson\n"
    "def reply_for(msg):\n    return mcp_lesson.reply_for_json(json.dumps(msg))\n",
    "08": "import mcp_lesson\n"
    "def classify_at(msg, revision):\n    return mcp_lesson.classify(msg, revision=revision)\n",
    "05": "from mcp_lesson.rules.classification import rule_of\ndef which(msg):\n    return rule_of(msg)\n",
}


@pytest.mark.parametrize("lesson", sorted(BORROWERS))
def test_a_lesson_borrows_only_what_earlier_lessons_built(cells, lesson):
    """A function graded in a lesson may not be the course's answer under
    another name (classify_at, reply_for_json, classify with a revision, rule_of)."""
    learner = cells(BORROWERS[lesson], lesson=lesson)
    name = BORROWERS[lesson].split("def ")[1].split("(")[0]
    msg = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    args = (msg, "2025-11-25") if name == "classify_at" else (msg,)
    with pytest.raises((LookupError, TypeError)) as raised:
        learner.function(name)(*args)
    assert raised.type is TypeError or f"lesson {lesson} may call only" in str(raised.value)


def test_a_borrowed_function_raises_as_the_course_s_does(cells):
    learner = cells(
        "from mcp_lesson import create_request\n"
        "def build(i):\n    try:\n        return create_request('x', request_id=i)\n"
        "    except TypeError as exc:\n        return 'refused: ' + type(exc).__name__\n",
        lesson="03",
    )
    assert learner.function("build")(True) == "refused: TypeError"
    assert learner.function("build")(7) == {"jsonrpc": "2.0", "method": "x", "id": 7}


@pytest.mark.full  # waits out the judge's time limit
def test_a_course_call_costs_the_learner_s_time(cells):
    """The course's functions run on the learner's time: a loop of them
    ends that call at the learner's time limit, and the judge goes on."""
    learner = cells(
        "from mcp_lesson import classify_json\n"
        "def slow():\n    return [classify_json('[' * 10 + '1' + ']' * 10) for _ in range(10**9)]\n"
        "def quick():\n    return classify_json('{}')\n",
        lesson="04",
        call_limit=patience(2),
    )
    started = time.monotonic()
    with pytest.raises(DidNotFinish, match=rf"within {patience(2):g} s"):
        learner.function("slow")()
    assert time.monotonic() - started < patience(30)
    assert learner.function("quick")() == ("invalid", -32600)


def test_the_course_host_ends_a_call_that_runs_past_its_deadline():
    from tools.judge.channel import Broken
    from tools.judge.course_host import CourseHost
    from tools.judge.sandbox import Limits

    host = CourseHost(Limits())
    text = "[" + "1," * 3_000_000 + "1]"
    assert host.call("classify_json", ["L", "{}"], ["D"], time.monotonic() + patience(30)) == {
        "value": ["T", "invalid", -32600]
    }
    pid = host.process.pid
    with pytest.raises(Broken) as broken:
        host.call("classify_json", ["L", text], ["D"], time.monotonic() + 0.01)
    assert broken.value.why in ("late", "unread") and host.process is None
    assert pid not in {process.pid for process in live_processes()}
    host.close()


@pytest.mark.full  # waits out the judge's time limit
def test_a_worker_that_does_not_read_is_ended(cells):
    """A cell that writes a course request onto the judge's channel and then
    sleeps leaves the judge a reply to write that nobody reads: the call ends at its
    time limit, not never."""
    hang = (
        "import json, os, time\n"
        "def hang():\n"
        "    os.write(3, (json.dumps({'course': 'create_request', 'args': ['L', 'x' * 4_000_000],"
        " 'kwargs': ['D', 'request_id', 1]}) + '\\n').encode())\n"
        "    time.sleep(600)\n"
    )
    learner = cells(hang, lesson="04", call_limit=patience(2))
    started = time.monotonic()
    with pytest.raises(DidNotFinish):
        learner.function("hang")()
    assert time.monotonic() - started < patience(30)


def test_a_package_imports_in_the_sandbox_and_a_broken_one_says_why(tmp_path):
    good = tmp_path / "good" / "pkg"
    good.mkdir(parents=True)
    (good / "__init__.py").write_text(
        "from mcp_lesson import PARSE_ERROR\ndef code():\n    return PARSE_ERROR\n"
    )
    with Submission(good.parent, None, call_limit=patience(3)) as submission:
        stand_in.write(submission.sandbox.judge / "lib")  # the lib folder, written in place
        names, problems = submission.import_package("pkg")
        assert "code" in names and submission.function("code")() == -32700
    bad = tmp_path / "bad" / "pkg"
    bad.mkdir(parents=True)
    (bad / "__init__.py").write_text("x = (\n")
    with Submission(bad.parent, None) as submission:
        submission.import_package("pkg")
        assert submission.load_failure["type"] == "SyntaxError"
        with pytest.raises(NotLoaded, match="SyntaxError"):
            submission.function("code")()


@pytest.mark.full  # starts the fallback sandbox beside the usual one
def test_the_fallback_works_and_says_so(cells, monkeypatch):
    monkeypatch.setenv(sandbox.FORCE_VARIABLE, "fallback")
    assert sandbox.kind() == "fallback" and "bubblewrap is not available" in sandbox.note()
    learner = cells(
        "def double(x):\n    return 2 * x\ndef spin():\n    while True:\n        pass\n"
    )
    assert learner.kind == "fallback" and learner.function("double")(21) == 42
    with pytest.raises(DidNotFinish):
        learner.function("spin")()


def test_an_empty_cgroup_whose_maker_has_ended_is_removed_by_the_next_judge(tmp_path):
    """A judge killed outright cannot remove its cgroups; the next one to make a cgroup in the
    same place removes those left empty (never one that holds a process, nor a live maker's)."""
    import subprocess

    made = sandbox.Cgroup(sandbox.Limits())
    try:
        if not made.paths:
            pytest.skip("this machine lets this process make no cgroup")
        where = made.paths[0].parent
    finally:
        made.end()
    ended = subprocess.Popen(["true"])
    ended.wait()
    living = subprocess.Popen(["sleep", "600"])
    dead_and_empty = where / f"{sandbox.CGROUP_PREFIX}{ended.pid}_0a"
    dead_and_used = where / f"{sandbox.CGROUP_PREFIX}{ended.pid}_0b"
    alive_and_empty = where / f"{sandbox.CGROUP_PREFIX}{living.pid}_0c"
    held = subprocess.Popen(["sleep", "600"])
    try:
        for path in (dead_and_empty, dead_and_used, alive_and_empty):
            path.mkdir()
        (dead_and_used / "cgroup.procs").write_text(str(held.pid))
        sandbox.Cgroup(sandbox.Limits()).end()
        assert not dead_and_empty.exists()
        assert dead_and_used.exists() and alive_and_empty.exists()
    finally:
        for process in (living, held):
            process.kill()
            process.wait()
        for path in (dead_and_empty, dead_and_used, alive_and_empty):
            sandbox.end_cgroup(path)
