"""Role detection (issue 13): prediction, probability, score, judge, label-like and effort names;
asks when unsure; never a mapped, label-like, prediction-like, probability-like, id-like or
free-text column as a subgroup. The HMCEval release and the demo are detected as before."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.data import (confidence_candidates, detect_columns, detect_roles, effort_unit, load_table, name_kind,
                       name_tokens, prepare)
from core.demo import make_demo
from core.errors import DataError

N = 12
GOLD = ["safe", "unsafe", "safe", "safe", "unsafe", "safe"] * 2
PRED = ["safe", "unsafe", "unsafe", "safe", "unsafe", "safe"] * 2
PROB = [0.9, 0.8, 0.55, 0.7, 0.95, 0.6, 0.65, 0.75, 0.85, 0.5, 0.99, 0.52]
SECONDS = [43, 12, 95, 40, 61, 7, 30, 44, 120, 18, 52, 39]
SYSTEMS = ["blender", "plato", "dialogpt"] * 4


def user_table() -> pd.DataFrame:
    """The columns of the user's CSV in issue 13."""
    return pd.DataFrame({
        "dialogue_id": ["d1"] * 3 + ["d2"] * 3 + ["d3"] * 3 + ["d4"] * 3,
        "turn": [1, 2, 3] * 4,
        "system": SYSTEMS,
        "gold": GOLD,
        "model_pred": PRED,
        "model_prob": PROB,
        "annot_seconds": SECONDS,
    })


def base(**cols) -> pd.DataFrame:
    """A table with a gold label, a system subgroup and the given columns."""
    return pd.DataFrame({"gold": GOLD, "system": SYSTEMS, **cols})


# ------------------------------------------------------------------ the issue's own table
def test_issue_13_table_is_mapped_without_doubt():
    det = detect_columns(user_table())
    r = det.roles
    assert r["machine_label"] == "model_pred"
    assert r["machine_confidence"] == "model_prob"
    assert r["human_effort"] == "annot_seconds"
    assert r["human_label"] == "gold"
    assert r["dialogue_id"] == "dialogue_id" and r["turn"] == "turn"
    assert r["predicted_effort"] is None and r["human_label_2"] is None
    assert det.units == {"human_effort": "seconds"}
    assert r["subgroups"] == ["system"]
    assert det.subgroup_options == ("system",)
    assert det.asks == ()


def test_issue_13_table_prepares_with_effort_in_seconds():
    data = prepare(user_table(), name="user.csv")
    assert data.subgroup_columns == ["system"]
    assert data.effort_source == "human_effort"
    assert effort_unit(data.roles[data.effort_source]) == "seconds"
    assert data.frame["predicted_effort"].tolist() == [float(s) for s in SECONDS]
    assert data.labels == ("safe", "unsafe")


def test_a_mapped_column_given_as_subgroup_is_dropped_with_a_notice():
    # the issue's path: model_pred offered as a subgroup, then mapped as the machine label
    data = prepare(user_table(), {"machine_label": "model_pred",
                                  "subgroups": ["model_pred", "system"]})
    assert data.subgroup_columns == ["system"]
    assert any("'model_pred' (machine_label)" in n for n in data.notices)


# ------------------------------------------------------------------ names of each role
@pytest.mark.parametrize("name", [
    "pred", "prediction", "predicted_label", "judge_label", "llm_label", "label_pred", "y_pred",
    "model_label", "system_label", "gpt4_label", "verdict", "classifier_output", "yhat",
    "Model Pred", "modelPrediction", "judge-decision",
])
def test_prediction_names_are_the_machine_label(name):
    roles = detect_roles(base(**{name: PRED, "confidence": PROB}))
    assert roles["machine_label"] == name
    assert roles["human_label"] == "gold"
    assert name not in roles["subgroups"]


@pytest.mark.parametrize("name", [
    "score", "prob", "p_unsafe", "confidence", "unsafe_prob", "probability", "y_score",
    "pred_prob", "y_pred_proba", "judge_score", "conf", "trust_score", "likelihood", "P(unsafe)",
    "modelProb",
])
def test_probability_names_are_the_confidence(name):
    roles = detect_roles(base(pred=PRED, **{name: PROB}))
    assert roles["machine_confidence"] == name
    assert roles["machine_label"] == "pred"


