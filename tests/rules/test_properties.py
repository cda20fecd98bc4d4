"""Property tests (hypothesis): nothing raises, and the round trips the builders promise hold."""

import functools
import json

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from implementation import (
    classify,
    classify_json,
    create_request,
    error_response,
    refuses,
    reply_for,
    reply_for_json,
)  # mcp_lesson's, or a graduating package's

from mcp_lesson import explain, explain_json, success_response

VERDICTS = {("request", None), ("notification", None), ("response", None), ("invalid", -32600)}

json_scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
odd_objects = st.sampled_from([object(), b"2.0", 1j, (1,), {1}, frozenset(), range(3), type, print])
any_value = json_values | odd_objects | st.lists(odd_objects, max_size=2)

ids = st.integers() | st.text(max_size=10)
maybe = st.sampled_from(["absent", "present"])


@functools.cache
def members(values):
    """What each member of a message may be drawn from (built once per ``values``: a
    strategy made anew for every draw is checked anew, and costs more than the draw)."""
    return {
        "jsonrpc": st.just("2.0") | values,
        "method": st.sampled_from(["ping", "tools/list", ""]) | values,
        "id": ids | st.none() | values,
        "params": st.dictionaries(st.text(max_size=5), json_values, max_size=3) | values,
        "result": st.dictionaries(st.text(max_size=5), json_values, max_size=3) | values,
        "error": st.fixed_dictionaries(
            {"code": st.integers() | values, "message": st.text(max_size=10) | values}
        )
        | values,
    }


@st.composite
def message_like(draw, values=any_value):
    """Dicts that mostly look like messages, with each member possibly odd or absent."""
    message = {}
    for key, strategy in members(values).items():
        if draw(st.booleans()):
            message[key] = draw(strategy)
    return message


def oracle(m):
    """The rules of mcp_lesson.rules.classification's docstring, written a second, slower, plainer way."""

    def is_int(x):
        return type(x) is int

    def is_id(x):
        return isinstance(x, str) or is_int(x)

    if type(m) is not dict or m.get("jsonrpc", None) != "2.0" or type(m["jsonrpc"]) is not str:
        return ("invalid", -32600)
    if "method" in m:
        ok = (
            isinstance(m["method"], str)
            and ("params" not in m or isinstance(m["params"], dict))
            and ("id" not in m or is_id(m["id"]))
        )
        if not ok:
            return ("invalid", -32600)
        return ("request", None) if "id" in m else ("notification", None)
    if "id" not in m or ("result" in m) == ("error" in m):
        return ("invalid", -32600)
    if "result" in m:
        good = isinstance(m["result"], dict) and is_id(m["id"])
    else:
        e = m["error"]
        good = (
            isinstance(e, dict)
            and is_int(e.get("code"))
            and isinstance(e.get("message"), str)
            and (m["id"] is None or is_id(m["id"]))
        )
    return ("response", None) if good else ("invalid", -32600)


@given(any_value)
def test_classify_and_reply_for_never_raise_on_any_value(value):
    """Classify never raises, whatever it is given; graduation checks it too."""
    assert classify(value) in VERDICTS
    reply = reply_for(value)  # str and bytes are wire text: they may not parse
    assert reply is None or reply["error"]["code"] in (-32600, -32700)


@given(any_value)
@pytest.mark.course_only
def test_explain_never_raises_on_any_value(value):
    assert isinstance(explain(value), str)


@given(message_like())
@settings(max_examples=400)
def test_classify_agrees_with_a_plain_rereading_of_the_rules(message):
    assert classify(message) == oracle(message)


@given(message_like())
@pytest.mark.course_only
def test_explain_starts_with_the_kind_classify_gives(message):
    kind, code = classify(message)
    assert explain(message).startswith(kind.capitalize())


@given(message_like(values=json_values))
# Found by this test: a reply_for that writes "id": None into the message it was given
# (this error response becomes a valid one, so reply_for_json of its text disagrees).
@example({"jsonrpc": "2.0", "id": 1.5, "error": {"code": -32600, "message": "x"}})
def test_reply_for_answers_exactly_the_invalid_ones(message):
    reply = reply_for(message)
    try:
        text = json.dumps(message, allow_nan=False)
    except ValueError:  # holds NaN or infinity: as text it would not be JSON
        text = None
    if text is not None:
        assert reply_for_json(text) == reply
    if classify(message)[0] == "invalid":
        assert classify(reply) == ("response", None)
    else:
        assert reply is None


@given(json_values)
def test_classify_json_agrees_with_classify_on_serialised_values(value):
    try:
        text = json.dumps(value, allow_nan=False)
    except ValueError:  # NaN or infinity: not JSON at all
        text = json.dumps(value)
        assert classify_json(text) == ("invalid", -32700)
        return
    assert classify_json(text) == classify(value)
    assert classify_json(text.encode("utf-8")) == classify(value)


@given(st.text() | st.binary())
@pytest.mark.course_only
def test_classify_json_never_raises_on_any_text_or_bytes(text):
    assert classify_json(text) in VERDICTS | {("invalid", -32700)}
    assert isinstance(explain_json(text), str)
    reply = reply_for_json(text)
    assert reply is None or reply["error"]["code"] in (-32700, -32600)


