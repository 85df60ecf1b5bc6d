"""The overhead of strata.run over the C++ run of the same scenario, and strata-eval run beside it.

A call of strata.run is the C++ run (compute_scenario_table: the scenario read, its files loaded,
every point evaluated by scenario_model + stream_sweep, the columns; _strata.bench_run times it
alone) plus the conversion of the columns into NumPy arrays and a DataFrame and the call itself.
strata-eval run SCENARIO --format jsonl does the same C++ work in a new process and writes the
table as text. Each is timed on one thread (--threads 1), best of REPEATS (a shared machine's noise
only adds time). Exit 1 if the overhead of the DataFrame call over the C++ run is 1 ms or more on
the small scenarios (a DataFrame is pandas' construction, some 100s of us). Run:
PYTHONPATH=build/python STRATA_EVAL=build/examples/strata-eval /usr/bin/python3 python/bench/run.py
"""

import os
import subprocess
import sys
import time

import strata
from strata import _strata

REPEATS = 7
SOURCE_DIR = os.environ.get("STRATA_SOURCE_DIR", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
STRATA_EVAL = os.environ.get("STRATA_EVAL", os.path.join(SOURCE_DIR, "build", "examples", "strata-eval"))
SCENARIOS = ["eq1_3_logic_budget", "fig18b_throughput_per_area", "fig14_layers_tiers", "fig18a_batch_context"]


def best(fn, n=REPEATS):
    out = float("inf")
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        out = min(out, time.perf_counter() - t0)
    return out


def main():
    worst = 0.0
    data = strata.data_dir()
    for name in SCENARIOS:
        path = os.path.join(SOURCE_DIR, "examples", "scenarios", name + ".json")
        rows = len(strata.run(path, threads=1, frame=False))
        cpp = _strata.bench_run(path, data, 1, REPEATS)
        listed = best(lambda: strata.run(path, threads=1, frame=False))
        frame = best(lambda: strata.run(path, threads=1))
        cli = best(lambda: subprocess.run([STRATA_EVAL, "run", path, "--threads", "1", "--format", "jsonl"],
                                          stdout=subprocess.DEVNULL, check=True, cwd=SOURCE_DIR))
        print("%s (%d points): C++ run %.3f ms; strata.run %.3f ms as a DataFrame (+%.0f us), %.3f ms as dicts "
              "(+%.0f us); strata-eval run --format jsonl %.3f ms"
              % (name, rows, cpp * 1e3, frame * 1e3, (frame - cpp) * 1e6, listed * 1e3, (listed - cpp) * 1e6, cli * 1e3))
        worst = max(worst, frame - cpp)
    return 0 if worst < 1e-3 else 1


if __name__ == "__main__":
    sys.exit(main())
