"""Inside and around each pool call of a KameleonSMC run: each chunk's wall and CPU time.

Each chunk is timed in the worker that runs it (wall clock and that thread's CPU time), and each
call in this process, so a call's time splits into the slowest chunk's compute and what lies
around it (sending the points, scheduling, the results coming back).
"""

import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # benchmarks/: smc_pool_scaling
import smc_pool_scaling as s

from pymc_kameleon.core import evaluation_pool as ep

OUT = Path(os.environ.get("CHUNK_TIMES", "/tmp/chunk-times"))


def timed_chunk(task):
    import json as _json
    import os as _os
    import threading as _threading
    import time as _time

    from pymc_kameleon.core import evaluation_pool as _ep

    original = getattr(_ep, "_original_chunk", _ep._evaluate_chunk)
    wall, cpu = _time.time(), _time.thread_time()
    result = original(task)
    record = {"pid": _os.getpid(), "start": wall, "stop": _time.time(),
              "cpu": _time.thread_time() - cpu, "rows": len(task[2]),
              "main_thread": _threading.current_thread() is _threading.main_thread()}  # fmt: skip
    folder = _os.environ.get("CHUNK_TIMES", "/tmp/chunk-times")
    with open(f"{folder}/{_os.getpid()}.jsonl", "a") as f:
        f.write(_json.dumps(record) + "\n")
    return result


def worker_threads_cpu():
    import psutil

    return {t.id: t.user_time + t.system_time for t in psutil.Process().threads()}


def process_cpu(pool):
    """CPU seconds of this process, of each child process, and of each Dask worker's threads."""
    import psutil

    me = psutil.Process()
    out = {"main": sum(me.cpu_times()[:2])}
    for child in me.children(recursive=True):
        try:
            out[f"{child.pid} {child.name()}"] = sum(child.cpu_times()[:2])
        except psutil.Error:
            pass
    if hasattr(pool, "run"):
        for worker, threads in pool.run(worker_threads_cpu).items():
            for tid, seconds in threads.items():
                out[f"{worker} thread {tid}"] = seconds
    return out


calls = []
orig_call = ep.PointEvaluator.__call__


def timed_call(self, points):
    start = time.time()
    try:
        return orig_call(self, points)
    finally:
        calls.append((start, time.time()))


ep._original_chunk = ep._evaluate_chunk
ep._evaluate_chunk = timed_chunk
ep.PointEvaluator.__call__ = timed_call

if __name__ == "__main__":
    if os.environ.get("KEEP_MALLOC_TRIM") == "1":  # workers without Dask's MALLOC_TRIM_THRESHOLD_
        import dask

        threads = {"OMP_NUM_THREADS": 1, "MKL_NUM_THREADS": 1, "OPENBLAS_NUM_THREADS": 1}
        dask.config.set({"distributed.nanny.pre-spawn-environ": threads})
    os.environ["CHUNK_TIMES"] = str(OUT)
    which = sys.argv[1:] or ["ProcessPoolExecutor", "dask LocalCluster"]
    kinds = dict(s.pools(2))
    s.run("ode", None, 100, 5, 1)
    for name in which:
        OUT.mkdir(parents=True, exist_ok=True)
        for f in OUT.glob("*.jsonl"):
            f.unlink()
        calls.clear()
        with kinds[name]() as pool:
            s.warm_up(pool, 2)
            cpu_before = process_cpu(pool)
            r = s.run("ode", pool, 100, 5, 1)
            cpu_after = process_cpu(pool)
        chunks = sorted(
            (json.loads(line) for f in OUT.glob("*.jsonl") for line in f.read_text().splitlines()),
            key=lambda c: c["start"],
        )
        in_calls = sum(b - a for a, b in calls)
        slowest, cpu, wall, before, after, stagger = 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
        for a, b in calls:
            mine = [c for c in chunks if a <= c["start"] <= b]
            slowest += max(c["stop"] - c["start"] for c in mine)
            before += min(c["start"] for c in mine) - a
            after += b - max(c["stop"] for c in mine)
            stagger += max(c["start"] for c in mine) - min(c["start"] for c in mine)
            cpu += sum(c["cpu"] for c in mine)
            wall += sum(c["stop"] - c["start"] for c in mine)
        print(f"{name:22s} wall {r['seconds']:6.2f}  in {len(calls)} calls {in_calls:6.2f}  "
              f"slowest chunks {slowest:6.2f}  first chunk starts after {before:5.2f}  "
              f"results back after last chunk {after:5.2f}  chunk cpu/wall {cpu / wall:5.3f}  "
              f"last chunk starts after first {stagger:5.2f}  "
              f"chunk cpu {cpu:6.2f} wall {wall:6.2f}  "
              f"main thread {chunks[0]['main_thread']}", flush=True)  # fmt: skip
        for key in cpu_after:
            spent = cpu_after[key] - cpu_before.get(key, 0.0)
            if spent > 0.05:
                print(f"    cpu during the run {spent:7.2f} s  {key}")
