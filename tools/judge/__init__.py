"""The judge: learner code runs in a sandbox, verdicts are decided outside it.

Graduation (``make graduate``, tests/implementation.py) and classroom grading
(``make autograde``, tools/grading/judged_execute.py) both use it:

* :mod:`.sandbox` starts a worker for one submission, walled off by bubblewrap;
* :mod:`.worker` (inside) imports the learner's package or runs a notebook's
  cells, and calls their functions on the values it is sent;
* :mod:`.wire` carries values both ways as JSON with their exact types;
* :mod:`.learner` makes each of the learner's functions a stand-in on the
  judge's side: calling it sends the call into the sandbox and gives back the
  answer as fresh, plain Python values (or raises the exception it raised, as
  the built-in type it derives from), so the tests and the graded cells run
  in the judge's own interpreter, which the learner's code never touches;
* :mod:`.stand_in` writes the ``mcp_lesson`` the sandbox sees: the error codes
  and the revisions, the course's versions of the functions earlier lessons
  built (when a lesson may use them), and, for everything else, a function
  that does nothing and returns None.
"""
