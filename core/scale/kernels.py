"""The per-chunk kernels of the large-table path (module-level, so that Ray can ship them).

Each kernel reads one chunk of the compact columns (``q`` the machine's confidence, ``code``
its class code, optional ``effort`` the predicted effort l_i, ``b`` the human confidence,
``k`` the machine effort; for an estimate also ``human``, ``lab``, ``pi``...) and computes,
element by element, exactly what :mod:`core.evaluation.sampling.active` computes on the whole table
(the same numpy operations in the same order), so that only the order of the final sums
differs from the in-memory path.
"""

from __future__ import annotations

import numpy as np

from core.evaluation.sampling import DRAW_SALT, machine_probabilities

__all__ = ["row_inputs", "active_pi", "design_pi", "row_sigma", "k_stats", "k_gain", "k_sig_gain", "k_budget", "k_budget_many", "k_describe_many", "k_describe",
           "k_draw", "k_model_inputs", "uniforms"]


def row_inputs(ch: dict, n_classes: int, lam: float) -> dict:
    """f (class probabilities), s2, sig, gain g, effort l of a chunk, as
    :func:`core.evaluation.sampling.plan.plan_design` and ``active._context`` build them."""
    q = np.clip(np.asarray(ch["q"], dtype=float), 0.0, 1.0)
    f = machine_probabilities(ch["code"], q, n_classes)
    s2 = (f * (1 - f)).sum(axis=1)
    n = len(q)
    eff = ch["effort"] if "effort" in ch else np.ones(n)
    b = ch["b"] if "b" in ch else np.ones(n)
    kk = ch["k"] if "k" in ch else np.zeros(n)
    a = np.asarray(ch["q"], dtype=float)
    g = (np.asarray(b, float) - lam * np.asarray(eff, float)) - (a - lam * np.asarray(kk, float))
    return {"q": q, "f": f, "s2": s2, "eff": np.asarray(eff, dtype=float), "g": g}


def row_sigma(s2: np.ndarray) -> np.ndarray:
    """sigma_i = sqrt(max(s2_i, 1e-6)), as ``active.inclusion_probabilities`` takes it."""
    return np.sqrt(np.maximum(np.maximum(s2, 0.0), 1e-6))


