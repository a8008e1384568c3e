/*
 * stridekit.h after DirectML.h: a program that already has the Windows types and DirectML's declarations (here a
 * stand-in that defines them the way windows.h and DirectML.h do, guard macros included) includes stridekit.h and
 * gets only the sk* declarations, with no redefinition. Compiled with -Wall -Wextra -Werror by scripts/test-c.sh.
 */
#include <stdint.h>

/* What windows.h provides (winerror.h, windef.h, basetsd.h and their guards). */
#define _HRESULT_DEFINED
typedef int32_t HRESULT;
#define _WINDEF_
typedef unsigned int UINT;
typedef int INT;
#define _BASETSD_H_
typedef uint64_t UINT64;
#define S_OK ((HRESULT)0L)
#define E_INVALIDARG ((HRESULT)0x80070057L)
#define E_OUTOFMEMORY ((HRESULT)0x8007000EL)
#define E_POINTER ((HRESULT)0x80004003L)

/* What DirectML.h provides (its include guard, and the declarations stridekit.h mirrors; only those used here). */
#define DIRECTML_H
typedef enum DML_TENSOR_DATA_TYPE { DML_TENSOR_DATA_TYPE_FLOAT32 = 1 } DML_TENSOR_DATA_TYPE;
typedef enum DML_OPERATOR_TYPE { DML_OPERATOR_SLICE1 = 111 } DML_OPERATOR_TYPE;
typedef enum DML_FEATURE_LEVEL { DML_FEATURE_LEVEL_6_4 = 0x6400 } DML_FEATURE_LEVEL;
typedef struct DML_OPERATOR_DESC {
    DML_OPERATOR_TYPE Type;
    const void* Desc;
} DML_OPERATOR_DESC;

#include "stridekit.h"
#include "stridekit.h" /* twice: the include guard */

#include <stdio.h>

int main(void) {
    static const UINT sizes[2] = {2, 3};
    SK_ERROR_INFO info;
    UINT64 size = skCalcBufferTensorSize(DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, NULL);
    HRESULT hr = skValidateOperatorDesc(NULL, DML_FEATURE_LEVEL_6_4, &info);
    if (size != 24 || hr != E_POINTER) {
        fprintf(stderr, "with DirectML.h: size %llu, hr 0x%08X\n", (unsigned long long)size, (unsigned)hr);
        return 1;
    }
    printf("with DirectML.h: sk* declarations only, no redefinition\n");
    return 0;
}
