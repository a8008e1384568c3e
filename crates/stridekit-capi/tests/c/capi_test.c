/*
 * The C test of libstridekit_c, compiled as C11 and again as C++17 (scripts/test-c.sh), each also under
 * AddressSanitizer + UndefinedBehaviorSanitizer:
 *   1. DirectML's struct layout (static asserts) and enum values;
 *   2. the DirectML documentation examples (Slice1 4x4 -> 14, 16, 6, 8; the Slice examples; DxDispatch's slice);
 *   3. every rule of docs/ERRORS.md reachable through a descriptor or a call returns E_INVALIDARG with its rule id,
 *      and the C-boundary checks (null pointers, unknown types, DimensionCount 0 and 1000) return
 *      E_POINTER/E_INVALIDARG with a message.
 * Exit status 0 when every check passes; each failure is printed.
 */
#include "stridekit.h"

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
#define SK_STATIC_ASSERT(c, m) static_assert(c, m)
#define LANGUAGE_NAME "C++17"
#else
#define SK_STATIC_ASSERT(c, m) _Static_assert(c, m)
#define LANGUAGE_NAME "C11"
#endif

/* ---- 1. DirectML's layout (64-bit targets) and values ---------------------------------------------------------- */

#if UINTPTR_MAX == 0xFFFFFFFFFFFFFFFFu
SK_STATIC_ASSERT(sizeof(DML_BUFFER_TENSOR_DESC) == 48, "DML_BUFFER_TENSOR_DESC is 48 bytes");
SK_STATIC_ASSERT(offsetof(DML_BUFFER_TENSOR_DESC, DataType) == 0, "DataType at 0");
SK_STATIC_ASSERT(offsetof(DML_BUFFER_TENSOR_DESC, Flags) == 4, "Flags at 4");
SK_STATIC_ASSERT(offsetof(DML_BUFFER_TENSOR_DESC, DimensionCount) == 8, "DimensionCount at 8");
SK_STATIC_ASSERT(offsetof(DML_BUFFER_TENSOR_DESC, Sizes) == 16, "Sizes at 16");
SK_STATIC_ASSERT(offsetof(DML_BUFFER_TENSOR_DESC, Strides) == 24, "Strides at 24");
SK_STATIC_ASSERT(offsetof(DML_BUFFER_TENSOR_DESC, TotalTensorSizeInBytes) == 32, "TotalTensorSizeInBytes at 32");
SK_STATIC_ASSERT(offsetof(DML_BUFFER_TENSOR_DESC, GuaranteedBaseOffsetAlignment) == 40, "alignment at 40");
SK_STATIC_ASSERT(sizeof(DML_TENSOR_DESC) == 16, "DML_TENSOR_DESC is 16 bytes");
SK_STATIC_ASSERT(offsetof(DML_TENSOR_DESC, Type) == 0 && offsetof(DML_TENSOR_DESC, Desc) == 8, "DML_TENSOR_DESC");
SK_STATIC_ASSERT(sizeof(DML_OPERATOR_DESC) == 16, "DML_OPERATOR_DESC is 16 bytes");
SK_STATIC_ASSERT(offsetof(DML_OPERATOR_DESC, Type) == 0 && offsetof(DML_OPERATOR_DESC, Desc) == 8, "op desc");
SK_STATIC_ASSERT(sizeof(DML_SLICE_OPERATOR_DESC) == 48, "DML_SLICE_OPERATOR_DESC is 48 bytes");
SK_STATIC_ASSERT(offsetof(DML_SLICE_OPERATOR_DESC, InputTensor) == 0, "InputTensor at 0");
SK_STATIC_ASSERT(offsetof(DML_SLICE_OPERATOR_DESC, OutputTensor) == 8, "OutputTensor at 8");
SK_STATIC_ASSERT(offsetof(DML_SLICE_OPERATOR_DESC, DimensionCount) == 16, "DimensionCount at 16");
SK_STATIC_ASSERT(offsetof(DML_SLICE_OPERATOR_DESC, Offsets) == 24, "Offsets at 24");
SK_STATIC_ASSERT(offsetof(DML_SLICE_OPERATOR_DESC, Sizes) == 32, "Sizes at 32");
SK_STATIC_ASSERT(offsetof(DML_SLICE_OPERATOR_DESC, Strides) == 40, "Strides at 40");
SK_STATIC_ASSERT(sizeof(DML_SLICE1_OPERATOR_DESC) == 48, "DML_SLICE1_OPERATOR_DESC is 48 bytes");
SK_STATIC_ASSERT(offsetof(DML_SLICE1_OPERATOR_DESC, InputTensor) == 0, "InputTensor at 0");
SK_STATIC_ASSERT(offsetof(DML_SLICE1_OPERATOR_DESC, OutputTensor) == 8, "OutputTensor at 8");
SK_STATIC_ASSERT(offsetof(DML_SLICE1_OPERATOR_DESC, DimensionCount) == 16, "DimensionCount at 16");
SK_STATIC_ASSERT(offsetof(DML_SLICE1_OPERATOR_DESC, InputWindowOffsets) == 24, "InputWindowOffsets at 24");
SK_STATIC_ASSERT(offsetof(DML_SLICE1_OPERATOR_DESC, InputWindowSizes) == 32, "InputWindowSizes at 32");
SK_STATIC_ASSERT(offsetof(DML_SLICE1_OPERATOR_DESC, InputWindowStrides) == 40, "InputWindowStrides at 40");
SK_STATIC_ASSERT(sizeof(SK_ERROR_INFO) == SK_ERROR_RULE_ID_CAPACITY + SK_ERROR_MESSAGE_CAPACITY, "SK_ERROR_INFO");
#endif
SK_STATIC_ASSERT(sizeof(DML_TENSOR_DATA_TYPE) == 4 && sizeof(DML_FEATURE_LEVEL) == 4, "enums are 32-bit");
SK_STATIC_ASSERT(sizeof(HRESULT) == 4 && sizeof(UINT) == 4 && sizeof(INT) == 4 && sizeof(UINT64) == 8, "types");
SK_STATIC_ASSERT(DML_TENSOR_DATA_TYPE_FLOAT32 == 1 && DML_TENSOR_DATA_TYPE_INT64 == 11, "data types");
SK_STATIC_ASSERT(DML_TENSOR_DATA_TYPE_UINT4 == 12 && DML_TENSOR_DATA_TYPE_INT4 == 13, "4-bit types");
SK_STATIC_ASSERT(DML_TENSOR_TYPE_BUFFER == 1 && DML_TENSOR_FLAG_OWNED_BY_DML == 1, "tensor type and flags");
SK_STATIC_ASSERT(DML_OPERATOR_SLICE == 60 && DML_OPERATOR_SLICE1 == 111, "operator ids");
SK_STATIC_ASSERT(DML_FEATURE_LEVEL_1_0 == 0x1000 && DML_FEATURE_LEVEL_6_4 == 0x6400, "feature levels");
SK_STATIC_ASSERT(DML_TENSOR_DIMENSION_COUNT_MAX == 5 && DML_TENSOR_DIMENSION_COUNT_MAX1 == 8, "rank limits");
SK_STATIC_ASSERT(DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT == 16, "binding alignment");
SK_STATIC_ASSERT(E_INVALIDARG == (HRESULT)0x80070057L && E_POINTER == (HRESULT)0x80004003L, "HRESULTs");
SK_STATIC_ASSERT(E_OUTOFMEMORY == (HRESULT)0x8007000EL && S_OK == 0 && E_INVALIDARG < 0, "HRESULTs");

