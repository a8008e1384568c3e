//! The exported C functions. Each is a panic boundary: its body runs under `catch_unwind`, so a Rust panic becomes
//! `E_UNEXPECTED` with the rule id `panic` instead of unwinding into C.
#![allow(unsafe_code)]

use crate::abi::{DML_OPERATOR_DESC, E_INVALIDARG, E_UNEXPECTED, HRESULT, S_OK, SK_ERROR_INFO};
use crate::error_info::{self, Failure};
use crate::read;
use std::ffi::c_void;
use std::panic::{AssertUnwindSafe, catch_unwind};
use stridekit::{DataType, TensorRole, calc_buffer_tensor_size, dmlx_calc_buffer_tensor_size};
use stridekit_cpu::{Binding, ExecOptions, PreparedSlice1};

/// `SK_OPERATOR`: a validated Slice or Slice1 compiled for the CPU. Owns everything it needs.
///
/// `Send + Sync` (checked below): [`skExecuteOperator`] takes it by shared pointer from any number of threads.
#[derive(Debug)]
#[allow(non_camel_case_types)] // the C name
pub struct SK_OPERATOR {
    prepared: PreparedSlice1,
}

const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<SK_OPERATOR>();
};

/// Runs `body`, turning its failure or a panic into an HRESULT reported through `error`.
///
/// # Safety
/// `error` is null or valid for writes of one `SK_ERROR_INFO`.
unsafe fn boundary(error: *mut SK_ERROR_INFO, body: impl FnOnce() -> Result<(), Failure>) -> HRESULT {
    let failure = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => {
            // SAFETY: the caller's promise about `error`.
            unsafe { error_info::clear(error) };
            return S_OK;
        }
        Ok(Err(failure)) => failure,
        Err(_) => Failure {
            hr: E_UNEXPECTED,
            rule: "panic",
            message: "error[panic]: internal error in stridekit (a Rust panic was caught at the C boundary); please \
                      report it with the description that caused it"
                .to_owned(),
        },
    };
    // Formatting the report could itself panic only on allocation failure, which aborts; nothing unwinds from here.
    // SAFETY: the caller's promise about `error`.
    unsafe { error_info::report(error, &failure) }
}

/// `skCalcBufferTensorSize`: the exact minimum size of a buffer tensor (the model's
/// [`calc_buffer_tensor_size`]), or 0 for an invalid description or one that overflows 64 bits.
///
/// # Safety
/// `sizes` is null or valid for reads of `dimension_count` values; so is `strides` (null: packed). At most 8 values
/// of each are read.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skCalcBufferTensorSize(
    data_type: u32,
    dimension_count: u32,
    sizes: *const u32,
    strides: *const u32,
) -> u64 {
    catch_unwind(|| {
        let data_type = DataType::from_raw(data_type)?;
        // SAFETY: the caller's promise about the arrays.
        let (sizes, strides) = unsafe { read::size_helper_arrays(dimension_count, sizes, strides) }?;
        calc_buffer_tensor_size(data_type, &sizes, strides.as_deref()).ok()
    })
    .ok()
    .flatten()
    .unwrap_or(0)
}

/// `skCalcBufferTensorSizeDmlx`: DirectMLX's `DMLCalcBufferTensorSize` bit for bit (the model's
/// [`dmlx_calc_buffer_tensor_size`]): its 32-bit wrap included. 0 for an unknown type, a count of 0 or null sizes.
///
/// # Safety
/// `sizes` is null or valid for reads of `dimension_count` values; so is `strides` (null: packed). All are read, as
/// DirectMLX does.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skCalcBufferTensorSizeDmlx(
    data_type: u32,
    dimension_count: u32,
    sizes: *const u32,
    strides: *const u32,
) -> u64 {
    if sizes.is_null() || dimension_count == 0 {
        return 0;
    }
    let n = dimension_count as usize;
    // SAFETY: non-null and valid for `n` reads, per the caller (the C contract of DirectMLX's helper).
    let sizes = unsafe { std::slice::from_raw_parts(sizes, n) };
    // SAFETY: as above, when not null.
    let strides = (!strides.is_null()).then(|| unsafe { std::slice::from_raw_parts(strides, n) });
    catch_unwind(|| dmlx_calc_buffer_tensor_size(data_type, sizes, strides)).unwrap_or(0)
}

/// `skValidateOperatorDesc`: validates a Slice or Slice1 description at a feature level.
///
/// # Safety
/// `desc` is null or points to a readable `DML_OPERATOR_DESC` whose pointers, recursively, are null or valid for
/// the counts they declare. `error` is null or valid for writes of one `SK_ERROR_INFO`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skValidateOperatorDesc(
    desc: *const DML_OPERATOR_DESC,
    feature_level: u32,
    error: *mut SK_ERROR_INFO,
) -> HRESULT {
    // SAFETY: the caller's promises about `desc` and `error`, passed on.
    unsafe { boundary(error, || read::validate(desc, feature_level).map(drop)) }
}

