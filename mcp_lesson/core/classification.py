# Lesson 03's exported cells, written by the course when they ran.
# Change them in the notebook, not here: running a cell rewrites its part.
# --- written by the course: what this module takes from earlier lessons, and gives ---
from .messages import is_integer, is_valid_id
__all__ = ['REQUEST', 'NOTIFICATION', 'RESPONSE', 'INVALID', 'is_object', 'has_version', 'judge_call', 'judge_result', 'judge_error', 'classify', 'refuse_constant', 'classify_json']
# --- end of what the course writes ---

# --- cell e0e01565 ---
import json

from .codes import INVALID_REQUEST, PARSE_ERROR

REQUEST = ("request", None)
NOTIFICATION = ("notification", None)
RESPONSE = ("response", None)
INVALID = ("invalid", INVALID_REQUEST)

# --- cell c03-05 ---
def is_object(msg):
    return isinstance(msg, dict)

# --- cell c03-07 ---
def has_version(msg):
    return msg.get("jsonrpc") == "2.0"

# --- cell c03-11 ---
def judge_call(msg):
    """The verdict for a dict that has a "method" key."""
    if not isinstance(msg["method"], str):
        return INVALID
    if "params" in msg and not isinstance(msg["params"], dict):
        return INVALID
    if "id" not in msg:
        return NOTIFICATION
    return REQUEST if is_valid_id(msg["id"]) else INVALID

# --- cell c03-13 ---
def judge_result(msg):
    """The verdict for a dict with "result" and "id" (and no "method", no "error")."""
    if not isinstance(msg["result"], dict):
        return INVALID
    return RESPONSE if is_valid_id(msg["id"]) else INVALID

# --- cell c03-15 ---
def judge_error(msg):
    """The verdict for a dict with "error" and "id" (and no "method", no "result")."""
    error = msg["error"]
    if not isinstance(error, dict):
        return INVALID
    if not is_integer(error.get("code")) or not isinstance(error.get("message"), str):
        return INVALID
    if msg["id"] is None or is_valid_id(msg["id"]):
        return RESPONSE
    return INVALID

# --- cell c03-17 ---
def classify(msg):
    """Return (kind, code) for any parsed JSON value."""
    if not is_object(msg) or not has_version(msg):
        return INVALID
    if "method" in msg:
        return judge_call(msg)
    if ("result" in msg) == ("error" in msg) or "id" not in msg:
        return INVALID
    if "result" in msg:
        return judge_result(msg)
    return judge_error(msg)

# --- cell c03-22 ---
def refuse_constant(name):
    raise ValueError(f"{name} is not JSON")


def classify_json(text):
    """Classify raw text or bytes; text that is not JSON is a parse error."""
    try:
        if isinstance(text, (bytes, bytearray)):
            text = text.decode("utf-8")
        value = json.loads(text, parse_constant=refuse_constant)
    except (ValueError, TypeError, RecursionError):
        return ("invalid", PARSE_ERROR)
    return classify(value)
