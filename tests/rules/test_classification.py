"""One test per rule and decision of the course's rules (the docstring of
mcp_lesson.rules.classification), plus classify_json, explain and the replies a
strict server sends. The revisions have their own file, test_revisions.py.

A row of the shared case table (test_cases.py checks every one) is not
repeated here: these tests add the variations around each rule."""

import collections
import json

import pytest
from implementation import (
    classify,
    classify_json,
    error_response,
    reply_for,
    reply_for_json,
)  # mcp_lesson's, or a graduating package's

from mcp_lesson import INVALID_REQUEST, PARSE_ERROR, explain, explain_json
from mcp_lesson.rules.classification import parse

REQUEST = ("request", None)
NOTIFICATION = ("notification", None)
RESPONSE = ("response", None)
INVALID = ("invalid", INVALID_REQUEST)
UNPARSABLE = ("invalid", PARSE_ERROR)


def msg(**members):
    return {"jsonrpc": "2.0", **members}


ERR = {"code": -32601, "message": "Method not found"}


# --- the four kinds -----------------------------------------------------------


def test_request():
    assert classify(msg(id=1, method="tools/list")) == REQUEST


def test_request_with_object_params():
    assert classify(msg(id=1, method="tools/call", params={"name": "x"})) == REQUEST


def test_notification_has_no_id_key():
    assert classify(msg(method="notifications/initialized")) == NOTIFICATION
    assert classify(msg(method="notifications/progress", params={"progress": 1})) == NOTIFICATION


def test_anything_else_is_invalid_with_invalid_request():
    assert classify(msg()) == INVALID
    assert INVALID_REQUEST == -32600


# --- bool and float are not integers ---------------------------------------------


@pytest.mark.parametrize("bad_id", [True, False])
def test_bool_is_not_an_integer_id(bad_id):
    assert classify(msg(id=bad_id, method="ping")) == INVALID
    assert classify(msg(id=bad_id, result={})) == INVALID
    assert classify(msg(id=bad_id, error=ERR)) == INVALID


@pytest.mark.parametrize("bad_id", [1.0, 1.5, -0.0, float("nan"), float("inf")])
def test_float_is_not_an_integer_id_even_1_0(bad_id):
    assert classify(msg(id=bad_id, method="ping")) == INVALID
    assert classify(msg(id=bad_id, result={})) == INVALID
    assert classify(msg(id=bad_id, error=ERR)) == INVALID


@pytest.mark.parametrize("code", [True, False, 1.0, -32601.0, "-32601", None, [1]])
def test_error_code_must_be_a_true_integer(code):
    assert classify(msg(id=1, error={"code": code, "message": "x"})) == INVALID


def test_very_large_integers_are_integers():
    assert classify(msg(id=2**200, method="ping")) == REQUEST
    assert classify(msg(id=-(2**200), result={})) == RESPONSE
    assert classify(msg(id=1, error={"code": 10**40, "message": "x"})) == RESPONSE


def test_int_subclasses_other_than_bool_are_integers():
    class Big(int):
        pass

    assert classify(msg(id=Big(5), method="ping")) == REQUEST


# --- params --------------------------------------------------------------------------


def test_present_null_params_is_invalid():
    assert classify(msg(id=1, method="ping", params=None)) == INVALID
    assert classify(msg(method="ping", params=None)) == INVALID


@pytest.mark.parametrize("params", [[], [1, 2], "x", 3, True])
def test_params_must_be_an_object(params):
    assert classify(msg(id=1, method="ping", params=params)) == INVALID
    assert classify(msg(method="ping", params=params)) == INVALID


# --- not an object: lists (batches) and scalars ---------------------------------------


@pytest.mark.parametrize("value", ["x", "", 0, 1.5, True, None])
def test_scalars_are_invalid(value):
    assert classify(value) == INVALID


# --- "jsonrpc" -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "version", [2.0, 2, "2", "2.00", " 2.0", "2.0 ", "1.0", None, True, ["2.0"]]
)
def test_jsonrpc_must_be_exactly_the_string_2_0(version):
    assert classify({"jsonrpc": version, "id": 1, "method": "ping"}) == INVALID
    assert classify({"jsonrpc": version, "id": 1, "result": {}}) == INVALID


