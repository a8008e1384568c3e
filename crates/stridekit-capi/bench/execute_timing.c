/*
 * Timing of skExecuteOperator on DirectML's Slice1 4x4 example (not a test; see crates/stridekit-capi/bench/run.sh,
 * which runs it next to the Rust counterpart examples/execute_timing.rs). Prints the median and the minimum over
 * ROUNDS rounds of the mean time per call in a round of CALLS calls.
 */
#define _POSIX_C_SOURCE 199309L
#include "stridekit.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ROUNDS 101
#define CALLS 50000

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int compare(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

int main(void) {
    static const UINT inSizes[4] = {1, 1, 4, 4}, outSizes[4] = {1, 1, 2, 2};
    static const UINT offsets[4] = {0, 0, 0, 1}, sizes[4] = {1, 1, 4, 3};
    static const INT strides[4] = {1, 1, -2, 2};
    DML_BUFFER_TENSOR_DESC inBuffer = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, inSizes, NULL, 64, 0};
    DML_BUFFER_TENSOR_DESC outBuffer = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, outSizes, NULL, 16, 0};
    DML_TENSOR_DESC input = {DML_TENSOR_TYPE_BUFFER, &inBuffer}, output = {DML_TENSOR_TYPE_BUFFER, &outBuffer};
    DML_SLICE1_OPERATOR_DESC slice1 = {&input, &output, 4, offsets, sizes, strides};
    DML_OPERATOR_DESC desc = {DML_OPERATOR_SLICE1, &slice1};
    SK_OPERATOR* op = NULL;
    SK_ERROR_INFO info;
    float in[16], out[4];
    double rounds[ROUNDS];
    int r, i;
    for (i = 0; i < 16; ++i) in[i] = (float)(i + 1);
    if (FAILED(skCreateOperator(&desc, DML_FEATURE_LEVEL_6_4, &op, &info))) {
        fprintf(stderr, "%s\n", info.Message);
        return 1;
    }
    for (r = 0; r < ROUNDS; ++r) {
        double start = now_ns();
        for (i = 0; i < CALLS; ++i) {
            if (skExecuteOperator(op, in, sizeof in, out, sizeof out, &info) != S_OK) {
                fprintf(stderr, "%s\n", info.Message);
                return 1;
            }
        }
        rounds[r] = (now_ns() - start) / CALLS;
    }
    if (out[0] != 14 || out[1] != 16 || out[2] != 6 || out[3] != 8) return 1;
    skReleaseOperator(op);
    qsort(rounds, ROUNDS, sizeof rounds[0], compare);
    printf("C skExecuteOperator (libstridekit_c.so, error info)\tmedian %.1f ns\tmin %.1f ns\n", rounds[ROUNDS / 2],
           rounds[0]);
    return 0;
}
