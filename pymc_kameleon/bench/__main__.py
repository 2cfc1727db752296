"""Command line of the benchmark suite.

Usage::

    python -m pymc_kameleon.bench quick [--out DIR] [--jobs 2]
    python -m pymc_kameleon.bench full [--experiments practitioner paper ...] [--jobs 2]
    python -m pymc_kameleon.bench report DIR   # redraw tables and figures from DIR/results.jsonl
    python -m pymc_kameleon.bench real ...     # real-model validation (pymc_kameleon.bench.real)

Results go to ``DIR/results.jsonl`` (one line per finished run; a re-run skips finished runs),
``DIR/report.md`` and ``DIR/*.png``. The default ``DIR`` is ``bench-results/<size>``.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from pymc_kameleon.bench.report import make_figures, markdown_report
from pymc_kameleon.bench.runner import load_records, run_tasks
from pymc_kameleon.bench.suites import EXPERIMENTS, build_tasks


def _parse(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m pymc_kameleon.bench", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("size", choices=("quick", "full", "report"))
    parser.add_argument("directory", nargs="?", type=Path, help="results directory (report)")
    parser.add_argument("--out", type=Path, help="results directory (default bench-results/SIZE)")
    parser.add_argument("--experiments", nargs="+", choices=EXPERIMENTS, default=list(EXPERIMENTS))
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    if args.size == "report" and args.directory is None:
        parser.error("`report` needs the results directory, e.g. `report bench-results/full`")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run the suite (or redraw a report) and return the exit status.

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments; defaults to ``sys.argv[1:]``.

    Returns
    -------
    int
        0 if every run succeeded, 1 otherwise.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in ("real", "real-references", "real-references-is", "real-report"):
        from pymc_kameleon.bench.real.cli import main as real_main

        return real_main(argv)
    args = _parse(argv)
    command = shlex.join(["python", "-m", "pymc_kameleon.bench", *argv])
    if args.size == "report":
        out = args.directory
        records = load_records(out / "results.jsonl")
        if not records:
            print(f"no results in {out / 'results.jsonl'}", file=sys.stderr)
            return 1
    else:
        out = args.out or Path("bench-results") / args.size
        tasks = build_tasks(args.size, tuple(args.experiments))
        start = time.perf_counter()
        print(f"{len(tasks)} runs, results in {out}", file=sys.stderr, flush=True)

        def progress(line: str) -> None:
            print(f"[{time.perf_counter() - start:6.0f} s] {line}", file=sys.stderr, flush=True)

        records = run_tasks(tasks, out / "results.jsonl", jobs=args.jobs, progress=progress)
    figures = make_figures(records, out)
    report = markdown_report(records, command, figures)
    (out / "report.md").write_text(report + "\n")
    print(report)
    failed = [r for r in records if r["status"] != "ok"]
    if failed:
        print(f"{len(failed)} runs failed", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