def test_jsonrpc_is_required():
    assert classify({"id": 1, "method": "ping"}) == INVALID
    assert classify({"id": 1, "result": {}}) == INVALID


# --- key presence, not truthiness --------------------------------------------------------


@pytest.mark.parametrize("falsy_id", [0, ""])
def test_falsy_ids_are_valid_ids(falsy_id):
    assert classify(msg(id=falsy_id, method="ping")) == REQUEST
    assert classify(msg(id=falsy_id, result={})) == RESPONSE
    assert classify(msg(id=falsy_id, error=ERR)) == RESPONSE


def test_result_and_error_keys_both_present_is_invalid_even_if_error_is_null():
    assert classify(msg(id=1, result={}, error=None)) == INVALID
    assert classify(msg(id=1, result=None, error=ERR)) == INVALID
    assert classify(msg(id=1, result={}, error=ERR)) == INVALID


def test_an_empty_method_name_is_still_a_string():
    assert classify(msg(id=1, method="")) == REQUEST


# --- shapes of result and error -----------------------------------------------------------


@pytest.mark.parametrize("result", [None, [], [1], "ok", 0, True])
def test_result_must_be_an_object(result):
    assert classify(msg(id=1, result=result)) == INVALID


@pytest.mark.parametrize(
    "error",
    [
        None,
        "boom",
        [],
        -32601,
        {"code": -32601},
        {"message": "x"},
        {"code": -32601, "message": None},
        {"code": -32601, "message": 5},
    ],
)
def test_error_must_be_an_object_with_integer_code_and_string_message(error):
    assert classify(msg(id=1, error=error)) == INVALID


def test_error_object_may_carry_extra_members_such_as_data():
    assert classify(msg(id=1, error={**ERR, "data": {"why": "x"}, "extra": 1})) == RESPONSE


# --- unmentioned members, and method decides the family -------------------------------------


def test_unmentioned_members_are_ignored():
    assert classify(msg(id=1, method="ping", _meta={}, x=None)) == REQUEST
    assert classify(msg(id=1, result={}, extra=[1])) == RESPONSE


def test_a_message_with_method_is_judged_only_as_request_or_notification():
    assert classify(msg(id=1, method="ping", result={})) == REQUEST
    assert classify(msg(method="ping", error=ERR)) == NOTIFICATION
    assert classify(msg(id=1, method="ping", result={}, error=ERR)) == REQUEST


@pytest.mark.parametrize("method", [None, 1, True, ["ping"], {"name": "ping"}])
def test_method_must_be_a_string(method):
    assert classify(msg(id=1, method=method)) == INVALID
    assert classify(msg(method=method)) == INVALID


def test_a_bad_method_is_not_rescued_by_a_result():
    assert classify(msg(id=1, method=None, result={})) == INVALID


# --- dict subclasses and hostile objects ---------------------------------------------------


def test_any_dict_subclass_counts_as_a_dict():
    class Message(dict):
        pass

    assert classify(collections.OrderedDict(msg(id=1, method="ping"))) == REQUEST
    assert classify(Message(msg(id=1, result={}))) == RESPONSE
    assert classify(collections.defaultdict(int, msg(method="ping"))) == NOTIFICATION


@pytest.mark.course_only
def test_a_dict_subclass_cannot_lie_about_its_members():
    class Liar(dict):
        def get(self, key, default=None):
            return "2.0"

        def __contains__(self, key):
            return True

        def __getitem__(self, key):
            raise KeyError(key)

    assert classify(Liar(jsonrpc="2.0", method="ping")) == NOTIFICATION
    assert classify(Liar()) == INVALID


