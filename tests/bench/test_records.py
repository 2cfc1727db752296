"""Resumable runs of :mod:`pymc_kameleon.bench.records`: what is run again and what is kept."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from pymc_kameleon.bench.records import append_record, load_records, run_resumable


class Job(NamedTuple):
    name: str
    seed: int

    @property
    def key(self) -> tuple[str, int]:
        return (self.name, self.seed)


def test_append_record_writes_numpy_values_as_json(tmp_path):
    path = tmp_path / "out.jsonl"
    append_record(path, {"x": np.float64(0.5), "v": np.arange(2), "n": np.int64(3)})
    append_record(path, {"x": 1.0})
    assert load_records(path) == [{"x": 0.5, "v": [0, 1], "n": 3}, {"x": 1.0}]
    assert load_records(tmp_path / "missing.jsonl") == []


def test_run_resumable_runs_only_what_is_missing_or_unfinished(tmp_path):
    path = tmp_path / "sub" / "out.jsonl"
    ran, lines = [], []

    def run(job: Job) -> dict:
        ran.append(job.key)
        return {"name": job.name, "seed": job.seed, "ok": job.seed != 2 or len(ran) > 3}

    jobs = [Job("a", 1), Job("a", 2), Job("b", 1)]
    options = dict(
        key=lambda r: (r["name"], r["seed"]),
        finished=lambda r: r["ok"],
        summary=lambda r: f"{r['name']} {r['seed']}",
        progress=lines.append,
    )
    first = run_resumable(jobs, run, path, **options)
    assert ran == [("a", 1), ("a", 2), ("b", 1)]
    assert lines == ["a 1", "a 2", "b 1"]
    assert [r["ok"] for r in first] == [True, False, True]
    second = run_resumable([*jobs, Job("c", 5)], run, path, **options)
    assert ran[3:] == [("a", 2), ("c", 5)]  # the unfinished one and the new one
    assert len(load_records(path)) == 5
    assert {(r["name"], r["seed"]): r["ok"] for r in second} == {
        ("a", 1): True, ("a", 2): True, ("b", 1): True, ("c", 5): True,
    }  # fmt: skip


def test_run_resumable_reads_the_key_field_by_default(tmp_path):
    class Keyed(NamedTuple):
        key: str

    path = tmp_path / "out.jsonl"
    append_record(path, {"key": "done", "value": 1})
    records = run_resumable(
        [Keyed("done"), Keyed("new")], lambda t: {"key": t.key, "value": 2}, path,
        finished=lambda r: True, summary=str,
    )  # fmt: skip
    assert sorted((r["key"], r["value"]) for r in records) == [("done", 1), ("new", 2)]
