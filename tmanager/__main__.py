"""``python -m tmanager``: the same as the ``tmanager`` command."""

import contextlib
import os
import sys

from tmanager.cli import INTERRUPTED, main

status = main()
if status == INTERRUPTED:
    # Under `python -m`, CPython (3.11 at least) ends the process by SIGINT at exit, whatever
    # status it was given, once a KeyboardInterrupt has escaped any exec()'d code, even if it was
    # caught later: dataclasses and namedtuples build their methods with exec(), so a Ctrl-C or
    # SIGTERM during an import did it. The `tmanager` script exits by another path, unaffected.
    # An interrupted command has already unwound and cleaned up; only the streams need flushing.
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(status)
sys.exit(status)