@pytest.mark.course_only
def test_classify_never_raises_on_hostile_objects():
    class Hostile(str):
        def __eq__(self, other):
            raise RuntimeError("no")

        __ne__ = __eq__
        __hash__ = str.__hash__

    class Boom:
        def __getattr__(self, name):
            raise RuntimeError(name)

    for thing in [
        object(),
        Boom(),
        {"jsonrpc": Hostile("2.0"), "method": "x"},
        {1, 2},
        (1,),
        b'{"jsonrpc": "2.0"}',
        type,
        classify,
        1j,
    ]:
        assert classify(thing) == INVALID
    # explain names the rule that decided: the one for a value it could not read
    from mcp_lesson.rules.classification import RULES, rule_of

    hostile = {"jsonrpc": Hostile("2.0"), "method": "x"}
    assert rule_of(hostile) == "unreadable" and RULES["unreadable"].verdict == INVALID
    assert isinstance(explain(hostile), str)  # and it does not raise
    # a reply all the same: lesson 04's, to the id alone (a valid one is echoed)
    from mcp_lesson import reply_for as course_reply_for

    assert course_reply_for({**hostile, "id": 5})["id"] == 5
    assert course_reply_for({**hostile, "id": True})["id"] is None
    assert course_reply_for(hostile)["error"]["code"] == INVALID_REQUEST


def test_tuples_are_not_lists_nor_objects():
    assert classify(({"jsonrpc": "2.0", "id": 1, "method": "ping"},)) == INVALID


# --- classify_json ---------------------------------------------------------------------------


def test_classify_json_parses_then_classifies():
    assert classify_json('{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}') == REQUEST
    assert classify_json(b'{"jsonrpc":"2.0","method":"x"}') == NOTIFICATION
    assert (
        classify_json(bytearray(b'{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":""}}'))
        == RESPONSE
    )
    assert classify_json("[]") == INVALID
    assert classify_json('"hello"') == INVALID


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "\n",
        "{",
        '{"jsonrpc": "2.0", "id": 1',
        "nul",
        "{'a': 1}",
        '{"a": 1,}',
        "[1,]",
        '{"jsonrpc":"2.0","id":NaN,"method":"x"}',
        "NaN",
        "Infinity",
        "-Infinity",
        '{"jsonrpc":"2.0","id":1}{"jsonrpc":"2.0","id":2}',
        "\ufeff{}",
        "0x10",
        "01",
    ],
)
def test_text_that_is_not_strict_json_is_a_parse_error(text):
    assert classify_json(text) == UNPARSABLE
    assert classify_json(text.encode("utf-8")) == UNPARSABLE


@pytest.mark.parametrize(
    "data",
    [
        b"\xff",
        b'{"jsonrpc":"2.0","method":"\xc3"}',
        b"\x80abc",
        '{"jsonrpc":"2.0","method":"x"}'.encode("utf-16"),
    ],
)
def test_invalid_utf8_is_a_parse_error(data):
    assert classify_json(data) == UNPARSABLE


@pytest.mark.parametrize("opener, closer", [("[", "]"), ('{"a":', "}")])
def test_nesting_too_deep_for_the_parser_is_a_parse_error(opener, closer):
    text = opener * 100_000 + "1" + closer * 100_000
    assert classify_json(text) == UNPARSABLE


@pytest.mark.course_only
def test_a_huge_integer_literal_is_still_an_integer():
    big = "9" * 5000  # past Python's default int-from-text digit limit
    assert classify_json('{"jsonrpc":"2.0","id":%s,"method":"ping"}' % big) == REQUEST


@pytest.mark.course_only
def test_integers_longer_than_the_parser_reads_are_a_parse_error():
    from mcp_lesson.rules.classification import MAX_INT_DIGITS

    template = '{"jsonrpc":"2.0","id":%s,"method":"ping"}'
    assert classify_json(template % ("9" * MAX_INT_DIGITS)) == REQUEST
    assert classify_json(template % ("-" + "9" * MAX_INT_DIGITS)) == REQUEST
    assert classify_json(template % ("9" * (MAX_INT_DIGITS + 1))) == UNPARSABLE
    assert classify_json("9" * 10_000_000) == UNPARSABLE  # at once, not in an hour
    assert "digits" in explain_json("9" * (MAX_INT_DIGITS + 1))


