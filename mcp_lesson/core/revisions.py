# Lesson 08's exported cells, written by the course when they ran.
# Change them in the notebook, not here: running a cell rewrites its part.
# --- written by the course: what this module takes from earlier lessons, and gives ---
from .classification import INVALID, classify
__all__ = ['classify_at']
# --- end of what the course writes ---

# --- cell 070ecb0c ---
def classify_at(msg, revision):
    """classify(msg), but from revision 2025-11-25 on an error response may leave out its id."""
    verdict = classify(msg)
    if (verdict == INVALID and revision is not None and revision >= "2025-11-25"
            and isinstance(msg, dict) and "id" not in msg):
        return classify({**msg, "id": None})
    return verdict
