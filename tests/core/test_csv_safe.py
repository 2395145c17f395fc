"""Formula cells in CSV exports (OWASP CSV injection advice)."""

from __future__ import annotations

import io

import pandas as pd

from core.csv_safe import neutralise_formulas, to_csv_safe


def test_formula_cells_get_a_quote_and_numbers_stay_numbers():
    df = pd.DataFrame({"text": ["=HYPERLINK(\"x\")", "+SUM(A1:A9)", "@SUM(1)", "-cmd", "\tx",
                                "\rx", "plain", "-3", "+1.5", None],
                       "n": [-1, 2, 3, 4, 5, 6, 7, 8, 9, 10]})
    out = neutralise_formulas(df)
    assert out["text"].tolist()[:7] == ["'=HYPERLINK(\"x\")", "'+SUM(A1:A9)", "'@SUM(1)",
                                        "'-cmd", "'\tx", "'\rx", "plain"]
    assert out["text"].tolist()[7:9] == ["-3", "+1.5"] and pd.isna(out["text"].iloc[9])
    assert out["n"].tolist() == df["n"].tolist() and out["n"].dtype == df["n"].dtype
    back = pd.read_csv(io.StringIO(to_csv_safe(df)))
    assert back["n"].tolist() == df["n"].tolist()
    assert df["text"].iloc[0] == "=HYPERLINK(\"x\")"  # the input is not changed
