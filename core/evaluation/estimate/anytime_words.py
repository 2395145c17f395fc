"""Plain words for a labelling stream's result (:func:`core.evaluation.estimate.anytime.anytime_estimate`):
whether to stop, what it saves against labelling the whole planned queue, and the price of
looking at every label. Pure functions: the Evaluate page and the HTML report show them.
"""

from __future__ import annotations

from typing import Any

from core.evaluation.estimate.anytime import parse_decision
from core.format import pct

__all__ = ["SEQUENCE_HELP", "decide_expression", "question_words", "stream_focus",
           "focus_interval", "focus_name", "interval_words", "stream_verdict", "trace_looks"]

#: What a confidence sequence is, for a tooltip.
SEQUENCE_HELP = ("A confidence sequence: intervals that stay valid however often you look. "
                 "An ordinary 95% interval holds only if it is read once, at a number of labels "
                 "fixed before labelling; looking after every import and stopping when it looks "
                 "good makes it wrong more often than 5% of the time. These intervals cover the "
                 "true value at every number of labels at once (95%), so you may look after "
                 "every import and stop whenever the answer is good enough. They are wider "
                 "than one-look intervals: that is the price of looking.")

_OP_WORDS = {"<=": "at most", "<": "below", ">=": "at least", ">": "above"}


def decide_expression(kind: str, op: str, threshold: float, label: Any = None) -> str:
    """The ``--decide`` text of a question: ``decide_expression("share", "<=", 0.05, "unsafe")``
    -> ``"share(unsafe) <= 0.05"``; ``("accuracy", ">=", 0.9)`` -> ``"accuracy >= 0.9"``."""
    if op not in _OP_WORDS:
        raise ValueError(f"operator must be one of {', '.join(_OP_WORDS)}, got {op!r}")
    what = f"share({label})" if kind == "share" else "accuracy"
    return f"{what} {op} {float(threshold):g}"


def question_words(text: str) -> str:
    """A ``--decide`` question in words: ``"share(unsafe) <= 0.05"`` -> ``"is the share of
    'unsafe' at most 5.0%?"``; ``"accuracy >= 0.9"`` -> ``"are the final labels at least
    90.0% accurate?"``."""
    d = parse_decision(text)
    if d.kind == "share":
        return f"is the share of '{d.label}' {_OP_WORDS[d.op]} {pct(d.threshold)}?"
    return f"are the final labels {_OP_WORDS[d.op]} {pct(d.threshold)} accurate?"


def stream_focus(result: dict[str, Any]) -> tuple[str, str | None]:
    """The quantity a stream's sentence is about: the question's (``("share", CLASS)`` or
    ``("accuracy", None)``), else the class share with the widest interval (the one a target
    half-width waits for; the later class on a tie)."""
    dec = result.get("decision")
    if dec and dec.get("question"):
        d = parse_decision(dec["question"])
        return d.kind, d.label
    shares = result["class_shares"]
    widths = {c: s["ci_high"] - s["ci_low"] for c, s in shares.items()}
    widest = max(widths.values())
    return "share", [c for c in shares if widths[c] >= widest - 1e-12][-1]


def focus_interval(result: dict[str, Any], focus: tuple[str, str | None]) -> dict[str, Any]:
    """``estimate``, ``ci_low``, ``ci_high`` of the focused quantity in a result or a trace
    entry."""
    kind, label = focus
    return result["class_shares"][str(label)] if kind == "share" else result["accuracy"]


def focus_name(focus: tuple[str, str | None]) -> str:
    """``("share", "unsafe")`` -> ``"share of 'unsafe'"``; accuracy: ``"accuracy of the final
    labels"``."""
    return f"share of '{focus[1]}'" if focus[0] == "share" else "accuracy of the final labels"


def interval_words(iv: dict[str, Any]) -> str:
    """``4.1% ± 1.9%`` for a symmetric interval; ``1.0% (between 0.0% and 3.5%)`` for one cut
    at 0 or 1 (the ± would mislead there)."""
    est, lo, hi = iv.get("estimate"), iv["ci_low"], iv["ci_high"]
    if est is None:
        return f"not estimated yet (between {pct(lo)} and {pct(hi)})"
    if abs((est - lo) - (hi - est)) < 5e-4:
        return f"{pct(est)} ± {pct((hi - lo) / 2)}"
    return f"{pct(est)} (between {pct(lo)} and {pct(hi)})"


def _since(n: int, at: int) -> str:
    """`` after N labels`` when the current look is later than the stop (else nothing)."""
    return f" after {n:,} labels" if n > int(at) else ""


