"""One formatting function per kind of number (issue 33): hand-worked texts, at most 4
significant digits, no scientific notation, ``n/a`` for every kind of missing value."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, strategies as st

from core.format import count, format_effort, lam, pct, plain_number, prob, pvalue, setting_number

MISSING = [None, float("nan"), np.nan, float("inf"), pd.NA, np.float64("nan")]


@pytest.mark.parametrize("f", [pct, count, lam, prob, plain_number, setting_number,
                               lambda x: format_effort(x, "seconds")])
@pytest.mark.parametrize("value", MISSING)
def test_every_kind_says_n_a_for_a_missing_value(f, value):
    assert f(value) == "n/a"


def test_shares():
    assert pct(0.98456) == "98.5%"
    assert pct(0.779) == "77.9%"
    assert pct(0.5) == "50.0%"
    assert pct(1.0) == "100.0%" and pct(0.0) == "0.0%"
    # never a rounded 100% or 0% that is not one
    assert pct(0.99996) == "over 99.9%"
    assert pct(0.0004) == "under 0.1%"
    assert pct(0.012345, 2) == "1.23%"
    assert pct(np.float32(0.25)) == "25.0%"


def test_counts_have_thousands_separators():
    assert count(1210) == "1,210"
    assert count(3000) == "3,000"
    assert count(50000.0) == "50,000"
    assert count(np.int64(2023)) == "2,023"
    assert count(12) == "12" and count(0) == "0"
    assert count(1_234_567) == "1,234,567"


def test_efforts_in_hours_minutes_seconds():
    assert format_effort(72_340, "seconds") == "20.1 h"
    assert format_effort(2_700, "seconds") == "45 min"
    assert format_effort(90, "seconds") == "1.5 min"
    assert format_effort(30, "seconds") == "30 s"
    assert format_effort(4.5, "seconds") == "4.5 s"
    assert format_effort(1_500, "minutes") == "25.0 h"
    # 12,345.6 hours: whole hours, not 5 significant digits
    assert format_effort(12_345.6, "hours") == "12,346 h"
    assert format_effort(1_234.4, "effort units") == "1,234 effort units"
    # 65 s = 1.083 min; nothing spent; plain numbers never in scientific notation
    assert format_effort(65, "seconds") == "1.1 min"
    assert format_effort(0, "minutes") == "0 h"
    assert plain_number(72_340.4) == "72,340" and plain_number(0.046452) == "0.0465"
    assert "e" not in plain_number(1.2e-7) and plain_number(12.54) == "12.5"


def test_lambda_at_most_four_significant_digits():
    assert lam(0.0014706064690026956) == "0.001471"
    assert lam(0.00255469) == "0.002555"
    assert lam(4.6) == "4.6" and lam(0) == "0"
    assert lam(12345.6) == "12,350"
    assert lam(4.6e-05) == "0.000046"
    assert setting_number(1 / 3, digits=6) == "0.3333"


def test_probabilities_and_scores():
    assert prob(0.77904) == "0.779"
    assert prob(0.7790) == "0.779"
    assert prob(1.0) == "1.000"
    assert prob(-0.05) == "-0.050"
    assert prob(-0.0001) == "0.000"
    assert prob(1.23449) == "1.234"
    assert prob(12.345) == "12.3"


def test_plain_numbers():
    assert plain_number(72_340.4) == "72,340"
    assert plain_number(12.54) == "12.5"
    assert plain_number(3.0) == "3"
    assert plain_number(0.046452) == "0.0465"
    assert plain_number(1.2e-7) == "0.00000012"


def _significant(text: str) -> int:
    """Significant digits of a number written with a decimal point (hand rule: leading zeros
    do not count)."""
    digits = re.sub(r"[^0-9]", "", text).lstrip("0")
    return len(digits)


@given(st.floats(min_value=-1e9, max_value=1e9, allow_nan=False, allow_infinity=False))
def test_no_kind_writes_scientific_notation_or_more_than_4_significant_digits(x):
    for f in (lam, plain_number, prob):
        text = f(x)
        assert not re.search(r"\d[eE][+-]?\d", text)
        if "." in text:
            assert _significant(text) <= 4, (f.__name__, x, text)
    share = pct(min(max(abs(x) / 1e9, 0.0), 1.0))
    assert not re.search(r"\d[eE][+-]?\d", share) and _significant(share.split("%")[0].split()[-1]) <= 4


def test_p_values():
    assert pvalue(0.03217) == "0.032"
    assert pvalue(1.2e-05) == "< 0.001" and pvalue(0.0009999) == "< 0.001"
    assert pvalue(0.001) == "0.001" and pvalue(1.0) == "1.000"
    assert pvalue(None) == "n/a" and pvalue(float("nan")) == "n/a"
