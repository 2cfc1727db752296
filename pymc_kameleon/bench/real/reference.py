"""Reference posteriors of the validation models: long NUTS runs, summarised and shipped.

Each model has ``references/<name>.json`` (per-scalar summaries with MCSEs and ESS, the run's
settings, seed, time, divergences and R-hat) and ``references/<name>.npz`` (1000 thinned draws,
stored as int16 in units of 1/1000 reference sd around the reference mean, so the files stay
small; resolution 0.001 sd). Rebuild with::

    python -m pymc_kameleon.bench real-references [--models NAME ...]
"""

from __future__ import annotations

import json
import time
import warnings
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pymc as pm

from pymc_kameleon._compat import posterior_dataset
from pymc_kameleon.bench.real.models import get_real_model, reference_source
from pymc_kameleon.bench.real.summaries import SUMMARY_FIELDS, scalar_draws, summarise

__all__ = [
    "REFERENCE_DIR",
    "NutsSettings",
    "Reference",
    "build_reference",
    "load_reference",
    "save_reference",
]

REFERENCE_DIR = Path(str(resources.files("pymc_kameleon.bench.real") / "references"))
"""Where the shipped reference files live."""

N_STORED_DRAWS = 1000
_QUANT = 1000.0


@dataclass(frozen=True)
class NutsSettings:
    """Settings of a reference run.

    Parameters
    ----------
    chains, tune, draws : int
        Chains (run one after another) and iterations per chain.
    target_accept : float
    init : str
        ``pm.sample`` initialisation (``"jitter+adapt_full"``: a dense mass matrix, so the
        strongly correlated regressions mix well).
    seed : int
    mode : str, optional
        PyTensor compilation mode of the model's functions (``"NUMBA"`` for a twin whose
        ``scan`` gradient is slow in the default C backend); None: PyMC's default.
    """

    chains: int = 4
    tune: int = 1000
    draws: int = 1500
    target_accept: float = 0.95
    init: str = "jitter+adapt_full"
    seed: int = 20240611
    mode: str | None = None


@dataclass
class Reference:
    """A model's reference posterior.

    Attributes
    ----------
    model : str
    labels : list of str
        Scalar names (``"beta[2]"``), in the order of the arrays.
    summary : dict of str to numpy.ndarray
        The fields of :data:`~pymc_kameleon.bench.real.summaries.SUMMARY_FIELDS`.
    draws : numpy.ndarray, shape (n, k)
        Thinned draws (pooled over chains), or ``None`` if not stored.
    meta : dict
        How the reference was made.
    """

    model: str
    labels: list[str]
    summary: dict[str, np.ndarray]
    draws: np.ndarray | None
    meta: dict[str, Any]


def build_reference(name: str, settings: NutsSettings = NutsSettings()) -> Reference:
    """Run NUTS for one model and summarise it.

    Parameters
    ----------
    name : str
        Model name; if it has a ``reference_model`` (the centred eight schools, the black-box
        models' differentiable twins), NUTS runs on that model and the same-named variables are
        kept.
    settings : NutsSettings
        Defaults; the sampled model's ``reference_nuts`` overrides them.

    Returns
    -------
    Reference
    """
    spec = get_real_model(name)
    source = reference_source(name)
    settings = replace(settings, **dict(source.reference_nuts))
    var_names = spec.var_names
    start = time.perf_counter()
    with source.build(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        idata = pm.sample(
            draws=settings.draws,
            tune=settings.tune,
            chains=settings.chains,
            cores=1,
            init=settings.init,
            target_accept=settings.target_accept,
            random_seed=settings.seed,
            progressbar=False,
            compute_convergence_checks=False,
            **({} if settings.mode is None else {"compile_kwargs": {"mode": settings.mode}}),
        )
    seconds = time.perf_counter() - start
    labels, draws = scalar_draws(idata, var_names)
    summary = summarise(draws)
    stats = posterior_dataset(idata, "sample_stats")
    pooled = draws.reshape(-1, draws.shape[-1])
    keep = np.linspace(0, pooled.shape[0] - 1, N_STORED_DRAWS).round().astype(int)
    meta = {
        "command": f"python -m pymc_kameleon.bench real-references --models {name}",
        "sampled_model": source.name,
        "settings": settings.__dict__,
        "seconds": round(seconds, 1),
        "divergences": int(np.sum(stats["diverging"].values)),
        "max_tree_depth_hits": int(np.sum(stats["reached_max_treedepth"].values))
        if "reached_max_treedepth" in stats
        else None,
        "min_ess_bulk": float(np.nanmin(summary["ess_bulk"])),
        "min_ess_tail": float(np.nanmin(summary["ess_tail"])),
        "max_rhat": float(np.nanmax(summary["rhat"])),
        "pymc": pm.__version__,
        "date": time.strftime("%Y-%m-%d"),
    }
    return Reference(name, labels, summary, pooled[keep], meta)


def save_reference(ref: Reference, directory: Path = REFERENCE_DIR) -> None:
    """Write ``<model>.json`` and ``<model>.npz``.

    Parameters
    ----------
    ref : Reference
    directory : pathlib.Path
    """
    directory.mkdir(parents=True, exist_ok=True)
    payload = {
        "model": ref.model,
        "meta": ref.meta,
        "labels": ref.labels,
        "summary": {f: [float(f"{v:.8g}") for v in ref.summary[f]] for f in SUMMARY_FIELDS},
    }
    (directory / f"{ref.model}.json").write_text(json.dumps(payload, indent=1) + "\n")
    if ref.draws is not None:
        z = (ref.draws - ref.summary["mean"]) / ref.summary["sd"] * _QUANT
        np.savez_compressed(
            directory / f"{ref.model}.npz",
            draws=np.clip(np.round(z), -32767, 32767).astype(np.int16),
        )


def load_reference(name: str, directory: Path | None = None) -> Reference:
    """Read a shipped (or given) reference.

    Parameters
    ----------
    name : str
    directory : pathlib.Path, optional
        Defaults to :data:`REFERENCE_DIR`.

    Returns
    -------
    Reference

    Raises
    ------
    FileNotFoundError
        If the model has no reference file.
    """
    directory = REFERENCE_DIR if directory is None else Path(directory)
    payload = json.loads((directory / f"{name}.json").read_text())
    summary = {f: np.asarray(payload["summary"][f], dtype=float) for f in SUMMARY_FIELDS}
    draws = None
    npz = directory / f"{name}.npz"
    if npz.exists():
        with np.load(npz) as data:
            draws = data["draws"].astype(float) / _QUANT * summary["sd"] + summary["mean"]
    return Reference(payload["model"], list(payload["labels"]), summary, draws, payload["meta"])
