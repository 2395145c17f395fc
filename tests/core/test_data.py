"""The loader and the data contract: formats, auto-detection, validation messages."""

from __future__ import annotations



from core.data import detect_roles, load_table, prepare


def test_release_columns_are_detected(hmceval_tsv):
    df = load_table(hmceval_tsv)  # CRLF line ends, no final newline
    assert df.shape == (5673, 10)
    roles = detect_roles(df)
    assert roles["machine_label"] == "machine_predict"
    assert roles["machine_confidence"] == "machine_confidence"
    assert roles["human_label"] == "target"
    assert roles["human_effort"] == "human_effort_groundtruth"
    assert roles["predicted_effort"] == "human_effort_predicted_avg"
    assert roles["turn"] == "turn" and roles["n_turns"] == "turns"
    assert roles["human_confidence"] == "human_confidence"
    assert roles["machine_effort"] == "machine_effort"


def test_derived_dialogues_on_release(hmceval_data):
    f = hmceval_data.frame
    # a dialogue of `turns` rows starts at every turn 1
    assert f["dialogue_id"].nunique() == int((f["turn"] == 1).sum())
    sizes = f.groupby("dialogue_id")["n_turns"].agg(["size", "first"])
    assert (sizes["size"] == sizes["first"]).all()


def test_quoted_fields_with_separators_and_newlines():
    text = 'machine_label,confidence,response\n1,0.5,"hello, world"\n0,0.25,"two\nlines"\n'
    df = load_table(text.encode(), name="q.csv")
    assert df["response"].tolist() == ["hello, world", "two\nlines"]
    data = prepare(df)
    assert data.text_columns == [] or "response" in data.text_columns + data.subgroup_columns
