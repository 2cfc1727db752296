"""The peak-memory meter of the benchmark runner."""

import numpy as np
import pytest

from pymc_kameleon.bench.memory import PeakMemory


def test_peak_memory_sees_a_temporary_array_and_resets():
    meter = PeakMemory()
    meter.start()
    block = np.ones(25_000_000)  # 190 MiB, touched so that it is resident
    del block
    scores = meter.scores()
    if scores["peak_rss_scope"] != "task":
        pytest.skip("this system cannot reset the peak resident size")
    assert scores["peak_rss_increase_mb"] > 150
    meter.start()  # a new task: the earlier peak is forgotten
    assert meter.scores()["peak_rss_increase_mb"] < 50
