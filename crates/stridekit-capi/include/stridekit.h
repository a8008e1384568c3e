/*
 * stridekit.h: a C library shaped like DirectML.h (C11 and C++17).
 *
 * The DML_* declarations below repeat DirectML's names, member order, member types and numeric values, so descriptor
 * code written for DirectML compiles unchanged against this header and can be validated and executed with stridekit
 * on any operating system. The sk* functions are stridekit's own.
 *
 * This header is written by hand (see the crate docs of stridekit-capi for why) and checked against the Rust
 * definitions by crates/stridekit-capi/src/tests/header.rs; the C and C++ tests static-assert DirectML's struct layout.
 *
 * Including DirectML.h as well: include DirectML.h FIRST. Its include guard (DIRECTML_H) then switches the DML_*
 * declarations below off and only the sk* declarations remain. The other order redefines the DML_* types.
 */
#ifndef STRIDEKIT_H
#define STRIDEKIT_H

#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------------------------------------------------------- */
/*  Windows base types, defined only when the platform's headers have not (guards of winerror.h, windef.h,         */
/*  basetsd.h).                                                                                                     */
/* ---------------------------------------------------------------------------------------------------------------- */

#ifndef _HRESULT_DEFINED
#define _HRESULT_DEFINED
#ifdef _WIN32
typedef long HRESULT;
#else
typedef int32_t HRESULT;
#endif
#endif

#if !defined(_WINDEF_) && !defined(SK_NO_WINDEF_TYPES)
typedef unsigned int UINT;
typedef int INT;
#endif

#if !defined(_BASETSD_H_) && !defined(_BASETSD_H) && !defined(SK_NO_BASETSD_TYPES)
typedef uint64_t UINT64;
#endif

#ifndef S_OK
#define S_OK ((HRESULT)0L)
#endif
#ifndef E_INVALIDARG
#define E_INVALIDARG ((HRESULT)0x80070057L)
#endif
#ifndef E_OUTOFMEMORY
#define E_OUTOFMEMORY ((HRESULT)0x8007000EL)
#endif
#ifndef E_POINTER
#define E_POINTER ((HRESULT)0x80004003L)
#endif
#ifndef E_UNEXPECTED
#define E_UNEXPECTED ((HRESULT)0x8000FFFFL)
#endif
#ifndef SUCCEEDED
#define SUCCEEDED(hr) (((HRESULT)(hr)) >= 0)
#endif
#ifndef FAILED
#define FAILED(hr) (((HRESULT)(hr)) < 0)
#endif

#ifndef DIRECTML_H

/* ---------------------------------------------------------------------------------------------------------------- */
/*  DirectML constants                                                                                              */
/* ---------------------------------------------------------------------------------------------------------------- */

/* DirectML.h declares these as `static const UINT`; macros keep them constant expressions in C as well. */
#define DML_TENSOR_DIMENSION_COUNT_MAX ((UINT)5)
#define DML_TENSOR_DIMENSION_COUNT_MAX1 ((UINT)8)
#define DML_TEMPORARY_BUFFER_ALIGNMENT ((UINT)256)
#define DML_PERSISTENT_BUFFER_ALIGNMENT ((UINT)256)
#define DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT ((UINT)16)

/* ---------------------------------------------------------------------------------------------------------------- */
/*  Tensor descriptions                                                                                             */
/* ---------------------------------------------------------------------------------------------------------------- */

typedef enum DML_TENSOR_DATA_TYPE {
    DML_TENSOR_DATA_TYPE_UNKNOWN = 0,
    DML_TENSOR_DATA_TYPE_FLOAT32 = 1,
    DML_TENSOR_DATA_TYPE_FLOAT16 = 2,
    DML_TENSOR_DATA_TYPE_UINT32 = 3,
    DML_TENSOR_DATA_TYPE_UINT16 = 4,
    DML_TENSOR_DATA_TYPE_UINT8 = 5,
    DML_TENSOR_DATA_TYPE_INT32 = 6,
    DML_TENSOR_DATA_TYPE_INT16 = 7,
    DML_TENSOR_DATA_TYPE_INT8 = 8,
    DML_TENSOR_DATA_TYPE_FLOAT64 = 9,
    DML_TENSOR_DATA_TYPE_UINT64 = 10,
    DML_TENSOR_DATA_TYPE_INT64 = 11,
    DML_TENSOR_DATA_TYPE_UINT4 = 12,
    DML_TENSOR_DATA_TYPE_INT4 = 13
} DML_TENSOR_DATA_TYPE;

typedef enum DML_TENSOR_TYPE {
    DML_TENSOR_TYPE_INVALID = 0,
    DML_TENSOR_TYPE_BUFFER = 1
} DML_TENSOR_TYPE;

