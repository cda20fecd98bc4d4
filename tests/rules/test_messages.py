"""The builders and constants of mcp_lesson.rules.messages (its docstrings state the rules)."""

import json

import pytest
from implementation import (  # mcp_lesson's, or a graduating package's
    create_request,
    error_response,
    refusal,
    refuses,
)

from mcp_lesson import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    success_response,
)
from mcp_lesson.protocol.values import show_value


def test_error_code_constants():
    assert (PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR) == (
        -32700,
        -32600,
        -32601,
        -32602,
        -32603,
    )


def test_create_request_dumps_exactly_as_the_spec_shows():
    text = json.dumps(create_request("tools/list", request_id=1), indent=2)
    assert text == '{\n  "jsonrpc": "2.0",\n  "method": "tools/list",\n  "id": 1\n}'


def test_create_request_puts_id_before_params():
    params = {"name": "calculator", "arguments": {"expression": "2 + 2"}}
    message = create_request("tools/call", params=params, request_id=2)
    assert list(message) == ["jsonrpc", "method", "id", "params"]
    assert json.dumps(message, indent=2) == (
        '{\n  "jsonrpc": "2.0",\n  "method": "tools/call",\n  "id": 2,\n  "params": {\n'
        '    "name": "calculator",\n    "arguments": {\n      "expression": "2 + 2"\n    }\n  }\n}'
    )


def test_create_request_without_id_is_a_notification():
    assert create_request("notifications/initialized") == {
        "jsonrpc": "2.0",
        "method": "notifications/initialized",
    }


def test_create_request_notification_with_params_has_no_id_key():
    message = create_request("notifications/progress", {"progress": 1})
    assert list(message) == ["jsonrpc", "method", "params"]


@pytest.mark.parametrize("request_id", [0, "", "abc", -1, 2**100])
def test_create_request_accepts_string_and_integer_ids(request_id):
    assert create_request("ping", request_id=request_id)["id"] == request_id


REFUSED_REQUESTS = [  # (args, kwargs, the offending value, mcp_lesson's words)
    pytest.param((42,), {"request_id": 1}, 42, "method must be a str", id="method 42"),
    pytest.param((None,), {}, None, "method must be a str", id="method None"),
    pytest.param((b"ping",), {}, b"ping", "method must be a str", id="method b'ping'"),
    pytest.param(("ping",), {"request_id": True}, True, "a bool", id="request_id True"),
    pytest.param(("ping",), {"request_id": False}, False, "a bool", id="request_id False"),
    pytest.param(("ping",), {"request_id": 1.0}, 1.0, "a float", id="request_id 1.0"),
    pytest.param(
        ("ping",),
        {"request_id": [1]},
        [1],
        "request_id must be a str or an int",
        id="request_id [1]",
    ),
    pytest.param(
        ("ping",), {"params": [1, 2]}, [1, 2], "params must be a dict", id="params [1, 2]"
    ),
    pytest.param(("ping",), {"params": "x"}, "x", "params must be a dict", id="params 'x'"),
    pytest.param(("ping",), {"params": ()}, (), "params must be a dict", id="params ()"),
]


@pytest.mark.parametrize("args, kwargs, offender, words", REFUSED_REQUESTS)
def test_create_request_refuses_what_would_be_invalid(args, kwargs, offender, words):
    """A TypeError, whose text says what was wrong, in any words.

    The rule (implementation.names_what_was_wrong): the text names the
    offending value's type, as Python names it ("bool", "float", "list",
    "NoneType") or in the usual words ("boolean", "integer", "string",
    "dictionary" or "object", "array", "None" or "null"), or it quotes the
    value as Python or JSON writes it ("True", "true", "1.0", "[1]", "'x'"),
    whole or, when long, its first 20 characters. Case does not matter, and
    only whole words count ("int" is not found in "print"). So "request_id
    must be a str or an int, got bool" passes, and so does "True is not an
    id"; "request_id must be a str or an int" does not: it says what is
    allowed, not what was wrong. mcp_lesson's own words are checked below.
    """
    refuses(offender, create_request, *args, **kwargs)


@pytest.mark.course_only
@pytest.mark.parametrize("args, kwargs, offender, words", REFUSED_REQUESTS)
def test_create_request_words_its_refusals_as_mcp_lesson_does(args, kwargs, offender, words):
    with pytest.raises(TypeError, match=words):
        create_request(*args, **kwargs)


