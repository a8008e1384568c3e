/* DirectML's Slice1 example 2, written as for DirectML.h: 4x4 input 1..16, every second row bottom up, every second
 * column from column 1. Prints 14 16 6 8. Build: see crates/stridekit-capi/README.md. */
#include <stdio.h>
#include <stridekit.h> /* instead of <DirectML.h> */

int main(void) {
    UINT inputSizes[4] = {1, 1, 4, 4}, outputSizes[4] = {1, 1, 2, 2};
    UINT offsets[4] = {0, 0, 0, 1}, sizes[4] = {1, 1, 4, 3};
    INT strides[4] = {1, 1, -2, 2};

    DML_BUFFER_TENSOR_DESC inputBuffer = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, inputSizes, NULL,
                                          skCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 4, inputSizes, NULL), 0};
    DML_BUFFER_TENSOR_DESC outputBuffer = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, outputSizes, NULL,
                                           skCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 4, outputSizes, NULL), 0};
    DML_TENSOR_DESC input = {DML_TENSOR_TYPE_BUFFER, &inputBuffer};
    DML_TENSOR_DESC output = {DML_TENSOR_TYPE_BUFFER, &outputBuffer};
    DML_SLICE1_OPERATOR_DESC slice1 = {&input, &output, 4, offsets, sizes, strides};
    DML_OPERATOR_DESC desc = {DML_OPERATOR_SLICE1, &slice1};

    SK_ERROR_INFO error;
    SK_OPERATOR* op = NULL;
    if (FAILED(skCreateOperator(&desc, DML_FEATURE_LEVEL_6_4, &op, &error))) {
        fprintf(stderr, "%s\n", error.Message); /* e.g. error[R-S1-5]: OutputTensor.Sizes[2] is 3, but ... */
        return 1;
    }
    float in[16], out[4];
    for (int i = 0; i < 16; ++i) in[i] = (float)(i + 1);
    HRESULT hr = skExecuteOperator(op, in, sizeof in, out, sizeof out, &error);
    skReleaseOperator(op);
    if (FAILED(hr)) {
        fprintf(stderr, "%s\n", error.Message);
        return 1;
    }
    printf("%g %g %g %g\n", out[0], out[1], out[2], out[3]);
    return 0;
}
