"""The MCP revisions whose message layer the course knows, and what each changes:
one table (:data:`SWITCHES`), read by classify, explain, the replies, the tap and the
widgets.
"""

from typing import NamedTuple

from mcp_lesson.protocol.values import show_value

#: The MCP revisions whose message layer the functions here know, oldest first.
REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")


class Switches(NamedTuple):
    """What a revision changes in the message layer."""

    batches: bool  # a non-empty list is a batch of messages (only 2025-03-26)
    error_id_optional: bool  # an error response may leave out "id" (2025-11-25 on)


#: The course's rules (None) and each revision's, as data.
SWITCHES = {
    None: Switches(batches=False, error_id_optional=False),
    "2024-11-05": Switches(batches=False, error_id_optional=False),
    "2025-03-26": Switches(batches=True, error_id_optional=False),
    "2025-06-18": Switches(batches=False, error_id_optional=False),
    "2025-11-25": Switches(batches=False, error_id_optional=True),
    "2026-07-28": Switches(batches=False, error_id_optional=True),
}


def switches(revision):
    """The :class:`Switches` of ``revision``; a ``ValueError`` naming the known ones."""
    try:
        return SWITCHES[revision]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown MCP revision {show_value(revision)}; the known ones are "
            f"{', '.join(REVISIONS)} (or None for the course's rules)"
        ) from None
