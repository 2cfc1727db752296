"""Suite-wide test settings.

**Seed offset.** ``python -m pytest --seed-offset N`` (or the environment variable
``KAMELEON_TEST_SEED_OFFSET=N``) adds ``N`` to every integer ``random_seed`` passed to
``pm.sample`` anywhere in the suite (tests, README and docs code blocks, examples, the bench
suite), so the whole suite runs at other seeds than the ones written in it. No test may pass
only at a lucky seed; the statistical tests are budgeted from a seed sweep
(``benchmarks/seed_sweep.py``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import pymc as pm
import pytest

SEED_OFFSET_ENV = "KAMELEON_TEST_SEED_OFFSET"


def pytest_addoption(parser):
    parser.addoption(
        "--seed-offset",
        type=int,
        default=None,
        help=f"add this to every integer random_seed given to pm.sample (env: {SEED_OFFSET_ENV})",
    )


def _seed_offset(config) -> int:
    option = config.getoption("--seed-offset")
    if option is not None:
        return int(option)
    return int(os.environ.get(SEED_OFFSET_ENV, "0"))


def pytest_report_header(config):
    return f"pymc-kameleon seed offset: {_seed_offset(config)}"


@pytest.fixture(scope="session")
def seed_offset(request) -> int:
    """The suite-wide seed offset (0 unless ``--seed-offset`` or the environment sets it)."""
    return _seed_offset(request.config)


def shift_seed(seed, offset: int):
    """``seed`` moved by ``offset``: ints and sequences of ints; anything else unchanged."""
    if isinstance(seed, bool):
        return seed
    if isinstance(seed, int):
        return seed + offset
    if isinstance(seed, Sequence) and seed and all(isinstance(s, int) for s in seed):
        return type(seed)(s + offset for s in seed)
    return seed


@pytest.fixture(autouse=True)
def _offset_sample_seeds(seed_offset, monkeypatch):
    if seed_offset == 0:
        return
    original = pm.sample

    def sample(*args, random_seed=None, **kwargs):
        return original(*args, random_seed=shift_seed(random_seed, seed_offset), **kwargs)

    monkeypatch.setattr(pm, "sample", sample)
    original_smc = pm.sample_smc

    def sample_smc(*args, random_seed=None, **kwargs):
        return original_smc(*args, random_seed=shift_seed(random_seed, seed_offset), **kwargs)

    monkeypatch.setattr(pm, "sample_smc", sample_smc)


def pytest_collection_modifyitems(config, items):
    """The long statistical tests first (stable otherwise).

    pytest-xdist hands tests out in this order; with the minute-long runs at the end, one worker
    would finish the fast tests and then idle while the other ran the last long one.
    """
    items.sort(key=lambda item: 0 if "statistical" in item.path.parts else 1)
