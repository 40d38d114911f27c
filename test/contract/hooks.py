"""Loaded by test/contract/run.sh (SCHEMATHESIS_HOOKS) before Schemathesis runs: no hooks of
Schemathesis' own, one guard for the Python of the virtualenv.

Python 3.11 counts the depth of the syntax tree it builds in ast.parse in state that every
thread shares. When the garbage collector runs a finalizer in the middle of a parse, another
thread can take over and parse too, and the first parse ends with
"SystemError: AST constructor recursion depth mismatch". Schemathesis' workers are threads, and
Hypothesis parses Python source to describe the lambdas of its strategies: a CI run on Python
3.11.7 failed two operations that way. One lock around ast.parse keeps the parses apart; it
costs nothing a run can measure, since parsing is seldom and Hypothesis keeps what it parsed.
"""

import ast
import threading

_parse = ast.parse
_lock = threading.RLock()


def _parse_alone(*args, **kwargs):
    with _lock:
        return _parse(*args, **kwargs)


ast.parse = _parse_alone
