//! One conformance suite for every backend (CPU, GPU, ...): implement [`Backend`] and instantiate
//! [`conformance_tests!`](crate::conformance_tests) once per configuration, in the spirit of candle's `test_device!`.
//!
//! The suite checks what a backend promises, against the naive [`reference`](crate::reference) (which works on the
//! descriptor, not the plan, so a bug in the plan's arithmetic cannot hide in both):
//!
//! - **reference equivalence**: random valid Slice1 cases (ranks 1..=8, every element size, broadcast, padded and
//!   permuted inputs, padded and permuted outputs, negative strides) give the reference's output buffer byte for
//!   byte, padding and bytes past the last element included (D6);
//! - **the DirectML documentation examples**, through Slice1 and (where the example is a Slice v0) Slice;
//! - **bindings**: DirectML-shaped bindings are held to R-BIND-1 and R-BIND-2 exactly; host slices to D10 (every byte
//!   the plan touches, no DWORD rounding); a rejected call writes nothing (D9);
//! - **output padding** (D6) survives every stride pattern.
//!
//! A backend's errors must display as `error[<rule id>]: ...`, like every error of the project; the suite checks the
//! rule id of each rejection.
//!
//! ```
//! use stridekit::{Binding, Slice1Plan};
//! use stridekit_testkit::conformance::Backend;
//!
//! /// A "backend" that runs the reference itself: it passes the suite by construction.
//! struct Naive;
//! impl Backend for Naive {
//!     fn name(&self) -> String {
//!         "naive".into()
//!     }
//!     fn slice1(&self, plan: &Slice1Plan, input: &[u8], output: &mut [u8]) -> Result<(), String> {
//!         stridekit_testkit::conformance::run_reference_host(plan, input, output)
//!     }
//!     fn slice1_bound(
//!         &self,
//!         plan: &Slice1Plan,
//!         input: &[u8],
//!         input_binding: Binding,
//!         output: &mut [u8],
//!         output_binding: Binding,
//!     ) -> Result<(), String> {
//!         stridekit_testkit::conformance::run_reference_bound(plan, input, input_binding, output, output_binding)
//!     }
//! }
//! stridekit_testkit::conformance::doc_cases(&Naive).unwrap();
//! stridekit_testkit::conformance::bindings(&Naive).unwrap();
//! ```

use crate::cases;
use crate::strategies::slice1_case_with;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use stridekit::{Binding, BufferTensorDesc, DataType, Slice1Desc, Slice1Plan, TensorRole, check_host_buffer};

/// The byte every output buffer is filled with first, so that untouched padding is visible.
pub const SENTINEL: u8 = 0xA5;

/// What the suite needs from a backend. Errors are their messages (`error[<rule id>]: ...`).
pub trait Backend {
    /// A short name for failure messages (`cpu all-paths-2t`, `gpu llvmpipe`).
    fn name(&self) -> String;

    /// Runs `plan` on host slices (SPEC D10): `input` starts at the input tensor's first byte and holds at least every
    /// byte the plan reads; `output` likewise for the bytes it writes, and keeps every other byte.
    fn slice1(&self, plan: &Slice1Plan, input: &[u8], output: &mut [u8]) -> Result<(), String>;

    /// Runs `plan` on DirectML-shaped bindings (`Offset`, `SizeInBytes`) of the buffers `input` and `output`, checking
    /// R-BIND-1 and R-BIND-2 before anything moves.
    fn slice1_bound(
        &self,
        plan: &Slice1Plan,
        input: &[u8],
        input_binding: Binding,
        output: &mut [u8],
        output_binding: Binding,
    ) -> Result<(), String>;

    /// The largest physical element count of a tensor in the random cases (a software GPU wants small ones).
    fn max_elements(&self) -> u64 {
        if cfg!(miri) { 256 } else { 4096 }
    }

    /// How many random cases [`matches_reference`] runs.
    fn cases(&self) -> u32 {
        if cfg!(miri) { 3 } else { 256 }
    }
}

/// The rule id of an error message `error[<rule id>]: ...`.
pub fn rule_of(message: &str) -> Option<&str> {
    message.strip_prefix("error[")?.split(']').next()
}