/* ---- helpers ------------------------------------------------------------------------------------------------- */

static int failures = 0;
static int checks = 0;

#define CHECK(cond, ...)                                                                                            \
    do {                                                                                                            \
        ++checks;                                                                                                   \
        if (!(cond)) {                                                                                              \
            ++failures;                                                                                             \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                                         \
            fprintf(stderr, __VA_ARGS__);                                                                           \
            fputc('\n', stderr);                                                                                    \
        }                                                                                                           \
    } while (0)

/* One Slice1 and one Slice description over a 2-D FLOAT32 input, every array owned here, ready to be broken. */
typedef struct Fixture {
    UINT inSizes[8], inStrides[8], outSizes[8], outStrides[8];
    UINT windowOffsets[8], windowSizes[8];
    INT windowStrides[8];
    UINT offsets[8], sizes[8], strides[8];
    DML_BUFFER_TENSOR_DESC inBuffer, outBuffer;
    DML_TENSOR_DESC input, output;
    DML_SLICE1_OPERATOR_DESC slice1;
    DML_SLICE_OPERATOR_DESC slice;
    DML_OPERATOR_DESC op;
} Fixture;

static void buffer_desc(DML_BUFFER_TENSOR_DESC* b, DML_TENSOR_DATA_TYPE type, UINT rank, const UINT* sizes) {
    memset(b, 0, sizeof *b);
    b->DataType = type;
    b->Flags = DML_TENSOR_FLAG_NONE;
    b->DimensionCount = rank;
    b->Sizes = sizes;
    b->Strides = NULL;
    b->TotalTensorSizeInBytes = skCalcBufferTensorSize(type, rank, sizes, NULL);
    b->GuaranteedBaseOffsetAlignment = 0;
}

/* The 2-D form of DirectML's Slice1 example 2 (4x4 -> 2x2, window {0,1} + {4,3}, strides {-2,2}) and Slice example 2
 * (offsets {1,0}, sizes {2,2}, strides {2,3}). `slice1` picks which one f->op describes. */
