"""The result shapes of each revision's ``schema.json`` for the methods the course teaches, and
a check of a result against them (:func:`shape_problem`), with the ``jsonschema`` validator.

The schemas come from the public modelcontextprotocol/modelcontextprotocol repository
(``schema/<revision>/schema.json``), trimmed to the results of :data:`RESULTS` and the
definitions they refer to, without their descriptions, and stored in
``mcp_lesson/data/mcp_result_schemas.json`` with the commit they were read from.
:func:`vendor` writes that file again from a checkout of the repository (a test compares
it with the file stored, where a checkout is at hand).
"""

import json
import re
from pathlib import Path

#: The stored schemas.
STORED = Path(__file__).resolve().parent.parent / "data" / "mcp_result_schemas.json"
SOURCE = "https://github.com/modelcontextprotocol/modelcontextprotocol"
#: The methods whose results are checked, and the schema's name for each result. A revision
#: that lacks the definition (``ping`` and ``initialize`` in 2026-07-28, ``server/discover``
#: before it) leaves that method unchecked.
RESULTS = {
    "initialize": "InitializeResult",
    "ping": "EmptyResult",
    "server/discover": "DiscoverResult",
    "tools/list": "ListToolsResult",
    "tools/call": "CallToolResult",
    "resources/list": "ListResourcesResult",
    "resources/templates/list": "ListResourceTemplatesResult",
    "resources/read": "ReadResourceResult",
    "prompts/list": "ListPromptsResult",
    "prompts/get": "GetPromptResult",
    "completion/complete": "CompleteResult",
    "logging/setLevel": "EmptyResult",
}
#: 2026-07-28: a result may ask the client for more input instead (``resultType``).
INPUT_REQUIRED = "InputRequiredResult"
_REF = re.compile(r"^#/(definitions|\$defs)/(.+)$")


def _refs(node, found):
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and _REF.match(ref):
            found.add(_REF.match(ref).group(2))
        for value in node.values():
            _refs(value, found)
    elif isinstance(node, list):
        for value in node:
            _refs(value, found)


def _bare(node):
    """A schema without its descriptions (a ``description`` whose value is words, not the
    schema of a member named ``description``)."""
    if isinstance(node, dict):
        return {
            key: _bare(value)
            for key, value in node.items()
            if not (key in ("description", "$comment") and isinstance(value, str))
        }
    if isinstance(node, list):
        return [_bare(value) for value in node]
    return node


def trim(schema):
    """``schema`` (one revision's whole ``schema.json``) cut down to :data:`RESULTS`'s results
    and what they refer to: ``{"$schema", "defs": {...}, "key": "definitions" or "$defs"}``."""
    key = "$defs" if "$defs" in schema else "definitions"
    definitions = schema[key]
    wanted = [name for name in list(RESULTS.values()) + [INPUT_REQUIRED] if name in definitions]
    kept, todo = {}, list(wanted)
    while todo:
        name = todo.pop()
        if name in kept or name not in definitions:
            continue
        kept[name] = _bare(definitions[name])
        found = set()
        _refs(kept[name], found)
        todo += sorted(found - set(kept))
    return {"$schema": schema.get("$schema"), "key": key, "defs": dict(sorted(kept.items()))}


def vendor(checkout, revisions, commit):
    """The stored file's content, read from ``checkout`` (a function ``path -> text``, such as
    ``git show COMMIT:path``) for each revision."""
    return {
        "source": SOURCE,
        "commit": commit,
        "paths": "schema/<revision>/schema.json",
        "note": "trimmed by mcp_lesson.tap.schemas.trim: the results of the methods the course "
        "teaches and the definitions they refer to, descriptions left out",
        "revisions": {
            revision: trim(json.loads(checkout(f"schema/{revision}/schema.json")))
            for revision in revisions
        },
    }


_STORED = None
_VALIDATORS: dict = {}


def stored():
    global _STORED
    if _STORED is None:
        _STORED = json.loads(STORED.read_text(encoding="utf-8"))
    return _STORED


def _validator(revision, name):
    """A validator of the definition ``name`` of ``revision``, or None where it has none."""
    if (revision, name) not in _VALIDATORS:
        from jsonschema.validators import validator_for

        schema = stored()["revisions"].get(revision)
        if schema is None or name not in schema["defs"]:
            _VALIDATORS[revision, name] = None
        else:
            whole = {
                "$schema": schema["$schema"],
                schema["key"]: schema["defs"],
                "allOf": [{"$ref": f"#/{schema['key']}/{name}"}],
            }
            cls = validator_for(whole)
            _VALIDATORS[revision, name] = cls(whole)
    return _VALIDATORS[revision, name]


def shape_problem(method, result, revision):
    """Words for how ``result`` (a response's ``result`` to ``method``) breaks the schema of
    ``revision``; None when it fits, or when the method or revision is not checked."""
    name = RESULTS.get(method)
    if name is None or not isinstance(revision, str):
        return None
    if (
        revision >= "2026-07-28"
        and isinstance(result, dict)
        and result.get("resultType") == "input_required"
    ):
        name = INPUT_REQUIRED
    validator = _validator(revision, name)
    if validator is None:
        return None
    from jsonschema.exceptions import best_match

    error = best_match(validator.iter_errors(result))
    if error is None:
        return None
    where = "".join(
        f"[{part!r}]" if isinstance(part, int) else f".{part}" for part in error.absolute_path
    )
    message = error.message if len(error.message) <= 200 else error.message[:197] + "..."
    return f"result{where} does not fit {name}: {message}"
