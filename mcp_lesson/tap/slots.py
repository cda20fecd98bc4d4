"""What the audit reads a conversation into: a slot per message (its place, direction,
kind, id key and revision, and whether it was too long to judge), and a scope per side's
ids (a session, or a stdio conversation), with the requests still waiting for an answer."""

import json

from mcp_lesson.rules.classification import reply_for
from mcp_lesson.tap._settings import DIRECTIONS
from mcp_lesson.tap.entries import id_key

#: What lesson 10's audit is given for a line that is not JSON.
_NOT_JSON = "-"


class Slot:
    """One message as lesson 10's audit sees it, and where it came from."""

    __slots__ = (
        "index",
        "direction",
        "member",
        "kind",
        "reason",
        "revision",
        "batch",
        "exchange",
        "key",
        "refusal",
        "cut",
    )

    def __init__(
        self,
        index,
        direction,
        member,
        kind,
        reason,
        revision,
        batch,
        exchange,
        refusal=False,
        cut=False,
    ):
        self.index, self.direction, self.member, self.kind = index, direction, member, kind
        self.reason, self.revision, self.batch, self.exchange = reason, revision, batch, exchange
        self.refusal = refusal  # an HTTP refusal's answer to a request of its exchange (no message)
        self.cut = cut  # too long to judge: only its id and kind are known, read from its ends
        self.key = id_key(member.get("id")) if isinstance(member, dict) else None

    @property
    def asks(self):
        """A request, valid or not, whose id can be read: owed an answer with that id."""
        return (
            self.key is not None and "method" in self.member and self.kind in ("request", "invalid")
        )


class Scope:
    """One scope's messages in time order, with indexes to put the problems in words: the
    places of each side's requests by id, of its answers by id, and of its notifications."""

    def __init__(self):
        self.slots = []
        self.requests = {}  # (direction, id key) -> places, in order
        self.answers = {}  # (direction of the answerer, id key) -> places, in order
        self.notifications = {direction: [] for direction in DIRECTIONS}
        self.unanswered = {}  # direction -> the places of its requests lesson 10 finds unanswered

    def add(self, slot):
        self.slots.append(slot)
        place = len(self.slots)
        if slot.asks:
            self.requests.setdefault((slot.direction, slot.key), []).append(place)
        elif slot.kind == "notification":
            self.notifications[slot.direction].append(place)
        elif slot.kind == "response" and slot.key is not None:
            self.answers.setdefault((slot.direction, slot.key), []).append(place)

    def text(self):
        """The scope as lesson 10's audit reads a conversation. Each id is a small integer of
        its own (the same id, the same integer): an id of 5,000 digits or a megabyte is read
        by the tap once, never again by lesson 10's parser."""
        tokens = {}

        def token(key):
            return None if key is None else tokens.setdefault(key, len(tokens))

        return [{"direction": slot.direction, "text": stand_in(slot, token)} for slot in self.slots]


def stand_in(slot, token):
    """A line of the same kind as ``slot``'s message under its revision, with ``token`` of its
    id, as lesson 10's audit reads it: lesson 10 judges by the course's revision-free rules,
    the tap by the revision agreed, so the tap gives its verdict through the text."""
    member = slot.member
    if slot.reason is not None:
        return _NOT_JSON
    if slot.kind == "notification":
        return '{"jsonrpc": "2.0", "method": "m"}'
    if slot.kind == "request":
        shape = {"method": "m"}
    elif slot.kind == "response":
        shape = {"error": {"code": 0, "message": ""}} if "error" in member else {"result": {}}
    else:  # invalid: lesson 10 owes it the error the revision prescribes, with the id it can read
        reply = reply_for(member, slot.revision) if isinstance(member, (dict, list)) else None
        owed = token(id_key(reply.get("id"))) if isinstance(reply, dict) else None
        return json.dumps(
            {"jsonrpc": "2.0", "id": owed} if owed is not None else {"jsonrpc": "2.0"}
        )
    return json.dumps({"jsonrpc": "2.0", "id": token(slot.key), **shape})
