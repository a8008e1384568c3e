//! # stridekit-wgpu: Slice1 on any GPU through wgpu (work in progress)
