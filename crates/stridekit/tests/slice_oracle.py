#!/usr/bin/env python3
"""Oracle for stridekit's front-end tests: slices np.arange(prod(shape)).reshape(shape) with real NumPy.

Reads cases from stdin, one per line, tab-separated:
    numpy <TAB> <shape: comma-separated> <TAB> <index expression>        -> a[<expression>]
    onnx  <TAB> <shape> <TAB> <starts>;<ends>;<axes>;<steps>               -> a[tuple of slice(start, end, step)]
Writes one line per case, in order:
    ok <shape: comma-separated>|<elements: space-separated>
    err <exception class name>
Exits with status 3 (and prints NO_NUMPY) when numpy cannot be imported.
"""
import sys

try:
    import numpy as np
except ImportError:
    print("NO_NUMPY")
    sys.exit(3)


def ints(text):
    return [int(t) for t in text.split(",") if t.strip()]


def run(line):
    mode, shape_text, payload = line.rstrip("\n").split("\t")
    shape = tuple(ints(shape_text))
    a = np.arange(int(np.prod(shape, dtype=np.int64)), dtype=np.int64).reshape(shape)
    if mode == "numpy":
        # The expressions come from the test itself (integers, slices, '...', commas, whitespace).
        result = eval("a[" + payload + "]", {"a": a}) if payload.strip() else a[()]
    elif mode == "onnx":
        starts, ends, axes, steps = (ints(p) for p in payload.split(";"))
        index = [slice(None)] * len(shape)
        for start, end, axis, step in zip(starts, ends, axes, steps):
            index[axis] = slice(start, end, step)
        result = a[tuple(index)]
    else:
        raise SystemExit("unknown mode " + mode)
    result = np.asarray(result)
    return "ok " + ",".join(str(d) for d in result.shape) + "|" + " ".join(str(v) for v in result.ravel().tolist())


def main():
    out = []
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            out.append(run(line))
        except Exception as e:  # noqa: BLE001 - the class name is the answer
            out.append("err " + type(e).__name__)
    sys.stdout.write("\n".join(out) + "\n")


main()
