"""A 10 000-point sweep returned as a DataFrame (issue 49: < 1 s end to end).

Two sweeps of 10 000 points each through strata.sweep's lean path (strata/report/eval_row.hpp:
each point's scalars as a flat row, no breakdown tree, no operator rows, no JSON): a GPU decode
sweep of Mixtral-8x7B (h100_sxm5 and a100_sxm4_80gb x 50 batches x 100 contexts; every point runs
the fit check for its degree) and a GPU-vs-Stratum one (h100_sxm5 and stratum-s x 50 x 100). For
each: the wall time of the call (best of 3), the C++ row alone per point (_strata.bench_row,
the same point repeated), and the loop of strata.evaluate calls it replaces, timed on 200 points
and scaled. Exit 1 if a sweep takes 1 s or more. Run:
PYTHONPATH=build/python /usr/bin/python3 python/bench/sweep.py
"""

import sys
import time

import strata
from strata import _strata

REPEATS = 3
BATCHES = list(range(1, 101, 2))          # 50
CONTEXTS = list(range(128, 12928, 128))   # 100
SWEEPS = [
    ("GPU decode", {"machine": ["h100_sxm5", "a100_sxm4_80gb"], "batch": BATCHES, "context": CONTEXTS}),
    ("GPU vs Stratum decode", {"machine": ["h100_sxm5", "stratum-s"], "batch": BATCHES, "context": CONTEXTS}),
]


def main():
    worst = 0.0
    import warnings
    warnings.simplefilter("ignore", strata.StrataWarning)
    for name, axes in SWEEPS:
        points = 1
        for v in axes.values():
            points *= len(v)
        best = float("inf")
        for _ in range(REPEATS):
            t0 = time.perf_counter()
            frame = strata.sweep(axes, model="Mixtral-8x7B", phase="decode")
            best = min(best, time.perf_counter() - t0)
        worst = max(worst, best)
        m = strata.model("Mixtral-8x7B")
        rows = []
        for mach in axes["machine"]:
            rows.append(_strata.bench_row(m._h, strata.machine(mach)._h, dict(phase="decode", batch=8, context=2048), 2000))
        t0 = time.perf_counter()
        n = 0
        for mach in axes["machine"]:
            for batch in BATCHES[:10]:
                for context in CONTEXTS[:10]:
                    strata.evaluate(model=m, machine=mach, phase="decode", batch=batch, context=context)
                    n += 1
        loop = (time.perf_counter() - t0) / n
        print("%-22s %6d points x %d columns: %.3f s (%.1f us per point; C++ row %s us; a loop of evaluate "
              "calls: %.0f us per point, %.1f s)" % (name, len(frame), len(frame.columns), best, 1e6 * best / points,
                                                     " / ".join("%.1f" % (1e6 * r) for r in rows), 1e6 * loop, loop * points))
    print("slowest sweep: %.3f s (target < 1 s)" % worst)
    return 0 if worst < 1.0 else 1


if __name__ == "__main__":
    sys.exit(main())