typedef enum DML_TENSOR_FLAGS {
    DML_TENSOR_FLAG_NONE = 0x0,
    DML_TENSOR_FLAG_OWNED_BY_DML = 0x1
} DML_TENSOR_FLAGS;

#ifdef __cplusplus
/* DirectML.h's DEFINE_ENUM_FLAG_OPERATORS(DML_TENSOR_FLAGS). */
inline constexpr DML_TENSOR_FLAGS operator|(DML_TENSOR_FLAGS a, DML_TENSOR_FLAGS b) {
    return static_cast<DML_TENSOR_FLAGS>(static_cast<unsigned>(a) | static_cast<unsigned>(b));
}
inline constexpr DML_TENSOR_FLAGS operator&(DML_TENSOR_FLAGS a, DML_TENSOR_FLAGS b) {
    return static_cast<DML_TENSOR_FLAGS>(static_cast<unsigned>(a) & static_cast<unsigned>(b));
}
inline DML_TENSOR_FLAGS& operator|=(DML_TENSOR_FLAGS& a, DML_TENSOR_FLAGS b) { return a = a | b; }
inline DML_TENSOR_FLAGS& operator&=(DML_TENSOR_FLAGS& a, DML_TENSOR_FLAGS b) { return a = a & b; }
#endif

typedef struct DML_BUFFER_TENSOR_DESC {
    DML_TENSOR_DATA_TYPE DataType;
    DML_TENSOR_FLAGS Flags;
    UINT DimensionCount;
    const UINT* Sizes;   /* DimensionCount values */
    const UINT* Strides; /* DimensionCount values, or NULL for packed */
    UINT64 TotalTensorSizeInBytes;
    UINT GuaranteedBaseOffsetAlignment;
} DML_BUFFER_TENSOR_DESC;

typedef struct DML_TENSOR_DESC {
    DML_TENSOR_TYPE Type;
    const void* Desc; /* a DML_BUFFER_TENSOR_DESC for DML_TENSOR_TYPE_BUFFER */
} DML_TENSOR_DESC;

/* ---------------------------------------------------------------------------------------------------------------- */
/*  Operator types and descriptions (the slicing operators stridekit implements)                                   */
/* ---------------------------------------------------------------------------------------------------------------- */

typedef enum DML_OPERATOR_TYPE {
    DML_OPERATOR_INVALID = 0,
    DML_OPERATOR_SLICE = 60,
    DML_OPERATOR_SLICE1 = 111,
    DML_OPERATOR_SLICE_GRAD = 135
} DML_OPERATOR_TYPE;

typedef struct DML_OPERATOR_DESC {
    DML_OPERATOR_TYPE Type;
    const void* Desc; /* a DML_SLICE_OPERATOR_DESC or DML_SLICE1_OPERATOR_DESC */
} DML_OPERATOR_DESC;

typedef struct DML_SLICE_OPERATOR_DESC {
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT DimensionCount;
    const UINT* Offsets;
    const UINT* Sizes;
    const UINT* Strides;
} DML_SLICE_OPERATOR_DESC;

typedef struct DML_SLICE1_OPERATOR_DESC {
    const DML_TENSOR_DESC* InputTensor;
    const DML_TENSOR_DESC* OutputTensor;
    UINT DimensionCount;
    const UINT* InputWindowOffsets;
    const UINT* InputWindowSizes;
    const INT* InputWindowStrides;
} DML_SLICE1_OPERATOR_DESC;

/* ---------------------------------------------------------------------------------------------------------------- */
/*  Feature levels                                                                                                  */
/* ---------------------------------------------------------------------------------------------------------------- */

typedef enum DML_FEATURE_LEVEL {
    DML_FEATURE_LEVEL_1_0 = 0x1000,
    DML_FEATURE_LEVEL_2_0 = 0x2000,
    DML_FEATURE_LEVEL_2_1 = 0x2100,
    DML_FEATURE_LEVEL_3_0 = 0x3000,
    DML_FEATURE_LEVEL_3_1 = 0x3100,
    DML_FEATURE_LEVEL_4_0 = 0x4000,
    DML_FEATURE_LEVEL_4_1 = 0x4100,
    DML_FEATURE_LEVEL_5_0 = 0x5000,
    DML_FEATURE_LEVEL_5_1 = 0x5100,
    DML_FEATURE_LEVEL_5_2 = 0x5200,
    DML_FEATURE_LEVEL_6_0 = 0x6000,
    DML_FEATURE_LEVEL_6_1 = 0x6100,
    DML_FEATURE_LEVEL_6_2 = 0x6200,
    DML_FEATURE_LEVEL_6_3 = 0x6300,
    DML_FEATURE_LEVEL_6_4 = 0x6400
} DML_FEATURE_LEVEL;

