"""Issue 20's two targets on judges the design has never seen, and the bound on any design.

Issue 20 asks that the active design at default settings (the recommended design of
``core.evaluation.sampling.active.design_frontier``, drawn by ``draw``, estimated by
``core.evaluation.estimate.weighted.weighted_estimates``) give (a) every class share an interval worth
at least as many random labels as PPI++ (``ppi_py.ppi_mean_ci``, lam=None) with the same
number of random labels, and (b) final labels within 1 point of the accuracy of routing the
same number of least confident rows, "also on data you have not seen". This bench checks
both on synthetic LLM-like judges (2, 3 and 4 classes; calibrated, over- and underconfident
and verbal-grid confidences with ties; a rare class; strong and weak judges; errors into the
next class), M = 2,193 rows each, and asks whether *any* design could meet them:

1. **Simulation.** The default design over ``--rounds`` rounds: the smallest ratio over the
   classes of our interval's worth to PPI++'s (worth of a half-width h for a share p: the
   simple random sample of the same half-width, ``srs_size_for_half_width(M, p (1 - p), h)``,
   of the mean half-widths), the final accuracy less routing's, the lowest coverage of the
   class-share intervals, and whether (a) and (b) both hold.
2. **The bound.** From the generator, the exact probabilities P_ic = P(gold = c | machine
   label, the judge's true chance p_i of being right) (Bayes: priors, p_i, the confusion
   rule). For designs with inclusion probabilities pi_i and a design-unbiased estimator of a
   share, the expected variance is at least sum_i (1 / pi_i - 1) P_ic (1 - P_ic) / M^2 (the
   Godambe-Joshi bound; it is the variance of the Poisson / Horvitz-Thompson estimator with
   the oracle control P_ic). PPI++, active inference and this project's design are all in
   that class (unbiased up to their estimated coefficients). The bound is optimistic for us:
   it assumes the true probabilities are known, both for the control and for the design. With
   cvxpy (Clarabel; SCS if that fails, named in the output) it solves

       maximise t   over pi in [1e-4, 1]^M
       subject to   sum_i pi_i <= B,
                    sum_i pi_i (1 - P_i,machine) >= G_route - 0.01 M,
                    sum_i (1 / pi_i - 1) P_ic (1 - P_ic) / M^2 <= V_ppi_c / t   for every c

   (as: minimise s = 1 / t, convex since 1 / pi is), where G_route = sum of (1 - P_i,machine)
   over the B rows of lowest reported confidence (routing's expected gain) and V_ppi_c is
   PPI++'s expected variance with n = B random labels and the raw machine probabilities f
   (``machine_probabilities`` of the reported confidences) as its control. t is a ratio of
   variances; t >= 1 exactly when the worth ratio is >= 1 (the worth ratio, with the
   finite-population correction the simulation's worth counts, is printed beside it). Also:
   t without the accuracy constraint, and the best final accuracy (less routing's) of any
   design whose every interval is expected to be worth PPI++'s labels (t >= 1). Knowing P
   also gives the bound a head start on the final labels that no real design has (routing
   the B rows most likely wrong by the true P rather than by the reported confidence; its
   column): a "no" of the bound is robust, a "yes" is optimistic. How much a "yes" rests on
   that head start: t within 1 point of routing by the true P (not a bound; a sensitivity).

   V_ppi_c is PPI++'s variance as ``ppi_py`` computes it for a mean with lam=None:
   Var_i(Y_c - lam f_c) / n + lam^2 Var_i(f_c) / N with N = M - n unlabelled rows and
   lam = Cov(P_c, f_c) / ((1 + n / N) Var(f_c)) clipped to [0, 1], where
   Var_i(Y_c - lam f_c) = mean_i P_ic (1 - P_ic) + Var_i(P_ic - lam f_ic). The simpler
   (mean_i P_ic (1 - P_ic) + Var_i(P_ic - lam* f_ic)) / n with lam* = Cov / Var (no
   unlabelled term) understates PPI++'s variance, most at large budgets; the bound under it is
   printed too (``t, simple V``), and the expected PPI++ half-width is checked against the
   simulated one.

   The default design's own pi scored the same way (oracle control, true probabilities) is
   printed as well. The simulation falls short of that score: the real estimator's control is
   fitted on the labels (cells of the machine's class and confidence, cross-fitted), not the
   true P, and its interval rests on an estimated variance (moderated, with a t quantile).
   Accuracy figures differ in kind too: the simulation's are on the one realised population
   (its gold labels, routing's realised errors), the bound's are expectations over the
   generator's gold given the machine labels and p_i, so a cell near 1 point can fall on
   either side in the two tables.

   The bound (Godambe & Joshi 1965) holds for any sampling design with first-order inclusion
   probabilities pi_i, fixed-size or not, and any design-unbiased estimator, for the
   anticipated variance under a model where the rows' labels are independent given their
   covariates (here they are: rows are drawn independently by the generator).

A summary line counts the cells (regime x budget share) where the default meets both targets
and those where the bound says no design can.

Usage: ``python bench/design_unseen.py [--rounds 200] [--quick] [--shares 0.15,0.5]
[--only TEXT] [--seed 1]``. Needs ``ppi-python`` and ``cvxpy`` (the test extras). Prints
figures only; nothing is asserted here.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.assignment import n_from_share  # noqa: E402
from core.evaluation.sampling import design_frontier, machine_probabilities  # noqa: E402
from core.evaluation.sampling import draw  # noqa: E402
from core.evaluation.sampling import z_value  # noqa: E402
from _rounds import Rounds, worth  # noqa: E402

M = 2193  # rows per regime (the size of the 3-class stance set)
#: the share of next-class errors under ``confusion="next"``
NEXT = 0.8
#: how far below routing the final accuracy may fall (issue 20: 1 point)
TOLERANCE = 0.01
PI_MIN = 1e-4

#: The regimes: keyword arguments of :func:`judge`.
REGIMES: dict[str, dict] = {
    "3c calibrated": dict(k=3, priors=[0.5, 0.3, 0.2]),
    "3c over 1.5": dict(k=3, priors=[0.5, 0.3, 0.2], distort=1.5, shift=0.5),
    "3c over, next-class errs": dict(k=3, priors=[0.45, 0.35, 0.2], distort=1.5, shift=0.8,
                                     confusion="next"),
    "3c verbal grid": dict(k=3, priors=[0.5, 0.3, 0.2], distort=1.3, shift=0.4,
                           quant=[0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.99]),
    "2c calibrated": dict(k=2, priors=[0.6, 0.4], acc_shape=(4, 1.3)),
    "2c over": dict(k=2, priors=[0.7, 0.3], acc_shape=(4, 1.3), distort=1.6, shift=0.6),
    "2c under": dict(k=2, priors=[0.6, 0.4], acc_shape=(4, 1.3), distort=0.7, shift=-0.2),
    "4c rare class": dict(k=4, priors=[0.5, 0.3, 0.15, 0.05], acc_shape=(6, 1.5), distort=1.3),
    "3c strong judge": dict(k=3, priors=[0.5, 0.3, 0.2], acc_shape=(9, 1.0), distort=1.2),
    "3c weak judge": dict(k=3, priors=[0.5, 0.3, 0.2], acc_shape=(3, 1.5), distort=1.4,
                          shift=0.3),
}


def judge(seed: int, m: int = M, k: int = 3, priors: list[float] | None = None,
          acc_shape: tuple[float, float] = (5, 1.4), distort: float = 1.0, shift: float = 0.0,
          quant: list[float] | None = None, confusion: str = "uniform") -> dict:
    """A synthetic LLM-like judge.

    gold ~ priors; the judge's chance of being right p_i ~ Beta(acc_shape) clipped to
    [1/k, 0.999], independent of gold; right with probability p_i, else a wrong class
    (uniform over the others, or with ``confusion="next"`` the next class (gold + 1) mod k with
    probability 0.8 and a uniform step 1..k-1 otherwise). The reported confidence is
    sigmoid(distort * logit(p_i) + shift), clipped to [1/k, 0.999], optionally snapped to the
    nearest point of ``quant`` (a verbal grid: ties). Returns codes, confidences, p and the
    exact class probabilities P (M, k) given (machine label, p_i).
    """
    rng = np.random.default_rng(seed)
    priors = list(priors or [1 / k] * k)
    gold = rng.choice(k, size=m, p=priors)
    p = np.clip(rng.beta(*acc_shape, size=m), 1 / k, 0.999)
    right = rng.random(m) < p
    if confusion == "uniform":
        wrong = (gold + rng.integers(1, k, size=m)) % k
    else:
        step = np.where(rng.random(m) < NEXT, 1, rng.integers(1, k, size=m))
        wrong = (gold + step) % k
    mach = np.where(right, gold, wrong)
    lg = np.log(p / (1 - p))
    q = np.clip(1 / (1 + np.exp(-(distort * lg + shift))), 1 / k, 0.999)
    if quant is not None:
        grid = np.asarray(quant, dtype=float)
        q = grid[np.abs(q[:, None] - grid[None, :]).argmin(axis=1)]
    # P(step = j), j = 0..k-1 (j = 0 unused): the chance a wrong label lands j classes on
    step_p = np.zeros(k)
    if confusion == "uniform":
        step_p[1:] = 1 / (k - 1)
    else:
        step_p[1:] = (1 - NEXT) / (k - 1)
        step_p[1] += NEXT
    # Bayes: P(gold = c | mach = a, p) ~ prior_c * (p if c == a else (1 - p) step_p[(a - c) % k])
    c = np.arange(k)
    lik = (1 - p)[:, None] * step_p[(mach[:, None] - c[None, :]) % k]
    lik[np.arange(m), mach] = p
    post = np.asarray(priors)[None, :] * lik
    post /= post.sum(axis=1, keepdims=True)
    return {"mach": mach, "gold": gold, "q": q, "p": p, "P": post, "k": k}


def ppi_variance(P: np.ndarray, f: np.ndarray, n: int, *, simple: bool = False) -> np.ndarray:
    """PPI++'s expected variance per class with n random labels (see the module doc)."""
    m = len(P)
    big_n = m - n
    out = []
    for c in range(P.shape[1]):
        pc, fc = P[:, c], f[:, c]
        vf = fc.var()
        cov = float(np.mean((pc - pc.mean()) * (fc - fc.mean())))
        if simple:
            lam = float(np.clip(cov / vf, 0, 1)) if vf > 0 else 0.0
            out.append((np.mean(pc * (1 - pc)) + np.var(pc - lam * fc)) / n)
        else:
            lam = float(np.clip(cov / ((1 + n / big_n) * vf), 0, 1)) if vf > 0 else 0.0
            out.append((np.mean(pc * (1 - pc)) + np.var(pc - lam * fc)) / n
                       + lam ** 2 * vf / big_n)
    return np.asarray(out)