/// Runs the reference as a host-slice backend: the D10 check, then the reference on buffers of the descriptor's
/// sizes. For documentation and for testing the suite itself.
pub fn run_reference_host(plan: &Slice1Plan, input: &[u8], output: &mut [u8]) -> Result<(), String> {
    let copy = plan.normalized();
    check_host_buffer(TensorRole::Input, input.len() as u64, copy.input_byte_range().end).map_err(|e| e.to_string())?;
    check_host_buffer(TensorRole::Output, output.len() as u64, copy.output_byte_range().end)
        .map_err(|e| e.to_string())?;
    let desc = desc_of(plan);
    let mut padded_input = input.to_vec();
    padded_input.resize(padded_input.len().max(desc.input.total_tensor_size_in_bytes as usize), 0);
    let total_out = desc.output.total_tensor_size_in_bytes as usize;
    let mut padded_output = output.to_vec();
    padded_output.resize(padded_output.len().max(total_out), 0);
    crate::slice1_reference(&desc, &padded_input, &mut padded_output).map_err(|e| e.to_string())?;
    let n = output.len();
    output.copy_from_slice(&padded_output[..n]);
    Ok(())
}

/// Runs the reference as a binding backend: R-BIND-1/2, then the reference on the bound ranges.
pub fn run_reference_bound(
    plan: &Slice1Plan,
    input: &[u8],
    input_binding: Binding,
    output: &mut [u8],
    output_binding: Binding,
) -> Result<(), String> {
    let i = input_binding.check(TensorRole::Input, plan.input(), input.len() as u64).map_err(|e| e.to_string())?;
    let o = output_binding.check(TensorRole::Output, plan.output(), output.len() as u64).map_err(|e| e.to_string())?;
    let desc = desc_of(plan);
    crate::slice1_reference(
        &desc,
        &input[i.start as usize..i.end as usize],
        &mut output[o.start as usize..o.end as usize],
    )
    .map_err(|e| e.to_string())
}

/// The Slice1 description a plan was validated from (a Slice v0 plan becomes its equivalent Slice1 when its strides
/// fit i32; the suite only builds such plans).
fn desc_of(plan: &Slice1Plan) -> Slice1Desc {
    Slice1Desc {
        input: plan.input().desc().clone(),
        output: plan.output().desc().clone(),
        input_window_offsets: plan.input_window_offsets().to_vec(),
        input_window_sizes: plan.input_window_sizes().to_vec(),
        input_window_strides: plan.input_window_strides().iter().map(|&s| s as i32).collect(),
    }
}

/// Runs the reference and the backend on sentinel-filled outputs of `TotalTensorSizeInBytes + extra` bytes and
/// compares the whole buffers, padding included.
pub fn check_case(backend: &dyn Backend, desc: &Slice1Desc, input: &[u8], extra: usize) -> Result<(), String> {
    check_case_on(&[backend], desc, input, extra)
}

/// [`check_case`] for several backends (or configurations of one), running the reference once.
pub fn check_case_on(backends: &[&dyn Backend], desc: &Slice1Desc, input: &[u8], extra: usize) -> Result<(), String> {
    let plan = desc.validate().map_err(|e| format!("invalid case: {e}"))?;
    let len = desc.output.total_tensor_size_in_bytes as usize + extra;
    let mut expected = vec![SENTINEL; len];
    crate::slice1_reference(desc, input, &mut expected).map_err(|e| e.to_string())?;
    for backend in backends {
        let mut actual = vec![SENTINEL; len];
        backend.slice1(&plan, input, &mut actual).map_err(|e| format!("{}: {e}\n desc: {desc:?}", backend.name()))?;
        if actual != expected {
            let at = actual.iter().zip(&expected).position(|(a, b)| a != b).unwrap_or(0);
            return Err(format!(
                "{}: first difference at byte {at} of {len} (got {:#04x}, expected {:#04x})\n desc: {desc:?}",
                backend.name(),
                actual[at],
                expected[at]
            ));
        }
    }
    Ok(())
}

