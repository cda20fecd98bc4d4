"""Explanations: :func:`explain` names the rule that decides a verdict (walking the
rules with :func:`~mcp_lesson.rules.classification.rule_of`), in words a learner reads,
and says where the revisions, the MCP schema and the SDKs differ.
"""

from mcp_lesson.protocol.codes import PARSE_ERROR
from mcp_lesson.protocol.revisions import REVISIONS, switches
from mcp_lesson.protocol.strict_json import parse
from mcp_lesson.protocol.values import json_type, show_value
from mcp_lesson.rules.classification import (
    MAX_BATCH_MEMBERS,
    MISSING,
    RULES,
    SHOWN_MEMBERS,
    batch_members,
    classify,
    rule_of,
)


def _number_note(value):
    if isinstance(value, bool):
        return ", and a bool is not an integer (true is not 1)"
    if isinstance(value, float):
        note = ", and a float is not an integer, even 1.0"
        if value.is_integer():
            note += (
                ". JSON itself has one number type: this course reads numbers as Python "
                "does (a decimal point or an exponent, as in 1.0 or 1e2, makes a float). "
                "The MCP schema types ids as string | number, and JSON Schema's integer "
                "and JavaScript take 1.0 as the integer 1, so here the course is stricter"
            )
        return note
    if value is None:
        return "; null is allowed only on an error response"
    return ""


def _describe(value):
    """ "true (a bool)", "null", "missing", "a list of 2 items"..."""
    if value is MISSING:
        return "missing"
    if value is None or isinstance(value, (dict, list)):
        return show_value(value)
    return f"{show_value(value)} ({json_type(value)})"


_NULL_ID_NOTE = (
    ". Its id is null: JSON-RPC 2.0 allows that when the request's id could not be read, "
    "and so does this course, but no MCP schema does (2025-11-25 lets the id be left out "
    "instead), and the TypeScript SDK rejects it"
)


def _details(msg, switch):
    """Everything the explanation templates may mention, shown safely."""
    get = (
        (lambda key: dict.get(msg, key, MISSING))
        if isinstance(msg, dict)
        else (lambda key: MISSING)
    )
    error = get("error")
    code = dict.get(error, "code", MISSING) if isinstance(error, dict) else MISSING
    message = dict.get(error, "message", MISSING) if isinstance(error, dict) else MISSING
    size = list.__len__(msg) if isinstance(msg, list) else None  # what a list really stores
    return {
        "what": json_type(msg),
        "text_hint": (
            " (if it is the raw text of a message, parse it first, with json.loads)"
            if isinstance(msg, (str, bytes, bytearray))
            else ""
        ),
        "count": (f"{size:,} message{'s' * (size != 1)}" if size is not None else ""),
        "batch_note": " (revision 2025-03-26 alone allowed batches)" if size else "",
        "version": show_value(get("jsonrpc")),
        "method": show_value(get("method")),
        "params_type": json_type(get("params")),
        "id": show_value(get("id")),
        "id_type": json_type(get("id")),
        "id_desc": _describe(get("id")),
        "method_desc": _describe(get("method")),
        "id_note": _number_note(get("id")),
        "no_id_note": (
            '(an error response about an unreadable request uses "id": null'
            + (
                ""
                if switch.error_id_optional or "error" not in (msg if isinstance(msg, dict) else {})
                else ", or, from revision 2025-11-25, leaves the id out"
            )
            + ")"
        ),
        "null_note": _NULL_ID_NOTE if get("id") is None else "",
        "result_type": json_type(get("result")),
        "error_type": json_type(error),
        "code": show_value(code),
        "code_desc": _describe(code),
        "code_note": _number_note(code) if code is not None else "",
        "message_desc": _describe(message),
    }