def oracle_variance(pi: np.ndarray, P: np.ndarray) -> np.ndarray:
    """sum_i (1 / pi_i - 1) P_ic (1 - P_ic) / M^2 per class."""
    return ((1 / pi - 1)[:, None] * P * (1 - P)).sum(axis=0) / len(pi) ** 2


def solve(P: np.ndarray, gain: np.ndarray, budget: int, v_ppi: np.ndarray, *,
          floor_gain: float | None, maximise_gain: bool = False) -> tuple[np.ndarray | None, str]:
    """The bound's convex problem (module doc); returns (pi or None if infeasible, solver).

    ``maximise_gain``: maximise sum pi_i gain_i subject to every class's variance <= V_ppi
    (t >= 1) instead of minimising s = 1 / t.
    """
    import cvxpy as cp

    m = len(gain)
    # the constraint scaled by M^2 V_ppi_c, so that s is of order 1
    R = P * (1 - P) / (m ** 2 * v_ppi[None, :])
    pi = cp.Variable(m)
    var = R.T @ cp.inv_pos(pi) - R.sum(axis=0)
    cons = [pi >= PI_MIN, pi <= 1, cp.sum(pi) <= budget]
    if maximise_gain:
        prob = cp.Problem(cp.Maximize(gain @ pi), cons + [var <= 1])
    else:
        s = cp.Variable()
        if floor_gain is not None:
            cons.append(gain @ pi >= floor_gain)
        prob = cp.Problem(cp.Minimize(s), cons + [var <= s])
    for solver in ("CLARABEL", "SCS"):
        try:
            prob.solve(solver=solver)
        except cp.error.SolverError:
            continue
        if prob.status in ("optimal", "optimal_inaccurate"):
            tag = solver if prob.status == "optimal" else f"{solver} (inaccurate)"
            return np.clip(np.asarray(pi.value, dtype=float), PI_MIN, 1.0), tag
        if prob.status in ("infeasible", "infeasible_inaccurate"):
            return None, solver
    return None, "failed"


