"""What the command-line tests share: running ``hmceval`` in-process."""

from __future__ import annotations

from core.cli import main


def run_cli(capsys, *argv):
    """Run ``hmceval argv...`` (arguments as text); ``(exit code, stdout, stderr)``."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err