static void fixture(Fixture* f, int slice1) {
    memset(f, 0, sizeof *f);
    f->inSizes[0] = 4, f->inSizes[1] = 4;
    f->outSizes[0] = 2, f->outSizes[1] = 2;
    f->windowOffsets[0] = 0, f->windowOffsets[1] = 1;
    f->windowSizes[0] = 4, f->windowSizes[1] = 3;
    f->windowStrides[0] = -2, f->windowStrides[1] = 2;
    f->offsets[0] = 1, f->offsets[1] = 0;
    f->sizes[0] = 2, f->sizes[1] = 2;
    f->strides[0] = 2, f->strides[1] = 3;
    buffer_desc(&f->inBuffer, DML_TENSOR_DATA_TYPE_FLOAT32, 2, f->inSizes);
    buffer_desc(&f->outBuffer, DML_TENSOR_DATA_TYPE_FLOAT32, 2, f->outSizes);
    f->input.Type = DML_TENSOR_TYPE_BUFFER;
    f->input.Desc = &f->inBuffer;
    f->output.Type = DML_TENSOR_TYPE_BUFFER;
    f->output.Desc = &f->outBuffer;
    f->slice1.InputTensor = &f->input;
    f->slice1.OutputTensor = &f->output;
    f->slice1.DimensionCount = 2;
    f->slice1.InputWindowOffsets = f->windowOffsets;
    f->slice1.InputWindowSizes = f->windowSizes;
    f->slice1.InputWindowStrides = f->windowStrides;
    f->slice.InputTensor = &f->input;
    f->slice.OutputTensor = &f->output;
    f->slice.DimensionCount = 2;
    f->slice.Offsets = f->offsets;
    f->slice.Sizes = f->sizes;
    f->slice.Strides = f->strides;
    f->op.Type = slice1 ? DML_OPERATOR_SLICE1 : DML_OPERATOR_SLICE;
    f->op.Desc = slice1 ? (const void*)&f->slice1 : (const void*)&f->slice;
}

