"""``initial_history``: supplied states shape the very first proposal of every chain."""

from __future__ import annotations

import copy
import pickle

import cloudpickle
import numpy as np
import pymc as pm
import pytest
from scipy.spatial.distance import pdist

from pymc_kameleon import AdaptiveMetropolis, KameleonStep
from pymc_kameleon.core.adaptation import RunningMoments, optimal_rw_scale
from pymc_kameleon.core.history import PINNED_ITERATION, ChainHistory

COV = np.array([[1.0, 0.9], [0.9, 2.0]])
N_EXACT = 400
SAMPLE_KW = {"progressbar": False, "compute_convergence_checks": False}


def gaussian_model() -> pm.Model:
    with pm.Model() as model:
        pm.MvNormal("x", mu=np.zeros(2), cov=COV)
    return model


@pytest.fixture(scope="module")
def exact_draws() -> np.ndarray:
    return np.random.default_rng(2024).multivariate_normal(np.zeros(2), COV, size=N_EXACT)


def first_step_without_tuning(step, model, seed=1):
    """Start a chain with adaptation frozen (as ``pm.sample(tune=0)`` does); make one step."""
    step.set_rng(np.random.default_rng(seed))
    step.stop_tuning()
    _, stats = step.step(model.initial_point())
    return stats[0]


