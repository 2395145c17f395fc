"""The ``hmceval`` command line.

Subcommands are discovered automatically: every module ``core/cli/cmd_<name>.py`` defines
``register(subparsers)``, which adds its parser and sets ``func=run`` with
``run(args) -> int``. A :class:`core.errors.DataError` becomes a message on stderr and exit
code 2, the same text the dashboard shows.

Building the parser imports every ``cmd_<name>`` module, so those keep only what their parser
needs at the top (argparse, :mod:`core.defaults`) and import the analysis (numpy, pandas,
scipy, scikit-learn, torch...) inside ``run``: ``hmceval --help`` and a mistyped option stay
fast.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser with every discovered subcommand."""
    parser = argparse.ArgumentParser(
        prog="hmceval",
        description="Human-machine collaborative evaluation (HMCEval) from the command line.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("cmd_"):
            module = importlib.import_module(f"{__name__}.{info.name}")
            module.register(sub)
    return parser


#: exit code when the reader of stdout left (``hmceval ... | head``): 128 + SIGPIPE, what the
#: shell reports for a unix tool the closed pipe stopped
EXIT_CLOSED_PIPE = 141


def _quiet_closed_pipe() -> int:
    """stdout's reader has left: point stdout at devnull so nothing more (not even Python's
    flush at exit) writes to the closed pipe, and stop quietly."""
    import os

    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a real file (a test's capture)
        pass
    return EXIT_CLOSED_PIPE


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit code.

    Every command's output survives a closed pipe (``hmceval workspace list | head``): the
    command stops quietly with :data:`EXIT_CLOSED_PIPE`, as unix tools do, with no traceback.
    """
    try:
        return _main(argv)
    except BrokenPipeError:
        return _quiet_closed_pipe()


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit:  # --help, or a usage error: argparse printed it; flush it here
        sys.stdout.flush()
        raise
    from core.errors import DataError  # here: numpy is not needed to parse the options

    try:
        code = int(args.func(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, not at exit
        return code
    except DataError as exc:
        sys.stderr.write(f"hmceval {args.command}: error: {exc}\n")
        return 2
    except FileNotFoundError as exc:
        sys.stderr.write(f"hmceval {args.command}: error: file not found: {exc.filename}\n")
        return 2


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