static int starts_with(const char* s, const char* prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

/* Validates and creates `desc` at `level`; both must fail with `hr`, `rule` and a message starting
 * "error[<rule>]:" and containing `needle` (when not NULL). */
static void expect_error(const char* what, const DML_OPERATOR_DESC* desc, DML_FEATURE_LEVEL level, HRESULT hr,
                         const char* rule, const char* needle) {
    SK_ERROR_INFO info;
    char prefix[64];
    SK_OPERATOR* op = (SK_OPERATOR*)&info; /* any non-null value: it must be reset to NULL */
    HRESULT got;
    snprintf(prefix, sizeof prefix, "error[%s]:", rule);

    memset(&info, 'x', sizeof info);
    got = skValidateOperatorDesc(desc, level, &info);
    CHECK(got == hr, "%s: validate returned 0x%08X, expected 0x%08X (%s)", what, (unsigned)got, (unsigned)hr,
          info.Message);
    CHECK(strcmp(info.RuleId, rule) == 0, "%s: rule id '%s', expected '%s'", what, info.RuleId, rule);
    CHECK(starts_with(info.Message, prefix), "%s: message '%s' does not start with %s", what, info.Message, prefix);
    CHECK(needle == NULL || strstr(info.Message, needle) != NULL, "%s: message '%s' lacks '%s'", what, info.Message,
          needle);

    memset(&info, 'x', sizeof info);
    got = skCreateOperator(desc, level, &op, &info);
    CHECK(got == hr && op == NULL, "%s: create returned 0x%08X and %p", what, (unsigned)got, (void*)op);
    CHECK(strcmp(info.RuleId, rule) == 0, "%s: create rule id '%s', expected '%s'", what, info.RuleId, rule);
    skReleaseOperator(op);

    /* A null error pointer is allowed and gives the same HRESULT. */
    CHECK(skValidateOperatorDesc(desc, level, NULL) == hr, "%s: validate without error info", what);
}

/* ---- 2. the documentation examples ---------------------------------------------------------------------------- */

static void run_case(const char* name, DML_OPERATOR_TYPE type, const UINT* inSizes, const UINT* outSizes,
                     const UINT* offsets, const UINT* sizes, const INT* s1Strides, const UINT* s0Strides,
                     const float* expected, size_t expectedCount) {
    DML_BUFFER_TENSOR_DESC inBuffer, outBuffer;
    DML_TENSOR_DESC input, output;
    DML_SLICE1_OPERATOR_DESC slice1;
    DML_SLICE_OPERATOR_DESC slice;
    DML_OPERATOR_DESC desc;
    SK_ERROR_INFO info;
    SK_OPERATOR* op = NULL;
    float in[25], out[8];
    size_t i, n = (size_t)inSizes[2] * inSizes[3];
    HRESULT hr;

    buffer_desc(&inBuffer, DML_TENSOR_DATA_TYPE_FLOAT32, 4, inSizes);
    buffer_desc(&outBuffer, DML_TENSOR_DATA_TYPE_FLOAT32, 4, outSizes);
    input.Type = DML_TENSOR_TYPE_BUFFER;
    input.Desc = &inBuffer;
    output.Type = DML_TENSOR_TYPE_BUFFER;
    output.Desc = &outBuffer;
    desc.Type = type;
    if (type == DML_OPERATOR_SLICE1) {
        slice1.InputTensor = &input;
        slice1.OutputTensor = &output;
        slice1.DimensionCount = 4;
        slice1.InputWindowOffsets = offsets;
        slice1.InputWindowSizes = sizes;
        slice1.InputWindowStrides = s1Strides;
        desc.Desc = &slice1;
    } else {
        slice.InputTensor = &input;
        slice.OutputTensor = &output;
        slice.DimensionCount = 4;
        slice.Offsets = offsets;
        slice.Sizes = sizes;
        slice.Strides = s0Strides;
        desc.Desc = &slice;
    }
    for (i = 0; i < n; ++i) in[i] = (float)(i + 1);
    for (i = 0; i < 8; ++i) out[i] = -1.0f;

    hr = skValidateOperatorDesc(&desc, DML_FEATURE_LEVEL_6_4, &info);
    CHECK(hr == S_OK && info.RuleId[0] == 0 && info.Message[0] == 0, "%s: validate: %s", name, info.Message);
    hr = skCreateOperator(&desc, DML_FEATURE_LEVEL_6_4, &op, &info);
    CHECK(hr == S_OK && op != NULL, "%s: create: %s", name, info.Message);
    if (op == NULL) return;
    hr = skExecuteOperator(op, in, inBuffer.TotalTensorSizeInBytes, out, outBuffer.TotalTensorSizeInBytes, &info);
    CHECK(hr == S_OK, "%s: execute: %s", name, info.Message);
    for (i = 0; i < expectedCount; ++i)
        CHECK(out[i] == expected[i], "%s: output[%u] is %g, expected %g", name, (unsigned)i, (double)out[i],
              (double)expected[i]);
    for (i = expectedCount; i < 8; ++i)
        CHECK(out[i] == -1.0f, "%s: byte past the output's elements written at [%u]", name, (unsigned)i);
    skReleaseOperator(op);
}

static void documentation_examples(void) {
    static const UINT in4x4[4] = {1, 1, 4, 4}, in5x5[4] = {1, 1, 5, 5}, out2x2[4] = {1, 1, 2, 2},
                      out3x2[4] = {1, 1, 3, 2};
    static const UINT s1Offsets[4] = {0, 0, 0, 1}, s1Sizes[4] = {1, 1, 4, 3};
    static const INT ex1Strides[4] = {1, 1, 2, 2}, ex2Strides[4] = {1, 1, -2, 2};
    static const float ex1[4] = {2, 4, 10, 12}, ex2[4] = {14, 16, 6, 8};
    static const UINT v1Offsets[4] = {0, 0, 1, 2}, v1Sizes[4] = {1, 1, 3, 2}, v1Strides[4] = {1, 1, 1, 1};
    static const float v1[6] = {7, 8, 11, 12, 15, 16};
    static const UINT v2Offsets[4] = {0, 0, 1, 0}, v2Sizes[4] = {1, 1, 2, 2}, v2Strides[4] = {1, 1, 2, 3};
    static const float v2[4] = {5, 8, 13, 16};
    static const UINT dxOffsets[4] = {0, 0, 1, 1}, dxSizes[4] = {1, 1, 3, 2}, dxStrides[4] = {1, 1, 1, 2};
    static const float dx[6] = {7, 9, 12, 14, 17, 19};

    run_case("slice1_ex1", DML_OPERATOR_SLICE1, in4x4, out2x2, s1Offsets, s1Sizes, ex1Strides, NULL, ex1, 4);
    run_case("slice1_ex2", DML_OPERATOR_SLICE1, in4x4, out2x2, s1Offsets, s1Sizes, ex2Strides, NULL, ex2, 4);
    run_case("slice_ex1", DML_OPERATOR_SLICE, in4x4, out3x2, v1Offsets, v1Sizes, NULL, v1Strides, v1, 6);
    run_case("slice_ex2", DML_OPERATOR_SLICE, in4x4, out2x2, v2Offsets, v2Sizes, NULL, v2Strides, v2, 4);
    run_case("dxdispatch_slice", DML_OPERATOR_SLICE, in5x5, out3x2, dxOffsets, dxSizes, NULL, dxStrides, dx, 6);
}

/* ---- size helpers --------------------------------------------------------------------------------------------- */

static void size_helpers(void) {
    static const UINT padded[2] = {2, 3}, paddedStrides[2] = {5, 1}, one[1] = {1};
    static const UINT wrap[2] = {65537, 65537}, wrapStrides[2] = {65536, 1}, zero[2] = {2, 0};
    static const UINT many[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    CHECK(skCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 2, padded, paddedStrides) == 32, "padded 2x3");
    CHECK(skCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT8, 1, one, NULL) == 4, "one byte rounds to 4");
    CHECK(skCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 2, wrap, wrapStrides) == 17180131332ull, "exact");
    CHECK(skCalcBufferTensorSizeDmlx(DML_TENSOR_DATA_TYPE_FLOAT32, 2, wrap, wrapStrides) == 262148, "DMLX wraps");
    CHECK(skCalcBufferTensorSizeDmlx(DML_TENSOR_DATA_TYPE_FLOAT32, 2, padded, paddedStrides) == 32, "DMLX padded");
    CHECK(skCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UNKNOWN, 1, one, NULL) == 0, "UNKNOWN");
    CHECK(skCalcBufferTensorSize((DML_TENSOR_DATA_TYPE)99, 1, one, NULL) == 0, "type 99");
    CHECK(skCalcBufferTensorSizeDmlx((DML_TENSOR_DATA_TYPE)99, 1, one, NULL) == 0, "DMLX type 99");
    CHECK(skCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 0, one, NULL) == 0, "rank 0");
    CHECK(skCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 9, many, NULL) == 0, "rank 9");
    CHECK(skCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 1000, many, NULL) == 0, "rank 1000 (not read)");
    CHECK(skCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 2, NULL, NULL) == 0, "null sizes");
    CHECK(skCalcBufferTensorSizeDmlx(DML_TENSOR_DATA_TYPE_FLOAT32, 2, NULL, NULL) == 0, "DMLX null sizes");
    CHECK(skCalcBufferTensorSizeDmlx(DML_TENSOR_DATA_TYPE_FLOAT32, 0, one, NULL) == 0, "DMLX rank 0");
    CHECK(skCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 2, zero, NULL) == 0, "zero size");
    CHECK(skCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_UINT4, 1, one, NULL) == 4, "UINT4");
}

