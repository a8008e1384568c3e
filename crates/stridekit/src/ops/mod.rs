//! Operator descriptors and their validation into backend-neutral plans.

pub mod slice1;
