"""The scenario: what the user chose, as one frozen value with one key.

A :class:`Scenario` holds the dataset (its content id, :attr:`core.data.EvalData.content_id`,
and its column mapping), lambda, N (as the share and as the count), the budget mode, the extra
constraints (effort budget, subgroup share bounds) and, for a round, the round's settings. Its
:attr:`Scenario.key` is a SHA-256 of every field with floats written exactly (``float.hex``):
two lambdas that print alike (``f"{x:g}"``) but differ have different keys. No display label
ever enters a key.

The four settings a user moves (lambda, share, mode, constraints) are a plain dict in the
workspace and in the dashboard's session state (:func:`settings_of`, :func:`scenario_for`);
their defaults are :mod:`core.defaults`' (:func:`default_settings`).
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, fields, replace
from typing import Any, Mapping

from core.assignment import n_from_share
from core.defaults import EFFORT_BUDGET_SHARE, GROUP_COLUMN, HUMAN_SHARE, LAMBDA, MODE
from core.errors import DataError

__all__ = ["Scenario", "scenario_for", "settings_of", "default_settings", "data_key",
           "exact_key", "SETTING_KEYS", "settings_differences"]

#: The settings a scenario is built from (session state keys and the workspace's JSON).
SETTING_KEYS = ("lam", "share", "mode", "constraints")


def _exact(value: Any) -> Any:
    """``value`` as JSON-able data with every float written exactly (``float.hex``)."""
    if isinstance(value, bool) or value is None or isinstance(value, (str, int)):
        return value
    if isinstance(value, float):
        return {"float": value.hex()}
    if isinstance(value, Mapping):
        return {str(k): _exact(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (list, tuple)):
        return [_exact(v) for v in value]
    if hasattr(value, "item"):  # a numpy scalar
        return _exact(value.item())
    return str(value)


def exact_key(value: Any) -> str:
    """A SHA-256 (hex) of ``value`` (dicts, lists, numbers, text) with exact floats."""
    text = json.dumps(_exact(value), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def data_key(content_id: str, roles: Mapping[str, Any] | None) -> str:
    """The key of a dataset as mapped: its content id and its column mapping (a dataset's
    settings and every cache of what depends on the data only are keyed on it)."""
    return exact_key({"content": str(content_id), "roles": dict(roles or {})})[:32]


def default_settings() -> dict[str, Any]:
    """A new copy of the default settings (:mod:`core.defaults`)."""
    return {"lam": LAMBDA, "share": HUMAN_SHARE, "mode": MODE,
            "constraints": {"effort_budget_share": EFFORT_BUDGET_SHARE,
                            "group_column": GROUP_COLUMN, "group_bounds": {}}}


def _bound(v: Any) -> float | None:
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)


@dataclass(frozen=True)
class Scenario:
    """One user's choice over one dataset (see the module docstring).

    Attributes
    ----------
    dataset : str
        The dataset's content id (:func:`core.data.content.content_id`).
    roles : str
        Its column mapping as canonical JSON.
    lam : float
        Lambda, in the dataset's effort units.
    share, n_human : float, int
        The human share N / M and the count N = int(share * M).
    mode : {"at_most", "exactly"}
    effort_budget_share : float or None
        Budget on the total predicted human effort, as a share of all samples' effort.
    group_column : str or None
    group_bounds : tuple of (group, min share or None, max share or None)
        Sorted by group.
    round : str
        A round's settings as canonical JSON (``""``: none; the live scenario of the pages).
    """

    dataset: str
    roles: str
    lam: float
    share: float
    n_human: int
    mode: str
    effort_budget_share: float | None = None
    group_column: str | None = None
    group_bounds: tuple = ()
    round: str = ""

    @property
    def key(self) -> str:
        """SHA-256 (hex) of every field, floats exact."""
        return exact_key({f.name: getattr(self, f.name) for f in fields(self)})

    @property
    def data_key(self) -> str:
        """:func:`data_key` of the scenario's dataset and mapping."""
        return data_key(self.dataset, json.loads(self.roles))

    @property
    def constraints(self) -> dict[str, Any]:
        """The extra constraints as settings (``effort_budget_share``, ``group_column``,
        ``group_bounds``: group -> [min, max])."""
        return {"effort_budget_share": self.effort_budget_share,
                "group_column": self.group_column,
                "group_bounds": {g: [lo, hi] for g, lo, hi in self.group_bounds}}

    @property
    def has_constraints(self) -> bool:
        return self.effort_budget_share is not None or bool(self.group_bounds)

    def with_round(self, settings: Mapping[str, Any] | None) -> "Scenario":
        """This scenario with a round's settings (None: without)."""
        text = "" if not settings else json.dumps(_exact(dict(settings)), sort_keys=True)
        return replace(self, round=text)


def scenario_for(data: Any, settings: Mapping[str, Any]) -> Scenario:
    """The scenario of ``settings`` (:data:`SETTING_KEYS`; missing ones take their default) on
    ``data`` (a :class:`core.data.EvalData`).

    Raises
    ------
    DataError
        A setting that is not a number where one is needed, a share outside [0, 1], an unknown
        mode.
    """
    s = {**default_settings(), **{k: v for k, v in settings.items() if k in SETTING_KEYS}}
    try:
        lam, share = float(s["lam"]), float(s["share"])
    except (TypeError, ValueError):
        raise DataError(f"lambda and the human share must be numbers, got {s['lam']!r} and "
                        f"{s['share']!r}") from None
    if not math.isfinite(lam) or lam < 0:
        raise DataError(f"lambda must be a finite number >= 0, got {lam}")
    if s["mode"] not in ("at_most", "exactly"):
        raise DataError(f"mode must be 'at_most' or 'exactly', got {s['mode']!r}")
    cons = s["constraints"] or {}
    budget = cons.get("effort_budget_share")
    column = cons.get("group_column") or None
    bounds = tuple(sorted((str(g), _bound((b or [None, None])[0]), _bound((b or [None, None])[1]))
                          for g, b in (cons.get("group_bounds") or {}).items())) if column else ()
    return Scenario(dataset=data.content_id,
                    roles=json.dumps(_exact(dict(data.roles)), sort_keys=True),
                    lam=lam, share=share, n_human=n_from_share(share, data.M), mode=s["mode"],
                    effort_budget_share=None if budget is None else float(budget),
                    group_column=column, group_bounds=bounds)


def settings_of(scenario: Scenario) -> dict[str, Any]:
    """The settings a scenario was built from (JSON-able; :func:`scenario_for` inverts it)."""
    return {"lam": scenario.lam, "share": scenario.share, "mode": scenario.mode,
            "constraints": scenario.constraints}


def settings_differences(used: Mapping[str, Any], current: Mapping[str, Any]
                         ) -> list[tuple[str, Any, Any]]:
    """The settings (:data:`SETTING_KEYS`) a round was planned with that differ from the
    current ones, as ``(name, used, current)``; only the settings the round stored count (a
    guarantee round stores no N), compared exactly."""
    out = []
    for name in SETTING_KEYS:
        if name not in used or name not in current:
            continue
        a, b = used[name], current[name]
        if name == "constraints":
            a, b = a or {}, b or {}
        numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (a, b))
        if (float(a) != float(b)) if numbers else exact_key(a) != exact_key(b):
            out.append((name, a, b))
    return out
