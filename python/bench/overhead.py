"""The call overhead of strata.evaluate over the C++ evaluation it wraps (issue 49: < 20 us).

A call is three parts: the C++ evaluation (strata::eval_step_json and the SI conversion, the
work `strata-eval eval --json --units si` does), the conversion of its JSON document into Python
objects (proportional to its size: ~2 500 values with the per-operator rows and the breakdown
tree), and the fixed overhead (arguments, object lookup, the wrapper). _strata.bench_parts times
the first two in C++; the fixed overhead is the Python call's time less both. Best of 9 repeats
of n calls (a shared machine's noise only adds time). The fixed overhead does not depend on the
step; it is judged on the last case, whose ~50 us evaluation leaves the least noise in the
difference (a 1 ms step's run-to-run noise is tens of us): exit 1 if it is 20 us or more. Run: PYTHONPATH=build/python /usr/bin/python3 python/bench/overhead.py
"""

import sys
import time

import strata
from strata import _strata

N = 300
REPEATS = 9
CASES = [
    ("Mixtral-8x7B", "h100_sxm5", dict(phase="decode", batch=8, context=2048)),
    ("Mixtral-8x7B", "stratum-s", dict(phase="decode", batch=8, context=2048)),
    ("Mixtral-8x7B", "stratum-s", dict(phase="prefill", batch=1, context=512)),
]


def per_call(fn, n):
    best = float("inf")
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n)
    return best


def size(o):
    if isinstance(o, dict):
        return 1 + sum(size(v) for v in o.values())
    if isinstance(o, list):
        return 1 + sum(size(v) for v in o)
    return 1


def main():
    fixed = 0.0
    for model_name, machine_name, step in CASES:
        m, mach = strata.model(model_name), strata.machine(machine_name)
        parts = [_strata.bench_parts(m._h, mach._h, dict(step), N) for _ in range(REPEATS)]
        cpp = min(p[0] for p in parts)
        conv = min(p[1] for p in parts)
        py = per_call(lambda: strata.evaluate(model=m, machine=mach, ops_frame=False, **step), N)
        df = per_call(lambda: strata.evaluate(model=m, machine=mach, **step), max(N // 10, 1))
        values = size(strata.evaluate(model=m, machine=mach, ops_frame=False, **step))
        fixed = py - cpp - conv
        print("%s on %s, %s: C++ evaluation %.1f us; Python call %.1f us = + %.1f us conversion of %d values "
              "+ %.1f us fixed overhead; with the ops DataFrame %.1f us"
              % (model_name, machine_name, step["phase"], cpp * 1e6, py * 1e6, conv * 1e6, values, fixed * 1e6, df * 1e6))
    return 0 if fixed < 20e-6 else 1


if __name__ == "__main__":
    sys.exit(main())