def test_error_response_matches_the_spec_exactly():
    assert error_response(1, -32601, "Method not found") == {
        "jsonrpc": "2.0",
        "id": 1,
        "error": {"code": -32601, "message": "Method not found"},
    }
    assert list(error_response(1, -32601, "x")) == ["jsonrpc", "id", "error"]


def test_error_response_data_only_when_given():
    assert "data" not in error_response(1, -32601, "x")["error"]
    assert error_response(1, -32601, "x", data=None)["error"]["data"] is None
    assert error_response(1, -32601, "x", {"k": 1})["error"] == {
        "code": -32601,
        "message": "x",
        "data": {"k": 1},
    }


def test_error_response_allows_a_null_id():
    assert error_response(None, PARSE_ERROR, "Parse error")["id"] is None


REFUSED_ERRORS = [  # (args, the offending value, mcp_lesson's words)
    pytest.param((True, -32600, "x"), True, "a bool", id="id True"),
    pytest.param((1.5, -32600, "x"), 1.5, "a float", id="id 1.5"),
    pytest.param(([], -32600, "x"), [], "id must be", id="id []"),
    pytest.param((1, True, "x"), True, "code must be an int", id="code True"),
    pytest.param((1, -32600.0, "x"), -32600.0, "code must be an int", id="code -32600.0"),
    pytest.param((1, "-32600", "x"), "-32600", "code must be an int", id="code '-32600'"),
    pytest.param((1, -32600, None), None, "message must be a str", id="message None"),
    pytest.param((1, -32600, 7), 7, "message must be a str", id="message 7"),
]


@pytest.mark.parametrize("args, offender, words", REFUSED_ERRORS)
def test_error_response_refuses_bad_arguments(args, offender, words):
    """A TypeError that names the offending value's type or the value itself,
    in any words: the rule of test_create_request_refuses_what_would_be_invalid."""
    refuses(offender, error_response, *args)


@pytest.mark.course_only
@pytest.mark.parametrize("args, offender, words", REFUSED_ERRORS)
def test_error_response_words_its_refusals_as_mcp_lesson_does(args, offender, words):
    with pytest.raises(TypeError, match=words):
        error_response(*args)


@pytest.mark.course_only
def test_success_response():
    assert success_response(3, {"tools": []}) == {
        "jsonrpc": "2.0",
        "id": 3,
        "result": {"tools": []},
    }
    with pytest.raises(TypeError, match="result must be a dict"):
        success_response(3, [])
    with pytest.raises(TypeError, match="id must be"):
        success_response(None, {})


def _deep_list(depth=100_000):
    deep = []
    for _ in range(depth):
        deep = [deep]
    return deep


def test_builders_refuse_huge_or_deep_arguments():
    """Refused with a TypeError like any other bad argument (whose words, then,
    must not need the whole value: a deep list has no repr, a huge int no str)."""
    refusal(create_request, "ping", params=_deep_list())
    refusal(create_request, 10**5000)


@pytest.mark.course_only
def test_type_errors_stay_short_for_huge_or_deep_arguments():
    with pytest.raises(TypeError) as info:
        create_request("ping", params=_deep_list())
    assert len(str(info.value)) < 200
    with pytest.raises(TypeError) as info:
        create_request(10**5000)
    assert len(str(info.value)) < 200


@pytest.mark.parametrize(
    "value, shown",
    [
        (None, "null"),
        (True, "true"),
        (1.0, "1.0"),
        ("a", '"a"'),
        ({"a": 1}, "an object with 1 member"),
        ([1, 2], "a list of 2 items"),
    ],
)
@pytest.mark.course_only
def test_show_value_writes_json_words(value, shown):
    assert show_value(value) == shown


@pytest.mark.course_only
def test_show_value_cuts_long_text():
    assert show_value("x" * 10_000_000).endswith("(10,000,000 characters)")


def test_a_huge_integer_is_described_with_its_exact_count_of_digits():
    """An id of 4,301 nines is "a 4,301-digit integer" (the count was one too many)."""
    import sys

    from mcp_lesson.protocol.values import digit_count, show_value

    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        for value in (0, 9, 10, 10**200 - 1, 10**4300, 10**4301 - 1, -(10**5000), 2**14288, 2**64):
            assert digit_count(value) == len(str(abs(value))), value
    finally:
        sys.set_int_max_str_digits(before)
    assert show_value(10**4301 - 1) == "<a 4,301-digit integer>"
