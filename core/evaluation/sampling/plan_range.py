"""The range a design's expectations could take when the judge's confidences are miscalibrated.

The active design (:mod:`core.evaluation.sampling.active`) plans on class probabilities: the machine's
confidences taken as they are, or recalibrated on earlier labels
(:func:`core.evaluation.sampling.forecast.calibrated_probabilities`). Its expectations (final
accuracy, widest class-share half-width, worth against PPI++) hold only as far as those
probabilities do. :func:`expected_range` recomputes them, for the design as planned (its pi
fixed), under a small family of miscalibrated probability models:

* **shift**: the chance the machine is right moved on the logit scale by one constant, so that
  its mean over the table is the planned mean less a gap d (d > 0: the judge is
  overconfident);
* **temperature**: the same mean reached by dividing every logit by one temperature T (T > 1
  overconfidence shrinks every row towards 1/2; T < 1 sharpens), which moves the confident
  rows less and the uncertain ones more.

Where the machine is wrong, the true class stays spread over the others as planned. The gaps:

* **without labels**, the miscalibration typical of LLM judges: overconfident by up to
  :data:`OVERCONFIDENCE` (measured: GPT-4o's verbal confidence on PAC Labels' misinfo file,
  0.838 against 0.814 accuracy, 2.4 points; GPT-4o on a 3-class stance set, 0.864 against
  0.752, 11.2 points, issue 30), underconfident by up to :data:`UNDERCONFIDENCE` (trust
  scores and other non-probabilities can be much lower still: the HMCEval release's trust
  score averages 0.659 against 0.862 accuracy; the range is then a lower bound on what the
  plan can miss by, and the sentence says so);
* **with n earlier labels** the probabilities were recalibrated on, the mean chance of being
  right is known to about sqrt(p (1 - p) / n): the gap is +-1.96 of that (Kish's effective n
  for weighted labels), never wider than the range without labels.

Under a model P the design's expected final accuracy is mean_i pi_i + (1 - pi_i) P_i(right),
its widest half-width z sqrt(max_c sum_i (1 / pi_i - 1) P_ic (1 - P_ic)) / M (the estimator
with P as its control, which the per-cell control approaches), and PPI++'s half-width on as
many random labels :func:`~core.evaluation.sampling.forecast.ppi_expected_half_width` with the
machine's own probabilities as its control.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from core.evaluation.sampling.forecast import ppi_expected_half_width
from core.evaluation.sampling.audit import z_value

__all__ = ["OVERCONFIDENCE", "UNDERCONFIDENCE", "BELOW_CHANCE_SHARE", "combined_half_width",
           "miscalibrated", "expectations_under",
           "calibration_gaps", "expected_range", "range_sentence", "planned_vs_realised"]

#: The largest overconfidence (mean confidence less accuracy) the range allows for without labels.
OVERCONFIDENCE = 0.10
#: The largest underconfidence the range allows for without labels.
UNDERCONFIDENCE = 0.05
#: Share of rows whose confidence in its own label is below 1/K beyond which the confidences
#: are taken not to be probabilities (a trust score: the HMCEval release has 31 %, GPT-4o's
#: verbal confidence on misinfo 1.4 %); the range is then said to be no guide.
BELOW_CHANCE_SHARE = 0.10


def combined_half_width(half: float, pilot_half: float | None) -> float:
    """The half-width of the inverse-variance (Des Raj) combination of an interval of
    half-width ``half`` with a pilot's independent one of ``pilot_half``:
    1 / sqrt(1 / half^2 + 1 / pilot_half^2) (``half`` itself without a finite pilot)."""
    if pilot_half is None or not (math.isfinite(pilot_half) and pilot_half > 0) \
            or not math.isfinite(half):
        return float(half)
    if half <= 0:
        return 0.0
    return float(1 / math.sqrt(1 / half ** 2 + 1 / pilot_half ** 2))


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-np.clip(x, -500, 500)))


def miscalibrated(probabilities: np.ndarray, machine_codes: np.ndarray, gap: float, *,
                  how: str = "shift") -> np.ndarray | None:
    """The class probabilities with the machine's chance of being right lowered on average by
    ``gap`` (raised for a negative gap), by a logit shift or a temperature.

    Parameters
    ----------
    probabilities : array of shape (M, K)
        The planned class probabilities (rows sum to 1).
    machine_codes : int array of shape (M,)
    gap : float
        Planned mean chance of being right less the model's.
    how : {"shift", "temperature"}

    Returns
    -------
    ndarray of shape (M, K), or None when no temperature reaches the mean asked.
    """
    f = np.asarray(probabilities, dtype=float)
    codes = np.asarray(machine_codes, dtype=np.int64)
    m, k = f.shape
    r = np.clip(f[np.arange(m), codes], 1e-4, 1 - 1e-4)
    target = float(r.mean()) - float(gap)
    if not 0 < target < 1:
        return None
    z = np.log(r / (1 - r))

    def mean_at(t: float) -> float:
        return float((_sigmoid(z + t) if how == "shift" else _sigmoid(z / math.exp(t))).mean())

    lo, hi = (-30.0, 30.0) if how == "shift" else (-6.0, 6.0)
    # shift: the mean grows with t; temperature exp(t): it falls with t (where the mean is > 1/2)
    sign = 1.0 if how == "shift" else -1.0
    flo, fhi = mean_at(lo), mean_at(hi)
    if not min(flo, fhi) - 1e-9 <= target <= max(flo, fhi) + 1e-9:
        return None
    for _ in range(200):
        mid = (lo + hi) / 2
        if sign * (mean_at(mid) - target) < 0:
            lo = mid
        else:
            hi = mid
    t = (lo + hi) / 2
    right = _sigmoid(z + t) if how == "shift" else _sigmoid(z / math.exp(t))
    wrong = 1 - f[np.arange(m), codes]
    out = np.empty_like(f)
    with np.errstate(divide="ignore", invalid="ignore"):
        split = np.where(wrong[:, None] > 0, f / wrong[:, None], 1.0 / max(k - 1, 1))
    split[np.arange(m), codes] = 0.0
    out[:] = (1 - right)[:, None] * split
    out[np.arange(m), codes] = right
    return out


def expectations_under(probabilities: np.ndarray, machine_codes: np.ndarray, pi: np.ndarray,
                       *, confidence: float = 0.95) -> tuple[float, float]:
    """(expected final accuracy, widest expected half-width) of a design ``pi`` (1 on rows
    labelled for sure or already) when the true class probabilities are ``probabilities``."""
    p = np.asarray(probabilities, dtype=float)
    pi = np.asarray(pi, dtype=float)
    m = len(pi)
    right = p[np.arange(m), np.asarray(machine_codes, dtype=np.int64)]
    acc = float((pi + (1 - pi) * right).mean())
    v = p * (1 - p)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(v > 0, (1 / pi - 1)[:, None] * v, 0.0)
    var = float(terms.sum(axis=0).max()) / m ** 2
    half = z_value(confidence) * math.sqrt(var) if math.isfinite(var) else float("nan")
    return acc, half


def calibration_gaps(n_labels: float | None = None, mean_right: float | None = None
                     ) -> tuple[float, float]:
    """(largest underconfidence as a negative gap, largest overconfidence): the typical range
    without labels, or +-1.96 sqrt(p (1 - p) / n) after recalibrating on n labels (never wider
    than the typical range)."""
    if not n_labels:
        return -UNDERCONFIDENCE, OVERCONFIDENCE
    p = 0.5 if mean_right is None else min(max(float(mean_right), 0.01), 0.99)
    se = 1.96 * math.sqrt(p * (1 - p) / float(n_labels))
    return -min(se, UNDERCONFIDENCE), min(se, OVERCONFIDENCE)


def expected_range(probabilities: np.ndarray, machine_codes: np.ndarray, pi: np.ndarray, *,
                   control: np.ndarray, n_random: float, n_labels: float | None = None,
                   confidence: float = 0.95, routing_pi: np.ndarray | None = None,
                   pilot_half: float | None = None,
                   half_width: Any = None) -> dict[str, Any]:
    """The range of a planned design's expectations under the miscalibrated models.

    Parameters
    ----------
    probabilities : array of shape (M, K)
        What the design was planned on (confidences as reported, or recalibrated).
    machine_codes : int array of shape (M,)
    pi : array of shape (M,)
        The design, 1 on rows labelled for sure or already.
    control : array of shape (M, K)
        The machine's own probabilities, PPI++'s control.
    n_random : float
        PPI++'s number of random labels (the design's expected labels, with any carried).
    n_labels : float, optional
        Effective number of labels ``probabilities`` were recalibrated on (None: none).
    routing_pi : array of shape (M,), optional
        The routing reference as a design (pi = 1 on the rows it routes and on rows already
        labelled, 0 elsewhere): with it, ``accuracy_vs_routing`` and ``meets_targets`` get
        their range too (routing's accuracy recomputed under each model).
    pilot_half : float, optional
        The half-width of a pilot's own estimate the round's will be combined with (two
        stages): each model's half-width is the combined one (:func:`combined_half_width`).
    half_width : callable, optional
        ``(probabilities, pi) -> float``: the half-width the estimate is expected to report
        under a model (a plan's ``width_model``,
        :func:`core.evaluation.estimate.estimator_half_width`, the pilot's combined in), used
        instead of the ideal estimator's.

    Returns
    -------
    dict
        ``expected_accuracy``, ``expected_half_width``, ``worth_vs_ppi``: [lo, hi];
        with ``routing_pi``, ``accuracy_vs_routing`` [lo, hi] and ``meets_targets``
        [under the least favourable model, under the most favourable] (both targets of
        :attr:`~core.evaluation.sampling.active.ActiveDesign.meets_targets` checked under each model:
        [False, True] means miscalibration within the range decides it);
        ``gaps``: [underconfidence, overconfidence] allowed for (mean chance of being right);
        ``below_chance``: share of rows whose confidence in its own label is below 1/K;
        ``rests_on``: ``"confidences"`` or ``"recalibrated"``; ``n_labels``.
    """
    f = np.asarray(probabilities, dtype=float)
    codes = np.asarray(machine_codes, dtype=np.int64)
    mean_right = float(f[np.arange(len(codes)), codes].mean())
    under, over = calibration_gaps(n_labels, mean_right)
    accs, halves, worths, vs_route, meets = [], [], [], [], []
    models = [f] + [miscalibrated(f, codes, g, how=h) for g in (under, over)
                    for h in ("shift", "temperature")]
    for p in models:
        if p is None:
            continue
        acc, half = expectations_under(p, codes, pi, confidence=confidence)
        if half_width is not None:
            half = float(half_width(p, pi))
        else:
            half = combined_half_width(half, pilot_half)
        accs.append(acc)
        worth = float("nan")
        if math.isfinite(half):
            halves.append(half)
            ppi = ppi_expected_half_width(p, control, n_random, confidence=confidence)
            if half > 0:
                worth = (ppi / half) ** 2
                worths.append(worth)
        if routing_pi is not None:
            # the same two targets as ActiveDesign.meets_targets, under this model
            from core.evaluation.sampling.active import ACCURACY_TOLERANCE

            gap = acc - expectations_under(p, codes, routing_pi, confidence=confidence)[0]
            vs_route.append(gap)
            meets.append(bool(gap >= -ACCURACY_TOLERANCE - 1e-12 and worth >= 1 - 1e-12))

    def span(x: list[float]) -> list[float] | None:
        return [float(min(x)), float(max(x))] if x else None

    own = np.asarray(control, dtype=float)[np.arange(len(codes)), codes]
    below = float((own < 1 / f.shape[1] - 1e-9).mean())
    return {"expected_accuracy": span(accs), "expected_half_width": span(halves),
            "worth_vs_ppi": span(worths), "gaps": [float(under), float(over)],
            "below_chance": below,
            "rests_on": "confidences" if not n_labels else "recalibrated",
            "n_labels": None if not n_labels else float(n_labels),
            **({} if routing_pi is None else {
                "accuracy_vs_routing": span(vs_route),
                "meets_targets": [bool(min(meets)), bool(max(meets))] if meets else None})}


def range_sentence(rng: dict[str, Any] | None, *, source: str | None = None) -> str:
    """One plain sentence: what the expectations rest on and the range they could take (and,
    when the miscalibration decides it, that it decides whether the plan meets both
    targets)."""
    if not rng or not rng.get("expected_accuracy"):
        return ""
    verdict = rng.get("meets_targets")
    if verdict and verdict[0] != verdict[1]:
        return _plain_range(rng, source) + (
            " Within that range it may or may not keep both promises (final labels within "
            "1 point of routing's, an interval worth PPI++'s labels).")
    return _plain_range(rng, source)


def _plain_range(rng: dict[str, Any], source: str | None) -> str:
    a, h = rng["expected_accuracy"], rng.get("expected_half_width")
    width = (f" and the widest class-share half-width from ±{h[0]:.1%} to ±{h[1]:.1%}"
             if h else "")
    under, over = rng["gaps"]
    if rng.get("rests_on") == "recalibrated":
        where = f"the labels of {source}" if source else "earlier labels"
        return (f"These expectations rest on the confidences recalibrated on {where}; "
                f"allowing for what {rng['n_labels']:.0f} labels leave unknown "
                f"(±{over:.1%} in the judge's mean chance of being right), the final accuracy "
                f"could be from {a[0]:.1%} to {a[1]:.1%}{width}.")
    if rng.get("below_chance", 0) > BELOW_CHANCE_SHARE:
        return (f"These expectations take the judge's confidences as probabilities, but "
                f"{rng['below_chance']:.0%} of them are below 1/(number of classes): they are "
                f"not probabilities (a trust score?), and the plan can miss by more than the "
                f"range it would have under typical miscalibration ({a[0]:.1%} to {a[1]:.1%} "
                "final accuracy). Plan on an earlier round's labels first.")
    return (f"These expectations take the judge's confidences as probabilities; no labels "
            f"check them yet. If the judge is overconfident by {over:.0%} (typical of LLM "
            f"judges) or underconfident by {-under:.0%}, the final accuracy could be from "
            f"{a[0]:.1%} to {a[1]:.1%}{width}; a confidence that is not a probability (a "
            "trust score) can miss by more. Plan on an earlier round's labels to narrow it.")


def planned_vs_realised(record: dict[str, Any] | None, estimate: dict[str, Any] | None
                        ) -> list[dict[str, Any]]:
    """A round's plan against what its labels realise, one row per expectation.

    Parameters
    ----------
    record : dict
        The round's stored design (:func:`core.workspace.active_rounds.design_record`):
        ``expected_accuracy``, ``expected_half_width``, ``expected_labels``, optionally
        ``expected_range`` and ``calibrated_on``.
    estimate : dict
        The round's estimate (``accuracy``: {``estimate``}, ``class_shares``: {class:
        {``half_width``}}, ``n_labelled``).

    Returns
    -------
    list of dict
        ``quantity`` ("final accuracy", "widest class-share half-width", "labels"),
        ``planned``, ``planned_low``, ``planned_high`` (None without a range), ``realised``,
        ``in_range`` (None without a range or a realised value), ``difference`` (realised less
        planned). Empty without a design record of an active, random or pilot round (the first
        of two batches, its expectations on the confidences as reported) or an estimate.
    """
    if not record or record.get("design") not in ("active", "random", "pilot") or not estimate:
        return []
    rng = record.get("expected_range") or {}
    halves = [s.get("half_width") for s in (estimate.get("class_shares") or {}).values()]
    halves = [h for h in halves if h is not None]
    carried = (record.get("calibrated_on") or {}).get("labels", 0) or 0
    realised = {"expected_accuracy": (estimate.get("accuracy") or {}).get("estimate"),
                "expected_half_width": max(halves) if halves else None,
                "expected_labels": estimate.get("n_labelled")}
    names = {"expected_accuracy": "final accuracy",
             "expected_half_width": "widest class-share half-width",
             "expected_labels": "labels"}
    out = []
    for key, name in names.items():
        planned = record.get(key)
        if planned is None:
            continue
        planned = float(planned) + (carried if key == "expected_labels" else 0)
        span = rng.get(key)
        got = realised[key]
        out.append({"quantity": name, "planned": planned,
                    "planned_low": None if not span else float(span[0]),
                    "planned_high": None if not span else float(span[1]),
                    "realised": None if got is None else float(got),
                    "in_range": None if not span or got is None else
                    bool(span[0] <= got <= span[1]),
                    "difference": None if got is None else float(got) - planned})
    return out
