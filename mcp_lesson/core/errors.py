# Lesson 04's exported cells, written by the course when they ran.
# Change them in the notebook, not here: running a cell rewrites its part.
# --- written by the course: what this module takes from earlier lessons, and gives ---
from .classification import classify, classify_json
from .messages import is_integer, is_valid_id
__all__ = ['OMITTED', 'error_response', 'reply_for', 'reply_for_json']
# --- end of what the course writes ---

# --- cell ef1a9576 ---
import json

from .codes import ERROR_MESSAGES, PARSE_ERROR

# --- cell c04-06 ---
OMITTED = object()   # the sentinel: "no data given"

def error_response(id, code, message, data=OMITTED):
    """Build an error response; id may be None when the request's id is unknown."""
    if id is not None and not is_valid_id(id):
        raise TypeError(f"id must be a str, an int or None (not a bool or a float), got {type(id).__name__}")
    if not is_integer(code):
        raise TypeError(f"code must be an int (not a bool), got {type(code).__name__}")
    if not isinstance(message, str):
        raise TypeError(f"message must be a str, got {type(message).__name__}")
    error = {"code": code, "message": message}
    if data is not OMITTED:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": id, "error": error}

# --- cell c04-09 ---
def reply_for(msg):
    """The reply a strict server sends for a parsed message, or None."""
    kind, code = classify(msg)
    if kind != "invalid":
        return None
    request_id = msg.get("id") if isinstance(msg, dict) else None
    if not is_valid_id(request_id):
        request_id = None
    return error_response(request_id, code, ERROR_MESSAGES[code])

# --- cell c04-12 ---
def reply_for_json(text):
    """The reply a strict server sends for raw text or bytes, or None."""
    if classify_json(text) == ("invalid", PARSE_ERROR):
        return error_response(None, PARSE_ERROR, ERROR_MESSAGES[PARSE_ERROR])
    return reply_for(json.loads(text))
