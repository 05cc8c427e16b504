"""One exit-code convention for every `laya-lsp` command (`laya-lsp --help` shows it):

    0  success
    1  the command ran and failed: the model is missing or does not load, the server could not start, a client
       exited without shutdown
    2  bad usage: arguments, settings, an unreadable file, a position outside it
"""

from __future__ import annotations

import sys
from typing import NoReturn

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
EXIT_CODES = ("exit codes: 0 success; 1 the command ran and failed (the model is missing or does not load, the "
              "server could not start, a client exited without shutdown); 2 bad usage (arguments, settings, an "
              "unreadable file, a position outside it)")


def usage_error(message: str) -> NoReturn:
    """End the command for bad usage: the message on stderr, exit code 2."""
    print(f"laya-lsp: {message}", file=sys.stderr, flush=True)
    raise SystemExit(EXIT_USAGE)
