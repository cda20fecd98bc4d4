"""mcp_lesson.server.resumption: a store per session, priming events, replay after Last-Event-ID
(2025-11-25 basic/transports.mdx, "Resumability and Redelivery")."""

from http_server import open_session

from mcp_lesson.core.transport import read_sse
from mcp_lesson.server.resumption import RETRY_MS, _Store
from mcp_lesson.shared.sse import SSE

# --- the store -------------------------------------------------------------------------


def test_the_store_replays_only_the_stream_of_the_id_and_from_it_on():
    store = _Store()
    prime_a = store.add("a", None)
    one = store.add("a", "a1")
    store.add("b", "b1")
    two = store.add("a", "a2")
    assert store.after(prime_a) == ("a", [(prime_a, None), (one, "a1"), (two, "a2")])
    assert store.after(one) == ("a", [(one, "a1"), (two, "a2")])
    assert store.after("no such id") is None


def test_the_store_forgets_its_oldest_events_past_its_limit():
    store = _Store(limit=3)
    first = store.add("a", "1")
    for text in "234":
        last = store.add("a", text)
    assert store.after(first) is None and store.after(last) == ("a", [(last, "4")])


# --- on the real server ------------------------------------------------------------------


def events_of(text):
    """(last event id, retry, [(id, data)]) of a whole SSE body."""
    reader, found = SSE(), []
    for data, _, fields in reader.feed(text.encode()):
        found.append((fields.get("id"), data.decode()))
    return reader, found


COUNT = {
    "jsonrpc": "2.0",
    "id": 7,
    "method": "tools/call",
    "params": {"name": "count", "arguments": {"to": 3}, "_meta": {"progressToken": "p"}},
}


def test_a_stream_starts_with_a_priming_event_and_resumes_after_any_of_its_ids(server, http):
    headers = open_session(http, server.url)
    answer = http.post(server.url, headers=headers, json=COUNT)
    assert (
        answer.text.startswith("id: ") and f"\r\ndata: \r\nretry: {RETRY_MS}\r\n\r\n" in answer.text
    )
    reader, events = events_of(answer.text)
    assert (
        reader.retry == RETRY_MS and len(events) == 4
    )  # three progress notifications, the response
    (first_id, _), *rest = events
    resumed = http.get(
        server.url, headers={**headers, "Accept": "text/event-stream", "Last-Event-ID": first_id}
    )
    assert resumed.status_code == 200
    # What followed the first progress event, with the same ids; then the stream ends, as it
    # had ended with its response.
    assert events_of(resumed.text)[1] == rest
    assert [data for data, _ in read_sse(resumed.text)] == [data for _, data in rest]


def test_an_id_of_another_session_replays_nothing(server, http):
    one, other = open_session(http, server.url), open_session(http, server.url)
    _, events = events_of(http.post(server.url, headers=one, json=COUNT).text)
    resumed = http.get(
        server.url, headers={**other, "Accept": "text/event-stream", "Last-Event-ID": events[0][0]}
    )
    assert resumed.status_code == 200 and read_sse(resumed.text) == []
