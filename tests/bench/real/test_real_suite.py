"""The validation runner end to end: NUTS on one quick model passes the scorer, results resume,
SMC is skipped on improper priors, the SMC kernels count their evaluations, and the report table
is drawn from the records."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest

from pymc_kameleon.bench.__main__ import main as bench_main
from pymc_kameleon.bench.real.suite import (
    REAL_SAMPLERS,
    RealTask,
    _smc_evaluations,
    build_real_tasks,
    markdown_table,
    run_real_tasks,
)


def test_task_lists_are_sampler_major_and_validated():
    tasks = build_real_tasks("ci")
    assert len(tasks) == 4 * len(REAL_SAMPLERS)
    assert [t.sampler for t in tasks[:4]] == ["KameleonStep()"] * 4
    smc = [t for t in tasks if t.sampler in ("pm.sample_smc", "pm.sample_smc(MH)", "KameleonSMC()")]
    assert len(smc) == 3 * 4 and all(t.tune == 0 and t.draws == 500 for t in smc)
    fewer = build_real_tasks("ci", samplers=["KameleonSMC()", "pm.Slice"], smc_draws=300)
    assert [t.draws for t in fewer] == [300] * 4 + [1000] * 4
    full = build_real_tasks("full", models=["longley"], samplers=["pm.Metropolis"])
    assert (full[0].chains, full[0].tune, full[0].draws) == (4, 3000, 3000)
    with pytest.raises(KeyError, match="choose one of"):
        build_real_tasks("ci", samplers=["nope"])


@pytest.mark.slow
def test_nuts_on_stackloss_passes_and_results_resume(tmp_path):
    results = tmp_path / "results.jsonl"
    tasks = [
        RealTask("stackloss", "NUTS(0.95)", seed=1, chains=2, tune=300, draws=300),
        RealTask("macro-flat", "pm.sample_smc", seed=1, chains=2, tune=0, draws=200),
        RealTask("stackloss", "KameleonSMC()", seed=1, chains=2, tune=0, draws=300),
        RealTask("stackloss", "pm.sample_smc(MH)", seed=1, chains=2, tune=0, draws=300),
    ]
    records = {r["sampler"]: r for r in run_real_tasks(tasks, results)}
    nuts = records["NUTS(0.95)"]
    assert nuts["status"] == "ok" and nuts["passed"], nuts["reasons"]
    assert nuts["evals"] > 2 * 600  # leapfrog steps of warm-up and draws
    assert nuts["min_ess_bulk"] >= 50 and nuts["max_rhat"] <= 1.05
    assert records["pm.sample_smc"]["status"] == "n/a (improper prior)"
    for kernel in ("KameleonSMC()", "pm.sample_smc(MH)"):  # both count their sweeps' evaluations
        smc = records[kernel]
        assert smc["status"] == "ok", smc["status"]
        assert smc["evals"] > 2 * 300 * 2  # the prior draws and at least one sweep per chain
    lines = results.read_text().splitlines()
    run_real_tasks(tasks, results)  # finished tasks are not run again
    assert results.read_text().splitlines() == lines
    table = markdown_table(list(records.values()))
    assert "| stackloss | 5 |" in table and "**pass**" in table
    assert "n/a (improper prior)" in table
    assert json.loads(lines[0])["key"].startswith("real|stackloss|NUTS(0.95)")


def test_smc_evaluations_are_read_from_ragged_stage_stats():
    # chains with different numbers of stages: PyMC stores one row of per-chain lists
    ragged = np.empty((1, 2), dtype=object)
    ragged[0, 0], ragged[0, 1] = [100, 200, 300], [100, 400]
    idata = {"sample_stats": {"logp_evals": SimpleNamespace(values=ragged)}}
    assert _smc_evaluations(idata, chains=2, particles=10) == 1100 + 2 * 10
    even = {"sample_stats": {"logp_evals": SimpleNamespace(values=np.array([[1, 2], [3, 4]]))}}
    assert _smc_evaluations(even, chains=2, particles=10) == 10 + 2 * 10


def test_report_command_redraws_the_table(tmp_path, capsys):
    record = {
        "key": "real|stackloss|pm.Metropolis|1|4|3000|3000",
        "model": "stackloss",
        "sampler": "pm.Metropolis",
        "status": "ok",
        "passed": False,
        "reasons": ["max R-hat 1.200 > 1.05 (beta[0])"],
        "min_ess_bulk": 12.0,
        "max_rhat": 1.2,
        "evals": 120000,
        "ess_per_1k_evals": 0.1,
        "wall_s": 3.0,
    }
    (tmp_path / "results.jsonl").write_text(json.dumps(record) + "\n")
    assert bench_main(["real-report", str(tmp_path)]) == 0
    report = (tmp_path / "report.md").read_text()
    assert "| stackloss | 5 | fail 0.1 |" in report
    assert "max R-hat 1.200 > 1.05 (beta[0])" in report