@pytest.mark.course_only
def test_a_hostile_str_subclass_is_read_as_plain_text():
    class Hostile(str):
        def strip(self, *args):
            raise RuntimeError("strip")

        def __str__(self):
            raise RuntimeError("str")

    assert classify_json(Hostile("{")) == UNPARSABLE
    assert classify_json(Hostile('{"jsonrpc":"2.0","method":"x"}')) == NOTIFICATION
    assert "-32700" in explain_json(Hostile("{"))
    assert reply_for_json(Hostile("{"))["error"]["code"] == PARSE_ERROR


@pytest.mark.course_only
def test_reply_for_survives_an_object_that_pretends_to_be_a_dict():
    class Pretender:
        @property  # type: ignore[misc]  # the lie under test
        def __class__(self):
            return dict

    assert reply_for(Pretender()) == error_response(None, INVALID_REQUEST, "Invalid Request")


def test_ten_megabytes_of_text():
    text = json.dumps(msg(id=1, method="x", params={"blob": "a" * 10_000_000}))
    assert classify_json(text) == REQUEST
    assert classify_json(text[:-1]) == UNPARSABLE


@pytest.mark.parametrize("value", [None, 42, ["{}"], object()])
@pytest.mark.course_only
def test_classify_json_never_raises_on_non_text(value):
    assert classify_json(value) == UNPARSABLE


# --- explain ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "message, words",
    [
        (msg(id=True, method="ping"), ["Invalid", "-32600", "true", "bool", "not an integer"]),
        (msg(id=1.0, method="ping"), ["float", "1.0"]),
        (msg(id=None, method="ping"), ["null", "error response"]),
        (msg(id=1, method="ping", params=None), ["params", "object"]),
        ([msg(id=1, method="ping")], ["batch", "2025-06-18"]),
        ({"jsonrpc": 2.0, "method": "x"}, ['"2.0"', "string"]),
        (msg(id=1, result={}, error=None), ["both"]),
        (msg(error=ERR), ['"id"', "null"]),
        (msg(id=1, error={"code": True, "message": "x"}), ["code", "bool"]),
        (msg(id=True, error=ERR), ["bool", "not an integer"]),
        (msg(id=2.0, result={}), ["float", "even 1.0"]),
        (msg(id=7, method="tools/list"), ["Request", "tools/list", "7"]),
        (msg(method="notifications/initialized"), ["Notification", 'no "id"']),
        (msg(id=1, result={}), ["Response", "result"]),
        (msg(id=None, error=ERR), ["Response", "error", "-32601"]),
    ],
)
@pytest.mark.course_only
def test_explain_names_the_rule_that_decided(message, words):
    text = explain(message)
    for word in words:
        assert word in text


@pytest.mark.course_only
def test_explain_points_out_a_stray_result_on_a_request():
    assert '"result"' in explain(msg(id=1, method="ping", result={}))


@pytest.mark.course_only
def test_explain_starts_with_the_verdict_for_every_case():
    from mcp_lesson import CASES

    for case in CASES:
        assert explain(case.message).startswith(case.kind.capitalize())


@pytest.mark.course_only
def test_explain_never_raises_and_stays_short():
    deep = []
    for _ in range(50_000):
        deep = [deep]
    for thing in [
        object(),
        deep,
        msg(id="x" * 10_000_000, method=1),
        msg(id=10**5000, method=None),
        msg(id=1, method="m" * 10_000_000),
        {"jsonrpc": "2.0", "method": 3, 1: 2},
    ]:
        text = explain(thing)
        assert isinstance(text, str) and len(text) < 600


@pytest.mark.course_only
def test_explain_json_gives_the_parse_reason():
    assert "-32700" in explain_json("{")
    assert "NaN" in explain_json('{"id": NaN}')
    assert "UTF-8" in explain_json(b"\xff")
    assert "deep" in explain_json("[" * 100_000)
    assert "empty" in explain_json("")
    assert explain_json('{"jsonrpc":"2.0","id":1,"method":"x"}').startswith("Request")