/* ---- 3. the error catalog ------------------------------------------------------------------------------------- */

static void tensor_rules(int slice1) {
    Fixture f;
    static const UINT big[2] = {65536, 65536};
    const char* op = slice1 ? "Slice1" : "Slice";
    char what[96];
#define WHAT(s) (snprintf(what, sizeof what, "%s: %s", op, s), what)

    fixture(&f, slice1);
    f.inBuffer.DataType = DML_TENSOR_DATA_TYPE_UNKNOWN;
    expect_error(WHAT("R-BT-1 UNKNOWN"), &f.op, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "R-BT-1", "InputTensor.DataType");
    fixture(&f, slice1);
    f.inBuffer.DataType = (DML_TENSOR_DATA_TYPE)14;
    expect_error(WHAT("R-BT-1 out of range"), &f.op, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "R-BT-1", "14");
    fixture(&f, slice1);
    f.outBuffer.DataType = (DML_TENSOR_DATA_TYPE)-1;
    expect_error(WHAT("R-BT-1 negative"), &f.op, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "R-BT-1", "OutputTensor");
    fixture(&f, slice1);
    f.inBuffer.DataType = f.outBuffer.DataType = DML_TENSOR_DATA_TYPE_FLOAT64;
    f.inBuffer.TotalTensorSizeInBytes = 128, f.outBuffer.TotalTensorSizeInBytes = 32;
    expect_error(WHAT("R-BT-1 at level"), &f.op, DML_FEATURE_LEVEL_2_1, E_INVALIDARG, "R-BT-1", "feature level 2_1");

    fixture(&f, slice1);
    f.inBuffer.DimensionCount = 0;
    expect_error(WHAT("R-BT-2 rank 0"), &f.op, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "R-BT-2", "DimensionCount is 0");
    fixture(&f, slice1);
    f.inBuffer.DimensionCount = 9;
    expect_error(WHAT("R-BT-2 rank 9"), &f.op, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "R-BT-2", "DimensionCount is 9");
    fixture(&f, slice1);
    f.outBuffer.DimensionCount = 1000;
    expect_error(WHAT("R-BT-2 rank 1000"), &f.op, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "R-BT-2", "is 1000");
    fixture(&f, slice1);
    f.inBuffer.DimensionCount = 0xFFFFFFFFu;
    expect_error(WHAT("R-BT-2 rank 2^32-1"), &f.op, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "R-BT-2", "4294967295");

    fixture(&f, slice1);
    f.inSizes[1] = 0;
    expect_error(WHAT("R-BT-3"), &f.op, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "R-BT-3", "InputTensor.Sizes[1] is 0");

    fixture(&f, slice1);
    f.inBuffer.TotalTensorSizeInBytes = 60;
    expect_error(WHAT("R-BT-5"), &f.op, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "R-BT-5", "at least 64 bytes");

    fixture(&f, slice1);
    f.inBuffer.Sizes = big;
    f.inBuffer.TotalTensorSizeInBytes = (UINT64)1 << 36;
    expect_error(WHAT("R-BT-6"), &f.op, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "R-BT-6", "4294967295");

    fixture(&f, slice1);
    f.inBuffer.GuaranteedBaseOffsetAlignment = 2;
    expect_error(WHAT("R-BT-7 small"), &f.op, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "R-BT-7", "is 2");
    fixture(&f, slice1);
    f.outBuffer.GuaranteedBaseOffsetAlignment = 24;
    expect_error(WHAT("R-BT-7 not 2^k"), &f.op, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "R-BT-7", "24");

    fixture(&f, slice1);
    f.inBuffer.DataType = f.outBuffer.DataType = DML_TENSOR_DATA_TYPE_UINT8;
    f.inSizes[0] = 2, f.inSizes[1] = 3, f.inBuffer.TotalTensorSizeInBytes = 6;
    f.outBuffer.TotalTensorSizeInBytes = 4;
    expect_error(WHAT("R-BT-8"), &f.op, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "R-BT-8", "multiple of 4 (8)");

    fixture(&f, slice1);
    f.inBuffer.Flags = (DML_TENSOR_FLAGS)2;
    expect_error(WHAT("R-BT-9"), &f.op, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "R-BT-9", "Flags is 0x2");

    fixture(&f, slice1);
    f.outBuffer.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
    expect_error(WHAT("R-FL-1"), &f.op, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "R-FL-1", "OutputTensor.Flags");
    /* OWNED_BY_DML on the input is legal. */
    fixture(&f, slice1);
    f.inBuffer.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
    CHECK(skValidateOperatorDesc(&f.op, DML_FEATURE_LEVEL_6_4, NULL) == S_OK, "%s: OWNED_BY_DML input", op);

    fixture(&f, slice1);
    f.outStrides[0] = 0, f.outStrides[1] = 1;
    f.outBuffer.Strides = f.outStrides;
    expect_error(WHAT("D1"), &f.op, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "D1", "OutputTensor.Strides");

    /* C-boundary checks on tensors. */
    fixture(&f, slice1);
    f.inBuffer.Sizes = NULL;
    expect_error(WHAT("null Sizes"), &f.op, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "capi", "InputTensor.Sizes is NULL");
    fixture(&f, slice1);
    f.input.Type = DML_TENSOR_TYPE_INVALID;
    expect_error(WHAT("tensor type 0"), &f.op, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "capi", "InputTensor.Type is 0");
    fixture(&f, slice1);
    f.output.Type = (DML_TENSOR_TYPE)7;
    expect_error(WHAT("tensor type 7"), &f.op, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "capi", "OutputTensor.Type is 7");
    fixture(&f, slice1);
    f.output.Desc = NULL;
    expect_error(WHAT("null tensor Desc"), &f.op, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "capi", "OutputTensor.Desc");
    fixture(&f, slice1);
    if (slice1) f.slice1.InputTensor = NULL;
    else f.slice.InputTensor = NULL;
    expect_error(WHAT("null InputTensor"), &f.op, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "capi", "InputTensor is NULL");
#undef WHAT
}