/// The reference-equivalence property over [`Backend::cases`] random cases of rank 1..=8 (and as many of rank 1..=3,
/// where the kernels' special paths concentrate), with up to 23 bytes past the output tensor.
pub fn matches_reference(backend: &dyn Backend) -> Result<(), String> {
    for max_rank in [8, 3] {
        let config = Config { cases: backend.cases(), failure_persistence: None, ..Config::default() };
        let mut runner = TestRunner::new(config);
        let strategy = (slice1_case_with(max_rank, backend.max_elements()), 0usize..24);
        runner
            .run(&strategy, |(case, extra)| {
                check_case(backend, &case.desc, &case.input, extra).map_err(TestCaseError::fail)
            })
            .map_err(|e| format!("{}: {e}", backend.name()))?;
    }
    Ok(())
}

/// The DirectML documentation examples give the documented values, through Slice1 and Slice (v0).
pub fn doc_cases(backend: &dyn Backend) -> Result<(), String> {
    for case in cases::doc_cases() {
        let plans = std::iter::once(case.desc.validate().map_err(|e| e.to_string())?).chain(
            case.slice_v0.iter().map(|v0| v0.validate().map_err(|e| e.to_string())).collect::<Result<Vec<_>, _>>()?,
        );
        for plan in plans {
            let mut out = vec![0u8; case.desc.output.total_tensor_size_in_bytes as usize];
            backend.slice1(&plan, &case.input, &mut out)?;
            let got = cases::f32_values(&out);
            if got != case.expected {
                return Err(format!(
                    "{} {:?}: {} gave {got:?}, expected {:?}",
                    backend.name(),
                    plan.operator(),
                    case.name,
                    case.expected
                ));
            }
        }
        check_case(backend, &case.desc, &case.input, 8)?;
    }
    Ok(())
}

/// Expects `result` to be an error of rule `rule`, with `output` still all [`SENTINEL`] (D9).
fn expect_rejection(what: &str, result: Result<(), String>, rule: &str, output: &[u8]) -> Result<(), String> {
    match result {
        Ok(()) => Err(format!("{what}: accepted, expected error[{rule}]")),
        Err(e) if rule_of(&e) != Some(rule) => Err(format!("{what}: {e}; expected error[{rule}]")),
        Err(_) if output.iter().any(|&b| b != SENTINEL) => Err(format!("{what}: rejected, but wrote the output (D9)")),
        Err(_) => Ok(()),
    }
}