def _oddities(msg, rule):
    """Extra remarks for valid messages that carry something surprising."""
    notes = []
    if rule in ("request", "notification"):
        stray = [key for key in ("result", "error") if dict.get(msg, key, MISSING) is not MISSING]
        if stray:
            names = " and ".join(f'"{key}"' for key in stray)
            notes.append(
                f'Note: it also has {names}; a message with "method" is judged only as a '
                "request or notification, so that member is ignored."
            )
        method = dict.get(msg, "method")
        if isinstance(method, str) and method.startswith("rpc."):
            notes.append('Note: method names starting with "rpc." are reserved by JSON-RPC.')
    return notes


def _head(verdict):
    kind, code = verdict
    return kind.capitalize() + (f" ({code})" if code is not None else "")


def explain(msg, revision=None):
    """A short, learner-readable account of ``classify(msg)``; never raises.

    It starts with the verdict and names the rule that decided it; for a
    batch (revision 2025-03-26), each member follows on a line of its own.
    """
    switch = switches(revision)
    rule = rule_of(msg, revision)
    try:
        text = f"{_head(RULES[rule].verdict)}: {RULES[rule].words.format(**_details(msg, switch))}."
        if isinstance(msg, dict):
            text = " ".join([text, *_oddities(msg, rule)])
        if rule == "json-rpc-batch":
            text += "".join(_member_lines(msg, revision))
        return text
    except Exception:  # the wording failed (a hostile value): the verdict still stands
        return f"{_head(RULES[rule].verdict)}: this value could not be described further."


def _member_lines(batch, revision):
    lines = []
    for number, member in enumerate(batch_members(batch, SHOWN_MEMBERS), 1):
        if isinstance(member, list):
            line = f"{_head(RULES['batch'].verdict)}: a batch cannot hold another list."
        else:
            line = explain(member, revision)
        if isinstance(member, dict) and dict.get(member, "method") == "initialize":
            line += " But initialize MUST NOT be part of a batch (2025-03-26, lifecycle)."
        lines.append(f"\n  {number}. {line}")
    size = list.__len__(batch)
    if size > SHOWN_MEMBERS:
        lines.append(f"\n  ... and {size - SHOWN_MEMBERS:,} more")
    if size > MAX_BATCH_MEMBERS:
        lines.append(
            f"\n  A server of this course processes the first {MAX_BATCH_MEMBERS:,} "
            f"members only and says so in its reply; the last {size - MAX_BATCH_MEMBERS:,} "
            "are not processed."
        )
    return lines


def explain_json(text, revision=None):
    """Like :func:`explain`, for raw text or bytes; a parse error says why."""
    switches(revision)
    value, reason = parse(text)
    if reason is not None:
        return parse_error_explanation(reason)
    return explain(value, revision)


def parse_error_explanation(reason):
    """The explanation for text that did not parse, given :func:`parse`'s reason."""
    return f"Invalid ({PARSE_ERROR}): parse error: {reason}."


def by_revision(msg):
    """``{revision: verdict}`` for every revision of :data:`REVISIONS`, oldest first."""
    return {revision: classify(msg, revision) for revision in REVISIONS}


def revision_note(msg):
    """One line saying how the verdict on ``msg`` changes across MCP revisions,
    e.g. "valid since 2025-11-25"; None when every revision agrees."""
    verdicts = by_revision(msg)
    if len(set(verdicts.values())) == 1:
        return None
    spans, start = [], REVISIONS[0]
    for before, after in zip(REVISIONS, REVISIONS[1:]):
        if verdicts[before] != verdicts[after]:
            spans.append((start, before, verdicts[before]))
            start = after
    spans.append((start, REVISIONS[-1], verdicts[REVISIONS[-1]]))
    valid = [span for span in spans if span[2][0] != "invalid"]
    if len(spans) == 2 and spans[0][2][0] == "invalid":
        return f"valid since {spans[1][0]} (a {spans[1][2][0]}); invalid before"
    if len(valid) == 1 and valid[0][0] == valid[0][1]:
        return f"valid only under {valid[0][0]} (a {valid[0][2][0]}); invalid under the others"
    parts = [f"{a}" + (f" to {b}" if a != b else "") + f": {v[0]}" for a, b, v in spans]
    return "differs by revision: " + "; ".join(parts)
