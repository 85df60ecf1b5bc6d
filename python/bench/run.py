"""The overhead of strata.run over the C++ run of the same scenario, and strata-eval run beside it.

A call of strata.run is the C++ run (the scenario file read, its files loaded, every point
evaluated by scenario_model + stream_sweep, the columns: _strata.bench_run times it alone), the
call itself with the columns handed over as NumPy arrays (_strata.run), and the result built from
them: a DataFrame (pandas' construction, a few hundred us) or the list of dicts (about 0.1 us a
cell). strata-eval run SCENARIO --format jsonl does the same C++ work in a new process and writes
the table as text. Everything on one thread (--threads 1), best of REPEATS (a shared machine's
noise only adds time). Exit 1 if the call's own overhead (_strata.run over the C++ run) is 20 us or
more on the smallest scenario (issue 49's target for a call; the larger ones' run-to-run noise
exceeds it). Run:
PYTHONPATH=build/python STRATA_EVAL=build/examples/strata-eval /usr/bin/python3 python/bench/run.py
"""

import os
import subprocess
import sys
import time

import strata
from strata import _strata

REPEATS = 15
SOURCE_DIR = os.environ.get("STRATA_SOURCE_DIR", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
STRATA_EVAL = os.environ.get("STRATA_EVAL", os.path.join(SOURCE_DIR, "build", "examples", "strata-eval"))
SCENARIOS = ["eq1_3_logic_budget", "fig18b_throughput_per_area", "fig18a_batch_context", "fig14_layers_tiers"]


def best(fn, n=REPEATS):
    out = float("inf")
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        out = min(out, time.perf_counter() - t0)
    return out


def main():
    call = []
    data = strata.data_dir()
    strata.run(os.path.join(SOURCE_DIR, "examples", "scenarios", SCENARIOS[0] + ".json"))  # imports pandas once
    for name in SCENARIOS:
        path = os.path.join(SOURCE_DIR, "examples", "scenarios", name + ".json")
        rows = strata.run(path, threads=1, frame=False)
        cells = len(rows) * len(rows[0])
        cpp = _strata.bench_run(path, data, 1, REPEATS)
        raw = best(lambda: _strata.run(path, "", data, "", 1))
        listed = best(lambda: strata.run(path, threads=1, frame=False))
        frame = best(lambda: strata.run(path, threads=1))
        cli = best(lambda: subprocess.run([STRATA_EVAL, "run", path, "--threads", "1", "--format", "jsonl"],
                                          stdout=subprocess.DEVNULL, check=True, cwd=SOURCE_DIR))
        print("%s (%d points, %d cells): C++ run %.3f ms; the call %+.1f us; strata.run as dicts %.3f ms (%+.0f us), "
              "as a DataFrame %.3f ms (%+.0f us); strata-eval run --format jsonl %.3f ms"
              % (name, len(rows), cells, cpp * 1e3, (raw - cpp) * 1e6, listed * 1e3, (listed - cpp) * 1e6,
                 frame * 1e3, (frame - cpp) * 1e6, cli * 1e3))
        call.append(raw - cpp)
    return 0 if call[0] < 20e-6 else 1


if __name__ == "__main__":
    sys.exit(main())
