"""The builders and constants of mcp_lesson.messages (its docstrings state the rules)."""

import json

import pytest

from mcp_lesson import INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR, success_response
from mcp_lesson.messages import show_value
from implementation import create_request, error_response  # mcp_lesson's, or a graduating package's


def test_error_code_constants():
    assert (PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR) == (
        -32700, -32600, -32601, -32602, -32603)


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
        "jsonrpc": "2.0", "method": "notifications/initialized"}


def test_create_request_notification_with_params_has_no_id_key():
    message = create_request("notifications/progress", {"progress": 1})
    assert list(message) == ["jsonrpc", "method", "params"]


@pytest.mark.parametrize("request_id", [0, "", "abc", -1, 2**100])
def test_create_request_accepts_string_and_integer_ids(request_id):
    assert create_request("ping", request_id=request_id)["id"] == request_id


@pytest.mark.parametrize(
    "args, kwargs, words",
    [
        ((42,), {"request_id": 1}, "method must be a str"),
        ((None,), {}, "method must be a str"),
        ((b"ping",), {}, "method must be a str"),
        (("ping",), {"request_id": True}, "a bool"),
        (("ping",), {"request_id": False}, "a bool"),
        (("ping",), {"request_id": 1.0}, "a float"),
        (("ping",), {"request_id": [1]}, "request_id must be a str or an int"),
        (("ping",), {"params": [1, 2]}, "params must be a dict"),
        (("ping",), {"params": "x"}, "params must be a dict"),
        (("ping",), {"params": ()}, "params must be a dict"),
    ],
)
def test_create_request_refuses_what_would_be_invalid(args, kwargs, words):
    with pytest.raises(TypeError, match=words):
        create_request(*args, **kwargs)


def test_error_response_matches_the_spec_exactly():
    assert error_response(1, -32601, "Method not found") == {
        "jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found"}}
    assert list(error_response(1, -32601, "x")) == ["jsonrpc", "id", "error"]


def test_error_response_data_only_when_given():
    assert "data" not in error_response(1, -32601, "x")["error"]
    assert error_response(1, -32601, "x", data=None)["error"]["data"] is None
    assert error_response(1, -32601, "x", {"k": 1})["error"] == {
        "code": -32601, "message": "x", "data": {"k": 1}}


def test_error_response_allows_a_null_id():
    assert error_response(None, PARSE_ERROR, "Parse error")["id"] is None


@pytest.mark.parametrize(
    "args, words",
    [
        ((True, -32600, "x"), "a bool"),
        ((1.5, -32600, "x"), "a float"),
        (([], -32600, "x"), "id must be"),
        ((1, True, "x"), "code must be an int"),
        ((1, -32600.0, "x"), "code must be an int"),
        ((1, "-32600", "x"), "code must be an int"),
        ((1, -32600, None), "message must be a str"),
        ((1, -32600, 7), "message must be a str"),
    ],
)
def test_error_response_refuses_bad_arguments(args, words):
    with pytest.raises(TypeError, match=words):
        error_response(*args)


@pytest.mark.course_only
def test_success_response():
    assert success_response(3, {"tools": []}) == {"jsonrpc": "2.0", "id": 3, "result": {"tools": []}}
    with pytest.raises(TypeError, match="result must be a dict"):
        success_response(3, [])
    with pytest.raises(TypeError, match="id must be"):
        success_response(None, {})


def test_type_errors_stay_short_for_huge_or_deep_arguments():
    deep = []
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(TypeError) as info:
        create_request("ping", params=deep)
    assert len(str(info.value)) < 200
    with pytest.raises(TypeError) as info:
        create_request(10**5000)
    assert len(str(info.value)) < 200


@pytest.mark.parametrize(
    "value, shown",
    [(None, "null"), (True, "true"), (1.0, "1.0"), ("a", '"a"'), ({"a": 1}, "an object with 1 member"),
     ([1, 2], "a list of 2 items")],
)
@pytest.mark.course_only
def test_show_value_writes_json_words(value, shown):
    assert show_value(value) == shown


@pytest.mark.course_only
def test_show_value_cuts_long_text():
    assert show_value("x" * 10_000_000).endswith("(10,000,000 characters)")
