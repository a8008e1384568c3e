//! stridekit-npy