def rows_of(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether every row of ``a`` is a row of ``b``."""
    return bool(np.all(np.any(np.all(a[:, None, :] == b[None, :, :], axis=2), axis=1)))


# -----------------------------------------------------------------------------------------------
def test_adaptive_metropolis_first_proposal_uses_sample_covariance(exact_draws):
    model = gaussian_model()
    with model:
        step = AdaptiveMetropolis(initial_history=exact_draws, warmup="classic")
    stats = first_step_without_tuning(step, model)
    chol = step.proposal.cholesky(step.x_current)  # symmetric: the factor of the first proposal
    expected = optimal_rw_scale(2) * np.cov(exact_draws.T)
    np.testing.assert_allclose(chol @ chol.T, expected, rtol=1e-10)
    assert stats["n_history"] == N_EXACT
    assert stats["scaling"] == pytest.approx(optimal_rw_scale(2))


def test_adaptive_metropolis_keeps_learning_during_warmup(exact_draws):
    model = gaussian_model()
    with model:
        step = AdaptiveMetropolis(initial_history=exact_draws, adapt_start=1000, warmup="classic")
    step.set_rng(np.random.default_rng(3))
    point = model.initial_point()
    for _ in range(20):
        point, stats = step.step(point)
    assert step.moments.count == N_EXACT + 20
    assert stats[0]["n_history"] == N_EXACT + 20


def test_kameleon_first_proposal_uses_a_subsample_of_initial_history(exact_draws):
    model = gaussian_model()
    with model:
        step = KameleonStep(warmup="classic", initial_history=exact_draws, n_history=100)
    step.set_rng(np.random.default_rng(1))
    step.stop_tuning()  # as pm.sample(tune=0) does before the first draw
    point = model.initial_point()
    step.refresh_current(point["x"])
    step.proposal.propose(step.x_current, step.rng)  # the first proposal draws z from the rows
    chol = step.proposal.cholesky(step.x_current)  # the factor it was drawn with
    assert step.z.shape == (100, 2)
    assert rows_of(step.z, exact_draws)
    # bandwidth from the median heuristic on the supplied states, not the placeholder
    assert step.kernel.bandwidth == pytest.approx(np.median(pdist(exact_draws)), rel=0.2)
    # automatic nu^2: the kernel term at the start has trace 2.38^2/d * trace(cov(z))
    kernel_term = chol @ chol.T - step.gamma**2 * np.eye(2)
    target = optimal_rw_scale(2) * np.trace(np.cov(step.z.T))
    assert np.trace(kernel_term) == pytest.approx(target, rel=1e-8)
    _, stats = step.step(point)
    assert stats[0]["n_history"] == 100
    assert stats[0]["bandwidth"] == step.kernel.bandwidth
    # frozen: nothing recorded, the supplied states are the whole history
    assert step.history.n_seen == N_EXACT


def test_kameleon_discard_fraction_keeps_supplied_states(exact_draws):
    model = gaussian_model()
    with model:
        step = KameleonStep(
            initial_history=exact_draws,
            n_history=50,
            discard_fraction=0.9,
            adapt_start=10,
            history_capacity=1000,
        )
    step.set_rng(np.random.default_rng(4))
    point = model.initial_point()
    for _ in range(200):
        point, _ = step.step(point)
    # every supplied state is still stored (capacity 1000) and eligible for any threshold
    assert step.history.count_since(180) >= N_EXACT
    pinned = step.history.iterations[: step.history.size] == PINNED_ITERATION
    assert int(pinned.sum()) == N_EXACT
    assert step.history.n_seen == N_EXACT + 200


@pytest.mark.parametrize("step_cls", [KameleonStep, AdaptiveMetropolis])
def test_every_chain_starts_from_the_same_initial_history(step_cls, exact_draws):
    model = gaussian_model()
    with model:
        step = step_cls(initial_history=exact_draws)
    fresh = copy.deepcopy(step.sampling_state)
    step.set_rng(np.random.default_rng(5))
    point = model.initial_point()
    for _ in range(150):
        point, _ = step.step(point)
    step.set_rng(np.random.default_rng(6))  # a new chain
    state = step.sampling_state
    for name in ("history", "moments"):
        if hasattr(fresh, name):
            assert getattr(state, name) == getattr(fresh, name)


@pytest.mark.parametrize("step_cls", [KameleonStep, AdaptiveMetropolis])
def test_sampling_state_round_trip_and_pickling(step_cls, exact_draws):
    model = gaussian_model()
    with model:
        step = step_cls(initial_history=exact_draws)
    clone = cloudpickle.loads(cloudpickle.dumps(step))
    np.testing.assert_array_equal(clone.initial_history, exact_draws)
    step.set_rng(7)
    point = model.initial_point()
    for _ in range(30):
        point, _ = step.step(point)
    saved = pickle.loads(pickle.dumps(step.sampling_state))
    point_a, stats_a = step.step(copy.deepcopy(point))
    clone.sampling_state = saved
    point_b, stats_b = clone.step(copy.deepcopy(point))
    np.testing.assert_array_equal(point_a["x"], point_b["x"])
    assert stats_a == stats_b


@pytest.mark.parametrize("step_cls", [KameleonStep, AdaptiveMetropolis])
def test_multiprocess_sampling_without_tuning(step_cls, exact_draws):
    model = gaussian_model()
    with model:
        step = step_cls(initial_history=exact_draws)
        kw = {"tune": 0, "draws": 300, "chains": 2, "cores": 2, "step": step, **SAMPLE_KW}
        run1 = pm.sample(random_seed=11, **kw)
        run2 = pm.sample(random_seed=11, **kw)
    x1 = run1.posterior["x"].values
    np.testing.assert_array_equal(x1, run2.posterior["x"].values)
    assert x1.shape == (2, 300, 2)
    # the proposal is tuned from the start: the chains move and cover the target's scale
    assert run1.sample_stats["accepted"].values.mean() > 0.1
    assert np.all(x1.reshape(-1, 2).std(axis=0) > 0.5 * np.sqrt(np.diag(COV)))


# -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("step_cls", [KameleonStep, AdaptiveMetropolis])
@pytest.mark.parametrize(
    ("bad", "match"),
    [
        (np.zeros(10), r"shape \(n, 2\)"),
        (np.zeros((10, 3)), r"shape \(n, 2\)"),
        (np.zeros((10, 2, 1)), r"shape \(n, 2\)"),
        (np.zeros((1, 2)), "at least"),
        (np.array([[0.0, 1.0], [np.nan, 0.0], [1.0, 1.0]]), "NaN or infinite"),
        (np.array([[0.0, 1.0], [np.inf, 0.0], [1.0, 1.0]]), "NaN or infinite"),
        ([["a", "b"], ["c", "d"], ["e", "f"]], "numeric"),
        ([[0.0, 1.0], [1.0]], "numeric"),
    ],
)
def test_bad_initial_history_raises(step_cls, bad, match):
    with gaussian_model(), pytest.raises(ValueError, match=match):
        step_cls(initial_history=bad)


def test_adaptive_metropolis_needs_d_plus_one_rows():
    with gaussian_model(), pytest.raises(ValueError, match="at least 3 rows"):
        AdaptiveMetropolis(initial_history=np.eye(2))


def test_initial_history_is_copied_and_read_only(exact_draws):
    data = exact_draws.copy()
    with gaussian_model():
        step = KameleonStep(initial_history=data)
    data[:] = 0.0
    np.testing.assert_array_equal(step.initial_history, exact_draws)
    assert not step.initial_history.flags.writeable


def test_history_capacity_grows_to_hold_initial_history(exact_draws):
    with gaussian_model():
        step = KameleonStep(initial_history=exact_draws, n_history=20, history_capacity=50)
    assert step.history.capacity == N_EXACT
    assert step.history.n_seen == N_EXACT


# -----------------------------------------------------------------------------------------------
def test_running_moments_batch_equals_sequential_updates():
    rng = np.random.default_rng(8)
    xs = rng.normal(size=(60, 3)) + 5.0
    seq, batch = RunningMoments(3), RunningMoments(3)
    for x in xs:
        seq.update(x)
    batch.update_batch(xs[:25])
    batch.update_batch(xs[25:25])  # empty: no change
    batch.update_batch(xs[25:])
    assert batch.count == seq.count
    np.testing.assert_allclose(batch.mean, seq.mean, rtol=1e-12)
    np.testing.assert_allclose(batch.covariance(), seq.covariance(), rtol=1e-10)
    np.testing.assert_allclose(batch.covariance(), np.cov(xs.T), rtol=1e-10)


def test_chain_history_extend():
    history = ChainHistory(2, 5)
    history.extend(np.arange(6.0).reshape(3, 2), PINNED_ITERATION)
    assert history.n_seen == 3
    np.testing.assert_array_equal(history.values[:3], np.arange(6.0).reshape(3, 2))
    assert history.count_since(10**9) == 3
    with pytest.raises(ValueError, match="free slots"):
        history.extend(np.zeros((3, 2)), 0)
