# Lesson 02's exported cells, written by the course when they ran.
# Change them in the notebook, not here: running a cell rewrites its part.
# --- written by the course: what this module takes from earlier lessons, and gives ---
__all__ = ['is_integer', 'is_valid_id', 'create_request']
# --- end of what the course writes ---

# --- cell c02-08 ---
def is_integer(value):
    """True for an int that is not a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_valid_id(value):
    """True for a string or an integer."""
    return isinstance(value, str) or is_integer(value)

# --- cell c02-11 ---
def create_request(method, params=None, request_id=None):
    """Build a request, or a notification when request_id is None."""
    if not isinstance(method, str):
        raise TypeError(f"method must be a str, got {type(method).__name__}")
    if params is not None and not isinstance(params, dict):
        raise TypeError(f"params must be a dict (a JSON object), got {type(params).__name__}")
    message = {"jsonrpc": "2.0", "method": method}
    if request_id is not None:
        if not is_valid_id(request_id):
            raise TypeError("request_id must be a str or an int (not a bool or a float), "
                            f"got {type(request_id).__name__}")
        message["id"] = request_id
    if params is not None:
        message["params"] = params
    return message
