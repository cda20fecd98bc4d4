"""Runs inside each kernel that grades a submission: an endless loop costs one timeout.

When a cell runs past the grading timeout, nbgrader interrupts the kernel and
moves on. But the looping function is still defined, and every later cell
that calls it (the learner's self-check, the next exercise's tests) would loop
again and cost another full timeout. This guard is loaded when the grading
kernel starts (``execute_guard.GuardedExecute`` passes it to the kernel). Its
rule:

* when a cell is interrupted inside a function the submission defined, that
  function (the innermost one on the stack, the one that was running) is
  replaced in the notebook's namespace by a stand-in that raises
  ``TimeoutError`` at once, saying why;
* a line on the cell's output names it, so the teacher's log and the feedback
  say which function was switched off.

Later cells then fail fast where they call it, and run normally where they do
not: the submission loses the points of what depends on the loop, and nothing
else. A loop at the top level of a cell (in no function) just ends with the
interrupt. Outside grading nothing loads this file.
"""

import types

STOPPED = ("{name} was stopped: a call of it ran past the grading time limit, "
           "so the grader does not call it again")


def _user_functions(namespace):
    """{code object: name} of the plain functions the notebook defined itself."""
    found = {}
    for name, value in list(namespace.items()):
        if isinstance(value, types.FunctionType) and getattr(value, "__module__", None) == "__main__":
            found[value.__code__] = name
    return found


def culprit(namespace, tb):
    """The name of the innermost notebook function running in traceback ``tb``, or None."""
    functions = _user_functions(namespace)
    name = None
    while tb is not None:
        code = tb.tb_frame.f_code
        if code in functions:
            name = functions[code]
        tb = tb.tb_next
    return name


def stand_in(name):
    """A function that raises ``TimeoutError`` saying that ``name`` was stopped."""
    message = STOPPED.format(name=name)

    def stopped(*args, **kwargs):
        raise TimeoutError(message)

    stopped.__name__ = stopped.__qualname__ = name
    stopped.__module__ = "__main__"
    stopped.grading_stopped = True
    return stopped


def install(shell=None):
    """Hook the interrupt in IPython ``shell`` (default: the running one)."""
    if shell is None:
        from IPython import get_ipython

        shell = get_ipython()
    if shell is None:  # not in IPython: nothing to guard
        return

    def on_interrupt(shell, etype, value, tb, tb_offset=None):
        name = culprit(shell.user_ns, tb)
        stb = shell.InteractiveTB.structured_traceback(etype, value, tb, tb_offset=tb_offset)
        shell._showtraceback(etype, value, stb)
        if name is not None and not getattr(shell.user_ns[name], "grading_stopped", False):
            shell.user_ns[name] = stand_in(name)
            print(f"[grading] {name} was switched off: later calls of it raise TimeoutError at once")
        return stb

    shell.set_custom_exc((KeyboardInterrupt,), on_interrupt)
