"""Min bulk ESS of the real-model suite against baselines: per model, and the geometric mean.

Reads the ``results.jsonl`` of suite runs (``python -m pymc_kameleon.bench real ... --out DIR``)
and prints, per step, one Markdown table: each run's verdict and min bulk ESS, and the ratio of
the new run's ESS to each baseline's over the models both pass, with their geometric mean and
smallest value::

    python benchmarks/suite_ratio.py NEW_DIR --baselines OLD_DIR [OLDER_DIR ...] \
        [--labels new old older]
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path


def load(directory: Path) -> dict[tuple[str, str], dict]:
    """The finished runs of one suite directory, by (sampler, model)."""
    runs = {}
    for line in (directory / "results.jsonl").read_text().splitlines():
        record = json.loads(line)
        if record.get("status") == "ok":
            runs[(record["sampler"], record["model"])] = record
    return runs


def cell(record: dict | None) -> str:
    if record is None:
        return "—"
    verdict = "**pass**" if record["passed"] else "fail"
    return f"{verdict} {record['min_ess_bulk']:.0f}"


def ratio(new: dict | None, old: dict | None) -> float | None:
    if new is None or old is None or not (new["passed"] and old["passed"]):
        return None
    return new["min_ess_bulk"] / old["min_ess_bulk"]


def table(sampler: str, new: dict, baselines: list[dict], labels: list[str]) -> list[str]:
    models = [model for (s, model) in new if s == sampler]
    head = [labels[0], *labels[1:], *(f"{labels[0]} / {label}" for label in labels[1:])]
    lines = [f"`{sampler}`", "", "| model | " + " | ".join(head) + " |"]
    lines.append("|---|" + "---|" * len(labels) + "---:|" * (len(labels) - 1))
    ratios: list[list[float]] = [[] for _ in baselines]
    for model in models:
        mine = new[(sampler, model)]
        theirs = [base.get((sampler, model)) for base in baselines]
        row = [cell(mine), *(cell(r) for r in theirs)]
        for i, other in enumerate(theirs):
            value = ratio(mine, other)
            row.append("" if value is None else f"{value:.2f}")
            if value is not None:
                ratios[i].append(value)
        lines.append(f"| {model} | " + " | ".join(row) + " |")
    passes = [
        sum(r["passed"] for (s, _), r in runs.items() if s == sampler) for runs in [new, *baselines]
    ]
    lines.append("")
    lines.append(
        "passes: " + ", ".join(f"{label} {n}" for label, n in zip(labels, passes, strict=True))
    )
    for label, values in zip(labels[1:], ratios, strict=True):
        if values:
            geo = math.exp(sum(math.log(v) for v in values) / len(values))
            lines.append(
                f"against {label}: geometric mean {geo:.3f} over {len(values)} models, "
                f"min {min(values):.2f}"
            )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("new", type=Path)
    parser.add_argument("--baselines", nargs="+", type=Path, required=True)
    parser.add_argument("--labels", nargs="+")
    args = parser.parse_args()
    labels = args.labels or ["new", *(p.name for p in args.baselines)]
    if len(labels) != 1 + len(args.baselines):
        parser.error("--labels needs one label for the new directory and one per baseline")
    new = load(args.new)
    baselines = [load(p) for p in args.baselines]
    for sampler in dict.fromkeys(s for s, _ in new):
        print("\n".join(table(sampler, new, baselines, labels)), end="\n\n")


if __name__ == "__main__":
    main()
