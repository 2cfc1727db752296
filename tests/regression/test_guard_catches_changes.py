"""The regression guard's negative controls: deliberate one-line changes of a step must fail it.

And rounding-level differences must not: the comparison is checked on the reference itself,
perturbed by a relative 1e-12 (passes) and with one accept decision flipped (fails, and says
where and by how much the log ratio was from the uniform).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from draw_comparison import RTOL, compare
from draw_configs import run

from pymc_kameleon.core.proposals.kmc_moves import KMCMoves
from pymc_kameleon.core.proposals.random_walk import GaussianRandomWalk

REFERENCE = Path(__file__).resolve().parent / "reference_draws.npz"


def _reference(name: str) -> dict[str, np.ndarray]:
    with np.load(REFERENCE) as data:
        return {k: data[k] for k in data.files if k.startswith(f"{name}/")}


@pytest.fixture(autouse=True)
def _only_at_the_recorded_seed(seed_offset):
    if seed_offset:
        pytest.skip("the reference draws were recorded at seed offset 0")


def test_a_proposal_scale_off_by_one_part_in_a_million_fails(monkeypatch):
    scaled = property(lambda self: self.scale.current * (1.0 + 1e-6))
    monkeypatch.setattr(GaussianRandomWalk, "scaling", scaled)
    problems = compare(run("am-learn"), _reference("am-learn"))
    assert problems, "a proposal scale changed by 1e-6 passed the regression comparison"
    assert any("posterior/x" in p for p in problems)


def test_one_extra_random_draw_fails(monkeypatch):
    original = KMCMoves.propose

    def propose_after_an_extra_draw(self, x, rng):
        rng.standard_normal()
        return original(self, x, rng)

    monkeypatch.setattr(KMCMoves, "propose", propose_after_an_extra_draw)
    problems = compare(run("kmc-lite"), _reference("kmc-lite"))
    assert problems, "one extra random draw per iteration passed the regression comparison"


def _continuous(key: str, values: np.ndarray) -> bool:
    return values.dtype.kind == "f" and not key.endswith("/accepted")


def test_rounding_level_differences_pass():
    reference = _reference("kameleon")
    rng = np.random.default_rng(0)
    nudged = {
        k: v * (1.0 + 1e-12 * rng.standard_normal(v.shape)) if _continuous(k, v) else v.copy()
        for k, v in reference.items()
    }
    assert compare(nudged, reference) == []
    assert 1e-12 < RTOL / 100  # the margin the budgets are chosen for


def test_a_flipped_decision_is_reported_with_its_iteration_and_gap():
    reference = _reference("kameleon")
    flipped = {k: v.copy() for k, v in reference.items()}
    accepted = flipped["kameleon/sample_stats/accepted"]
    accepted[1, 7] = 1.0 - accepted[1, 7]
    problems = compare(flipped, reference)
    assert problems and "chain 1 at draw 7" in problems[0]
    assert "the uniform lay between them" in problems[0]
    # the values are untouched, so nothing parted before the flip: rounding is named as the cause
    assert "rounding-level difference flipped" in problems[0]


def test_a_changed_discrete_stat_fails():
    reference = _reference("kmc-lite")
    changed = {k: v.copy() for k, v in reference.items()}
    changed["kmc-lite/sample_stats/n_steps"][0, 0] += 1
    problems = compare(changed, reference)
    assert any("n_steps" in p and "compared exactly" in p for p in problems)