/// `skCreateOperator`: validates like [`skValidateOperatorDesc`] and compiles the operator into `*op` (null on
/// failure). Release it with [`skReleaseOperator`].
///
/// # Safety
/// As for [`skValidateOperatorDesc`]; `op` is null or valid for writes of one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skCreateOperator(
    desc: *const DML_OPERATOR_DESC,
    feature_level: u32,
    op: *mut *mut SK_OPERATOR,
    error: *mut SK_ERROR_INFO,
) -> HRESULT {
    let body = || {
        if op.is_null() {
            return Err(Failure::null_argument("op"));
        }
        // SAFETY: `op` is non-null and writable, per the caller.
        unsafe { op.write(std::ptr::null_mut()) };
        // SAFETY: the caller's promise about `desc`.
        let plan = unsafe { read::validate(desc, feature_level) }?;
        let prepared = PreparedSlice1::new(&plan, ExecOptions::default())?;
        let boxed = Box::into_raw(Box::new(SK_OPERATOR { prepared }));
        // SAFETY: as above.
        unsafe { op.write(boxed) };
        Ok(())
    };
    // SAFETY: the caller's promise about `error`.
    unsafe { boundary(error, body) }
}

/// `skExecuteOperator`: runs the operator on the CPU with DirectML's binding rule R-BIND-1 (each size at least the
/// tensor's TotalTensorSizeInBytes). Allocates nothing; checks only the arguments and the bindings.
///
/// # Safety
/// `op` is null or was returned by [`skCreateOperator`] and not released; `input` is null or valid for reads of
/// `input_size_in_bytes` bytes, `output` null or valid for writes of `output_size_in_bytes` bytes (output bytes are
/// only written, never read); `error` as for [`skValidateOperatorDesc`]. No other thread writes the input tensor's
/// elements or touches the output tensor's elements during the call; the bytes between elements (padding) may be
/// used by others meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skExecuteOperator(
    op: *const SK_OPERATOR,
    input: *const c_void,
    input_size_in_bytes: u64,
    output: *mut c_void,
    output_size_in_bytes: u64,
    error: *mut SK_ERROR_INFO,
) -> HRESULT {
    let body = || {
        // SAFETY: null or a live operator, per the caller.
        let op = unsafe { op.as_ref() }.ok_or_else(|| Failure::null_argument("op"))?;
        let RawBuffers { input, in_len, output, out_len } =
            buffers(input, input_size_in_bytes, output, output_size_in_bytes)?;
        // R-BIND-1 on the whole buffers (offset 0: R-BIND-2 holds).
        let plan = op.prepared.plan();
        Binding::whole(in_len).check(TensorRole::Input, plan.input(), in_len as u64)?;
        Binding::whole(out_len).check(TensorRole::Output, plan.output(), out_len as u64)?;
        // SAFETY: the ranges are the caller's buffers, each one allocation (non-null, at most isize::MAX bytes,
        // disjoint: `buffers`); the caller promises that nobody writes the input's elements or touches the output's
        // elements during the call. No Rust reference is formed over the buffers, so the bytes between elements may
        // be used by others meanwhile (execute_raw touches element bytes only).
        unsafe { op.prepared.execute_raw(input, in_len, output, out_len) }?;
        Ok(())
    };
    // SAFETY: the caller's promise about `error`.
    unsafe { boundary(error, body) }
}

/// The caller's two buffers, checked for what `execute_raw` needs; still raw pointers (no Rust reference is formed
/// over them: the bytes between elements may belong to others during the call).
struct RawBuffers {
    input: *const u8,
    in_len: usize,
    output: *mut u8,
    out_len: usize,
}

/// The caller's buffers after the checks `execute_raw` needs: not null, at most `isize::MAX` bytes, disjoint
/// (DirectML has no in-place slicing either).
fn buffers(input: *const c_void, input_len: u64, output: *mut c_void, output_len: u64) -> Result<RawBuffers, Failure> {
    if input.is_null() {
        return Err(Failure::null_argument("input"));
    }
    if output.is_null() {
        return Err(Failure::null_argument("output"));
    }
    let too_large = |name: &str, len: u64| {
        Failure::invalid(format_args!("{name} is {len} bytes, more than this machine can address"))
    };
    let in_len = usize::try_from(input_len).ok().filter(|&n| n <= isize::MAX as usize);
    let in_len = in_len.ok_or_else(|| too_large("inputSizeInBytes", input_len))?;
    let out_len = usize::try_from(output_len).ok().filter(|&n| n <= isize::MAX as usize);
    let out_len = out_len.ok_or_else(|| too_large("outputSizeInBytes", output_len))?;
    let (i0, o0) = (input as usize, output as usize);
    if i0 < o0.saturating_add(out_len) && o0 < i0.saturating_add(in_len) {
        return Err(Failure {
            hr: E_INVALIDARG,
            rule: crate::error_info::CAPI_RULE,
            message: format!(
                "error[capi]: the input ({in_len} bytes at {input:p}) and the output ({out_len} bytes at {output:p}) \
                 overlap; slicing is not done in place"
            ),
        });
    }
    Ok(RawBuffers { input: input.cast::<u8>(), in_len, output: output.cast::<u8>(), out_len })
}

/// `skReleaseOperator`: frees an operator; null is a no-op.
///
/// # Safety
/// `op` is null or was returned by [`skCreateOperator`] and is not used afterwards (nor released twice).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn skReleaseOperator(op: *mut SK_OPERATOR) {
    if !op.is_null() {
        // SAFETY: `op` came from Box::into_raw in skCreateOperator and is released once, per the caller. Dropping a
        // PreparedSlice1 does not panic; catch_unwind guards the boundary regardless.
        let _ = catch_unwind(AssertUnwindSafe(|| drop(unsafe { Box::from_raw(op) })));
    }
}