#endif /* DIRECTML_H */

/* ---------------------------------------------------------------------------------------------------------------- */
/*  stridekit                                                                                                       */
/* ---------------------------------------------------------------------------------------------------------------- */

#ifndef SK_API
#define SK_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Capacity in bytes of SK_ERROR_INFO.RuleId and SK_ERROR_INFO.Message, NUL included. */
#define SK_ERROR_RULE_ID_CAPACITY 16
#define SK_ERROR_MESSAGE_CAPACITY 1024

/*
 * Why a call failed, filled by every function that takes one (a null pointer is allowed: no details then).
 * RuleId is the rule of the project's error catalog ("R-S1-5", "R-BT-2", "D7", ...; "capi" for C-boundary checks
 * such as null pointers; "panic" for an internal error), empty on success. Message is the explanation, starting with
 * "error[<rule id>]:". Both are always NUL-terminated; a message longer than the array is cut at a UTF-8 character
 * boundary. No allocation crosses the boundary.
 */
typedef struct SK_ERROR_INFO {
    char RuleId[SK_ERROR_RULE_ID_CAPACITY];
    char Message[SK_ERROR_MESSAGE_CAPACITY];
} SK_ERROR_INFO;

/* A validated Slice or Slice1, compiled for the CPU. Opaque; thread-safe (see skExecuteOperator). */
typedef struct SK_OPERATOR SK_OPERATOR;

/*
 * The exact minimum size in bytes of a buffer tensor (DMLCalcBufferTensorSize without wrap-around):
 * roundup((IndexOfLastElement + 1) * ElementSize, 4). strides may be NULL (packed). Returns 0 for an invalid
 * description (unknown data type, dimensionCount not 1..8, NULL sizes, a size of 0) or one whose size overflows
 * 64 bits. Reads at most 8 entries of each array.
 */
SK_API UINT64 skCalcBufferTensorSize(DML_TENSOR_DATA_TYPE dataType, UINT dimensionCount, const UINT* sizes,
                                     const UINT* strides);

/*
 * DirectMLX's DMLCalcBufferTensorSize, bit for bit, including its 32-bit wrap of IndexOfLastElement: for parity
 * checks only. Returns 0 for an unknown data type, dimensionCount 0 or NULL sizes (where DirectMLX would read
 * sizes[0]). Reads dimensionCount entries of each array, as DirectMLX does.
 */
SK_API UINT64 skCalcBufferTensorSizeDmlx(DML_TENSOR_DATA_TYPE dataType, UINT dimensionCount, const UINT* sizes,
                                         const UINT* strides);

/*
 * Validates a DML_OPERATOR_SLICE or DML_OPERATOR_SLICE1 description at a feature level, as DirectML's
 * CreateOperator would. S_OK, or E_INVALIDARG (an invalid description: RuleId names the rule) or E_POINTER (desc is
 * NULL).
 */
SK_API HRESULT skValidateOperatorDesc(const DML_OPERATOR_DESC* desc, DML_FEATURE_LEVEL featureLevel,
                                      SK_ERROR_INFO* error);

/*
 * Validates like skValidateOperatorDesc and compiles the operator for the CPU into *op. The operator owns copies of
 * everything it needs: the caller's descriptions and arrays may be freed afterwards. On failure *op is set to NULL.
 * Release with skReleaseOperator.
 */
SK_API HRESULT skCreateOperator(const DML_OPERATOR_DESC* desc, DML_FEATURE_LEVEL featureLevel, SK_OPERATOR** op,
                                SK_ERROR_INFO* error);

/*
 * Runs the operator on the CPU: reads the input tensor from the inputSizeInBytes bytes at input and writes the output
 * tensor's elements into the outputSizeInBytes bytes at output (padding bytes are never written). DirectML's binding
 * rule R-BIND-1 applies: each size must be at least the tensor's TotalTensorSizeInBytes. The two ranges must not
 * overlap. Buffers need no particular alignment. On any error nothing is written.
 *
 * Thread safety: one operator may run on several threads at once (with distinct output buffers). Copies of 1 MiB of
 * output or more are split over Rayon's global thread pool. During the call no other thread may write the input
 * tensor's elements or touch the output tensor's elements; only elements are read and written, so the bytes between
 * them (padding, another tensor interleaved with them) may be used by others meanwhile.
 */
SK_API HRESULT skExecuteOperator(const SK_OPERATOR* op, const void* input, UINT64 inputSizeInBytes, void* output,
                                 UINT64 outputSizeInBytes, SK_ERROR_INFO* error);

/* Frees an operator. NULL is a no-op. */
SK_API void skReleaseOperator(SK_OPERATOR* op);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* STRIDEKIT_H */
