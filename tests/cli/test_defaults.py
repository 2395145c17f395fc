"""The dashboard and the command line start from the same defaults (core.defaults)."""

from __future__ import annotations

import argparse

from core import defaults


def _parser_defaults(command: str, *argv: str) -> argparse.Namespace:
    from core.cli import build_parser

    return build_parser().parse_args([command, *argv])


def test_published_lambda_is_the_default():
    # the paper's reproduced run on the HMCEval release uses lambda = 4.6 with N = M / 2
    assert defaults.LAMBDA == 4.6 and defaults.HUMAN_SHARE == 0.5 and defaults.MODE == "at_most"


def test_app_and_cli_share_the_assignment_defaults():
    from pages._common import DEFAULTS

    args = _parser_defaults("assign", "x.csv")
    assert args.lam == DEFAULTS["lam"] == 4.6
    assert DEFAULTS["share"] == 0.5 and DEFAULTS["mode"] == "at_most"
    assert _parser_defaults("turns", "x.csv").lam == 4.6


def test_effort_model_defaults_are_the_papers():
    from core import hee

    args = _parser_defaults("effort", "x.csv", "--time-col", "t")
    assert (args.trees, args.seed, args.folds) == (100, 397, 5)
    assert (hee.DEFAULT_N_ESTIMATORS, hee.DEFAULT_MAX_FEATURES, hee.DEFAULT_RANDOM_STATE) == (100, 8, 397)


def test_effort_page_and_cli_read_the_same_defaults():
    """The Effort page's session defaults are the names of core.defaults the command reads (the
    page used 3 permutation repeats and the command 0 before issue 22)."""
    import ast
    from pathlib import Path

    page = Path(__file__).resolve().parents[2] / "pages" / "4_Effort.py"
    found = {}
    for node in ast.walk(ast.parse(page.read_text())):
        if isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values):
                if isinstance(k, ast.Constant) and k.value in ("eff_perm", "eff_folds", "eff_seed"):
                    found[k.value] = ast.unparse(v)
    assert found == {"eff_perm": "HEE_PERMUTATION_REPEATS", "eff_folds": "HEE_FOLDS",
                     "eff_seed": "DEFAULT_RANDOM_STATE"}
    args = _parser_defaults("effort", "x.csv", "--time-col", "t")
    assert args.permutation_repeats == defaults.HEE_PERMUTATION_REPEATS
    assert args.folds == defaults.HEE_FOLDS and args.seed == defaults.HEE_RANDOM_STATE
    assert "default: 3" in _effort_help() and defaults.HEE_PERMUTATION_REPEATS == 3


def _effort_help() -> str:
    from core.cli import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return " ".join(sub.choices["effort"].format_help().split())
