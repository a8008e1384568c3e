//! Operator descriptors and their validation into backend-neutral plans, and the plan's normalised view.

pub mod case;
pub mod normalized;
pub mod slice1;
pub mod traffic;
