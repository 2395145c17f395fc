"""What a manager reads is plain (issue 33): on the demo and on a judge CSV with unusual column
names, every page's text has no None/nan/NaN, no scientific notation, no number with more than 4
significant digits and no count of 1,000 or more without thousands separators; the same through
an evaluation round. The judge CSV is generated (tests/judge_table.py) and read as an upload is.
"""

from __future__ import annotations

import re

import pytest

from pages._registry import page_files
from tests.app.page_text import number_problems, page_text, table_cells
from tests.app.test_page_evaluate import click, fresh_workspace  # noqa: F401  (a fixture)
from tests.judge_table import judge_table

#: the judge table's own names: sample id, gold label, effort in seconds
RENAMED = {"sample_id": "item_key", "human_label": "human_verdict",
           "predicted_effort_seconds": "review_secs"}


def judge_state() -> dict:
    """The judge CSV (3,000 rows, four languages, ja judged badly) as the active upload."""
    from core.data import load_table, prepare
    from pages._common import fingerprint

    csv = judge_table(750).rename(columns=RENAMED).to_csv(index=False).encode()
    data = prepare(load_table(csv, name="judge.csv"), name="judge.csv")
    return {"data": data, "data_key": fingerprint(data.raw, data.roles), "data_source": "upload"}


def _missing_cells(at) -> list[str]:
    return sorted({c for c in table_cells(at) if re.fullmatch(r"None|nan|NaN|<NA>|NaT", c)})


def test_the_judge_csv_is_read_with_its_own_names():
    data = judge_state()["data"]
    assert data.M == 3000
    assert data.roles["sample_id"] == "item_key"
    assert data.roles["human_label"] == "human_verdict"
    assert data.roles["human_effort"] == "review_secs"
    assert data.roles["subgroups"] == ["language"]


@pytest.mark.parametrize("dataset", ["demo", "judge"])
@pytest.mark.parametrize("page", page_files())
def test_page_numbers_are_plain(run_page, page, dataset):
    at = run_page(page, state=judge_state() if dataset == "judge" else None, timeout=300)
    assert not at.exception, at.exception
    texts = page_text(at)
    assert texts, "the page showed no text"
    assert number_problems(texts) == []
    assert _missing_cells(at) == []


def test_counts_are_separated_where_the_judge_table_is_named(run_page):
    """The judge table's 3,000 rows read "3,000" on the pages that count them (issue 33 saw
    "3000" and "1210")."""
    for page in ("1_Data.py", "2_Trade-off.py"):
        at = run_page(page, state=judge_state())
        text = " ".join(page_text(at))
        assert "3,000" in text and "3000" not in text, page


def test_a_round_on_the_judge_table_reads_plainly(run_page, fresh_workspace):
    """An active round planned, labelled and fixed on the judge table, and a guarantee round:
    every step's text is plain."""
    at = run_page("2a_Evaluate.py", state=judge_state(), timeout=300)
    problems = []
    at.radio(key="_w_ev_design").set_value("active").run()
    at.number_input(key="_w_ev_labels").set_value(400).run()
    click(at, "Plan the round")
    problems += number_problems(page_text(at))
    click(at, "Fill labels from gold")
    problems += number_problems(page_text(at))
    assert any(w.value.startswith("language = ja") for w in at.warning)
    at.radio(key="_w_ev_kind").set_value("guarantee").run()
    problems += number_problems(page_text(at))
    click(at, "Plan the round")
    click(at, "Fill labels from gold")
    click(at, "Certify and route the other rows")
    problems += number_problems(page_text(at))
    assert not at.exception
    assert problems == []
    assert _missing_cells(at) == []


@pytest.mark.parametrize("text, problem", [
    ("λ = 0.0014706064690026956", "more than 4 significant digits"),
    ("0.00255469 beside 0.002555", "more than 4 significant digits"),
    ("1210 of 3000 labelled", "without thousands separators"),
    ("Objective 3,229.5241", "more than 4 significant digits"),
    ("a score of nan", "'nan'"),
    ("λ = None", "'None'"),
    ("4.6e-05", "scientific notation"),
])
def test_the_checker_finds_what_the_issue_saw(text, problem):
    """The checker itself: each problem issue 33 saw is found; plain text passes."""
    found = number_problems([text])
    assert found and problem in found[0], found


def test_the_checker_passes_plain_text():
    assert number_problems(["λ = 0.001471, 1,210 of 3,000 labelled (40.3%), ACL 2021, "
                            "None of the 1,500 samples, `col_2023`, ppi_py 0.2.3"]) == []


def test_p_values_and_lambda_boxes_are_plain(run_page):
    """Effort's p-values read 0.032 or < 0.001 (they read 1.04e-05); the λ box shows 4
    significant digits (its %g showed 0.00255469 beside the slider's 0.002555)."""
    at = run_page("4_Effort.py", timeout=300)
    table = next(d.value for d in at.dataframe if "Pearson p" in d.value.columns)
    for col in ("Pearson p", "Spearman p"):
        assert all(re.fullmatch(r"< 0\.001|[01]\.\d{3}|n/a", v) for v in table[col]), table[col]
    assert "< 0.001" in set(table["Pearson p"])  # the demo's time follows its length closely
    trade = run_page("2_Trade-off.py")
    box = next(b for b in trade.number_input if b.label.startswith("λ, exact value"))
    assert box.proto.format == "%.4g"
