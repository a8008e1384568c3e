//! The two pictures of the DirectML strides page, for any small tensor: the logical view (blocks of the last two
//! dimensions) and the buffer view (offset -> element, `x` for padding, several labels where elements share an offset).
//!
//! ```
//! use stridekit::{BufferTensorDesc, DataType};
//! use stridekit::explain::render;
//! let layout = BufferTensorDesc::new(DataType::Float32, &[2, 3], Some(&[5, 1])).unwrap().validate().unwrap();
//! let texts = render::element_texts(&layout, false);
//! assert_eq!(render::logical_view(&layout, &texts), "A B C\nD E F\n");
//! assert_eq!(
//!     render::buffer_view(&layout, &texts),
//!     "Offset: | 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 |\nValue:  | A | B | C | x | x | D | E | F |\n"
//! );
//! ```

use crate::TensorLayout;
use std::fmt::Write as _;

/// Pictures are drawn for tensors of at most this many logical elements ...
pub const MAX_PICTURE_ELEMENTS: u64 = 512;
/// ... whose buffer spans at most this many elements.
pub const MAX_PICTURE_EXTENT: u64 = 2048;
/// Buffer-view columns per line before wrapping.
const BUFFER_COLUMNS: usize = 16;

/// The label of logical element `i`: A..Z, then AA, AB, ... (spreadsheet columns).
pub fn label(mut i: u64) -> String {
    let mut s = Vec::new();
    loop {
        s.push(b'A' + (i % 26) as u8);
        if i < 26 {
            break;
        }
        i = i / 26 - 1;
    }
    s.reverse();
    String::from_utf8(s).unwrap_or_default()
}

/// Whether the pictures are small enough to draw.
pub fn fits(layout: &TensorLayout) -> bool {
    layout.element_count() <= MAX_PICTURE_ELEMENTS && layout.physical_extent() <= MAX_PICTURE_EXTENT
}

/// The text shown for each logical element, in logical order.
pub fn element_texts(layout: &TensorLayout, offsets: bool) -> Vec<String> {
    layout
        .element_offsets()
        .enumerate()
        .map(|(i, off)| if offsets { off.to_string() } else { label(i as u64) })
        .collect()
}

/// The logical view: one block per index of the leading dimensions, each block the last two dimensions as rows.
pub fn logical_view(layout: &TensorLayout, texts: &[String]) -> String {
    let sizes = layout.sizes();
    let rank = sizes.len();
    let width = texts.iter().map(String::len).max().unwrap_or(1);
    let cols = sizes[rank - 1] as usize;
    let rows = if rank >= 2 { sizes[rank - 2] as usize } else { 1 };
    let block = rows * cols;
    let mut out = String::new();
    for (b, chunk) in texts.chunks(block).enumerate() {
        if rank > 2 {
            if b > 0 {
                out.push('\n');
            }
            let lead = unravel(b as u64, &sizes[..rank - 2]);
            let idx: Vec<String> =
                lead.iter().map(u32::to_string).chain(std::iter::repeat_n(":".to_owned(), 2)).collect();
            let _ = writeln!(out, "[{}]", idx.join(", "));
        }
        for row in chunk.chunks(cols) {
            let cells: Vec<String> = row.iter().map(|t| format!("{t:>width$}")).collect();
            let _ = writeln!(out, "{}", cells.join(" ").trim_end());
        }
    }
    out
}

/// The buffer view: for every offset of the physical extent, the elements stored there (`x` = padding).
pub fn buffer_view(layout: &TensorLayout, texts: &[String]) -> String {
    let extent = layout.physical_extent() as usize;
    let mut cells: Vec<Vec<&str>> = vec![Vec::new(); extent];
    for (off, text) in layout.element_offsets().zip(texts) {
        cells[off as usize].push(text);
    }
    let values: Vec<String> = cells.iter().map(|c| if c.is_empty() { "x".to_owned() } else { c.join(",") }).collect();
    let mut out = String::new();
    for start in (0..extent).step_by(BUFFER_COLUMNS) {
        let end = (start + BUFFER_COLUMNS).min(extent);
        let widths: Vec<usize> = (start..end).map(|o| o.to_string().len().max(values[o].len())).collect();
        let offs: Vec<String> = (start..end).zip(&widths).map(|(o, w)| format!("{o:>w$}")).collect();
        let vals: Vec<String> = (start..end).zip(&widths).map(|(o, w)| format!("{:>w$}", values[o])).collect();
        if start > 0 {
            out.push('\n');
        }
        let _ = writeln!(out, "Offset: | {} |", offs.join(" | "));
        let _ = writeln!(out, "Value:  | {} |", vals.join(" | "));
    }
    out
}

/// Row-major coordinates of linear index `i` over `sizes`.
fn unravel(mut i: u64, sizes: &[u32]) -> Vec<u32> {
    let mut coords = vec![0u32; sizes.len()];
    for d in (0..sizes.len()).rev() {
        let s = u64::from(sizes[d]);
        coords[d] = (i % s) as u32;
        i /= s;
    }
    coords
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels() {
        assert_eq!(label(0), "A");
        assert_eq!(label(25), "Z");
        assert_eq!(label(26), "AA");
        assert_eq!(label(27), "AB");
        assert_eq!(label(26 * 27), "AAA");
    }
}