@given(st.integers(min_value=1, max_value=200_000), st.sampled_from(["[", '{"a":', '{"jsonrpc":']))
@settings(max_examples=30, suppress_health_check=[HealthCheck.too_slow])
def test_classify_json_survives_any_nesting_depth(depth, opener):
    closer = "]" if opener == "[" else "}"
    text = opener * depth + "0" + closer * depth
    assert classify_json(text) in VERDICTS | {("invalid", -32700)}
    assert classify_json(opener * depth) == ("invalid", -32700)


@pytest.mark.parametrize("size", [1_000_000, 10_000_000])
def test_classify_json_on_huge_inputs(size):
    junk = "x" * size
    assert classify_json(junk) == ("invalid", -32700)
    assert classify_json(b"\x00\xff" * (size // 2)) == ("invalid", -32700)
    assert classify_json(json.dumps([junk])) == ("invalid", -32600)


# --- round trips ------------------------------------------------------------------

params_values = st.none() | st.dictionaries(st.text(max_size=8), json_values, max_size=4)


@given(st.text(), params_values, ids)
def test_create_request_round_trip(method, params, request_id):
    assert classify(create_request(method, params, request_id)) == ("request", None)


@given(st.text(), params_values)
def test_create_request_without_id_round_trip(method, params):
    assert classify(create_request(method, params)) == ("notification", None)


@given(ids | st.none(), st.integers(), st.text(), st.none() | json_values)
def test_error_response_round_trip(request_id, code, message, data):
    assert classify(error_response(request_id, code, message)) == ("response", None)
    assert classify(error_response(request_id, code, message, data)) == ("response", None)


@given(ids, st.dictionaries(st.text(max_size=8), json_values, max_size=4))
@pytest.mark.course_only
def test_success_response_round_trip(request_id, result):
    assert classify(success_response(request_id, result)) == ("response", None)


not_a_str = any_value.filter(lambda v: not isinstance(v, str))
not_an_id = any_value.filter(
    lambda v: (
        v is not None
        and not (isinstance(v, str) or (isinstance(v, int) and not isinstance(v, bool)))
    )
)
not_a_dict = any_value.filter(lambda v: v is not None and not isinstance(v, dict))
not_an_int = any_value.filter(lambda v: not isinstance(v, int) or isinstance(v, bool))


# The builders refuse with a TypeError that names the offending value's type or
# the value itself, in any words (the rule: implementation.names_what_was_wrong).


@given(not_a_str)
def test_create_request_refuses_a_non_string_method(method):
    refuses(method, create_request, method, request_id=1)


@given(not_an_id)
def test_builders_refuse_a_bad_id(bad_id):
    refuses(bad_id, create_request, "ping", request_id=bad_id)
    refuses(bad_id, error_response, bad_id, -32600, "x")


@given(not_a_dict)
def test_create_request_refuses_non_dict_params(params):
    refuses(params, create_request, "ping", params=params, request_id=1)


@given(not_an_int, st.text())
def test_error_response_refuses_a_non_int_code(code, message):
    refuses(code, error_response, 1, code, message)


@given(not_a_str)
def test_error_response_refuses_a_non_string_message(message):
    refuses(message, error_response, 1, -32600, message)


@given(not_a_str, not_an_id, not_a_dict, not_an_int)
@pytest.mark.course_only
def test_mcp_lesson_names_the_argument_it_refuses(not_str, bad_id, not_dict, not_int):
    with pytest.raises(TypeError, match="method"):
        create_request(not_str, request_id=1)
    with pytest.raises(TypeError, match="id"):
        create_request("ping", request_id=bad_id)
    with pytest.raises(TypeError, match="id"):
        error_response(bad_id, -32600, "x")
    with pytest.raises(TypeError, match="params"):
        create_request("ping", params=not_dict, request_id=1)
    with pytest.raises(TypeError, match="code"):
        error_response(1, not_int, "x")
    with pytest.raises(TypeError, match="message"):
        error_response(1, -32600, not_str)


# --- explain's rules and classify (lesson 03's, in mcp_lesson.core) never disagree -------

REVISION_CHOICES = st.sampled_from(
    [None, "2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]
)


@given(message_like() | any_value, REVISION_CHOICES)
@settings(max_examples=1500, suppress_health_check=[HealthCheck.too_slow])
@pytest.mark.course_only
@pytest.mark.full  # 1,500 examples; test_explain_s_rule_gives_classify_s_verdict_on_lists stays fast
def test_explain_s_rule_gives_classify_s_verdict_on_every_input(message, revision):
    """classify is the lessons' exported code with a thin layer; explain walks the
    rules of its own (rule_of). The same verdict, whatever the input and revision."""
    from mcp_lesson.rules import classification

    assert classification.RULES[
        classification.rule_of(message, revision)
    ].verdict == classification.classify(message, revision)


@given(st.lists(message_like(), max_size=4), REVISION_CHOICES)
@pytest.mark.course_only
def test_explain_s_rule_gives_classify_s_verdict_on_lists(messages, revision):
    from mcp_lesson.rules import classification

    assert classification.RULES[
        classification.rule_of(messages, revision)
    ].verdict == classification.classify(messages, revision)
