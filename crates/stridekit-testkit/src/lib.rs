//! stridekit-testkit
