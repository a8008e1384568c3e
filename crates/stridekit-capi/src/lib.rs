//! # stridekit-capi: a C library shaped like DirectML.h (work in progress)