/// Binding rules: R-BIND-1 (size, range inside the buffer) and R-BIND-2 (offset alignment, raised by
/// GuaranteedBaseOffsetAlignment) on bindings; D10 on host slices, which need no DWORD rounding; nothing written on
/// a rejection (D9); bound offsets honoured.
pub fn bindings(backend: &dyn Backend) -> Result<(), String> {
    let name = backend.name();
    let case = cases::slice1_ex1();
    let plan = case.desc.validate().map_err(|e| e.to_string())?;
    let total_in = case.input.len();
    let total_out = case.desc.output.total_tensor_size_in_bytes as usize;

    // Bound at offsets 32 and 16 of larger buffers: only the output range's element bytes change.
    let mut input = vec![0u8; 32 + total_in];
    input[32..].copy_from_slice(&case.input);
    let mut out = vec![SENTINEL; 16 + total_out + 16];
    let (ib, ob) = (
        Binding { offset: 32, size_in_bytes: total_in as u64 },
        Binding { offset: 16, size_in_bytes: total_out as u64 },
    );
    backend.slice1_bound(&plan, &input, ib, &mut out, ob).map_err(|e| format!("{name}: {e}"))?;
    if cases::f32_values(&out[16..16 + total_out]) != case.expected {
        return Err(format!("{name}: bound offsets not honoured: {:?}", cases::f32_values(&out[16..16 + total_out])));
    }
    if out[..16].iter().chain(&out[16 + total_out..]).any(|&b| b != SENTINEL) {
        return Err(format!("{name}: wrote outside the bound output range"));
    }

    let mut out = vec![SENTINEL; 64 + total_out];
    let short = Binding { offset: 0, size_in_bytes: total_out as u64 - 4 };
    let r = backend.slice1_bound(&plan, &case.input, Binding::whole(total_in), &mut out, short);
    expect_rejection(&format!("{name}: output binding 4 bytes short"), r, "R-BIND-1", &out)?;
    let short_in = Binding { offset: 0, size_in_bytes: total_in as u64 - 4 };
    let r = backend.slice1_bound(&plan, &case.input, short_in, &mut out, Binding::whole(total_out));
    expect_rejection(&format!("{name}: input binding 4 bytes short"), r, "R-BIND-1", &out)?;
    let outside = Binding { offset: 64, size_in_bytes: total_out as u64 + 16 };
    let r = backend.slice1_bound(&plan, &case.input, Binding::whole(total_in), &mut out, outside);
    expect_rejection(&format!("{name}: output binding past the buffer"), r, "R-BIND-1", &out)?;
    let misaligned = Binding { offset: 8, size_in_bytes: total_out as u64 };
    let r = backend.slice1_bound(&plan, &case.input, Binding::whole(total_in), &mut out, misaligned);
    expect_rejection(&format!("{name}: output offset 8"), r, "R-BIND-2", &out)?;

    let mut aligned = case.desc.clone();
    aligned.output.guaranteed_base_offset_alignment = 64;
    let aligned_plan = aligned.validate().map_err(|e| e.to_string())?;
    let at32 = Binding { offset: 32, size_in_bytes: total_out as u64 };
    let r = backend.slice1_bound(&aligned_plan, &case.input, Binding::whole(total_in), &mut out, at32);
    expect_rejection(&format!("{name}: offset 32 with GuaranteedBaseOffsetAlignment 64"), r, "R-BIND-2", &out)?;

    // Host slices (D10): one byte short of the last element is refused, exactly the elements is enough.
    let copy = plan.normalized();
    let (read_end, write_end) = (copy.input_byte_range().end as usize, copy.output_byte_range().end as usize);
    let mut out = vec![SENTINEL; write_end - 1];
    let r = backend.slice1(&plan, &case.input, &mut out);
    expect_rejection(&format!("{name}: host output one byte short"), r, "D10", &out)?;
    let mut out = vec![SENTINEL; write_end];
    let r = backend.slice1(&plan, &case.input[..read_end - 1], &mut out);
    expect_rejection(&format!("{name}: host input one byte short"), r, "D10", &out)?;
    backend.slice1(&plan, &case.input[..read_end], &mut out).map_err(|e| format!("{name}: exact host slices: {e}"))?;

    // Odd element bytes (u8, 7 elements: TotalTensorSizeInBytes 8) run on 7-byte host slices.
    let odd = Slice1Desc {
        input: BufferTensorDesc::packed(DataType::Uint8, &[7]).map_err(|e| e.to_string())?,
        output: BufferTensorDesc::packed(DataType::Uint8, &[7]).map_err(|e| e.to_string())?,
        input_window_offsets: vec![0],
        input_window_sizes: vec![7],
        input_window_strides: vec![-1],
    };
    let odd_plan = odd.validate().map_err(|e| e.to_string())?;
    let mut out = [0u8; 7];
    backend
        .slice1(&odd_plan, &[1, 2, 3, 4, 5, 6, 7], &mut out)
        .map_err(|e| format!("{name}: 7-byte host slices: {e}"))?;
    if out != [7, 6, 5, 4, 3, 2, 1] {
        return Err(format!("{name}: 7-byte reverse gave {out:?}"));
    }
    Ok(())
}

/// Output padding (D6): a u16 output of 3x5 elements with a row pitch of 8 and 16 extra bytes keeps every padding
/// byte, whatever the window strides.
pub fn padding(backend: &dyn Backend) -> Result<(), String> {
    let input = BufferTensorDesc::packed(DataType::Uint16, &[6, 10]).map_err(|e| e.to_string())?;
    let mut output = BufferTensorDesc::new(DataType::Uint16, &[3, 5], Some(&[8, 1])).map_err(|e| e.to_string())?;
    output.total_tensor_size_in_bytes += 16;
    let bytes: Vec<u8> = (0..120u8).collect();
    for strides in [[2, 2], [-2, -1], [1, 1], [-1, 2]] {
        let desc = Slice1Desc {
            input: input.clone(),
            output: output.clone(),
            input_window_offsets: vec![0, 0],
            input_window_sizes: vec![6, 10],
            input_window_strides: strides.to_vec(),
        };
        check_case(backend, &desc, &bytes, 0)?;
    }
    Ok(())
}

