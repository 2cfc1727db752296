"""Issue 46's negative control: the start-up's old highest-mode rule fails the mixture check.

The positive cases (each default step on mixtures of known weights) are in ``stat_cases.py``
(``mixture-*``) and run with the other statistical cases; their check is
:func:`~stat_cases.check_mixture_weights`: every component's share of the draws within
``Z_TOL`` MCSEs of its weight, and R-hat at most 1.01. Under the old rule every chain starts at
the highest mode with independence moves about it alone: the run is either a converged-looking
wrong answer (every chain in the heavier component, R-hat 1.00) or, where a chain's heavy-tailed
independence move happened to land in the other component and stay, chains that disagree.
Either way the check must reject it. (The generic negative-control test compares means and
variances only, which a run of the second kind can miss by less than ``2 * Z_TOL``.)
"""

from __future__ import annotations

import pytest
from stat_cases import HighestModeStart, check_mixture_weights, mixture_case, sample


def test_the_highest_mode_rule_fails_the_weight_check():
    case = mixture_case("mixture-two-highest-mode", "two-0.3", HighestModeStart)
    idata = sample(case, case.seed)  # (the suite's --seed-offset shifts every pm.sample seed)
    with pytest.raises(AssertionError, match=r"component weights|the chains disagree"):
        check_mixture_weights(idata, "two-0.3")
