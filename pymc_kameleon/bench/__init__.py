"""Benchmark suite: this package's steps side by side with PyMC's samplers, scored exactly.

Run it with ``python -m pymc_kameleon.bench quick`` (a smoke run of every experiment, a few
minutes on 2 cores) or ``python -m pymc_kameleon.bench full`` (the record in
``benchmarks/notes/lab-notes.md``).
Modules: :mod:`.problems` (targets and their exact answers), :mod:`.dimension` (targets of any
dimension), :mod:`.registry` (a problem by name), :mod:`.samplers` (the samplers and how their
evaluations are counted), :mod:`.metrics`, :mod:`.runner` (tasks, JSON-lines results),
:mod:`.suites` (the experiments), :mod:`.report` (markdown and figures).
"""

from pymc_kameleon.bench.problems import PROBLEMS, Problem
from pymc_kameleon.bench.registry import get_problem
from pymc_kameleon.bench.runner import Task, load_records, run_task, run_tasks
from pymc_kameleon.bench.samplers import SAMPLERS, SamplerSpec, get_sampler
from pymc_kameleon.bench.suites import EXPERIMENTS, build_tasks

__all__ = [
    "EXPERIMENTS",
    "PROBLEMS",
    "SAMPLERS",
    "Problem",
    "SamplerSpec",
    "Task",
    "build_tasks",
    "get_problem",
    "get_sampler",
    "load_records",
    "run_task",
    "run_tasks",
]
