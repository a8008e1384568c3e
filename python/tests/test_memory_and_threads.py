"""No copies of the input, the GIL released during the copy, `threads=`."""

import threading

import numpy as np

import stridekit
from conftest import filled


def test_views_of_a_large_array_are_not_copied():
    # 64 MiB input; the slice reads a few rows. tracemalloc sees NumPy allocations: only the result is allocated.
    import tracemalloc

    big = np.zeros((4096, 4096), np.float32)
    big[::-1][100:104] = 1
    tracemalloc.start()
    try:
        got = stridekit.index(big[::-1, ::-1], np.s_[100:104, 10:20])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert got.shape == (4, 10) and (got == 1).all()
    assert peak < 1 << 20, peak


def test_concurrent_python_threads():
    a = filled((64, 256, 256), np.float32)
    want = np.ascontiguousarray(a[:, ::-1, ::2])
    errors = []

    def work():
        try:
            for _ in range(5):
                np.testing.assert_array_equal(stridekit.index(a, np.s_[:, ::-1, ::2], threads=2), want)
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_thread_counts_give_the_same_result():
    a = filled((8, 512, 300), np.uint16)
    key = np.s_[::-1, 3:, ::-3]
    want = np.ascontiguousarray(a[key])
    for threads in (None, 1, 2, 3, 8):
        np.testing.assert_array_equal(stridekit.index(a, key, threads=threads), want)


def test_byte_exact_inputs_d10():
    # 3-byte and 7-byte arrays: the host buffer holds exactly the elements (no DWORD rounding).
    for n in (1, 3, 7):
        a = np.arange(n, dtype=np.uint8)
        np.testing.assert_array_equal(stridekit.index(a, np.s_[::-1]), a[::-1])
        np.testing.assert_array_equal(stridekit.slice1(a, [0], [n], [-1]), a[::-1])


def test_out_interleaved_with_memory_another_thread_writes():
    # The copy writes out=big[::2] with the GIL released while another Python thread writes big[1::2]: the gaps of
    # the output belong to the other thread, so stridekit must neither write them nor hold a Rust reference over
    # them (execute_raw). Each thread checks its own elements after every write.
    n = 1 << 18  # 1 MiB of output: well above the size from which the copy releases the GIL
    big = np.zeros(2 * n, np.uint32)
    src = np.arange(n, dtype=np.uint32)
    start = threading.Barrier(2)
    errors = []

    def slicer():
        try:
            start.wait()
            for i in range(30):
                stridekit.slice1(src + i, [0], [n], [1], out=big[::2], threads=2)
                np.testing.assert_array_equal(big[::2], src + i)
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    def writer():
        try:
            start.wait()
            for i in range(30):
                big[1::2] = 1000 + i
                assert (big[1::2] == 1000 + i).all()
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=slicer), threading.Thread(target=writer)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    np.testing.assert_array_equal(big[::2], src + 29)
    assert (big[1::2] == 1029).all()
