"""--engine ray (core.scale.ray_engine): the same design, draw and estimate as the local engine.
Ray is an optional extra (pip install -e ".[scale]"); CI does not install it, so this test is
skipped there."""

from __future__ import annotations

import numpy as np
import pytest

from core.scale.design import plan_scaled
from core.scale.engine import LocalEngine
from tests.judge_table import judge_table

ray = pytest.importorskip("ray")


def test_ray_engine_plans_exactly_as_the_local_engine():
    from core.scale.ray_engine import RayEngine

    df = judge_table(400, seed=6)
    cols = {"q": df["confidence"].to_numpy(float),
            "code": (df["machine_label"] == "yes").to_numpy().astype(np.int16)}
    local = plan_scaled(LocalEngine(dict(cols), chunk=300), n_classes=2, labels=80, seed=2)
    engine = RayEngine(dict(cols), workers=2, chunk=300)
    try:
        remote = plan_scaled(engine, n_classes=2, labels=80, seed=2)
    finally:
        engine.close()
    assert remote.spec == local.spec  # bitwise the same multiplier
    np.testing.assert_array_equal(remote.audit, local.audit)
    np.testing.assert_array_equal(remote.routed, local.routed)
    assert remote.frontier.equals(local.frontier)