static void slice1_rules(void) {
    Fixture f;
    fixture(&f, 1);
    f.slice1.DimensionCount = 1;
    expect_error("R-S1-1 count", &f.op, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "R-S1-1", "InputWindowOffsets has 1");
    fixture(&f, 1);
    f.slice1.DimensionCount = 1000;
    expect_error("R-S1-1 count 1000", &f.op, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "R-S1-1", "has 1000 entries");
    fixture(&f, 1);
    f.slice1.DimensionCount = 0;
    expect_error("R-S1-1 count 0", &f.op, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "R-S1-1", "has 0 entries");
    fixture(&f, 1);
    f.outBuffer.DimensionCount = 1, f.outBuffer.TotalTensorSizeInBytes = 8;
    expect_error("R-S1-1 output rank", &f.op, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "R-S1-1", "OutputTensor.Sizes");
    /* Rank 2 is outside Slice1's 4..5 before feature level 3_0. */
    fixture(&f, 1);
    expect_error("R-S1-1 level rank", &f.op, DML_FEATURE_LEVEL_2_1, E_INVALIDARG, "R-S1-1", "4 to 5");

    fixture(&f, 1);
    f.windowOffsets[1] = 2;
    expect_error("R-S1-2", &f.op, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "R-S1-2", "2 + 3 = 5");
    fixture(&f, 1);
    f.windowOffsets[1] = 0xFFFFFFFFu;
    expect_error("R-S1-2 64-bit", &f.op, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "R-S1-2", "4294967298");

    fixture(&f, 1);
    f.windowSizes[0] = 0;
    expect_error("R-S1-3", &f.op, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "R-S1-3", "InputWindowSizes[0] is 0");

    fixture(&f, 1);
    f.windowStrides[1] = 0;
    expect_error("R-S1-4", &f.op, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "R-S1-4", "InputWindowStrides[1] is 0");

    fixture(&f, 1);
    f.windowStrides[0] = -4;
    expect_error("R-S1-5", &f.op, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "R-S1-5", "stride -4 copies at most 1");

    fixture(&f, 1);
    f.outBuffer.DataType = DML_TENSOR_DATA_TYPE_INT32;
    expect_error("R-S1-6", &f.op, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "R-S1-6", "INT32");

    fixture(&f, 1);
    f.inBuffer.DataType = f.outBuffer.DataType = DML_TENSOR_DATA_TYPE_UINT4;
    f.inBuffer.TotalTensorSizeInBytes = 8, f.outBuffer.TotalTensorSizeInBytes = 4;
    expect_error("R-S1-7 4-bit", &f.op, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "R-S1-7", "UINT4");
    fixture(&f, 1);
    f.inBuffer.DataType = f.outBuffer.DataType = DML_TENSOR_DATA_TYPE_INT64;
    f.inBuffer.TotalTensorSizeInBytes = 128, f.outBuffer.TotalTensorSizeInBytes = 32;
    expect_error("R-S1-7 INT64 at 3_0", &f.op, DML_FEATURE_LEVEL_3_0, E_INVALIDARG, "R-S1-7", "4_1");

    fixture(&f, 1);
    expect_error("D7 Slice1 at 2_0", &f.op, DML_FEATURE_LEVEL_2_0, E_INVALIDARG, "D7", "2_1");

    fixture(&f, 1);
    f.slice1.InputWindowStrides = NULL;
    expect_error("null InputWindowStrides", &f.op, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "capi", "InputWindowStrides");
}