# --- replies ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "message",
    [msg(id=1, method="x"), msg(method="x"), msg(id=1, result={}), msg(id=None, error=ERR)],
)
def test_no_reply_from_the_message_layer_for_valid_messages(message):
    assert reply_for(message) is None


@pytest.mark.parametrize(
    "message, echoed",
    [
        (msg(id=5, method="x", params=None), 5),
        (msg(id="a", result=[]), "a"),
        (msg(id=0, method=1), 0),
        (msg(id=True, method="x"), None),
        (msg(id=1.0, method="x"), None),
        (msg(id=None, method="x"), None),
        (msg(id={"a": 1}, method="x"), None),
        ([msg(id=1, method="x")], None),
        ('"a JSON string"', None),
        ({"id": 9, "method": "x"}, 9),
    ],
)
def test_invalid_messages_get_invalid_request_echoing_a_valid_id(message, echoed):
    assert reply_for(message) == error_response(echoed, INVALID_REQUEST, "Invalid Request")


def test_wire_text_gets_parse_error_with_null_id_or_the_parsed_verdict():
    reply = reply_for_json
    assert reply("{") == error_response(None, PARSE_ERROR, "Parse error")
    assert reply(b"\xff") == error_response(None, PARSE_ERROR, "Parse error")
    assert reply('{"jsonrpc":"2.0","id":3,"method":"x"}') is None
    for invalid in (
        '{"jsonrpc":"2.0","id":3,"method":1}',
        '{"jsonrpc":"2.0","id":3,"method":"x","params":null}',
    ):
        assert reply(invalid) == error_response(3, INVALID_REQUEST, "Invalid Request")


# --- long numbers: one rule for every number of every text ------------------------------


@pytest.mark.course_only
def test_the_digit_limit_is_one_rule_per_number():
    """Only the length of each number counts, never how many digits short
    numbers and long ones add up to: 124,300 digits in numbers of 4,300 and
    125,000 in numbers of 5,000 are read alike."""
    from mcp_lesson.rules.classification import MAX_INT_DIGITS

    template = '{"jsonrpc":"2.0","id":1,"method":"x","params":{"n":[%s]}}'
    short = template % ",".join(["9" * 4300] * 29)  # Python's own int() reads these
    longer = template % ",".join(["9" * 5000] * 25)  # these it refuses; the parser does not
    assert classify_json(short) == classify_json(longer) == REQUEST
    value, reason = parse(longer)
    assert reason is None and value["params"]["n"][0] == int("9" * 1000) * 10**4000 + int(
        "9" * 4000
    )
    many = "[" + ",".join(["9" * MAX_INT_DIGITS] * 500) + "]"  # 10 MB of the longest numbers
    assert classify_json(many) == INVALID  # parsed: a list, not a parse error
    one_too_long = template % ",".join(["9" * 4300] * 28 + ["9" * (MAX_INT_DIGITS + 1)])
    assert classify_json(one_too_long) == UNPARSABLE
    assert f"{MAX_INT_DIGITS + 1:,} digits" in explain_json(one_too_long)


@pytest.mark.course_only
@pytest.mark.parametrize("digits", [4001, 8000, 8001, 16001, 19_999, 20_000])
def test_long_integers_are_read_exactly(digits):
    import random

    rng = random.Random(digits)
    literal = str(rng.randint(1, 9)) + "".join(str(rng.randint(0, 9)) for _ in range(digits - 1))
    for sign in ("", "-"):
        value, reason = parse(f"[{sign}{literal}]")
        assert reason is None
        import decimal

        assert value == [int(decimal.Decimal(sign + literal))]


@pytest.mark.course_only
def test_an_integral_float_id_is_explained_as_the_course_s_choice():
    text = explain_json('{"jsonrpc": "2.0", "id": 1e2, "method": "ping"}')
    assert "100.0 (a float)" in text
    for words in ("one number type", "1e2", "string | number", "JavaScript", "stricter"):
        assert words in text, words
    assert "stricter" not in explain(msg(id=1.5, method="ping"))
