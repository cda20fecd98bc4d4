"""Target practice (lessons 02 and 03): :func:`aim`, "write a message that this rule
catches, and that rule alone", with :func:`broken_rules`, every rule a message breaks, not
only the first; and the two small helpers the lessons' other checks share with it."""

from mcp_lesson.exercises.agreement import outcome as _outcome
from mcp_lesson.exercises.calling import NOT_YET, exception_text, python_text, same_json
from mcp_lesson.rules import classification, explanation


def _answer_of(fn):
    """Call the learner's ``fn()``; on trouble print why and return ``(False, None)``."""
    name = getattr(fn, "__name__", "fn")
    status, value = _outcome(fn, ())
    if status == "todo":
        print(f"{name}: {NOT_YET}")
    elif status == "raised":
        print(f"{name}: raises {exception_text(value, 200)}")
    return status == "value", value


def _plural(count, word):
    return f"{count} {word}" + ("" if count == 1 else "s")


def _short(rule):
    found = classification.RULES.get(rule)
    return found.short if found else rule


def _mended(msg, rule):
    """A copy of the dict ``msg`` with what ``rule`` caught put right, or None when
    there is no one way to mend it (which of "result" and "error" was meant?)."""
    fixed = dict(dict.items(msg))
    error = fixed.get("error")
    error = dict(dict.items(error)) if isinstance(error, dict) else error
    if rule in ("no-jsonrpc", "bad-jsonrpc"):
        fixed["jsonrpc"] = "2.0"
    elif rule == "bad-method":
        fixed["method"] = "ping"
    elif rule == "bad-params":
        del fixed["params"]
    elif rule in ("bad-request-id", "bad-result-id", "bad-error-id", "no-response-id"):
        fixed["id"] = 1
    elif rule == "bad-result":
        fixed["result"] = {}
    elif rule == "bad-error":
        fixed["error"] = {"code": -32603, "message": "Internal error"}
    elif rule == "bad-error-code":
        fixed["error"] = {**error, "code": -32603}
    elif rule == "bad-error-message":
        fixed["error"] = {**error, "message": "Internal error"}
    else:
        return None
    return fixed


def broken_rules(msg, revision=None):
    """Every rule ``msg`` breaks (names of :data:`classification.RULES`), in the
    order ``classify`` tries them: the first is the one that catches it, the rest
    are those it would meet next, once each earlier fault is put right. Empty for
    a valid message. Never raises, but for an unknown ``revision``."""
    broken = []
    current = msg
    while True:
        rule = classification.rule_of(current, revision)
        if classification.RULES[rule].verdict[0] != "invalid" or rule in broken:
            return broken
        broken.append(rule)
        if not isinstance(current, dict):
            return broken
        try:
            current = _mended(current, rule)
        except Exception:  # a hostile object: what is known so far
            return broken
        if current is None:
            return broken


def _unlike(msg, asked, where=""):
    """The first member of ``asked`` (a dict, nested dicts too) that ``msg`` lacks or holds
    another value for, in words; None when every one is there. Values compare as JSON does,
    so ``3`` is not ``3.0`` nor ``True``; members not asked for may be there too."""
    for key, want in asked.items():
        path = f"{where}{key}"
        if not isinstance(msg, dict) or key not in msg:
            return f"it has no {path}, which should be {python_text(want, 60)}"
        have = msg[key]
        if isinstance(want, dict) and isinstance(have, dict):
            found = _unlike(have, want, f"{path}.")
            if found:
                return found
        elif not same_json(have, want):
            return f"its {path} should be {python_text(want, 60)}, not {python_text(have, 60)}"
    return None


def aim(fn, rule, asked=None):
    """Target practice: does the message ``fn()`` returns get caught by ``rule``,
    and by that rule alone? A message that breaks more rules than the one asked
    for is a hit that says so, naming the others. ``asked`` (a dict) is the
    content the exercise asks for: members the message must hold with these
    values (params ``{"requestId": 3}``: that member of params); a message that
    the rule catches but that is not the one asked for is no hit."""
    name = getattr(fn, "__name__", "fn")
    answered, msg = _answer_of(fn)
    if not answered:
        return
    if msg is None:
        print(
            f"{name}: it returned None. Give the message back with return: what a function "
            "prints, the check cannot see"
        )
        return
    got = classification.rule_of(msg)
    broken = broken_rules(msg)
    others = [other for other in broken if other != rule]
    unlike = _unlike(msg, asked) if asked else None
    if got == rule and unlike:
        print(f"{name}: the rule is right, but this is not the message asked for: {unlike}")
    elif got == rule and not others:
        print(f"{name}: hit! {_short(rule)}")
    elif got == rule:
        print(f"{name}: hit, but not only that rule. It is caught by '{_short(rule)}',")
        print(
            f"  and it also breaks {_plural(len(others), 'more rule')}: "
            + "; ".join(f"'{_short(other)}'" for other in others)
        )
        print("  Put those right, so that the rule you aimed at is the only one it breaks.")
    else:
        print(f"{name}: miss. Wanted the rule '{_short(rule)}',")
        print(f"  but {explanation.explain(msg)}")
        if rule in broken:
            print(f"  It does break '{_short(rule)}' too, but '{_short(got)}' catches it first.")
