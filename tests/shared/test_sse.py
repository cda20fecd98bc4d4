"""mcp_lesson.shared.sse: a live event stream, cut however its bytes arrive (the HTML standard's rules)."""

import pytest

from mcp_lesson.shared.sse import SSE


def cut(stream, size, reader=None):
    reader = reader or SSE()
    events = []
    for start in range(0, len(stream), size):
        events += reader.feed(stream[start : start + size])
    return events, reader


@pytest.mark.parametrize("size", [1, 2, 5, 1000])
def test_events_are_cut_however_the_bytes_arrive(size):
    stream = (
        b': a comment\r\n\r\nid: 7\r\nevent: message\r\ndata: {"a":\r\ndata: 1}\r\n\r\n'
        b"data: two\n\nid: only-an-id\n\n"
    )
    events, reader = cut(stream, size)
    assert events == [(b'{"a":\n1}', 8, {"id": "7", "event": "message"}), (b"two", 3, {})]
    assert reader.last_id == "only-an-id"  # an id sets the last event id, even without data


@pytest.mark.parametrize("size", [1, 3, 1000])
def test_a_priming_event_is_no_message_but_gives_its_id_and_retry(size):
    """2025-11-25's transports page: an id and an empty data line, first; a retry in ms."""
    stream = b"id: 1\r\ndata: \r\nretry: 1000\r\n\r\nid: 2\r\nevent: message\r\ndata: {}\r\n\r\n"
    events, reader = cut(stream[:30], size)
    assert events == [] and (reader.last_id, reader.retry) == ("1", 1000)
    events, reader = cut(stream[30:], size, reader)
    assert events == [(b"{}", 2, {"id": "2", "event": "message"})] and reader.last_id == "2"


def test_a_retry_that_is_not_digits_and_an_id_with_nul_are_ignored():
    events, reader = cut(b"retry: 5s\nid: a\0b\nretry: 250\nretry: -1\ndata: x\n\n", 1000)
    assert events == [(b"x", 1, {})] and (reader.last_id, reader.retry) == (None, 250)


def test_two_empty_data_lines_make_a_newline_and_cr_alone_ends_lines():
    events, _ = cut(b"data:\rdata:\r\rdata:one\r\r\n", 1)
    assert events == [(b"\n", 1, {}), (b"one", 3, {})]


def test_data_past_the_limit_is_counted_not_kept():
    events, _ = cut(b"data: " + b"x" * 50 + b"\ndata: y\n\n", 7, SSE(max_data=10))
    assert events == [(b"x" * 10, 52, {})]


@pytest.mark.parametrize("size", [1, 7, 64, 1000])
def test_a_long_event_in_many_chunks_is_the_same_event(size):
    """The chunks inside one long line are kept aside and joined once, with the same result
    (and the same count of what is past the limit) as the whole stream fed at once."""
    stream = (
        b"id: 9\r\ndata: " + b"abc" * 300 + b"\r\ndata: " + b"z" * 200 + b"\r\n\r\ndata: end\n\n"
    )
    for limit in (10_000, 500, 5):
        whole = SSE(max_data=limit)
        assert cut(stream, size, SSE(max_data=limit))[0] == whole.feed(stream)
