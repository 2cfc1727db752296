"""A discrete variable beside each default step, against NUTS in its place (issue 66).

``python benchmarks/compound_discrete_check.py [--seeds 1 2]`` runs what
``tests/statistical/test_compound_discrete.py`` checks, on both of its models
(``tests/helpers/discrete_models.py``), for NUTS, each default step and the negative control,
and prints per run the discrete variable's R-hat, bulk ESS (and per 1000 evaluations of the
continuous step), the per-iteration ESS ratio to NUTS, the mean against the exact one in MCSE,
and the distinct values per chain.
"""

from __future__ import annotations

import argparse
import logging
import sys
import warnings
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1] / "tests"
sys.path[:0] = [str(TESTS), str(TESTS / "statistical")]

from helpers.discrete_models import DISCRETE_CASES  # noqa: E402
from test_compound_discrete import (  # noqa: E402
    STEPS,
    BlindToOtherSteps,
    compound_run,
    describe,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    logging.getLogger("pymc").setLevel(logging.ERROR)
    samplers = {"NUTS": None, **STEPS, "negative control": BlindToOtherSteps}
    for seed in args.seeds:
        for case in DISCRETE_CASES.values():
            nuts = None
            for name, step_class in samplers.items():
                run = compound_run(case, step_class, seed)
                nuts = nuts or run
                ratio = run.ess / nuts.ess
                print(
                    f"seed {seed} {case.name} {name}: {describe(run, case)}; "
                    f"ESS / NUTS's {ratio:.2f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
