"""The experiments of the benchmark suite, in a quick (smoke) and a full (record) size.

* ``practitioner``: every sampler on the five cheap targets at the budget a PyMC user would
  try first, 4 chains x (2000 tune + 5000 draws), seeded N(0, I) starts.
* ``paper``: the KAMH paper's Figure 5: SM, AM-FS, AM-LS and KAMH-LS at the paper's lengths
  (B(0.03, 100): 20k + 20k, B(0.1, 100): 40k + 40k, flower: 60k + 60k), started at 0.
* ``equal-evals``: the gradient-free samplers at an equal number of log-density evaluations
  per chain on B(0.1, 100), half of them in warm-up.
* ``costly``: the same on B(0.1, 100) with a log-density costing 1 ms per call, where ESS per
  second is decided by evaluations, not by per-iteration overhead.
* ``oracle-n``: the KMC paper's Figure 3: KMC (lite, finite) and KAMH given ``n`` exact draws
  as their initial history, against NUTS and a random walk, on B(0.03, 100), 200 + 2000
  (the two baselines, which learn nothing from the oracle draws, get 1000 warm-up iterations).
* ``glass``: GP classification on UCI Glass (pseudo-marginal), 1000 + 5000, one chain per seed.
"""

from __future__ import annotations

from dataclasses import dataclass

from pymc_kameleon.bench.registry import get_problem
from pymc_kameleon.bench.runner import Task
from pymc_kameleon.bench.samplers import SAMPLERS, get_sampler

__all__ = ["EXPERIMENTS", "Size", "build_tasks"]

OURS_GRADIENT_FREE = ("KAMH-LS", "AM-FS", "AM-LS", "KMC-lite", "KMC-finite", "SM")
PYMC_GRADIENT_FREE = ("pm.Metropolis", "pm.DEMetropolisZ", "pm.Slice")
FIG5_SAMPLERS = ("SM", "AM-FS", "AM-LS", "KAMH-LS")
FIG3_SAMPLERS = ("KMC-lite", "KMC-finite", "KAMH-LS")
FIG3_BASELINES = ("NUTS(0.95)", "SM")
EXPERIMENTS = ("practitioner", "paper", "equal-evals", "costly", "oracle-n", "glass")


@dataclass(frozen=True)
class Size:
    """Budgets of one suite size.

    Parameters
    ----------
    seeds : int
        Repetitions of every run, with seeds 0, 1, ...
    chains : int
        Chains per run.
    practitioner : tuple of int
        ``(tune, draws)`` of the practitioner experiment.
    practitioner_problems : tuple of str
        Targets of the practitioner experiment.
    paper_scale : float
        Fraction of the KAMH paper's iteration counts used by the paper experiment.
    equal_evals : int
        Log-density evaluations per chain in the equal-evaluations experiment.
    costly_evals : int
        Evaluations per chain on the costly (1 ms) banana.
    oracle_ns : tuple of int
        Sizes of the exact initial history in the oracle experiment.
    oracle_budget : tuple of int
        ``(tune, draws)`` of the oracle runs.
    oracle_baseline_tune : int
        Warm-up of the baselines (NUTS, SM) of the oracle experiment.
    glass_budget : tuple of int
        ``(tune, draws)`` of the GP-Glass runs.
    """

    seeds: int
    chains: int
    practitioner: tuple[int, int]
    practitioner_problems: tuple[str, ...]
    paper_scale: float
    equal_evals: int
    costly_evals: int
    oracle_ns: tuple[int, ...]
    oracle_budget: tuple[int, int]
    oracle_baseline_tune: int
    glass_budget: tuple[int, int]


SIZES = {
    "full": Size(
        seeds=3,
        chains=4,
        practitioner=(2000, 5000),
        practitioner_problems=("banana-0.03", "banana-0.1", "flower", "gauss-iso", "gauss-corr"),
        paper_scale=1.0,
        equal_evals=40_000,
        costly_evals=10_000,
        oracle_ns=(50, 100, 200, 500, 1000, 2000),
        oracle_budget=(200, 2000),
        oracle_baseline_tune=1000,
        glass_budget=(1000, 5000),
    ),
    "quick": Size(
        seeds=1,
        chains=2,
        practitioner=(300, 300),
        practitioner_problems=("banana-0.1", "flower", "gauss-corr"),
        paper_scale=0.05,
        equal_evals=2000,
        costly_evals=600,
        oracle_ns=(100, 500),
        oracle_budget=(100, 300),
        oracle_baseline_tune=100,
        glass_budget=(100, 100),
    ),
}

