"""The learner's self-check: deterministic summaries, never a traceback."""

import pytest

import mcp_lesson
from mcp_lesson import CASES, check, course
from mcp_lesson.exercises import registry
from mcp_lesson.exercises.selfcheck import run_check


def test_the_package_passes_its_own_checks(capsys):
    for fn in (
        mcp_lesson.classify,
        mcp_lesson.classify_json,
        mcp_lesson.create_request,
        mcp_lesson.error_response,
    ):
        report = run_check(fn)
        assert report.all_pass, report.text()
    check(mcp_lesson.classify)
    assert capsys.readouterr().out == f"classify: {len(CASES)}/{len(CASES)} cases pass\n"


def test_not_implemented_is_reported_in_plain_words(capsys):
    def classify(msg):
        raise NotImplementedError()

    check(classify)
    out = capsys.readouterr().out
    assert out.startswith(f"classify: 0/{len(CASES)} cases pass (not implemented yet")
    assert "Traceback" not in out


def test_any_exception_is_reported_per_case(capsys):
    def classify(msg):
        return ("request", None) if msg["method"] else ("invalid", -32600)

    report = run_check(classify)
    assert not report.all_pass and not report.not_implemented
    assert any("an exception, KeyError" in row.got for row in report.failures)
    check(classify, show=2)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"classify: {report.passed}/{len(CASES)} cases pass"
    assert lines[1].startswith("  x ") and "expected" in lines[2]
    assert lines[-1].startswith("  ... and ")


def test_output_is_deterministic(capsys):
    def wrong(msg):
        return "request"

    check(wrong, target="classify")
    first = capsys.readouterr().out
    check(wrong, target="classify")
    assert capsys.readouterr().out == first


def test_a_list_instead_of_a_tuple_gets_a_hint():
    def classify(msg):
        return list(mcp_lesson.classify(msg))

    report = run_check(classify)
    assert report.passed == 0
    assert "tuple" in report.failures[0].reason


def test_builder_checks_compare_key_order():
    def create_request(method, params=None, request_id=None):
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        if request_id is not None:
            message["id"] = request_id
        return message

    report = run_check(create_request)
    failing = {row.name for row in report.failures}
    assert {"tools/call with params", "positional arguments"} <= failing
    assert "tools/list request" not in failing and "notification with params" not in failing


def test_a_message_right_but_for_its_key_order_is_told_so():
    """Lesson 04's learners put data before message and read the case's note as the diagnosis;
    a failure whose only difference is the order of the members now says that first."""

    def error_response(id, code, message, data=None):
        error = {"code": code, **({"data": data} if data is not None else {}), "message": message}
        return (
            {"jsonrpc": "2.0", "id": id, "error": error}
            if data is not None
            else {"jsonrpc": "2.0", "error": error, "id": id}
        )

    report = run_check(error_response)
    rows = {row.name: row for row in report.failures}
    reordered, notes = (
        rows["with data"],
        {build.name: build.reason for build in mcp_lesson.exercises.cases.ERROR_BUILDS},
    )
    assert reordered.reason != notes["with data"] and reordered.reason.endswith(notes["with data"])
    assert rows["method not found"].reason != notes["method not found"]  # id after error: order too

    def wrong_code(id, code, message, data=None):
        return mcp_lesson.error_response(id, code + 1, message, data)

    wrong = {row.name: row for row in run_check(wrong_code, target="error_response").failures}
    assert wrong["with data"].reason == notes["with data"]  # a wrong value gets the note alone