@pytest.mark.parametrize("name", ["gold", "label", "target", "y_true", "true_label",
                                  "gold_label", "human_label", "reference", "Mal_label",
                                  "ground_truth", "annotation"])
def test_gold_names_are_the_human_label(name):
    df = pd.DataFrame({"pred": PRED, "prob": PROB, name: GOLD})
    assert detect_roles(df)["human_label"] == name


@pytest.mark.parametrize("name, unit", [
    ("effort", None), ("time", None), ("seconds", "seconds"), ("time_s", "seconds"),
    ("annot_seconds", "seconds"), ("duration", None), ("duration_sec", "seconds"),
    ("annot_minutes", "minutes"), ("labeling_time_min", "minutes"), ("time_ms", "milliseconds"),
    ("hours_spent", "hours"), ("WorkTimeInSeconds", "seconds"), ("annotation_time", None),
    ("time_cost", None), ("elapsed_secs", "seconds"), ("latency_msecs", "milliseconds"),
])
def test_effort_names_and_their_units(name, unit):
    det = detect_columns(base(pred=PRED, prob=PROB, **{name: SECONDS}))
    assert det.roles["human_effort"] == name
    assert det.units == ({"human_effort": unit} if unit else {})
    assert effort_unit(name) == unit


@pytest.mark.parametrize("name", ["predicted_time_s", "est_seconds", "effort_pred",
                                  "expected_duration", "human_effort_predicted"])
def test_estimated_effort_names_are_the_predicted_effort(name):
    roles = detect_roles(base(pred=PRED, prob=PROB, annot_seconds=SECONDS,
                              **{name: [s * 1.1 for s in SECONDS]}))
    assert roles["predicted_effort"] == name
    assert roles["human_effort"] == "annot_seconds"


def test_second_rater_by_name():
    roles = detect_roles(base(pred=PRED, prob=PROB, human_label2=GOLD[::-1]))
    assert roles["human_label_2"] == "human_label2" and roles["human_label"] == "gold"


# ------------------------------------------------------------------ asking when unsure
@pytest.mark.parametrize("cols, role, candidates", [
    ({"pred": PRED, "llm_label": GOLD, "prob": PROB}, "machine_label", ("pred", "llm_label")),
    ({"pred": PRED, "prob": PROB, "score": PROB[::-1]}, "machine_confidence", ("prob", "score")),
    ({"pred": PRED, "prob": PROB, "time_s": SECONDS, "duration": SECONDS[::-1]}, "human_effort",
     ("time_s", "duration")),
    # two alias matches: the first in the alias order is chosen, and detection says so
    ({"prediction": PRED, "y_pred": GOLD, "prob": PROB}, "machine_label", ("prediction", "y_pred")),
])
def test_two_candidates_ask(cols, role, candidates):
    det = detect_columns(base(**cols))
    asks = {a.role: a for a in det.asks}
    assert set(asks) == {role}
    assert asks[role].candidates == candidates and asks[role].chosen == candidates[0]
    assert det.roles[role] == candidates[0]
    for c in candidates:
        assert f"'{c}'" in asks[role].message
    # the candidate not chosen is never a subgroup
    assert not set(candidates) & set(det.subgroup_options)


def test_the_roles_own_name_settles_it():
    det = detect_columns(base(machine_label=PRED, prediction=GOLD, machine_confidence=PROB))
    assert det.roles["machine_label"] == "machine_label"
    assert det.asks == ()


def test_no_required_column_asks_with_the_columns_that_could_hold_it():
    df = pd.DataFrame({"a": PRED, "b": PROB, "c": [s + 0.5 for s in SECONDS],
                       "notes": ["x" * 60] * N})
    det = detect_columns(df)
    asks = {a.role: a for a in det.asks}
    assert set(asks) == {"machine_label", "machine_confidence"}
    assert asks["machine_label"].chosen is None and asks["machine_label"].candidates == ("a",)
    assert asks["machine_confidence"].candidates == ("b",)
    assert "No column was recognised as the machine label" in asks["machine_label"].message
    with pytest.raises(DataError, match="required role 'machine_label'"):
        prepare(df)