PAPER_LENGTHS = {"banana-0.03": 20_000, "banana-0.1": 40_000, "flower": 60_000}


def _seeds(size: Size) -> range:
    return range(size.seeds)


def _practitioner(size: Size) -> list[Task]:
    tune, draws = size.practitioner
    tasks = []
    for problem_name in size.practitioner_problems:
        problem = get_problem(problem_name)
        for spec in SAMPLERS.values():
            if spec.needs_gradient and not problem.has_gradient:
                continue
            tasks += [
                Task("practitioner", problem_name, spec.name, seed, size.chains, tune, draws)
                for seed in _seeds(size)
            ]
    return tasks


def _paper(size: Size) -> list[Task]:
    tasks = []
    for problem_name, length in PAPER_LENGTHS.items():
        half = max(100, int(length * size.paper_scale))
        tasks += [
            Task("paper", problem_name, sampler, seed, size.chains, half, half, init="zero")
            for sampler in FIG5_SAMPLERS
            for seed in _seeds(size)
        ]
    return tasks


def _equal_evals(size: Size, experiment: str, problem_name: str, evals: int) -> list[Task]:
    tasks = []
    for sampler in OURS_GRADIENT_FREE + PYMC_GRADIENT_FREE:
        iterations = max(20, int(evals / get_sampler(sampler).nominal_evals_per_iter))
        tune = iterations // 2
        tasks += [
            Task(experiment, problem_name, sampler, seed, size.chains, tune, iterations - tune)
            for seed in _seeds(size)
        ]
    return tasks


def _oracle_n(size: Size) -> list[Task]:
    tune, draws = size.oracle_budget
    tasks = [
        Task("oracle-n", "banana-0.03", sampler, seed, size.chains, tune, draws, n_oracle=n)
        for n in size.oracle_ns
        for sampler in FIG3_SAMPLERS
        for seed in _seeds(size)
    ]
    baseline_tune = size.oracle_baseline_tune
    tasks += [
        Task("oracle-n", "banana-0.03", sampler, seed, size.chains, baseline_tune, draws)
        for sampler in FIG3_BASELINES
        for seed in _seeds(size)
    ]
    return tasks


def _glass(size: Size) -> list[Task]:
    tune, draws = size.glass_budget
    tasks = []
    for sampler in ("KMC-lite", "KAMH-LS", "AM-LS", "SM"):
        extra = {"n_history": 1000} if sampler == "KMC-lite" else {}
        tasks += [
            Task("glass", "glass", sampler, 1000 + seed, 1, tune, draws, "zero", extra=extra)
            for seed in _seeds(size)
        ]
    return tasks


def build_tasks(size_name: str, experiments: tuple[str, ...] = EXPERIMENTS) -> list[Task]:
    """All tasks of the chosen experiments at one suite size.

    Parameters
    ----------
    size_name : {"quick", "full"}
    experiments : tuple of str
        Subset of :data:`EXPERIMENTS`.

    Returns
    -------
    list of Task
    """
    if size_name not in SIZES:
        raise ValueError(f"unknown suite size {size_name!r}; choose 'quick' or 'full'")
    unknown = set(experiments) - set(EXPERIMENTS)
    if unknown:
        raise ValueError(
            f"unknown experiments {sorted(unknown)}; choose from {', '.join(EXPERIMENTS)}"
        )
    size = SIZES[size_name]
    builders = {
        "practitioner": lambda: _practitioner(size),
        "paper": lambda: _paper(size),
        "equal-evals": lambda: _equal_evals(size, "equal-evals", "banana-0.1", size.equal_evals),
        "costly": lambda: _equal_evals(size, "costly", "banana-0.1-costly", size.costly_evals),
        "oracle-n": lambda: _oracle_n(size),
        "glass": lambda: _glass(size),
    }
    return [task for name in experiments for task in builders[name]()]
