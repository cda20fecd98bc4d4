"""Which code a check judges (mcp_lesson/exercises/on_screen.py): what a cell means to define,
read from its text even when it does not parse, and where a cell stopped. The hooks themselves
run in a real kernel: tests/exercises/test_learner_package.py."""

from mcp_lesson.exercises.on_screen import names_defined, stale_note, watch, where_it_stopped


def test_a_cell_that_does_not_parse_still_names_what_it_meant_to_define():
    source = (
        "#| export\nimport json\n\ndef create_request(method, params=None:\n    return {\n\n"
        "class Reply:\n    def inner(self):\n        pass\nasync def later():\n    pass\n"
    )
    assert names_defined(source) == ["create_request", "Reply", "inner", "later"]
    assert names_defined(None) == []


def test_where_a_cell_stopped():
    try:
        compile("x = (\n", "<cell>", "exec")
    except SyntaxError as exc:
        assert where_it_stopped(exc) == ("a SyntaxError", 1)
    try:
        exec(compile("a = 1\nb = undefined_name\n", "<cell>", "exec"), {})
    except NameError as exc:
        assert where_it_stopped(exc) == ("a NameError", 2)
    assert where_it_stopped(None) == ("an error", None)


def test_a_function_no_stopped_cell_meant_to_redefine_gets_no_note():
    def classify(msg):
        return ("request", None)

    watch()  # outside IPython: nothing to watch (False); inside, the hooks start
    assert stale_note(classify) is None
