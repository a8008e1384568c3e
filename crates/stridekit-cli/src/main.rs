//! stridekit command line
fn main() {}