def stream_verdict(result: dict[str, Any], *,
                   target_half_width: float | None = None) -> dict[str, Any]:
    """Whether to stop labelling, in words.

    Parameters
    ----------
    result : dict
        :func:`core.evaluation.estimate.anytime.anytime_estimate`'s result.
    target_half_width : float, optional
        The target the stream was planned with.

    Returns
    -------
    dict
        ``stop`` (bool), ``sentence`` ("Stop now: ..." / "Keep labelling: ..."), ``stop_at``
        (the labels the answer took, None while not reached), ``saved`` (the labels stopping
        there saves against labelling the whole planned queue, in words; None while not
        reached) and ``price`` (the price of looking at every label, in words; None without
        labels).
    """
    n, queue = int(result["labels"]), int(result["queue"])
    out: dict[str, Any] = {"stop": False, "stop_at": None, "saved": None, "price": None}
    if n == 0:
        out["sentence"] = ("Keep labelling: no label in queue order yet; label the queue from "
                           "its first row.")
        return out
    focus = stream_focus(result)
    what = f"{focus_name(focus)} {interval_words(focus_interval(result, focus))}"
    dec, stop = result.get("decision"), result.get("stop") or {}
    if dec and dec.get("decided"):
        out.update(stop=True, stop_at=int(dec["labels"]))
        out["sentence"] = (f"Stop now: {what}{_since(n, dec['labels'])}, decided after "
                           f"{dec['labels']:,} labels ({question_words(dec['question'])} "
                           f"{'yes' if dec['answer'] else 'no'}).")
    elif target_half_width is not None and stop.get("reached"):
        out.update(stop=True, stop_at=int(stop["labels"]))
        out["sentence"] = (f"Stop now: {what}{_since(n, stop['labels'])}, the target "
                           f"± {pct(target_half_width)} reached after {stop['labels']:,} labels.")
    else:
        goals = []
        if dec:
            goals.append(f"not decided yet ({question_words(dec['question'])})")
        if target_half_width is not None:
            widest = max((s["ci_high"] - s["ci_low"]) / 2 for s in result["class_shares"].values())
            goals.append(f"the target is ± {pct(target_half_width)}, the widest class share is "
                         f"± {pct(widest)} now")
        if goals and n >= queue:
            out["sentence"] = (f"The queue is used up: {what} after {n:,} labels; "
                               f"{'; '.join(goals)}. Plan a longer stream to go on.")
        elif goals:
            out["sentence"] = f"Keep labelling: {what} after {n:,} labels; {'; '.join(goals)}."
        else:
            out["sentence"] = (f"{what[0].upper()}{what[1:]} after {n:,} labels. No target or "
                               "question was set: stop when the interval is narrow enough for "
                               "you; it stays valid however often you look.")
    at = out["stop_at"]
    if at is not None and queue > 0:
        saved = max(queue - at, 0)
        out["saved"] = (f"Stopping at {at:,} labels instead of labelling the whole planned queue "
                        f"of {queue:,} saves {saved:,} labels ({saved / queue:.0%})."
                        + (f" The {n - at:,} labelled after that were not needed for this "
                           "answer." if n > at else ""))
    price = result.get("price") or {}
    if price.get("ratio"):
        out["price"] = (f"The price of looking after every import: this interval is "
                        f"{price['ratio']:.2f} times as wide as a one-look interval on the same "
                        f"{n:,} labels (± {pct(price['sequence_half_width'])} against "
                        f"± {pct(price['fixed_n_half_width'])}, for the widest class share). A "
                        "one-look interval holds only if it is read once, at a number of labels "
                        "fixed before labelling; this one stays valid however often you look "
                        "and whenever you stop.")
    return out


def trace_looks(trace: list[dict[str, Any]], rows: int = 12) -> list[dict[str, Any]]:
    """About ``rows`` looks of a trace for a table: at round label counts (every 1, 2 or 5
    times a power of ten labels; the latest look at or before each), and the last look."""
    if not trace:
        return []
    last = trace[-1]["labels"]
    want = last / max(int(rows), 1)
    step = next(m * 10 ** k for k in range(0, 12) for m in (1, 2, 5) if m * 10 ** k >= want)
    out: list[dict[str, Any]] = []
    i = 0
    for mark in range(step, last + step, step):
        while i + 1 < len(trace) and trace[i + 1]["labels"] <= mark:
            i += 1
        if trace[i]["labels"] <= mark and (not out or out[-1] is not trace[i]):
            out.append(trace[i])
    return out if out[-1] is trace[-1] else out + [trace[-1]]