def simulate(j: dict, budget: int, rounds: int, seed: int) -> dict:
    """The default design against PPI++ on the same number of random labels."""
    mach, gold, q, k = j["mach"], j["gold"], j["q"], j["k"]
    m = len(q)
    f = machine_probabilities(mach, q, k)
    t0 = time.perf_counter()
    rec, _ = design_frontier(mach, q, k, labels=budget)
    pi = rec.pi
    order = np.argsort(-(1 - q), kind="stable")[:budget]
    acc_route = ((mach == gold).sum() + (mach[order] != gold[order]).sum()) / m
    runs = Rounds(mach, gold, q, f, np.random.default_rng(7 + seed))
    for r in range(rounds):
        runs.add(draw(pi, seed=10_000 + r + 1_000_000 * seed), pi)
    out = runs.summary(acc_route)
    return {"pi": pi, "ratio": out["ratio"], "ratios": out["ratios"], "dacc": out["dacc"],
            "cov": out["cov"], "routed": int((pi >= 1).sum()), "ppi_half": out["ppi_half"],
            "labels": out["labels"], "seconds": time.perf_counter() - t0}


def bound(j: dict, budget: int) -> dict:
    """The oracle bound (module doc) and the default design scored the same way."""
    mach, q, k, P = j["mach"], j["q"], j["k"], j["P"]
    m = len(q)
    truth = np.bincount(j["gold"], minlength=k) / m
    f = machine_probabilities(mach, q, k)
    gain = 1 - P[np.arange(m), mach]  # the chance the machine label is wrong
    order = np.argsort(-(1 - q), kind="stable")[:budget]
    g_route = float(gain[order].sum())
    floor_gain = g_route - TOLERANCE * m
    z = z_value(0.95)

    def worth_ratio(var: np.ndarray, v_ppi: np.ndarray) -> float:
        return min(worth(m, truth[c], z * math.sqrt(var[c]))
                   / max(1, worth(m, truth[c], z * math.sqrt(v_ppi[c]))) for c in range(k))

    # routing by the true probabilities (the B rows most likely wrong): the oracle's head start
    g_oracle_route = float(np.sort(gain)[::-1][:budget].sum())
    out: dict = {"g_route": g_route / m, "g_head": (g_oracle_route - g_route) / m}
    t0 = time.perf_counter()
    solvers = set()
    for tag, simple in (("", False), ("simple_", True)):
        v_ppi = ppi_variance(P, f, budget, simple=simple)
        if not simple:
            out["v_ppi"] = v_ppi
        pi, sv = solve(P, gain, budget, v_ppi, floor_gain=floor_gain)
        solvers.add(sv)
        if pi is None:
            out[tag + "t"] = out[tag + "t_worth"] = float("nan")
        else:
            var = oracle_variance(pi, P)
            out[tag + "t"] = float(np.min(v_ppi / var))
            out[tag + "t_worth"] = worth_ratio(var, v_ppi)
        if simple:
            continue
        pi0, sv = solve(P, gain, budget, v_ppi, floor_gain=None)
        solvers.add(sv)
        out["t_free"] = float(np.min(v_ppi / oracle_variance(pi0, P))) if pi0 is not None \
            else float("nan")
        pi1, sv = solve(P, gain, budget, v_ppi, floor_gain=None, maximise_gain=True)
        solvers.add(sv)
        out["best_dacc"] = float((gain @ pi1 - g_route) / m) if pi1 is not None else None
        # the head start removed: within 1 point of routing by the true P (not a bound on
        # the acceptance question; shows how much a "yes" rests on knowing P)
        pi2, sv = solve(P, gain, budget, v_ppi, floor_gain=g_oracle_route - TOLERANCE * m)
        solvers.add(sv)
        out["t_fair"] = float(np.min(v_ppi / oracle_variance(pi2, P))) if pi2 is not None \
            else float("nan")
    out["solver"] = "/".join(sorted(solvers))
    out["seconds"] = time.perf_counter() - t0
    return out


