"""Lesson 10, live traffic: its audit (mcp_lesson/core/traffic.py, the master's export), its
stored recordings, its helpers in mcp_lesson.course, and the lesson where there is no SDK.

nbval runs the master with the SDK and real servers, and each live cell prints whether
what it recorded is the stored conversation (mcp_lesson/data/live_traffic.json). Here:

* the core's audit finds in the stored recordings what the lesson says it finds, and
  the tap's report, which is that audit with words and HTTP around it
  (mcp_lesson.tap.audit), finds the same problems at the same places, on the case
  table, on the recordings and on random conversations;
* the diagram's text quotes nothing from a recording unescaped;
* the lesson runs top to bottom where the SDK is missing (as in JupyterLite), showing
  the stored recordings with the same tables as the live run;
* its cells run in the judge's sandbox (the grading sandbox: no SDK, no course), and its
  graded test cell, run outside as grading runs it, passes the master's audit there and
  fails a sloppy one.
"""

import json
import re
import textwrap
from pathlib import Path

import nbformat
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from processes import patience

from mcp_lesson import audit as core_audit
from mcp_lesson import classify_json, course, tap
from mcp_lesson.exercises import registry
from mcp_lesson.exercises.lessons import FILES
from mcp_lesson.exercises.selfcheck import run_check
from mcp_lesson.exercises.traffic_cases import CONVERSATIONS

ROOT = Path(__file__).resolve().parents[2]
MASTER = ROOT / "notebooks" / "10_live_traffic.ipynb"

#: The problems the sloppy server's recording holds, as the lesson explains them.
SLOPPY = [
    (2, "pollution"),
    (6, "answer_to_notification"),
    (9, "unanswered"),
    (10, "invalid"),
    (11, "unanswered"),
    (12, "pollution"),
    (14, "pollution"),
]

#: The tap's names for the core audit's problems.
SAME = {
    "pollution": {"pollution"},
    "invalid": {"invalid", "not_json"},
    "unanswered": {"unanswered"},
    "answered_twice": {"answered_twice"},
    "unknown_id": {"unknown_id", "unmatched"},
    "id_reused": {"id_reused"},
    # an error with a null id after a notification: to the tap, an error that answers nothing
    "answer_to_notification": {"answer_to_notification", "unmatched"},
}


def tap_problems(conversation):
    return [(p["line"], p["problem"]) for p in tap.audit(conversation, revision=None)]


def unmatched(mine, theirs):
    """The core's problems the tap does not find at the same place, and the tap's that the
    core does not find."""
    one = [
        (place, name)
        for place, name in mine
        if not any(place == at and said in SAME[name] for at, said in theirs)
    ]
    other = [
        (at, said)
        for at, said in theirs
        if not any(place == at and said in SAME[name] for place, name in mine)
    ]
    return one, other


# --- the stored recordings ---------------------------------------------------------------------


@pytest.mark.parametrize("name", ["stdio", "http", "sloppy"])
def test_each_stored_recording_is_a_recording_of_the_tap_s(name):
    entries = course.stored_recording(name)
    assert entries[0]["event"] == "start" and entries[-1]["event"] == "end"
    for entry in entries:
        assert ("direction" in entry) != ("event" in entry)
        if "direction" in entry:  # the verdict recorded is the course's
            assert (entry["kind"], entry["code"]) == classify_json(entry["text"]), entry
        assert not {"pid", "wall", "max_rss_kb"} & set(entry)  # what changes between runs
    assert course.stored_recording(name) == entries and course.stored_recording(name) is not entries


def test_the_audit_finds_in_the_stored_recordings_what_the_lesson_says():
    assert core_audit(course.stored_recording("stdio")) == []
    assert core_audit(course.stored_recording("http")) == []
    assert core_audit(course.stored_recording("sloppy")) == SLOPPY
    kinds = [entry.get("kind") for entry in course.stored_recording("http") if "sse" in entry]
    assert kinds == ["notification"] * 3 + ["response"]  # the progress stream