def test_a_logit_is_named_in_the_question_and_never_the_confidence():
    logit = [2.2, 1.4, 0.2, 0.8, 2.9, 0.4, 0.6, 1.1, 1.7, 0.0, 4.6, 0.1]
    det = detect_columns(base(pred=PRED, logit=logit))
    assert det.roles["machine_confidence"] is None
    [ask] = det.asks
    assert ask.role == "machine_confidence" and "'logit'" in ask.message and "[0, 1]" in ask.message
    assert "logit" not in det.subgroup_options


def test_a_score_outside_the_unit_interval_is_not_a_confidence():
    det = detect_columns(base(pred=PRED, prob=PROB, worker_score=[88.2, 91.0, 75.5] * 4))
    assert det.roles["machine_confidence"] == "prob" and det.asks == ()


# ------------------------------------------------------------------ what is offered as a subgroup
def test_only_plain_categorical_columns_are_subgroup_options():
    df = pd.DataFrame({
        "model_pred": PRED, "model_prob": PROB, "gold": GOLD,
        "llm_label": GOLD[::-1],                       # a second prediction, unmapped
        "gold_label_v1": GOLD,                         # label-like, unmapped
        "p_safe": [round(1 - p, 2) for p in PROB],     # probability-like
        "conversation_key": ["c1", "c2", "c3"] * 4,    # row identifier
        "response": ["a long response text that goes on and on for a while"] * N,
        "annot_seconds": SECONDS,
        "system": SYSTEMS, "topic": ["sports", "food"] * 6,
        "annotator_id": ["w1", "w2", "w3", "w4"] * 3,  # who labelled: a fair grouping
        "constant": ["x"] * N,                         # one value: not a group
    })
    det = detect_columns(df)
    assert det.subgroup_options == ("system", "topic", "annotator_id")
    assert det.roles["subgroups"] == ["system", "topic", "annotator_id"]
    assert det.roles["text"] == ["response"]
    assert set(det.roles["subgroups"]) <= set(det.subgroup_options)


def test_integer_columns_are_options_but_detected_only_with_a_group_name():
    df = base(pred=PRED, prob=PROB, worker_group=[1, 2, 3, 4] * 3, bucket=[1, 2] * 6,
              Number=list(range(N)))
    det = detect_columns(df)
    assert det.roles["subgroups"] == ["system", "worker_group"]
    assert det.subgroup_options == ("system", "worker_group", "bucket")


# ------------------------------------------------------------------ unchanged on the peers' data
def test_release_detection_is_unchanged(hmceval_tsv):
    det = detect_columns(load_table(hmceval_tsv))
    assert det.roles == {
        "machine_label": "machine_predict", "machine_confidence": "machine_confidence",
        "human_label": "target", "human_label_2": None,
        "human_effort": "human_effort_groundtruth",
        "predicted_effort": "human_effort_predicted_avg",
        "human_confidence": "human_confidence", "machine_effort": "machine_effort",
        "turn": "turn", "n_turns": "turns", "dialogue_id": None, "sample_id": None,
        "subgroups": [], "text": [],
    }
    assert det.asks == () and det.units == {}
    # the paper's effort is a normalised scale: no unit
    assert effort_unit("human_effort_predicted_avg") is None


def test_demo_detection_is_unchanged():
    det = detect_columns(make_demo())
    assert det.roles == {
        "machine_label": "machine_label", "machine_confidence": "confidence_ts",
        "human_label": "human_label", "human_label_2": "human_label_2",
        "human_effort": "human_effort", "predicted_effort": "predicted_effort",
        "human_confidence": None, "machine_effort": None,
        "turn": "turn", "n_turns": "turns", "dialogue_id": "dialogue_id",
        "sample_id": "sample_id", "subgroups": ["system", "topic", "worker_id"],
        "text": ["response"],
    }
    # three confidence estimates of one label: the first is used, and detection says so
    [ask] = det.asks
    assert ask.role == "machine_confidence"
    assert ask.candidates == ("confidence_ts", "confidence_mcp", "confidence_tcp")


