//! stridekit-cpu
