//! `stridekit bench --sweep N --seed S`: N random valid Slice1 cases over the whole space (ranks 1-8, every element
//! size, windows with offsets and negative strides, broadcast, padded and permuted inputs, padded and permuted
//! outputs, output sizes log-uniform between two bounds), the same for the same seed on every machine.
//!
//! The generator is a SplitMix64 of its own (no `rand` in the release binary); a drawn case that breaks a rule or
//! exceeds the size limits is drawn again.

use stridekit::DataType;
use stridekit::ops::case::Slice1Case;

/// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, and good enough to spread cases over the space.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`; the modulo bias is below 2^-40 for the small `n` used here).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// `true` with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }

    /// Log-uniform in `lo..=hi` (`1 <= lo <= hi`).
    pub fn log_uniform(&mut self, lo: u64, hi: u64) -> u64 {
        let u = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let (a, b) = ((lo as f64).ln(), (hi as f64 + 1.0).ln());
        ((a + u * (b - a)).exp() as u64).clamp(lo, hi)
    }
}

/// The bounds of a sweep.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Smallest output, in bytes.
    pub min_out_bytes: u64,
    /// Largest output, in bytes.
    pub max_out_bytes: u64,
    /// Largest input buffer, in bytes.
    pub max_in_bytes: u64,
}

const DTYPES: [DataType; 11] = [
    DataType::Uint8,
    DataType::Int8,
    DataType::Uint16,
    DataType::Int16,
    DataType::Float16,
    DataType::Uint32,
    DataType::Int32,
    DataType::Float32,
    DataType::Uint64,
    DataType::Int64,
    DataType::Float64,
];

/// The `n` cases of `seed`.
pub fn generate(seed: u64, n: usize, limits: Limits) -> Vec<Slice1Case> {
    let mut rng = SplitMix64::new(seed);
    (0..n).map(|i| draw_valid(&mut rng, seed, i, limits)).collect()
}

fn draw_valid(rng: &mut SplitMix64, seed: u64, index: usize, limits: Limits) -> Slice1Case {
    let mut target = rng.log_uniform(limits.min_out_bytes.max(1), limits.max_out_bytes.max(limits.min_out_bytes));
    loop {
        for _ in 0..64 {
            let case = draw(rng, seed, index, target);
            let Ok(desc) = case.desc() else { continue };
            if desc.input.total_tensor_size_in_bytes <= limits.max_in_bytes
                && desc.output.total_tensor_size_in_bytes <= limits.max_out_bytes.max(limits.max_in_bytes)
                && desc.validate().is_ok()
            {
                return case;
            }
        }
        // Nothing fits at this size (the input pads or strides overshoot): a smaller one.
        target = (target / 2).max(64);
    }
}

/// Sizes packed (row-major) over `sizes`, in `order` (outermost first).
fn strides_in_order(sizes: &[u32], order: &[usize]) -> Vec<u32> {
    let mut strides = vec![0u32; sizes.len()];
    let mut step = 1u64;
    for &d in order.iter().rev() {
        strides[d] = step.min(u64::from(u32::MAX)) as u32;
        step = step.saturating_mul(u64::from(sizes[d]));
    }
    strides
}

/// A layout for `sizes`: packed (`None`), padded rows, or permuted dimensions (and, for inputs, broadcast).
fn layout(rng: &mut SplitMix64, sizes: &[u32], input: bool) -> (Option<Vec<u32>>, &'static str) {
    let rank = sizes.len();
    let natural: Vec<usize> = (0..rank).collect();
    let pick = rng.below(100);
    if pick < 45 || rank == 1 && pick < 70 {
        (None, "packed")
    } else if pick < 65 {
        // Padded: each dimension's pitch rounded up by a few elements.
        let padded: Vec<u32> =
            sizes.iter().map(|&s| if rng.chance(0.5) { s.saturating_add(rng.below(65) as u32) } else { s }).collect();
        (Some(strides_in_order(&padded, &natural)), "padded")
    } else if pick < 85 || !input {
        // Permuted: a random order of the dimensions in memory (Fisher-Yates).
        let mut order = natural;
        for i in (1..rank).rev() {
            order.swap(i, rng.below(i as u64 + 1) as usize);
        }
        (Some(strides_in_order(sizes, &order)), "permuted")
    } else {
        // Broadcast: one or two dimensions of stride 0.
        let mut strides = strides_in_order(sizes, &natural);
        for _ in 0..1 + rng.below(2) {
            strides[rng.below(rank as u64) as usize] = 0;
        }
        (Some(strides), "broadcast")
    }
}