static void slice_rules(void) {
    Fixture f;
    fixture(&f, 0);
    f.slice.DimensionCount = 3;
    expect_error("R-S0-1", &f.op, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "R-S0-1", "Offsets has 3 entries");
    fixture(&f, 0);
    f.slice.DimensionCount = 1000;
    expect_error("R-S0-1 count 1000", &f.op, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "R-S0-1", "has 1000 entries");

    fixture(&f, 0);
    f.sizes[0] = 1;
    expect_error("R-S0-2", &f.op, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "R-S0-2", "Sizes[0] is 1");

    fixture(&f, 0);
    f.offsets[0] = 2;
    expect_error("R-S0-3", &f.op, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "R-S0-3", "exceeds InputTensor.Sizes[0] - 1");

    fixture(&f, 0);
    f.outBuffer.DataType = DML_TENSOR_DATA_TYPE_INT32;
    expect_error("R-S0-4", &f.op, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "R-S0-4", "INT32");

    fixture(&f, 0);
    f.strides[1] = 0;
    expect_error("D3", &f.op, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "D3", "Strides[1] is 0");

    /* Slice at 1_0 has no 8-bit types (rank 4 to be inside 1_0's range). */
    {
        static const UINT in4[4] = {1, 1, 4, 4}, out4[4] = {1, 1, 2, 2};
        static const UINT off4[4] = {0, 0, 1, 0}, size4[4] = {1, 1, 2, 2}, stride4[4] = {1, 1, 2, 3};
        fixture(&f, 0);
        buffer_desc(&f.inBuffer, DML_TENSOR_DATA_TYPE_UINT8, 4, in4);
        buffer_desc(&f.outBuffer, DML_TENSOR_DATA_TYPE_UINT8, 4, out4);
        f.slice.DimensionCount = 4;
        f.slice.Offsets = off4, f.slice.Sizes = size4, f.slice.Strides = stride4;
        CHECK(skValidateOperatorDesc(&f.op, DML_FEATURE_LEVEL_2_1, NULL) == S_OK, "Slice UINT8 at 2_1");
        expect_error("D7 Slice UINT8 at 1_0", &f.op, DML_FEATURE_LEVEL_1_0, E_INVALIDARG, "D7", "UINT8");
    }

    fixture(&f, 0);
    f.slice.Offsets = NULL;
    expect_error("null Offsets", &f.op, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "capi", "Offsets is NULL");
}