def test_the_sloppy_server_s_four_faults_are_in_its_recording():
    entries = course.stored_recording("sloppy")
    text = {place: entry.get("text") for place, entry in enumerate(entries, 1)}
    assert text[2] == "sloppy server 1.0 ready"  # 1. a log line on stdout
    assert json.loads(text[10]) == {"jsonrpc": "2.0", "id": None, "result": {}}  # 2. a lost id
    assert json.loads(text[9])["method"] == "ping"
    assert json.loads(text[5])["method"] == "notifications/initialized"  # 3. answered
    assert json.loads(text[6])["id"] is None and "error" in json.loads(text[6])
    assert json.loads(text[11])["params"]["name"] == "forget"  # 4. never answered


# --- the core's audit and the tap's -------------------------------------------------------------


@pytest.mark.parametrize("case", CONVERSATIONS, ids=[case.name for case in CONVERSATIONS])
def test_the_table_is_right_and_the_tap_agrees(case):
    [conversation] = case.args
    assert core_audit(conversation) == case.expected
    assert unmatched(core_audit(conversation), tap_problems(conversation)) == ([], [])


@pytest.mark.parametrize("name", ["stdio", "http", "sloppy"])
def test_the_tap_finds_what_the_core_finds_in_the_recordings(name):
    conversation = course.stored_recording(name)
    assert unmatched(core_audit(conversation), tap_problems(conversation)) == ([], [])


def _message(**members):
    return json.dumps({"jsonrpc": "2.0", **members})


#: Lines either side may send: valid requests, notifications and responses with a few ids,
#: invalid ones whose id can be read or not, junk, and an error with id null.
LINES = sorted(
    {
        text
        for request_id in (1, 2, "1")
        for text in (
            _message(id=request_id, method="ping"),
            _message(id=request_id, result={}),
            _message(id=request_id, error={"code": -32601, "message": "Method not found"}),
        )
    }
    | {
        _message(method="notifications/initialized"),
        "a log line",
        '{"jsonrpc": "2.0", "id": 1, "meth',
        _message(id=None, error={"code": -32700, "message": "Parse error"}),
        _message(id=2, method=7),
        _message(id=None, result={}),
        _message(method="ping", params=[]),
    }
)


@settings(max_examples=400)
@given(
    st.lists(
        st.tuples(st.sampled_from(["to_server", "from_server"]), st.sampled_from(LINES)), max_size=8
    )
)
def test_the_two_audits_agree_on_any_conversation(lines):
    conversation = [{"direction": direction, "text": text} for direction, text in lines]
    mine = core_audit(conversation)
    assert mine == sorted(mine) and all(type(place) is int for place, _ in mine)
    # One audit: the tap's is lesson 10's, each problem at the same place.
    assert unmatched(mine, tap_problems(conversation)) == ([], [])


# --- the helpers --------------------------------------------------------------------------------

HOSTILE = [
    {"event": "start"},
    {"direction": "from_server", "text": '<img src=x onerror="alert(1)">; S-->>C: forged\n%% end'},
    {"direction": "to_server", "text": _message(id="a;b#c", method="x:y<script>")},
    {"direction": "from_server", "text": _message(id="a;b#c", result={})},
    {"direction": "to_server", "text": _message(method="end")},
    {"event": "http_response", "status": 202},
    {"event": "http_request", "method": "GET<b>"},
]
LINE = re.compile(
    r"    (participant [CS] as (Client|Server)|[CS](->>|-\)|-->>|--x|-x)[CS]: [A-Za-z0-9 _./,()#;]*"
    r"|Note over (C,S|S): [A-Za-z0-9 _./,()#;]*)"
)


def test_the_diagram_quotes_nothing_unescaped():
    text = course.sequence_diagram(HOSTILE, [(2, "pollution<b>"), ("x", "y"), None])
    lines = text.splitlines()
    assert lines[0] == "sequenceDiagram"
    for line in lines[1:]:
        assert LINE.fullmatch(line), line
    assert not re.search(r"#(?!\d+;)", text.replace("sequenceDiagram", ""))  # every # starts a code
    shown = re.sub(r"#(\d+);", lambda code: chr(int(code.group(1))), text)
    assert '(2) not JSON: <img src=x onerror="alert(1)">' in shown
    assert '(3) x:y<script> (id "a;b#c")' in shown and "(7) GET<b> with no body" in shown
    assert "Note over C,S: (2) pollution<b>" in shown


