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
