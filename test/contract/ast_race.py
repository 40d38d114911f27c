"""Two threads parse Python source while the garbage collector runs finalizers, as Schemathesis'
workers do inside Hypothesis. Prints how many parses failed with SystemError, then Python's
version. With a path as the first argument, that file runs first (test/contract/hooks.py).
Run by test/contract/hooks.test.ts."""

import ast
import runpy
import sys
import threading

if len(sys.argv) > 1:
    runpy.run_path(sys.argv[1])

source = open(ast.__file__).read() * 4
failures = []


class Cycle:
    """Garbage only the collector frees; its finalizer runs Python in the middle of a parse."""

    def __del__(self):
        sum(range(200))


def parse_often():
    for _ in range(40):
        for _ in range(300):
            cycle = Cycle()
            cycle.me = cycle
        try:
            ast.parse(source)
        except SystemError as error:
            failures.append(str(error))
        if failures:
            return


sys.setswitchinterval(1e-6)
threads = [threading.Thread(target=parse_often) for _ in range(2)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(len(failures), "%d.%d" % sys.version_info[:2])
