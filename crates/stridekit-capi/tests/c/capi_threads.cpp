// The C++17 test of libstridekit_c: one operator executed from several std::threads at once (each with its own
// output), on the DirectML 4x4 example and on a 4 MiB copy large enough to use the CPU backend's thread pool from
// inside each call. Run by scripts/test-c.sh, also under AddressSanitizer + UndefinedBehaviorSanitizer.
#include "stridekit.h"

#include <cstdio>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

namespace {

int failures = 0;

void check(bool ok, const char* what, const SK_ERROR_INFO& info) {
    if (!ok) {
        ++failures;
        std::fprintf(stderr, "FAIL %s: [%s] %s\n", what, info.RuleId, info.Message);
    }
}

struct OperatorDeleter {
    void operator()(SK_OPERATOR* op) const { skReleaseOperator(op); }
};
using Operator = std::unique_ptr<SK_OPERATOR, OperatorDeleter>;

// A Slice1 over FLOAT32 tensors of rank 2, created at feature level 6_4.
Operator make_slice1(const UINT (&inSizes)[2], const UINT (&outSizes)[2], const UINT (&offsets)[2],
                     const UINT (&sizes)[2], const INT (&strides)[2]) {
    DML_BUFFER_TENSOR_DESC inBuffer{};
    inBuffer.DataType = DML_TENSOR_DATA_TYPE_FLOAT32;
    inBuffer.Flags = DML_TENSOR_FLAG_NONE | DML_TENSOR_FLAG_NONE;  // DirectML's flag operators exist in C++
    inBuffer.DimensionCount = 2;
    inBuffer.Sizes = inSizes;
    inBuffer.TotalTensorSizeInBytes = skCalcBufferTensorSize(inBuffer.DataType, 2, inSizes, nullptr);
    DML_BUFFER_TENSOR_DESC outBuffer = inBuffer;
    outBuffer.Sizes = outSizes;
    outBuffer.TotalTensorSizeInBytes = skCalcBufferTensorSize(outBuffer.DataType, 2, outSizes, nullptr);
    DML_TENSOR_DESC input{DML_TENSOR_TYPE_BUFFER, &inBuffer};
    DML_TENSOR_DESC output{DML_TENSOR_TYPE_BUFFER, &outBuffer};
    DML_SLICE1_OPERATOR_DESC slice1{&input, &output, 2, offsets, sizes, strides};
    DML_OPERATOR_DESC desc{DML_OPERATOR_SLICE1, &slice1};
    SK_ERROR_INFO info{};
    SK_OPERATOR* op = nullptr;
    HRESULT hr = skCreateOperator(&desc, DML_FEATURE_LEVEL_6_4, &op, &info);
    check(SUCCEEDED(hr) && op != nullptr, "create", info);
    return Operator(op);
}

}  // namespace

int main() {
    constexpr int threads = 4;

    // The DirectML example: 4x4 -> 14, 16, 6, 8, many times on every thread.
    Operator small = make_slice1({4, 4}, {2, 2}, {0, 1}, {4, 3}, {-2, 2});
    float in[16];
    for (int i = 0; i < 16; ++i) in[i] = float(i + 1);
    std::vector<std::thread> pool;
    std::vector<int> bad(threads, 0);
    for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&, t] {
            for (int iteration = 0; iteration < 2000; ++iteration) {
                float out[4] = {0, 0, 0, 0};
                SK_ERROR_INFO info;
                HRESULT hr = skExecuteOperator(small.get(), in, sizeof in, out, sizeof out, &info);
                if (hr != S_OK || out[0] != 14 || out[1] != 16 || out[2] != 6 || out[3] != 8) ++bad[t];
            }
        });
    }
    for (auto& th : pool) th.join();
    pool.clear();
    for (int t = 0; t < threads; ++t) {
        SK_ERROR_INFO none{};
        check(bad[t] == 0, "small example on several threads", none);
    }

    // 1024 x 1024 rows reversed: 4 MiB of output per call, above the 1 MiB threshold of the thread pool.
    constexpr UINT n = 1024;
    Operator large = make_slice1({n, n}, {n, n}, {0, 0}, {n, n}, {-1, 1});
    std::vector<float> source(size_t(n) * n);
    for (size_t i = 0; i < source.size(); ++i) source[i] = float(i);
    std::vector<std::vector<float>> outputs(threads, std::vector<float>(source.size(), -1.0f));
    for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&, t] {
            for (int iteration = 0; iteration < 3; ++iteration) {
                SK_ERROR_INFO info;
                HRESULT hr = skExecuteOperator(large.get(), source.data(), source.size() * sizeof(float),
                                               outputs[t].data(), outputs[t].size() * sizeof(float), &info);
                if (hr != S_OK) ++bad[t];
            }
        });
    }
    for (auto& th : pool) th.join();
    for (int t = 0; t < threads; ++t) {
        bool ok = bad[t] == 0;
        for (UINT row = 0; row < n && ok; row += 97)
            for (UINT col = 0; col < n && ok; col += 31)
                ok = outputs[t][size_t(row) * n + col] == source[size_t(n - 1 - row) * n + col];
        SK_ERROR_INFO none{};
        check(ok, "large reversal on several threads", none);
    }

    if (failures != 0) {
        std::fprintf(stderr, "C++17 threads: %d failures\n", failures);
        return 1;
    }
    std::printf("C++17 threads: %d threads x 2000 small + 3 large executions passed\n", threads);
    return 0;
}