/// Instantiates the conformance suite as `#[test]` functions. `$make` is an expression of type
/// `Option<impl Backend>`; when it is `None` (no device), each test returns early, having printed why in `$make`.
///
/// ```ignore
/// mod all_paths_2t {
///     stridekit_testkit::conformance_tests!(Some(crate::Cpu(ExecOptions::exercise_all_paths(2))));
/// }
/// ```
#[macro_export]
macro_rules! conformance_tests {
    ($make:expr) => {
        #[test]
        fn conformance_matches_reference() {
            let Some(backend) = $make else { return };
            $crate::conformance::matches_reference(&backend).unwrap_or_else(|e| panic!("{e}"));
        }
        #[test]
        fn conformance_doc_cases() {
            let Some(backend) = $make else { return };
            $crate::conformance::doc_cases(&backend).unwrap_or_else(|e| panic!("{e}"));
        }
        #[test]
        fn conformance_bindings() {
            let Some(backend) = $make else { return };
            $crate::conformance::bindings(&backend).unwrap_or_else(|e| panic!("{e}"));
        }
        #[test]
        fn conformance_padding() {
            let Some(backend) = $make else { return };
            $crate::conformance::padding(&backend).unwrap_or_else(|e| panic!("{e}"));
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference itself, through the trait: the suite's own checks pass on it.
    struct Naive;
    impl Backend for Naive {
        fn name(&self) -> String {
            "naive".into()
        }
        fn slice1(&self, plan: &Slice1Plan, input: &[u8], output: &mut [u8]) -> Result<(), String> {
            run_reference_host(plan, input, output)
        }
        fn slice1_bound(
            &self,
            plan: &Slice1Plan,
            input: &[u8],
            ib: Binding,
            output: &mut [u8],
            ob: Binding,
        ) -> Result<(), String> {
            run_reference_bound(plan, input, ib, output, ob)
        }
        fn cases(&self) -> u32 {
            if cfg!(miri) { 2 } else { 16 }
        }
    }

    crate::conformance_tests!(Some(Naive));

    /// A backend that ignores the output's padding: the suite must catch it.
    struct ZeroesPadding;
    impl Backend for ZeroesPadding {
        fn name(&self) -> String {
            "zeroes-padding".into()
        }
        fn slice1(&self, plan: &Slice1Plan, input: &[u8], output: &mut [u8]) -> Result<(), String> {
            output.fill(0);
            run_reference_host(plan, input, output)
        }
        fn slice1_bound(&self, p: &Slice1Plan, i: &[u8], ib: Binding, o: &mut [u8], ob: Binding) -> Result<(), String> {
            run_reference_bound(p, i, ib, o, ob)
        }
    }

    /// A backend that skips the binding checks: the suite must catch it.
    struct NoChecks;
    impl Backend for NoChecks {
        fn name(&self) -> String {
            "no-checks".into()
        }
        fn slice1(&self, plan: &Slice1Plan, input: &[u8], output: &mut [u8]) -> Result<(), String> {
            run_reference_host(plan, input, output)
        }
        fn slice1_bound(&self, p: &Slice1Plan, i: &[u8], _: Binding, o: &mut [u8], _: Binding) -> Result<(), String> {
            run_reference_host(p, i, o)
        }
    }

    #[test]
    fn the_suite_catches_broken_backends() {
        assert!(padding(&ZeroesPadding).unwrap_err().contains("first difference"));
        assert!(bindings(&NoChecks).is_err());
        assert_eq!(rule_of("error[R-BIND-1]: x"), Some("R-BIND-1"));
        assert_eq!(rule_of("no rule"), None);
    }
}
