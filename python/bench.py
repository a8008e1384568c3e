"""Times `stridekit.index` against `numpy.ascontiguousarray(a[key])` on the shared case matrix, in one run.

    python python/bench.py [CASES_JSON] [--reps N] [--only a,b] [--threads N] [--out]

CASES_JSON defaults to ../shared/bench/cases.json next to the repository (schema in its first field). Each case's
input is built as a NumPy view with the case's strides (`as_strided` over a buffer of its physical extent), its window
becomes a basic index (a negative window stride walks the window from its end), and a case with output strides writes
into a preallocated `out` view (NumPy: `numpy.copyto(out, a[key])`). With `--out`, every case writes into a
preallocated output (C-ordered where the case has no output strides), so that neither side pays for allocating and
page-faulting a fresh result. Both results are checked equal before timing.
Bandwidth cases report the best of `--reps` runs, alternating the two; tiny cases report microseconds per call
(`timeit`, best of 5). Prints a markdown table; GB/s counts 2 x output bytes (read + write, as cases.json does).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
import timeit

import numpy as np

# The installed package, never a stale build left in the source tree next to this script.
sys.path = [p for p in sys.path if os.path.abspath(p or os.curdir) != os.path.dirname(os.path.abspath(__file__))]
import stridekit  # noqa: E402

DTYPES = {"f32": np.float32, "f16": np.float16, "u8": np.uint8, "i64": np.int64}
TINY_ELEMENTS = 1 << 10


def default_cases() -> str:
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, "..", "..", "shared", "bench", "cases.json"))


def strided(shape, strides, dtype, fill):
    """A view of `shape` with element `strides` (None = C order) over a buffer of its physical extent."""
    dtype = np.dtype(dtype)
    if strides is None:
        strides = [int(np.prod(shape[i + 1 :], dtype=np.int64)) for i in range(len(shape))]
    extent = 1 + sum((n - 1) * s for n, s in zip(shape, strides))
    buffer = fill(extent, dtype)
    return np.lib.stride_tricks.as_strided(buffer, shape, [s * dtype.itemsize for s in strides])


def input_values(extent, dtype):
    i = np.arange(extent, dtype=np.int64)
    if dtype == np.float32:
        return ((i % 16777213) + 1).astype(np.float32)
    if dtype == np.float16:
        return ((i % 2039) + 1).astype(np.float16)
    if dtype == np.uint8:
        return ((i % 251) + 1).astype(np.uint8)
    return (i + 1) * 1000003


def key_of(case):
    key = []
    for o, s, t in zip(case["window_offsets"], case["window_sizes"], case["window_strides"]):
        if t > 0:
            key.append(slice(o, o + s, t))
        else:
            key.append(slice(o + s - 1, o - 1 if o > 0 else None, t))
    return tuple(key)


def best(fn, reps):
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def run_case(case, reps, threads, preallocated=False):
    dtype = DTYPES[case["dtype"]]
    a = strided(case["in_sizes"], case["in_strides"], dtype, input_values)
    key = key_of(case)
    out_sizes = case["out_sizes"]
    assert list(a[key].shape) == out_sizes, (case["name"], a[key].shape, out_sizes)
    if case["out_strides"] is not None or preallocated:
        out_np = strided(out_sizes, case["out_strides"], dtype, lambda n, d: np.zeros(n, d))
        out_sk = strided(out_sizes, case["out_strides"], dtype, lambda n, d: np.zeros(n, d))

        def numpy_run():
            np.copyto(out_np, a[key])
            return out_np

        def stridekit_run():
            return stridekit.index(a, key, out=out_sk, threads=threads)
    else:

        def numpy_run():
            return np.ascontiguousarray(a[key])

        def stridekit_run():
            return stridekit.index(a, key, threads=threads)

    np.testing.assert_array_equal(stridekit_run(), numpy_run())
    if "expect" in case:
        np.testing.assert_array_equal(stridekit_run().ravel(), np.array(case["expect"], dtype))
    out_bytes = int(np.prod(out_sizes)) * np.dtype(dtype).itemsize
    tiny = int(np.prod(out_sizes)) <= TINY_ELEMENTS
    if tiny:
        n = 20000
        t_np = min(timeit.repeat(numpy_run, number=n, repeat=5)) / n
        t_sk = min(timeit.repeat(stridekit_run, number=n, repeat=5)) / n
    else:
        t_np, t_sk = math.inf, math.inf
        for _ in range(reps):  # alternate, so drift hits both
            t_np = min(t_np, best(numpy_run, 1))
            t_sk = min(t_sk, best(stridekit_run, 1))
    return tiny, out_bytes, t_np, t_sk


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="?", default=default_cases())
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--only", default=None, help="comma-separated case names")
    parser.add_argument("--threads", type=int, default=None, help="stridekit worker threads (default: all cores)")
    parser.add_argument("--out", action="store_true", help="every case writes into a preallocated output")
    args = parser.parse_args()
    with open(args.cases) as f:
        cases = json.load(f)["cases"]
    if args.only:
        wanted = set(args.only.split(","))
        cases = [c for c in cases if c["name"] in wanted]
    print(f"stridekit.index vs numpy.ascontiguousarray(a[key]); numpy {np.__version__}, python "
          f"{sys.version.split()[0]}, {os.cpu_count()} CPUs, threads={args.threads or 'all'}, best of {args.reps}, "
          f"{'preallocated outputs (out=)' if args.out else 'fresh outputs'}, load average {os.getloadavg()[0]:.2f}, "
          f"{stridekit.__file__}")
    print()
    print("| case | dtype | output | NumPy | stridekit | NumPy GB/s | stridekit GB/s | speedup |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    ratios = []
    for case in cases:
        tiny, out_bytes, t_np, t_sk = run_case(case, args.reps, args.threads, args.out)
        if tiny:
            cells = [f"{t_np * 1e6:.2f} us", f"{t_sk * 1e6:.2f} us", "", ""]
            size = f"{out_bytes} B"
        else:
            ratios.append(t_np / t_sk)
            gb = 2 * out_bytes / 1e9
            cells = [f"{t_np * 1e3:.1f} ms", f"{t_sk * 1e3:.1f} ms", f"{gb / t_np:.2f}", f"{gb / t_sk:.2f}"]
            size = f"{out_bytes / 2**20:.0f} MiB"
        print(f"| {case['name']} | {case['dtype']} | {size} | " + " | ".join(cells) + f" | {t_np / t_sk:.2f}x |")
        sys.stdout.flush()
    if ratios:
        geomean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(f"\nGeometric mean speedup over the {len(ratios)} bandwidth cases: {geomean:.2f}x")


if __name__ == "__main__":
    main()