static void boundary_checks(void) {
    Fixture f;
    SK_ERROR_INFO info;
    SK_OPERATOR* op = NULL;
    DML_OPERATOR_DESC bad;
    float in[16] = {0}, out[4] = {0};
    HRESULT hr;

    expect_error("null desc", NULL, DML_FEATURE_LEVEL_6_4, E_POINTER, "capi", "desc");
    fixture(&f, 1);
    expect_error("feature level 0x1234", &f.op, (DML_FEATURE_LEVEL)0x1234, E_INVALIDARG, "D7", "0x1234");
    bad = f.op;
    bad.Type = DML_OPERATOR_SLICE_GRAD;
    expect_error("SLICE_GRAD", &bad, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "capi", "Type is 135");
    bad.Type = (DML_OPERATOR_TYPE)5;
    expect_error("operator 5", &bad, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "capi", "Type is 5");
    bad.Type = DML_OPERATOR_INVALID;
    expect_error("operator INVALID", &bad, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "capi", "Type is 0");
    bad = f.op;
    bad.Desc = NULL;
    expect_error("null op Desc", &bad, DML_FEATURE_LEVEL_6_4, E_INVALIDARG, "capi", "Desc is NULL");

    hr = skCreateOperator(&f.op, DML_FEATURE_LEVEL_6_4, NULL, &info);
    CHECK(hr == E_POINTER && strcmp(info.RuleId, "capi") == 0, "create with null op: 0x%08X", (unsigned)hr);

    hr = skCreateOperator(&f.op, DML_FEATURE_LEVEL_6_4, &op, &info);
    CHECK(hr == S_OK && op != NULL, "create: %s", info.Message);
    /* The operator owns copies: break the caller's arrays, it still runs the original. */
    fixture(&f, 0);
    memset(&f, 0xAB, sizeof f);
    {
        int i;
        for (i = 0; i < 16; ++i) in[i] = (float)(i + 1);
    }
    hr = skExecuteOperator(op, in, sizeof in, out, sizeof out, &info);
    CHECK(hr == S_OK && out[0] == 14 && out[1] == 16 && out[2] == 6 && out[3] == 8, "owned copies: %s", info.Message);

    /* R-BIND-1: each size at least TotalTensorSizeInBytes (64 and 16). */
    hr = skExecuteOperator(op, in, 60, out, sizeof out, &info);
    CHECK(hr == E_INVALIDARG && strcmp(info.RuleId, "R-BIND-1") == 0 && strstr(info.Message, "InputTensor"),
          "R-BIND-1 input: %s", info.Message);
    hr = skExecuteOperator(op, in, sizeof in, out, 12, &info);
    CHECK(hr == E_INVALIDARG && strcmp(info.RuleId, "R-BIND-1") == 0 && strstr(info.Message, "is 12"),
          "R-BIND-1 output: %s", info.Message);
    hr = skExecuteOperator(op, in, sizeof in, out, 12, NULL);
    CHECK(hr == E_INVALIDARG, "R-BIND-1 without error info");

    hr = skExecuteOperator(NULL, in, sizeof in, out, sizeof out, &info);
    CHECK(hr == E_POINTER && strstr(info.Message, "op"), "null op: %s", info.Message);
    hr = skExecuteOperator(op, NULL, sizeof in, out, sizeof out, &info);
    CHECK(hr == E_POINTER && strstr(info.Message, "input"), "null input: %s", info.Message);
    hr = skExecuteOperator(op, in, sizeof in, NULL, sizeof out, &info);
    CHECK(hr == E_POINTER && strstr(info.Message, "output"), "null output: %s", info.Message);
    hr = skExecuteOperator(op, in, sizeof in, in + 8, 16, &info);
    CHECK(hr == E_INVALIDARG && strcmp(info.RuleId, "capi") == 0 && strstr(info.Message, "overlap"),
          "overlapping buffers: %s", info.Message);
    hr = skExecuteOperator(op, in, ~(UINT64)0, out, sizeof out, &info);
    CHECK(hr == E_INVALIDARG && strcmp(info.RuleId, "capi") == 0, "huge size: %s", info.Message);
    /* Success clears a previous error. */
    hr = skExecuteOperator(op, in, sizeof in, out, sizeof out, &info);
    CHECK(hr == S_OK && info.RuleId[0] == 0 && info.Message[0] == 0, "success clears the error info");
    skReleaseOperator(op);
    skReleaseOperator(NULL);
}

int main(void) {
    size_helpers();
    documentation_examples();
    tensor_rules(1);
    tensor_rules(0);
    slice1_rules();
    slice_rules();
    boundary_checks();
    if (failures != 0) {
        fprintf(stderr, "%s: %d of %d checks failed\n", LANGUAGE_NAME, failures, checks);
        return 1;
    }
    printf("%s: all %d checks passed\n", LANGUAGE_NAME, checks);
    return 0;
}