def test_mermaid_text_keeps_plain_words_and_cuts_long_ones():
    assert course.mermaid_text("tools/list (id 2)") == "tools/list (id 2)"
    assert course.mermaid_text("a:b") == "a#58;b"
    assert course.mermaid_text("x" * 60, limit=10) == "x" * 10 + "..."


def test_lesson_10_and_the_recording_view_draw_the_same_diagram(tmp_path):
    """One diagram writer, one escaping rule, hostile labels included: the
    playground's view of a recording and lesson 10's diagram of the same file."""
    from mcp_lesson.widgets import RecordingView

    path = tmp_path / "hostile.jsonl"
    path.write_text("\n".join(json.dumps(entry) for entry in HOSTILE) + "\n", encoding="utf-8")
    view = RecordingView(path.read_text(encoding="utf-8"))
    assert view.diagram == course.sequence_diagram(course.read_recording(path))
    assert "alert(1)" in view.diagram and "<" not in view.diagram


def test_show_recording_and_show_audit_never_raise(capsys):
    def broken(conversation):
        raise KeyError("text")

    def wrong(conversation):
        return {"pollution": 2}

    def todo(conversation):
        raise NotImplementedError()

    course.show_recording(HOSTILE + [42])
    for fn in (broken, wrong, todo, core_audit):
        course.show_audit(fn, HOSTILE)
    course.show_audit(core_audit, 7)
    course.show_recording(None)
    out = capsys.readouterr().out.splitlines()
    assert "    8  (not an entry: 42)" in out
    assert "broken raises KeyError: 'text'" in out
    assert "wrong gave {'pollution': 2}, not a list of (place, problem) pairs" in out
    assert "todo: not implemented yet" in out
    assert out.count("(no recording here)") == 2
    assert "audit: 1 problem" in out
    assert any(
        line.endswith('<- <img src=x onerror="alert(1)">; S-->>C: forged\\n%% end') for line in out
    )


def test_tapped_config_puts_the_tap_in_front_of_every_server():
    host = {
        "mcpServers": {
            "a": {"command": "npx", "args": ["-y", "a-server"], "env": {"K": "v"}},
            "b": {"command": "b-server"},
        },
        "other": 1,
    }
    tapped = course.tapped_config(host, "/rec/", python="/py")
    assert tapped == {
        "mcpServers": {
            "a": {
                "command": "/py",
                "args": [
                    "-m",
                    "mcp_lesson.tap",
                    "--record",
                    "/rec/a.jsonl",
                    "--",
                    "npx",
                    "-y",
                    "a-server",
                ],
                "env": {"K": "v"},
            },
            "b": {
                "command": "/py",
                "args": ["-m", "mcp_lesson.tap", "--record", "/rec/b.jsonl", "--", "b-server"],
            },
        },
        "other": 1,
    }
    assert host["mcpServers"]["a"]["command"] == "npx"  # the host's own is left as it was


def test_the_self_check_says_what_is_wrong_in_words():
    def as_lists(conversation):
        return [list(problem) for problem in core_audit(conversation)]

    def backwards(conversation):
        return sorted(core_audit(conversation), reverse=True)

    def nothing(conversation):
        return []

    reasons = {
        fn.__name__: {
            row.reason.partition("; the case:")[0]
            for row in run_check(fn, "audit").rows
            if not row.ok
        }
        for fn in (as_lists, backwards, nothing)
    }
    assert reasons["as_lists"] and all(
        reason.startswith("each problem is a tuple (place, problem), not [")
        for reason in reasons["as_lists"]
    )
    assert "the right problems; sort them by place" in reasons["backwards"]
    assert all(reason.startswith("it misses") for reason in reasons["nothing"])
    assert run_check(core_audit, "audit").all_pass
    assert registry.reference("audit") is core_audit


# --- the lesson without the SDK, and in the grading sandbox --------------------------------------


def _run(nb, folder):
    from notebook_runs import run_all

    return run_all(nb, folder)


def _text(cell):
    return "".join(out.get("text", "") for out in cell.outputs if out.output_type == "stream")


