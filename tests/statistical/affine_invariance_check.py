"""Per-seed numbers of the affine-invariance test.

``python tests/statistical/affine_invariance_check.py``: for seed offsets 0-5 (``--offsets``),
runs the steps of ``test_affine_invariance.py`` beside it (its cases are in ``affine_cases.py``)
and its negative control, the classic KameleonStep, on the 5-D Gaussian and on the same model
under the test's affine map, and prints the Welch t of the per-chain acceptance rates, the ratio
of the min bulk ESS (mapped / plain) and the max |z| of both runs against the exact answer: the
quantities the test bounds.
"""

from __future__ import annotations

import argparse

import affine_cases as check  # beside this script: its folder is on sys.path when it is run

from pymc_kameleon import KameleonStep


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--offsets", type=int, nargs="+", default=list(range(6)))
    args = parser.parse_args()
    negative = lambda: KameleonStep(warmup="classic")  # noqa: E731
    steps = {**check.STEPS, "classic KameleonStep (negative)": negative}
    print("| step | offset | acceptance t | ESS ratio | max abs z plain / mapped |")
    print("|---|---:|---:|---:|---|")
    for name, step in steps.items():
        for offset in args.offsets:
            seed = check.SEED + offset
            plain, accept_plain = check.run_affine(step, False, seed)
            mapped, accept_mapped = check.run_affine(step, True, seed)
            t = check.acceptance_t(accept_plain, accept_mapped)
            ratio = check.min_ess(mapped) / check.min_ess(plain)
            z_plain, z_mapped = check.zscores(plain).max_abs, check.zscores(mapped).max_abs
            print(f"| {name} | {offset} | {t:.2f} | {ratio:.2f} | {z_plain:.2f} / {z_mapped:.2f} |",
                  flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
