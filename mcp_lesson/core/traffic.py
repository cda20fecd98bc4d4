# Lesson 10's exported cells, written by the course when they ran.
# Change them in the notebook, not here: running a cell rewrites its part.
# --- written by the course: what this module takes from earlier lessons, and gives ---
from .classification import classify_json
from .errors import reply_for_json
__all__ = ['SIDES', 'audit']
# --- end of what the course writes ---

# --- cell c10-12 ---
import json

from .codes import PARSE_ERROR

#: The two directions of a recording.
SIDES = ("to_server", "from_server")


def audit(conversation):
    """The problems of a recorded conversation: a sorted list of (place, problem) tuples."""
    # The bookkeeping and the invalid lines (written for you).
    problems = []
    in_flight = {side: {} for side in SIDES}  # each side's requests waiting for an answer: id -> place
    answered = {side: set() for side in SIDES}  # the ids of its requests answered so far
    owed = {side: [] for side in SIDES}  # the ids of the errors its invalid lines may get back
    notified = {side: 0 for side in SIDES}  # its notifications, not yet counted against an answer
    for place, entry in enumerate(conversation, 1):
        side = entry.get("direction")
        if side not in SIDES:
            continue  # an event: nothing travelled
        other = "from_server" if side == "to_server" else "to_server"
        kind, code = classify_json(entry.get("text"))
        if kind == "invalid":
            problems.append((place, "pollution" if side == "from_server" and code == PARSE_ERROR else "invalid"))
            owed[side].append(reply_for_json(entry.get("text"))["id"])
            continue
        message = json.loads(entry["text"])
        # A valid line: a request, a notification or a response (yours to write).
        if kind == "request":
            if message["id"] in in_flight[side]:
                problems.append((place, "id_reused"))
            else:
                in_flight[side][message["id"]] = place
        elif kind == "notification":
            notified[side] += 1
        elif message["id"] in in_flight[other]:  # a response, to a request of the other side
            del in_flight[other][message["id"]]
            answered[other].add(message["id"])
        elif "error" in message and message["id"] in owed[other]:
            owed[other].remove(message["id"])  # the error prescribed for an invalid line
        elif message["id"] is None and notified[other]:
            notified[other] -= 1
            problems.append((place, "answer_to_notification"))
        elif message["id"] in answered[other]:
            problems.append((place, "answered_twice"))
        else:
            problems.append((place, "unknown_id"))
    # The end of the recording (yours to write).
    for side in SIDES:
        problems += [(place, "unanswered") for place in in_flight[side].values()]
    return sorted(problems)