def test_per_dialogue_release_table_keeps_its_columns(shared_data):
    det = detect_columns(load_table(shared_data / "hmceval" / "data_per_dialogue.tsv"))
    assert det.roles["human_effort"] == "WorkTimeInSeconds" and det.units == {
        "human_effort": "seconds"}
    assert det.roles["n_turns"] == "turns"
    assert det.roles["subgroups"] == ["my_split", "worker_score"]
    assert {a.role for a in det.asks} == {"machine_label", "machine_confidence"}


# ------------------------------------------------------------------ the name helpers
@pytest.mark.parametrize("name, words", [
    ("WorkTimeInSeconds", ("work", "time", "in", "seconds")),
    ("p_unsafe", ("p", "unsafe")), ("label2", ("label", "2")), ("Model Pred", ("model", "pred")),
    ("y-pred", ("y", "pred")), ("", ()),
])
def test_name_tokens(name, words):
    assert name_tokens(name) == words


@pytest.mark.parametrize("name, kind", [
    ("pred_prob", "probability"), ("label_pred", "prediction"), ("annot_seconds", "effort"),
    ("gold_2", "label_2"), ("dialogue_id", "row_id"), ("id", "row_id"), ("worker_id", None),
    ("system", None), ("logprob", "logit"), ("final_predict", "prediction"),
])
def test_name_kind(name, kind):
    assert name_kind(name) == kind


def test_numeric_column_names_do_not_break_detection():
    df = pd.DataFrame({0: PRED, 1: PROB, "gold": GOLD})
    det = detect_columns(df)
    assert det.roles["human_label"] == "gold"
    assert {a.role for a in det.asks} == {"machine_label", "machine_confidence"}
    assert np.array_equal(det.asks[0].candidates, (0,))


@pytest.mark.parametrize("name, values, kind", [
    ("score", [0.2, 0.9, 0.5], "probability"),
    ("worker_score", [88.2, 91.0, 75.5], None),       # a worker's quality: a possible grouping
    ("judge_score", [1, 7, 10], "prediction"),         # a judge's rating
    ("p_unsafe", [0.2, 0.9, 0.5], "probability"),
    ("model_pred", ["safe", "unsafe", "safe"], "prediction"),
    ("system", ["a", "b", "a"], None),
])
def test_column_kind_reads_the_values_of_a_score(name, values, kind):
    from core.data import NOT_SUBGROUP_KINDS, column_kind

    assert column_kind(name, pd.Series(values)) == kind
    assert (kind in NOT_SUBGROUP_KINDS) == (kind is not None)


def test_class_probabilities_are_not_confidences_beside_a_confidence_column():
    """The machine evaluator's scored output has proba_<class> columns beside confidence_*:
    only the confidence columns are candidates; alone, a probability column is one."""
    scored = pd.DataFrame({"label": [0, 1, 1], "machine_label": [0, 1, 0],
                           "proba_Safe": [0.9, 0.2, 0.6], "proba_Unsafe": [0.1, 0.8, 0.4],
                           "confidence_mcp": [0.9, 0.8, 0.6], "confidence_ts": [0.7, 0.5, 0.2]})
    assert confidence_candidates(scored) == ["confidence_mcp", "confidence_ts"]
    alone = pd.DataFrame({"model_pred": [0, 1, 1], "model_prob": [0.9, 0.8, 0.6]})
    assert confidence_candidates(alone) == ["model_prob"]


def test_prepare_keeps_the_doubts_about_roles_it_chose():
    """prepare carries detection's asks for the roles the caller left to it (the CLI prints
    them without detecting twice); a role the caller mapped has no ask."""
    from core.data import prepare

    df = pd.DataFrame({"model_pred": [0, 1, 1, 0], "model_prob": [0.9, 0.8, 0.6, 0.7],
                       "p_unsafe": [0.1, 0.8, 0.6, 0.3]})
    data = prepare(df)
    assert [(a.role, a.chosen, a.candidates) for a in data.asks] == [
        ("machine_confidence", "model_prob", ("model_prob", "p_unsafe"))]
    assert prepare(df, {"machine_confidence": "p_unsafe"}).asks == ()
    assert prepare(df, {"machine_confidence": "model_prob"}).asks == ()