def active_pi(s2: np.ndarray | None, cost: np.ndarray, g: np.ndarray, nu: float, mu: float,
              floor: float, *, sig: np.ndarray | None = None
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """pi_i for the multiplier nu (``active._pi_for``), with the unclipped p and den
    (``sig`` given: sigma_i computed once, :func:`row_sigma`)."""
    sig = row_sigma(s2) if sig is None else sig
    den = nu * cost - mu * g
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(den > 0, sig / np.sqrt(np.where(den > 0, den, 1.0)), 1.0)
    return np.clip(p, max(float(floor), 1e-6), 1.0), p, den


def design_pi(ch: dict, spec: dict, r: dict | None = None) -> np.ndarray:
    """The inclusion probabilities of a chunk under a design ``spec``: ``{"kind": "active",
    "nu", "mu", "floor"}``, ``{"kind": "ones"}``, ``{"kind": "const", "rate"}`` or
    ``{"kind": "route", "rate"}`` (1 on the chunk's ``route`` rows, ``rate`` elsewhere);
    ``r``: the chunk's :func:`row_inputs`, when already computed."""
    n = len(ch["q"])
    kind = spec["kind"]
    if kind == "ones":
        return np.ones(n)
    if kind == "const":
        return np.full(n, float(spec["rate"]))
    if kind == "route":
        return np.where(ch["route"], 1.0, float(spec["rate"]))
    r = row_inputs(ch, spec["n_classes"], spec["lam"]) if r is None else r
    cost = r["eff"] if spec["use_cost"] else np.ones(n)
    return active_pi(r["s2"], cost, r["g"], spec["nu"], spec["mu"], spec["floor"])[0]


def k_stats(ch: dict, start: int, *, n_classes: int, lam: float, use_cost: bool) -> np.ndarray:
    """[sum cost, sum s2, sum |g|, then sum_i f_ic (1 - f_ic) for every class c]."""
    r = row_inputs(ch, n_classes, lam)
    cost = r["eff"] if use_cost else np.ones(len(r["q"]))
    v = (r["f"] * (1 - r["f"])).sum(axis=0)
    return np.r_[cost.sum(), r["s2"].sum(), np.abs(r["g"]).sum(), v]


def k_gain(ch: dict, start: int, *, n_classes: int, lam: float) -> np.ndarray:
    """The gain g_i of every row of the chunk (the routing order)."""
    return row_inputs(ch, n_classes, lam)["g"]


def k_sig_gain(ch: dict, start: int, *, n_classes: int, lam: float) -> dict:
    """sigma_i and g_i of the chunk's rows (kept as columns while a design is solved)."""
    r = row_inputs(ch, n_classes, lam)
    return {"sig": row_sigma(r["s2"]), "g": r["g"]}


def k_budget(ch: dict, start: int, *, nu: float, mu: float, floor: float, n_classes: int,
             lam: float, use_cost: bool) -> np.ndarray:
    """[sum_i c_i pi_i(nu), d/d(log nu) of it] (columns ``sig`` and ``g`` of
    :func:`k_sig_gain`)."""
    sig, g = ch["sig"], ch["g"]
    fl = max(float(floor), 1e-6)
    if use_cost:
        cost = np.asarray(ch["effort"], dtype=float)
        den = nu * cost - mu * g
    else:  # cost 1: nu * 1 - mu g, the same numbers without the product
        cost = None
        den = nu - mu * g
    # element by element active._pi_for: 1 where den <= 0, else sig / sqrt(den), clipped
    pos = den > 0
    p = np.ones(len(den))
    p[pos] = sig[pos] / np.sqrt(den[pos])
    pi = np.clip(p, fl, 1.0)
    inner = pos & (p > fl) & (p < 1.0)
    if cost is None:
        total = float(pi.sum())
        slope = -0.5 * nu * float((p[inner] / den[inner]).sum())
    else:
        total = float((pi * cost).sum())
        c = cost[inner]
        slope = -0.5 * nu * float((c * c * p[inner] / den[inner]).sum())
    return np.array([total, slope])


def k_budget_many(ch: dict, start: int, *, nus: list, mus: list, floors: list,
                  use_cost: bool) -> np.ndarray:
    """:func:`k_budget` of several (nu, mu, floor) in one pass: [S_1, slope_1, S_2, ...]."""
    return np.concatenate([k_budget(ch, start, nu=nu, mu=mu, floor=fl, n_classes=2, lam=0.0,
                                    use_cost=use_cost)
                           for nu, mu, fl in zip(nus, mus, floors)])


def k_describe_many(ch: dict, start: int, *, specs: list) -> np.ndarray:
    """:func:`k_describe` of several designs in one pass, concatenated (the chunk's row
    inputs computed once)."""
    if not specs:
        return np.zeros(0)
    r = row_inputs(ch, specs[0]["n_classes"], specs[0]["lam"])
    v = r["f"] * (1 - r["f"])
    return np.concatenate([_describe_sums(ch, spec, r, v) for spec in specs])


def k_describe(ch: dict, start: int, *, spec: dict) -> np.ndarray:
    """[sum pi, sum pi l, sum (pi + (1 - pi) q), rows with pi >= 1, then per class
    sum_i (1 / pi_i - 1) f_ic (1 - f_ic) (0 where f_ic (1 - f_ic) = 0)]: ``active._describe``'s
    sums."""
    r = row_inputs(ch, spec["n_classes"], spec["lam"])
    return _describe_sums(ch, spec, r, r["f"] * (1 - r["f"]))


def _describe_sums(ch: dict, spec: dict, r: dict, v: np.ndarray) -> np.ndarray:
    pi = design_pi(ch, spec, r)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(v > 0, (1 / pi - 1)[:, None] * v, 0.0)
    return np.r_[pi.sum(), (pi * r["eff"]).sum(), (pi + (1 - pi) * r["q"]).sum(),
                 float((pi >= 1).sum()), terms.sum(axis=0)]


def uniforms(seed: int, start: int, n: int) -> np.ndarray:
    """Rows ``start .. start + n - 1`` of the Poisson draw's uniforms: the stream of
    :func:`core.evaluation.sampling.draw.draw` (one 64-bit output per double, so the generator
    advanced by ``start`` gives the chunk's slice of the one call)."""
    bitgen = np.random.PCG64(np.random.SeedSequence([int(seed), DRAW_SALT]))
    if start:
        bitgen.advance(int(start))
    return np.random.Generator(bitgen).random(int(n))


def k_draw(ch: dict, start: int, *, spec: dict, seed: int) -> dict:
    """The chunk's drawn rows: ``audit`` (global row numbers drawn with pi < 1), ``routed``
    (pi = 1) and the routed rows' gains ``gain``."""
    pi = design_pi(ch, spec)
    u = uniforms(seed, start, len(pi))
    drawn = (u < pi) | (pi >= 1)
    routed = pi >= 1
    g = row_inputs(ch, spec["n_classes"], spec["lam"])["g"]
    return {"audit": np.flatnonzero(drawn & ~routed) + start,
            "routed": np.flatnonzero(routed) + start, "gain": g[routed]}


def k_model_inputs(ch: dict, start: int, *, spec: dict) -> dict:
    """A chunk's machine codes, confidences and pi under ``spec``: what a plan's
    ``width_model`` reads (:func:`core.evaluation.estimate.estimator_half_width`)."""
    return {"code": np.asarray(ch["code"], dtype=np.int64),
            "q": np.asarray(ch["q"], dtype=float), "pi": design_pi(ch, spec)}
