"""Plain words for a labelling stream (``core.evaluation.estimate.anytime_words``): hand-written
results, hand-written sentences."""

from __future__ import annotations

import pytest

from core.evaluation.estimate.anytime import parse_decision
from core.evaluation.estimate.anytime_words import (decide_expression, interval_words, question_words,
                                           stream_focus, stream_verdict)


def _result(**kw) -> dict:
    shares = {"safe": {"estimate": 0.959, "ci_low": 0.940, "ci_high": 0.978},
              "unsafe": {"estimate": 0.041, "ci_low": 0.022, "ci_high": 0.060}}
    out = {"labels": 612, "queue": 1000, "class_shares": shares,
           "accuracy": {"estimate": 0.95, "ci_low": 0.93, "ci_high": 0.97},
           "decision": None, "stop": None,
           "price": {"ratio": 1.5, "fixed_n_half_width": 0.0126, "sequence_half_width": 0.019}}
    out.update(kw)
    return out


def test_decide_expression_reads_back_as_the_question():
    text = decide_expression("share", "<=", 0.05, "unsafe")
    assert text == "share(unsafe) <= 0.05"
    d = parse_decision(text)
    assert (d.kind, d.label, d.op, d.threshold) == ("share", "unsafe", "<=", 0.05)
    assert decide_expression("accuracy", ">=", 0.9) == "accuracy >= 0.9"
    with pytest.raises(ValueError):
        decide_expression("accuracy", "==", 0.9)


def test_question_and_interval_words():
    assert question_words("share(unsafe) <= 0.05") == "is the share of 'unsafe' at most 5.0%?"
    assert question_words("accuracy > 90%") == "are the final labels above 90.0% accurate?"
    assert interval_words({"estimate": 0.041, "ci_low": 0.022, "ci_high": 0.060}) == "4.1% ± 1.9%"
    # cut at 0: the ± would mislead
    assert (interval_words({"estimate": 0.01, "ci_low": 0.0, "ci_high": 0.035})
            == "1.0% (between 0.0% and 3.5%)")


def test_decided_stop_sentence_savings_and_price():
    res = _result(decision={"question": "share(unsafe) <= 0.05", "decided": True,
                            "answer": True, "labels": 612})
    assert stream_focus(res) == ("share", "unsafe")
    v = stream_verdict(res, target_half_width=0.01)
    assert v["stop"] and v["stop_at"] == 612
    assert v["sentence"] == ("Stop now: share of 'unsafe' 4.1% ± 1.9%, decided after 612 labels "
                             "(is the share of 'unsafe' at most 5.0%? yes).")
    assert v["saved"] == ("Stopping at 612 labels instead of labelling the whole planned queue "
                          "of 1,000 saves 388 labels (39%).")
    assert v["price"].startswith("The price of looking after every import: this interval is "
                                 "1.50 times as wide as a one-look interval on the same 612 "
                                 "labels (± 1.9% against ± 1.3%")


def test_target_reached_earlier_and_keep_labelling():
    reached = _result(labels=700, stop={"reached": True, "labels": 612, "reason": "..."})
    v = stream_verdict(reached, target_half_width=0.02)
    # no question: the widest class share (a tie here: the later class)
    assert v["sentence"] == ("Stop now: share of 'unsafe' 4.1% ± 1.9% after 700 labels, the "
                             "target ± 2.0% reached after 612 labels.")
    assert v["saved"].endswith("saves 388 labels (39%). The 88 labelled after that were not "
                               "needed for this answer.")
    going = _result(stop={"reached": False, "labels": 612, "reason": "..."},
                    decision={"question": "accuracy >= 0.96", "decided": False, "answer": None,
                              "labels": None})
    v = stream_verdict(going, target_half_width=0.01)
    assert not v["stop"] and v["saved"] is None
    assert v["sentence"] == ("Keep labelling: accuracy of the final labels 95.0% ± 2.0% after "
                             "612 labels; not decided yet (are the final labels at least 96.0% "
                             "accurate?); the target is ± 1.0%, the widest class share is "
                             "± 1.9% now.")
    used_up = _result(labels=1000, stop={"reached": False, "labels": 1000, "reason": "..."})
    assert stream_verdict(used_up, target_half_width=0.01)["sentence"].startswith(
        "The queue is used up: share of 'unsafe' 4.1% ± 1.9% after 1,000 labels; the target")
    plain = stream_verdict(_result())
    assert plain["sentence"].startswith("Share of 'unsafe' 4.1% ± 1.9% after 612 labels. No "
                                        "target or question was set")
    none_yet = stream_verdict(_result(labels=0, price=None))
    assert none_yet["sentence"].startswith("Keep labelling: no label in queue order yet")
    assert none_yet["price"] is None


def test_trace_looks_spaced_with_the_last():
    from core.evaluation.estimate.anytime_words import trace_looks

    trace = [{"labels": n} for n in range(1, 26)]
    # 25 labels in about 5 rows: every 5 labels
    assert [t["labels"] for t in trace_looks(trace, 5)] == [5, 10, 15, 20, 25]
    assert [t["labels"] for t in trace_looks(trace[:3], 12)] == [1, 2, 3]
    # 21 labels in about 5 rows: every 5 labels, then the last look
    assert [t["labels"] for t in trace_looks(trace[:21], 5)] == [5, 10, 15, 20, 21]
    # a thinned trace (every 2 labels, an import at 7): the latest look at or before each mark
    thin = [{"labels": n} for n in (2, 4, 6, 7, 8, 10, 12, 14)]
    assert [t["labels"] for t in trace_looks(thin, 3)] == [4, 10, 14]
    assert [t["labels"] for t in trace_looks(thin, 7)] == [2, 4, 6, 8, 10, 12, 14]
    assert trace_looks([], 5) == []
