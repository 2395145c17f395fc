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


# ---------------------------------------------------------------- issue 24: headers, categories, round trip

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from core.csv_safe import restore_formulas, restored_text, safe_text  # noqa: E402
from core.data import load_table  # noqa: E402


def test_headers_and_categorical_cells_are_neutralised():
    """A =HYPERLINK header and the cells of a categorical (Parquet dictionary) column reached
    the annotators' spreadsheet raw."""
    df = pd.DataFrame({'=HYPERLINK("http://h/x")': [1, 2],
                       "topic": pd.Categorical(["@SUM(1)", "ok"])})
    text = to_csv_safe(df)
    first, second = text.splitlines()[:2]
    assert first.startswith('"\'=HYPERLINK(') and '"\'@SUM(1)"' in second
    back = load_table(text.encode(), name="t.csv")
    assert list(back.columns) == list(df.columns) and back["topic"].tolist() == ["@SUM(1)", "ok"]


_FORMULA_TEXT = st.text(alphabet=st.sampled_from(list("'=+-@\t\rab1. ")), max_size=6)


@settings(max_examples=300, deadline=None)
@given(_FORMULA_TEXT)
def test_safe_text_round_trips_and_never_starts_a_formula(v):
    out = safe_text(v)
    assert restored_text(out) == v
    assert not out.startswith(("=", "+", "-", "@", "\t", "\r")) or _is_number(out)


def _is_number(v: str) -> bool:
    import re

    return re.fullmatch(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?", v) is not None


@settings(max_examples=100, deadline=None)
@given(st.lists(_FORMULA_TEXT.filter(lambda s: s.strip() != "" and s == s.strip()
                                     and not _is_number(s)), min_size=1, max_size=8))
def test_a_written_table_reads_back_as_it_was(cells):
    """The class named "+" comes back as "+" through to_csv_safe and load_table."""
    df = pd.DataFrame({"label": cells, "n": range(len(cells))})
    back = load_table(to_csv_safe(df).encode(), name="t.csv")
    assert back["label"].astype(str).tolist() == cells
    assert restore_formulas(neutralise_formulas(df)).equals(df)
