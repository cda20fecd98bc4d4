"""The HTTP tap's own errors of an exchange, as the audit reports them: a server the tap
could not reach (``not_delivered``, a note) and an answer that broke off before the response
to a request of its exchange (``broken_off``). Called by :mod:`.audit` with its reading of
the conversation, as :mod:`.rules` is."""

from mcp_lesson.tap.entries import _method, show_id
from mcp_lesson.tap.judge import _short


def tap_error_findings(reading):
    """The HTTP tap's errors of an exchange: a server that was never reached owes its requests
    nothing (a note); an answer that broke off before the response to a request of its
    exchange is that request's finding (``broken_off``), said once, for all of them."""
    found, waiting = [], None
    for index in reading.tap_errors:
        event = reading.conversation[index]
        exchange = event["exchange"]
        reached = event.get("reached")
        if reached is None:  # a recording of a tap that did not say
            reached = not str(event.get("detail", "")).startswith("cannot reach")
        owed = [
            (scope, slot)
            for scope, slot in reading.by_exchange.get(exchange, ())
            if not reading._forgiven(scope, slot)
        ]
        if not reached:
            reading.forgive_exchange(exchange, index)
            asked = ", ".join(
                f"{show_id(slot.member['id'])} ({_method(slot.member)})" for _, slot in owed
            )
            what = f"request{'s' if len(owed) > 1 else ''} {asked}" if owed else "message"
            found.append(
                reading._problem(
                    index,
                    "not_delivered",
                    f"the tap could not reach the server, so the "
                    f"client's {what} never reached it (the client got a 502): "
                    f"{_short(str(event.get('detail', '')), 200)}",
                )
            )
            continue
        if waiting is None:
            waiting = {
                id(scope.slots[place - 1])
                for scope in reading.scopes.values()
                for place in scope.unanswered.get("to_server", ())
            }
        left = [(scope, slot) for scope, slot in owed if id(slot) in waiting]
        if not left:
            continue
        for _scope, slot in left:
            reading.broken.add(id(slot))
        asked = ", ".join(
            f"{show_id(slot.member['id'])} ({_method(slot.member)}, line {reading.line(slot.index)})"
            for _, slot in left
        )
        size = event.get("size")
        came = (
            f"; the {size:,} bytes that came are kept in the recording"
            if type(size) is int and size
            else "; nothing of it came"
            if size == 0
            else ""
        )
        found.append(
            reading._problem(
                index,
                "broken_off",
                f"the server's answer to the client's request"
                f"{'s' if len(left) > 1 else ''} {asked} broke off before "
                f"{'their responses' if len(left) > 1 else 'its response'}: "
                f"{_short(str(event.get('detail', '')), 200)}{came}",
                revision=left[0][1].revision,
            )
        )
    return found
