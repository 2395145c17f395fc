"""A round's settings: one frozen value, checked once, made by both front ends.

The Evaluate page (``pages/2a_Evaluate.py`` and its ``pages/_evaluate_*.py`` parts) and the
command line (``hmceval queue``, ``certify``) build a :class:`RoundSettings`; the round service
(:mod:`core.workspace.rounds`, :mod:`core.workspace.active_rounds`,
:mod:`core.workspace.stream_rounds`) plans, certifies, estimates and reports from it; the
workspace stores it as the round row's ``settings_json`` (:meth:`RoundSettings.to_dict`, the
same JSON as the plain dicts stored before) and reads it back (:meth:`RoundSettings.from_dict`,
also for a round stored by an older workspace: keys it does not know are kept in ``extra``).

A setting not given is None and is left out of the stored JSON, so a reader's default stays
where it was (``settings.get("mode", "at_most")``): a :class:`RoundSettings` is also a
read-only mapping of the settings given (``settings["lam"]``, ``"alpha" in settings``,
``{**settings}``), which is how the round service read the dict it replaces.

A value out of range is a :class:`core.errors.DataError` naming the setting, raised when the
value is made, before anything is planned or stored.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from core.errors import DataError

__all__ = ["RoundSettings", "settings_json", "DESIGNS", "MODES", "GUARANTEE_KINDS"]

#: ``design``: the SAE's routing (a budget round's default), the active or random design
#: with inclusion probabilities, a labelling stream
DESIGNS = ("routing", "active", "random", "pilot", "stream")
#: ``mode`` of a routing round's share: at most the share, or exactly
MODES = ("at_most", "exactly")
#: ``guarantee`` of a guarantee round: the error on the rows the machine keeps (alpha) or the
#: overall error of the final labels (overall_error)
GUARANTEE_KINDS = ("kept", "overall")
_SEED_MAX = 2**63


def _number(name: str, value: Any, *, low: float | None = None, high: float | None = None,
            low_open: bool = False, high_open: bool = False, whole: bool = False) -> None:
    """``value`` (not None) is a finite number within the bounds, else a DataError naming
    ``name``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise DataError(f"round setting '{name}' must be a number, got {value!r}")
    if not math.isfinite(value):
        raise DataError(f"round setting '{name}' must be finite, got {value!r}")
    if whole and value != int(value):
        raise DataError(f"round setting '{name}' must be a whole number, got {value!r}")
    if low is not None and (value < low or (low_open and value == low)):
        raise DataError(f"round setting '{name}' must be {'>' if low_open else '>='} {low:g}, "
                        f"got {value!r}")
    if high is not None and (value > high or (high_open and value == high)):
        raise DataError(f"round setting '{name}' must be {'<' if high_open else '<='} "
                        f"{high:g}, got {value!r}")