def test_builder_checks_require_type_errors():
    def error_response(id, code, message, data=None):
        return {"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}

    report = run_check(error_response)
    failing = {row.name for row in report.failures}
    assert "bool id" in failing and "with data" in failing and "method not found" not in failing


def test_the_target_can_be_named(capsys):
    check(lambda text: mcp_lesson.classify_json(text), target="classify_json")
    assert "classify_json:" in capsys.readouterr().out


def test_check_of_something_that_is_not_a_function(capsys):
    check(42)
    assert capsys.readouterr().out == "check() needs the function you wrote, got an int: 42\n"


def test_a_builder_with_an_unknown_name_gets_a_hint(capsys):
    def build(method, params=None, request_id=None):
        return mcp_lesson.create_request(method, params, request_id)

    check(build)
    out = capsys.readouterr().out
    assert out.startswith("build: 0/") and "target=" in out
    # The hint names the table the function passes best (no list of every table).
    assert 'target="create_request"' in out
    assert not any(
        f"{name}," in out or f"{name})" in out
        for name in registry.CHECKED
        if name != "create_request"
    )
    check(build, target="create_request")
    builds = len(mcp_lesson.exercises.cases.REQUEST_BUILDS)
    assert capsys.readouterr().out.startswith(f"build: {builds}/{builds} cases pass")


def test_the_hint_names_no_function_of_a_later_lesson(monkeypatch, capsys):
    """In lesson 01 (its start_lesson ran), a builder's hint names no lesson's function:
    create_request is lesson 02's."""
    from mcp_lesson.exercises import learner_package

    def build(method, params=None, request_id=None):
        return mcp_lesson.create_request(method, params, request_id)

    monkeypatch.setitem(learner_package._LESSON, "now", "01")
    check(build)
    out = capsys.readouterr().out
    assert 'target="<its name>"' in out
    assert not any(
        name in out.replace("build", "") for name in registry.CHECKED if name != "classify"
    ), out
    monkeypatch.setitem(learner_package._LESSON, "now", "02")
    check(build)
    assert 'target="create_request"' in capsys.readouterr().out


def test_a_learner_value_whose_equality_raises_is_a_failure_not_a_crash():
    class Odd:
        def __eq__(self, other):
            raise RuntimeError("no")

    def classify(msg):
        return ("request", Odd())

    assert run_check(classify).passed == 0


def test_sys_exit_in_a_learners_function_is_reported():
    import sys

    def classify(msg):
        sys.exit(3)

    report = run_check(classify)
    assert report.passed == 0 and "SystemExit" in report.failures[0].got


def test_only_a_raised_not_implemented_error_counts_as_not_implemented():
    def classify(msg):
        return "NotImplementedError"

    assert not run_check(classify).not_implemented


# --- a learner's function cannot corrupt or fool the check ---------------------------


def test_a_function_that_mutates_its_input_cannot_change_the_case_table(capsys):
    import copy

    from mcp_lesson import CASES, classify

    before = copy.deepcopy([case.message for case in CASES])

    def classify_mutating(msg):
        if isinstance(msg, dict):
            msg.setdefault("jsonrpc", "2.0")
            msg.pop("id", None)
        elif isinstance(msg, list):
            msg.clear()
        return classify(msg)

    check(classify_mutating)
    course.self_check(classify_mutating)
    assert [case.message for case in CASES] == before
    capsys.readouterr()
    check(classify)
    assert capsys.readouterr().out.startswith(f"classify: {len(CASES)}/{len(CASES)} cases pass")


class _AlwaysEqual:
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False


class _RaisingEq:
    def __eq__(self, other):
        raise ValueError("The truth value of an array is ambiguous")

    __hash__ = None  # type: ignore[assignment]  # equal by value, so not hashable


@pytest.mark.parametrize(
    "liar",
    [
        _AlwaysEqual(),
        (_AlwaysEqual(), _AlwaysEqual()),
        _RaisingEq(),
        ("request", _RaisingEq()),
        ("request", True),
        ("request", 0.0),
        ["request", None],
    ],
    ids=[
        "eq-always-true",
        "tuple-of-liars",
        "eq-raises",
        "tuple-eq-raises",
        "bool-code",
        "float-code",
        "list",
    ],
)
def test_a_result_that_only_looks_right_does_not_pass(liar, capsys):
    def classify(msg):
        return liar

    report = run_check(classify)
    assert report.passed == 0
    check(classify)
    course.self_check(classify)
    out = capsys.readouterr().out
    assert "Traceback" not in out and f"classify: 0/{report.total} cases pass" in out


def test_a_function_that_floods_output_is_capped(capsys):
    from mcp_lesson import classify as reference

    def classify(msg):
        print("x" * 1_000_000)
        return reference(msg)

    course.self_check(classify)
    out = capsys.readouterr().out
    assert len(out) < 5_000, len(out)
    assert f"printed {len(CASES) * 1_000_001:,} characters while it was checked" in out


def test_a_function_s_own_failures_come_before_those_raised_in_a_helper(capsys):
    def unfinished_helper(msg):
        raise NotImplementedError()

    def classify(msg):
        if isinstance(msg, dict) and "method" in msg:
            return unfinished_helper(msg)
        return ("response", None)

    report = run_check(classify)
    failures = report.failures
    own = [row for row in failures if not row.raised_in]
    assert own and failures[: len(own)] == own
    assert failures[-1].raised_in == "unfinished_helper"
    check(classify, show=len(failures))
    out = capsys.readouterr().out
    assert "inside unfinished_helper" in out and "shows them all" not in out
    check(classify)
    assert f"(check(..., show={len(failures)}) shows them all)" in capsys.readouterr().out


class _Unprintable(Exception):
    def __str__(self):
        raise RuntimeError("no text for you")


class _Custom(BaseException):
    pass


def _raiser(exc):
    def classify(msg):
        raise exc

    return classify


@pytest.mark.parametrize(
    "exc",
    [_Unprintable(), _Custom("custom"), GeneratorExit()],
    ids=["str raises", "BaseException subclass", "GeneratorExit"],
)
def test_no_learner_exception_escapes_a_check(exc, capsys):
    fn = _raiser(exc)
    check(fn)  # never re-raises
    course.self_check(fn)
    course.try_it(fn, {})
    out = capsys.readouterr().out
    assert f"0/{len(CASES)} cases pass" in out
    assert type(exc).__name__ in out
    if isinstance(exc, _Unprintable):
        assert "whose message could not be shown" in out


def test_the_stop_button_stops_a_check_in_one_line_and_the_next_cell_checks_again(
    monkeypatch, capsys
):
    """In a notebook, the kernel's stop button during a call stops that call and the rest
    of the cell's calls, said in words; the next cell checks as before. Outside a notebook
    (a script), Ctrl-C goes through."""
    from mcp_lesson.exercises import calling

    with pytest.raises(KeyboardInterrupt):
        check(_raiser(KeyboardInterrupt()))
    calls = []

    def classify(msg):
        calls.append(msg)
        if len(calls) == 2:
            raise KeyboardInterrupt()
        return mcp_lesson.classify(msg)

    monkeypatch.setattr(calling, "_cell_now", lambda: 7)
    monkeypatch.setitem(calling._STOPPED, "cell", None)
    check(classify)
    check(classify)  # the same cell: nothing more is called
    out = capsys.readouterr().out
    assert len(calls) == 2 and "Traceback" not in out, out
    assert "was stopped: you interrupted it" in out
    assert f"({len(CASES) - 2} more cases did not run: you stopped the check)" in out
    monkeypatch.setattr(calling, "_cell_now", lambda: 8)  # the next cell
    check(mcp_lesson.classify)
    assert capsys.readouterr().out == f"classify: {len(CASES)}/{len(CASES)} cases pass\n"


@pytest.mark.full  # waits out a time limit
def test_a_call_that_never_ends_is_stopped_in_one_line_and_the_check_goes_on(monkeypatch, capsys):
    """A loop in one case costs that case: the call is stopped at the time limit, said on one
    line with the call as Python writes it, and the other cases are judged; after a few such
    calls, the check stops calling the function and says how many cases did not run."""
    from mcp_lesson.exercises import calling

    monkeypatch.setattr(calling, "CALL_LIMIT", 0.2)
    monkeypatch.setattr(calling, "_cell_now", lambda: 3)  # in a notebook (elsewhere: no limit)
    monkeypatch.setitem(calling._STOPPED, "cell", None)

    def create_request(method, params=None, request_id=None):
        while method == "ping":
            try:
                pass
            except Exception:  # a learner's catch-all does not keep the loop going
                continue
        return mcp_lesson.create_request(method, params, request_id)

    report = run_check(create_request)
    stuck = [row for row in report.rows if row.raised == "DidNotFinish"]
    assert stuck and all("ping" in row.called for row in stuck)
    assert report.passed == report.total - len(stuck) - len(report.not_run) > 0
    check(create_request, show=1)
    out = capsys.readouterr().out.splitlines()
    assert (
        out[1]
        == f"  x {stuck[0].name}: create_request{stuck[0].called} did not finish in 0.2 s: a loop that never ends?"
    )

    def classify(msg):
        while True:
            pass

    report = run_check(classify)
    assert sum(row.raised == "DidNotFinish" for row in report.rows) == calling.MAX_STUCK
    assert len(report.not_run) == report.total - calling.MAX_STUCK
    check(classify)
    assert "did not finish 3 times, so the check stopped calling it" in capsys.readouterr().out


def test_a_check_shows_values_in_python_s_words(capsys):
    """None, False and a dict as Python writes them, never JSON's null, false or quotes."""

    def create_request(method, params=None, request_id=None):
        return {"jsonrpc": "2.0", "method": method, "id": None, "params": False}

    check(create_request, show=20)
    out = capsys.readouterr().out
    assert "'id': None" in out and "'params': False" in out
    assert "null" not in out and "false" not in out and '"jsonrpc"' not in out


def test_long_values_are_cut_around_their_first_difference():
    from mcp_lesson.exercises.calling import shown, shown_apart

    long = "x" * 120
    got = {"jsonrpc": "2.0", "id": 1, "error": {"code": -32600, "message": long + "Parse Error"}}
    expected = {
        "jsonrpc": "2.0",
        "id": 1,
        "error": {"code": -32600, "message": long + "Parse error"},
    }
    assert shown(got) == shown(expected)  # a fixed cut hides the difference...
    a, b = shown_apart(got, expected)
    assert a != b and "Parse Error" in a and "Parse error" in b  # ...a cut around it shows it
    assert len(a) <= 90 and len(b) <= 90 and a.startswith("...")
    assert shown_apart({"a": 1}, {"a": 2}) == (
        "{'a': 1}",
        "{'a': 2}",
    )  # short: as they are, in Python's words


def test_a_python_object_left_in_a_built_message_is_named(capsys):
    def error_response(id, code, message, data=object()):  # noqa: B008  (the mistake under test)
        return {
            "jsonrpc": "2.0",
            "id": id,
            "error": {"code": code, "message": message, "data": data},
        }

    check(error_response)
    assert "error.data is object() (a Python object, not JSON)" in capsys.readouterr().out


def test_not_json_at_names_the_place():
    from mcp_lesson.exercises.calling import not_json_at

    assert not_json_at({"a": [1, {"b": float("nan")}]}) == ("a[1].b", "nan")
    assert not_json_at({"jsonrpc": "2.0", "params": {1: 2}})[0] == "params"
    assert not_json_at({"jsonrpc": "2.0", "id": 1}) is None
