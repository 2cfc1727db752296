"""One real-suite model scored for ``KMCStep(**OPTIONS)``: which of the defaults fails it.

``python benchmarks/real_model_options.py MODEL SEED OPTIONS_JSON``, e.g.
``... nile-arma11 1 '{"estimator": "finite"}'``, runs the suite's task of ``KMCStep()`` (4 chains
x (3000 + 3000), ``cores=1``) with the given arguments added and prints the suite's one-line
verdict (reference comparison, min ESS, R-hat). Issue 48 used it to find which of the pooled
warm-up, the local-width coordinates and the finite surrogate failed a model.
"""

from __future__ import annotations

import dataclasses
import json
import sys

from pymc_kameleon import KMCStep
from pymc_kameleon.bench.real import suite


def main() -> None:
    model, seed, options = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
    spec = suite.REAL_SAMPLERS["KMCStep()"]
    suite.REAL_SAMPLERS["KMCStep()"] = dataclasses.replace(
        spec, make_step=lambda problem, extra: KMCStep(**{**extra, **options})
    )
    task = suite.build_real_tasks("full", [model], ["KMCStep()"], seed)[0]
    print(options, suite.one_line(suite.run_real_task(task)))


if __name__ == "__main__":
    main()