def _choice(name: str, value: Any, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise DataError(f"round setting '{name}' must be one of {', '.join(allowed)}, "
                        f"got {value!r}")


@dataclass(frozen=True, eq=False)
class RoundSettings(Mapping):
    """What a round was planned (and certified) with; None: not given.

    Parameters
    ----------
    design : {"routing", "active", "random", "pilot", "stream"}, optional
        A budget round's design (None: routing).
    lam : float, optional
        Lambda of the ranking gains.
    share, n_human : optional
        A routing round's human share in [0, 1], or its count of rows.
    mode : {"at_most", "exactly"}, optional
    audit, calibration, double : int >= 0, optional
        The audit's size, the calibration sample's size, the rows labelled twice.
    seed : int in [0, 2^63), optional
    labels, effort_budget : float > 0, optional
        An active, random or stream round's budget (labels or effort).
    width_ratio : float > 0, optional
    calibrate_on : int, optional
        The earlier round whose labels calibrate the design.
    stratify : str, optional
        The column an active round is stratified by; ``min_share`` its groups' least shares.
    stream_design : str, optional
    target_half_width : float in (0, 1), optional
    decide : str, optional
        A stream's stop rules.
    guarantee : {"kept", "overall"}, optional
    alpha, overall_error, delta : float in (0, 1), optional
        A guarantee round's levels.
    extra : dict
        Keys of an older workspace's settings this version does not know (kept, stored again).
    """

    design: str | None = None
    lam: float | None = None
    share: float | None = None
    n_human: int | None = None
    mode: str | None = None
    audit: int | None = None
    seed: int | None = None
    calibration: int | None = None
    double: int | None = None
    labels: float | None = None
    effort_budget: float | None = None
    width_ratio: float | None = None
    calibrate_on: int | None = None
    stratify: str | None = None
    min_share: dict[str, float] | None = None
    stream_design: str | None = None
    target_half_width: float | None = None
    decide: str | None = None
    guarantee: str | None = None
    alpha: float | None = None
    overall_error: float | None = None
    delta: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for f in fields(self):  # numpy numbers as Python's (exact JSON, one type)
            value = getattr(self, f.name)
            if isinstance(value, bool) or type(value) in (int, float):
                continue
            if isinstance(value, numbers.Integral):
                object.__setattr__(self, f.name, int(value))
            elif isinstance(value, numbers.Real):
                object.__setattr__(self, f.name, float(value))
        self._check()

    def _check(self) -> None:
        if self.design is not None:
            _choice("design", self.design, DESIGNS)
        if self.mode is not None:
            _choice("mode", self.mode, MODES)
        if self.guarantee is not None:
            _choice("guarantee", self.guarantee, GUARANTEE_KINDS)
        if self.lam is not None:
            _number("lam", self.lam)
        if self.share is not None:
            _number("share", self.share, low=0.0, high=1.0)
        for name in ("n_human", "audit", "calibration", "double"):
            value = getattr(self, name)
            if value is not None:
                _number(name, value, low=0, whole=True)
        if self.seed is not None:
            _number("seed", self.seed, low=0, high=_SEED_MAX, high_open=True, whole=True)
        for name in ("labels", "effort_budget", "width_ratio"):
            value = getattr(self, name)
            if value is not None:
                _number(name, value, low=0.0, low_open=True)
        if self.calibrate_on is not None:  # an id no round has is named by its lookup
            _number("calibrate_on", self.calibrate_on, whole=True)
        for name in ("alpha", "overall_error", "delta", "target_half_width"):
            value = getattr(self, name)
            if value is not None:
                _number(name, value, low=0.0, high=1.0, low_open=True, high_open=True)
        for name in ("stratify", "stream_design", "decide"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, str):
                raise DataError(f"round setting '{name}' must be text, got {value!r}")
        if self.min_share is not None:
            if not isinstance(self.min_share, Mapping):
                raise DataError("round setting 'min_share' must map each group to its least "
                                f"share, got {self.min_share!r}")
            for group, value in self.min_share.items():
                _number(f"min_share[{group!r}]", value, low=0.0, high=1.0)
        if not isinstance(self.extra, Mapping):
            raise DataError(f"round setting 'extra' must be a mapping, got {self.extra!r}")
        known = {f.name for f in fields(self)}
        clash = sorted(set(self.extra) & known)
        if clash:
            raise DataError(f"round setting '{clash[0]}' is given twice")

    # ------------------------------------------------------------------ stored form
    @classmethod
    def from_dict(cls, settings: Mapping[str, Any] | None) -> "RoundSettings":
        """The settings of a plain dict: a round row's stored JSON (an older workspace's too:
        the keys this version does not know go to ``extra``), or what a front end gathered.
        A :class:`RoundSettings` is returned as it is."""
        if isinstance(settings, RoundSettings):
            return settings
        if settings is None:
            return cls()
        if not isinstance(settings, Mapping):
            raise DataError(f"a round's settings must be an object, got {settings!r}")
        known = {f.name for f in fields(cls)} - {"extra"}
        given = {str(k): v for k, v in settings.items()}
        return cls(**{k: v for k, v in given.items() if k in known and v is not None},
                   extra={k: v for k, v in given.items() if k not in known})

    def to_dict(self) -> dict[str, Any]:
        """The settings given, as the plain JSON-able dict the workspace stores."""
        out = {f.name: getattr(self, f.name) for f in fields(self)
               if f.name != "extra" and getattr(self, f.name) is not None}
        if self.min_share is not None:
            out["min_share"] = dict(self.min_share)
        out.update(self.extra)
        return out

    def with_(self, **changes: Any) -> "RoundSettings":
        """A copy with ``changes`` (checked again); a key this version does not know is an
        error, not a silent extra."""
        known = {f.name for f in fields(self)}
        bad = sorted(set(changes) - known)
        if bad:
            raise DataError(f"no round setting '{bad[0]}'")
        return replace(self, **changes)

    # ------------------------------------------------------------------ the mapping view
    def __getitem__(self, key: str) -> Any:
        if key != "extra" and key in self.__dataclass_fields__:
            value = getattr(self, key)
            if value is not None:
                return value
        elif key in self.extra:
            return self.extra[key]
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_dict())

    def __len__(self) -> int:
        return len(self.to_dict())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return self.to_dict() == dict(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    # ------------------------------------------------------------------ what a round is
    @property
    def budget_design(self) -> str:
        """A budget round's design: ``routing`` when none was given."""
        return self.design or "routing"

    @property
    def is_weighted(self) -> bool:
        """An active, random or pilot design (inclusion probabilities: the first of two batches
        is one)."""
        return self.design in ("active", "random", "pilot")

    @property
    def is_stream(self) -> bool:
        return self.design == "stream"


def settings_json(settings: RoundSettings | Mapping[str, Any]) -> str:
    """The JSON a round row stores: the settings checked (:meth:`RoundSettings.from_dict`),
    the ones given, with exact numbers (JSON's own)."""
    import json

    from core.errors import plain_value

    return json.dumps(RoundSettings.from_dict(settings).to_dict(), default=plain_value)