def score_default(pi: np.ndarray, j: dict, v_ppi: np.ndarray, g_route: float
                  ) -> tuple[float, float]:
    """The default design's pi under the bound's yardstick: (t, expected accuracy - routing)."""
    P, mach = j["P"], j["mach"]
    m = len(pi)
    gain = 1 - P[np.arange(m), mach]
    pi = np.clip(pi, PI_MIN, 1.0)
    return float(np.min(v_ppi / oracle_variance(pi, P))), float(gain @ pi / m - g_route)


def fmt(x: float | None, spec: str = ".2f") -> str:
    return "none" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, spec)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--quick", action="store_true", help="50 rounds, for a first look")
    ap.add_argument("--shares", default="0.15,0.5",
                    help="budget shares of the rows, comma-separated (default 0.15,0.5)")
    ap.add_argument("--only", metavar="TEXT", help="only the regimes whose name holds TEXT")
    ap.add_argument("--seed", type=int, default=1, help="seed of the synthetic judges")
    args = ap.parse_args()
    rounds = 50 if args.quick else args.rounds
    shares = [float(s) for s in args.shares.split(",") if s.strip()]
    regimes = {n: kw for n, kw in REGIMES.items() if args.only is None or args.only in n}
    if not regimes:
        sys.exit(f"no regime's name holds {args.only!r}; the regimes: {', '.join(REGIMES)}")
    start = time.perf_counter()
    met = impossible = cells = 0
    print(f"# Issue 20's targets on synthetic judges: M = {M:,} rows, judge seed {args.seed}, "
          f"{rounds} rounds per cell")
    for share in shares:
        budget = n_from_share(share, M)
        sims, bounds = {}, {}
        for name, kw in regimes.items():
            j = judge(args.seed, **kw)
            sims[name] = s = simulate(j, budget, rounds, args.seed)
            bounds[name] = b = bound(j, budget)
            b["default_t"], b["default_dacc"] = score_default(s["pi"], j, b["v_ppi"],
                                                              b["g_route"])
            b["ppi_check"] = (z_value(0.95) * np.sqrt(b["v_ppi"]), s["ppi_half"])
            s["acc"] = float((j["mach"] == j["gold"]).mean())
            s["k"] = j["k"]
        print(f"\n## budget {share:.0%}: {budget} labels of {M:,}")
        print("\n### 1. The default design, simulated (recommended design of design_frontier; "
              "worth ratio = ours / PPI++'s on the same number of random labels, smallest over "
              "classes; final accuracy less routing the same number of least confident rows)")
        print("| regime | machine accuracy | labels drawn (mean) | routed rows | worth ratio "
              "(per class) | final accuracy - routing | min coverage | (a) worth >= 1 | "
              "(b) within 1 pt | both |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for name, s in sims.items():
            a, bb = s["ratio"] >= 1, s["dacc"] >= -TOLERANCE
            met += a and bb
            per = ", ".join(f"{r:.2f}" for r in s["ratios"])
            print(f"| {name} | {s['acc']:.3f} | {s['labels']:.1f} | {s['routed']} | "
                  f"{s['ratio']:.2f} ({per}) | {100 * s['dacc']:+.2f} pt | {s['cov']:.3f} | "
                  f"{'yes' if a else 'no'} | {'yes' if bb else 'no'} | "
                  f"{'**yes**' if a and bb else 'no'} |")
        print("\n### 2. The bound: best t any design with known inclusion probabilities and a "
              "design-unbiased estimator can reach (variance ratio PPI++ / design, smallest "
              "over classes; oracle control and true probabilities, so optimistic for us)")
        print("| regime | routing's expected gain | routing by the true P - by q | "
              "t within 1 pt of routing (= worth ratio) | "
              "t, simple V | t within 1 pt of routing by the true P | "
              "t without accuracy constraint | best accuracy - routing with "
              "t >= 1 | default's pi scored so: t, accuracy - routing | PPI++ half-width, "
              "expected / simulated (widest class) | any design can meet both | solver, s |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for name, b in bounds.items():
            cells += 1
            can = b["t"] >= 1 - 1e-9 if not math.isnan(b["t"]) else False
            impossible += not can
            best = b["best_dacc"]
            best_txt = "no design (t < 1)" if best is None else f"{100 * best:+.2f} pt"
            exp_h, sim_h = b["ppi_check"]
            c = int(np.argmax(sim_h))
            print(f"| {name} | {100 * b['g_route']:.2f} pt | {100 * b['g_head']:+.2f} pt | "
                  f"{fmt(b['t'])} "
                  f"(= {fmt(b['t_worth'])}) | {fmt(b['simple_t'])} | {fmt(b['t_fair'])} | "
                  f"{fmt(b['t_free'])} | "
                  f"{best_txt} | {b['default_t']:.2f}, {100 * b['default_dacc']:+.2f} pt | "
                  f"{exp_h[c]:.4f} / {sim_h[c]:.4f} | {'yes' if can else '**no**'} | "
                  f"{b['solver']}, {b['seconds']:.1f} |")
    print(f"\n**Summary** ({len(regimes)} regimes x {len(shares)} budget shares = {cells} cells): "
          f"the default design meets both targets in {met} of {cells}; the bound says no "
          f"design (known inclusion probabilities, design-unbiased estimator, even with the true "
          f"probabilities) can meet both in {impossible} of {cells}. "
          f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
