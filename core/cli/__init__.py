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


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    from core.errors import DataError  # here: numpy is not needed to parse the options

    try:
        return int(args.func(args) or 0)
    except DataError as exc:
        sys.stderr.write(f"hmceval {args.command}: error: {exc}\n")
        return 2
    except FileNotFoundError as exc:
        sys.stderr.write(f"hmceval {args.command}: error: file not found: {exc.filename}\n")
        return 2


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
