# Lesson 06's exported cells, written by the course when they ran.
# Change them in the notebook, not here: running a cell rewrites its part.
# --- written by the course: what this module takes from earlier lessons, and gives ---
from .classification import classify_json
__all__ = ['is_reply_to']
# --- end of what the course writes ---

# --- cell 4850c262 ---
import json


def is_reply_to(line, request_id):
    """True when the wire text `line` is a response to the request with `request_id`."""
    if classify_json(line) != ("response", None):
        return False
    return json.loads(line)["id"] == request_id