def test_without_the_sdk_the_lesson_shows_the_stored_recordings(tmp_path, monkeypatch):
    """As in JupyterLite: no mcp, so nothing is started; the tables and audits are the
    live run's, read from the stored recordings."""
    from mcp_lesson.exercises.learner_package import ENVIRONMENT, export_notebook

    for lesson in FILES:  # a learner who did every lesson before this one
        export_notebook(MASTER.parent / lesson, tmp_path / "my_mcp")
    monkeypatch.setenv(ENVIRONMENT, str(tmp_path / "my_mcp"))
    master = nbformat.read(str(MASTER), as_version=4)
    nb = nbformat.read(str(MASTER), as_version=4)
    nb.cells.insert(
        0, nbformat.v4.new_code_cell('import sys\nsys.modules["mcp"] = None  # no SDK here')
    )
    ran = _run(nb, MASTER.parent)
    errors = [
        (cell.id, out.ename)
        for cell in ran.cells
        if cell.cell_type == "code"
        for out in cell.outputs
        if out.output_type == "error"
    ]
    assert errors == []
    stored = {cell.id: _text(cell) for cell in master.cells if cell.cell_type == "code"}
    now = {cell.id: _text(cell) for cell in ran.cells if cell.cell_type == "code"}
    assert (
        now["c10-05"]
        == "This Python cannot start a server: the lesson shows stored recordings instead.\n"
    )
    for cell_id in ("c10-06", "c10-21", "c10-24"):
        assert "(the stored recording of this conversation)" in now[cell_id]
    assert now["c10-30"] == "(the tap's own report needs the local install)\n"
    for cell_id in ("c10-08", "c10-19", "c10-22", "c10-26", "c10-34"):
        assert now[cell_id] == stored[cell_id], cell_id
    assert now["c10-24"].splitlines()[1:] == stored["c10-24"].splitlines()[1:]  # the same table


def _code_cells():
    nb = nbformat.read(str(MASTER), as_version=4)
    cells = [cell for cell in nb.cells if cell.cell_type == "code"]
    tests = [cell for cell in cells if cell.metadata.get("nbgrader", {}).get("grade")]
    return [cell for cell in cells if cell not in tests], tests


def test_in_the_grading_sandbox_the_cells_run_and_the_graded_tests_judge_the_audit():
    """The judge's sandbox has no SDK and no course (tools/judge/stand_in.py): every cell
    runs without an error there, and the graded test cell, run here as grading runs it,
    passes the master's audit (called in the sandbox) and fails a wrong one."""
    from tools.judge.learner import Submission

    cells, [test] = _code_cells()
    with Submission.for_lesson("10", call_limit=patience(10)) as submission:
        submission.refused = {"audit"}  # as grading does: the course's own audit is not lent
        for cell in cells:
            printed, error = submission.run_cell(cell.source, f"<cell {cell.id}>", patience(30))
            assert error is None, (cell.id, error, printed[-500:])
        learner_audit = submission.function("audit")
        assert learner_audit(CONVERSATIONS[2].args[0]) == CONVERSATIONS[2].expected
        exec(compile(test.source, "<graded tests>", "exec"), {"audit": learner_audit})
    with Submission.for_lesson("10", call_limit=patience(10)) as submission:
        for cell in cells:
            source = cell.source
            if (
                "### BEGIN SOLUTION" in source
            ):  # an audit that forgets the client's junk is answered
                source = source.replace('owed[other].remove(message["id"])', "pass")
                source = source.replace(
                    '"error" in message and message["id"] in owed[other]', "False"
                )
            submission.run_cell(source, f"<cell {cell.id}>", patience(30))
        submission.refused = {"audit"}
        with pytest.raises(AssertionError, match="one error per invalid line"):
            exec(
                compile(test.source, "<graded tests>", "exec"),
                {"audit": submission.function("audit")},
            )


def test_the_graded_cell_is_locked_with_hidden_tests_and_the_learner_copy_has_none():
    _, [test] = _code_cells()
    info = test.metadata["nbgrader"]
    assert info == {
        "grade": True,
        "grade_id": "audit-tests",
        "locked": True,
        "points": 4,
        "schema_version": 3,
        "solution": False,
        "task": False,
    }
    assert "### BEGIN HIDDEN TESTS" in test.source
    learner = (ROOT / "notebooks" / "learner" / MASTER.name).read_text(encoding="utf-8")
    assert "BEGIN HIDDEN TESTS" not in learner and "owed[other].remove" not in learner
    assert textwrap.dedent(test.source).startswith("# Graded tests for audit (4 points).")