fn draw(rng: &mut SplitMix64, seed: u64, index: usize, target_bytes: u64) -> Slice1Case {
    let dtype = DTYPES[rng.below(DTYPES.len() as u64) as usize];
    let e = u64::from(dtype.size_in_bytes_rounded_up());
    let target = (target_bytes / e).max(1);
    let rank = 1 + rng.below(8) as usize;
    // Output sizes: a small innermost dimension (pixels, boxes) a third of the time; outer ones fill the target.
    let mut out = vec![1u32; rank];
    out[rank - 1] = if rng.chance(0.35) { 2 + rng.below(7) as u32 } else { rng.log_uniform(1, 4096) as u32 };
    let middle = rank.saturating_sub(1).max(1);
    for o in &mut out[1..middle] {
        *o = if rng.chance(0.25) { 1 } else { rng.log_uniform(2, 64) as u32 };
    }
    let rest = |out: &[u32]| out[1..].iter().map(|&s| u64::from(s)).product::<u64>();
    for d in 1..rank {
        if rest(&out) <= target {
            break;
        }
        out[d] = 1;
    }
    if rank > 1 {
        out[0] = (target / rest(&out).max(1)).clamp(1, u64::from(u32::MAX)) as u32;
    } else {
        out[0] = target.min(u64::from(u32::MAX)) as u32;
    }
    // Window strides, at most a product of 16 in magnitude.
    let mut strides = vec![1i32; rank];
    let mut product = 1;
    for s in strides.iter_mut() {
        let v: i32 = match rng.below(20) {
            0..=10 => 1,
            11..=13 => -1,
            14 | 15 => 2,
            16 => -2,
            17 => 3,
            18 => -3,
            _ => 4,
        };
        if product * v.unsigned_abs() <= 16 {
            product *= v.unsigned_abs();
            *s = v;
        }
    }
    let mut offsets = vec![0u32; rank];
    let mut windows = vec![0u32; rank];
    let mut in_sizes = vec![0u32; rank];
    for d in 0..rank {
        let s = strides[d].unsigned_abs();
        windows[d] = (out[d] - 1).saturating_mul(s).saturating_add(1 + rng.below(u64::from(s)) as u32);
        if rng.chance(0.4) {
            offsets[d] = rng.below(17) as u32;
        }
        let pad = if rng.chance(0.3) { rng.below(9) as u32 } else { 0 };
        in_sizes[d] = offsets[d].saturating_add(windows[d]).saturating_add(pad);
    }
    let (in_strides, in_kind) = layout(rng, &in_sizes, true);
    let (out_strides, out_kind) = layout(rng, &out, false);
    Slice1Case {
        name: format!("sweep{seed}_{index:03}"),
        dtype,
        in_sizes,
        in_strides,
        window_offsets: offsets,
        window_sizes: windows,
        window_strides: strides,
        out_sizes: out,
        out_strides,
        note: Some(format!("sweep --seed {seed} case {index}: rank {rank}, input {in_kind}, output {out_kind}")),
        expect: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: Limits = Limits { min_out_bytes: 1 << 10, max_out_bytes: 1 << 16, max_in_bytes: 1 << 20 };

    #[test]
    fn deterministic_valid_and_bounded() {
        let a = generate(7, 200, LIMITS);
        assert_eq!(a, generate(7, 200, LIMITS));
        assert_ne!(a, generate(8, 200, LIMITS));
        for c in &a {
            let desc = c.desc().unwrap();
            let plan = desc.validate().unwrap_or_else(|e| panic!("{c:?}: {e}"));
            assert!(desc.input.total_tensor_size_in_bytes <= LIMITS.max_in_bytes, "{c:?}");
            assert!(plan.element_count() * plan.element_size() as u64 <= LIMITS.max_out_bytes, "{c:?}");
        }
        // The space is covered: every rank, every element size, negative strides, each layout kind.
        for rank in 1..=8 {
            assert!(a.iter().any(|c| c.in_sizes.len() == rank), "rank {rank}");
        }
        for e in [1, 2, 4, 8] {
            assert!(a.iter().any(|c| c.dtype.size_in_bytes_rounded_up() == e), "element size {e}");
        }
        assert!(a.iter().any(|c| c.window_strides.iter().any(|&s| s < 0)));
        for kind in ["input padded", "input permuted", "input broadcast", "output padded", "output permuted"] {
            assert!(a.iter().any(|c| c.note.as_deref().unwrap().contains(kind)), "{kind}");
        }
    }

    #[test]
    fn log_uniform_stays_in_bounds() {
        let mut rng = SplitMix64::new(1);
        for _ in 0..1000 {
            let v = rng.log_uniform(256 << 10, 512 << 20);
            assert!((256 << 10..=512 << 20).contains(&v));
        }
    }
}