def test_one_missing_machine_label_still_proposes_model_pred_and_validation_names_the_row():
    # issue 13: with one value missing in 'model_pred', 'topic' was offered as the machine label
    df = user_table()
    df["topic"] = ["health", "sports", "travel"] * 4
    df["model_pred"] = df["model_pred"].astype(object)
    df.loc[4, "model_pred"] = None
    det = detect_columns(df)
    assert det.roles["machine_label"] == "model_pred"
    assert "topic" in det.roles["subgroups"]
    assert not [a for a in det.asks if a.role == "machine_label"]
    with pytest.raises(DataError, match=r"column 'model_pred' \(machine_label\) has missing "
                                        r"values in row 5"):
        prepare(df)


def test_a_mostly_missing_prediction_column_is_not_proposed():
    df = user_table()
    df["model_pred"] = [None] * 7 + PRED[7:]
    det = detect_columns(df)
    assert det.roles["machine_label"] is None
    assert [a.role for a in det.asks] == ["machine_label"]


def test_a_persons_verdict_is_the_gold_label():
    """issue 25: a judge-style table with judge_verdict (the machine) and reviewer_verdict (the
    people) had no gold label detected, only a note that both could be the machine label."""
    import numpy as np
    import pandas as pd

    from core.data.roles import detect_columns, name_kind

    assert name_kind("reviewer_verdict") == "label"
    assert name_kind("annotator_decision") == "label"
    assert name_kind("human_judgement") == "label"
    assert name_kind("reviewer_verdict_2") == "label_2"
    # a machine's verdict stays a prediction, with or without a person's word
    assert name_kind("judge_verdict") == "prediction"
    assert name_kind("llm_verdict") == "prediction"
    assert name_kind("model_verdict") == "prediction"
    assert name_kind("human_pred") == "prediction"  # "pred" names a machine's output
    assert name_kind("reviewer") is None  # who reviewed: a subgroup, not a label
    rng = np.random.default_rng(0)
    classes = ["safe", "unsafe", "borderline"]
    df = pd.DataFrame({"id": range(30), "judge_verdict": rng.choice(classes, 30),
                       "judge_confidence": rng.uniform(0.3, 1, 30),
                       "reviewer_verdict": rng.choice(classes, 30),
                       "review_seconds": rng.uniform(5, 100, 30),
                       "language": rng.choice(["en", "ja"], 30)})
    d = detect_columns(df)
    assert d.roles["machine_label"] == "judge_verdict"
    assert d.roles["human_label"] == "reviewer_verdict"
    assert d.roles["human_effort"] == "review_seconds" and d.units["human_effort"] == "seconds"
    assert d.roles["subgroups"] == ["language"]
    assert not d.asks


def test_an_id_named_column_with_distinct_values_is_the_sample_id():
    """issue 33: a judge table's ``item_key`` was not detected, so returned labels joined by row
    number only. An id-like name (an id word with a row word, or alone) whose values are all
    different is the sample id; one repeated over a dialogue's turns is not, nor a plain
    number column."""
    df = user_table().drop(columns=["dialogue_id"])
    df.insert(0, "item_key", [f"k{i:03d}" for i in range(N)])
    df["conversation_key"] = [i // 3 for i in range(N)]  # repeated: not one row each
    df["n_words"] = list(range(N))  # distinct, but not named as an id
    d = detect_columns(df)
    assert d.roles["sample_id"] == "item_key"
    assert "item_key" not in d.subgroup_options
    assert not [a for a in d.asks if a.role == "sample_id"]
    # a repeated key alone is no sample id
    assert detect_columns(df.drop(columns=["item_key"])).roles["sample_id"] is None
    # one missing key: not an id either
    df.loc[4, "item_key"] = None
    assert detect_columns(df).roles["sample_id"] is None
    # an alias still wins over a look-alike
    df["item_key"] = [f"k{i}" for i in range(N)]
    df["response_id"] = [f"r{i}" for i in range(N)]
    assert detect_columns(df).roles["sample_id"] == "response_id"
