"""Settings for the whole suite, notebooks included (this file sits at the root
so that it is loaded before nbval starts any kernel)."""

import os

# nbval compares everything a cell prints, stderr too. A library that starts
# printing a DeprecationWarning must not turn a lesson red at random, so the
# kernels (and the servers the lessons start) inherit "ignore warnings". Only
# child processes read this variable; the pytest process itself is unchanged.
os.environ.setdefault("PYTHONWARNINGS", "ignore")
