//! `ElementOffsets`: the offset table of a layout, one offset per logical element in row-major order.

/// Iterator over the element offsets of a layout in logical order (an odometer over the sizes).
#[derive(Debug, Clone)]
pub struct ElementOffsets<'a> {
    sizes: &'a [u32],
    strides: &'a [u32],
    coords: Vec<u32>,
    offset: u64,
    remaining: u64,
}

impl<'a> ElementOffsets<'a> {
    pub(crate) fn new(sizes: &'a [u32], strides: &'a [u32], element_count: u64) -> Self {
        ElementOffsets { sizes, strides, coords: vec![0; sizes.len()], offset: 0, remaining: element_count }
    }
}

impl ExactSizeIterator for ElementOffsets<'_> {}

impl Iterator for ElementOffsets<'_> {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        let current = self.offset;
        // Advance the odometer: bump the innermost coordinate, carrying outward.
        for d in (0..self.sizes.len()).rev() {
            let stride = u64::from(self.strides[d]);
            if self.coords[d] + 1 < self.sizes[d] {
                self.coords[d] += 1;
                self.offset += stride;
                break;
            }
            self.offset -= u64::from(self.coords[d]) * stride;
            self.coords[d] = 0;
        }
        Some(current)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match usize::try_from(self.remaining) {
            Ok(n) => (n, Some(n)),
            Err(_) => (usize::MAX, None),
        }
    }
}
