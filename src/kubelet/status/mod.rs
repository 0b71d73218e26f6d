//! Pod status in the kubelet: generation, phase, conditions and the manager
//! that writes them to the API server.

pub mod conditions;
pub mod generate;
pub mod manager;
pub mod normalize;
pub mod phase;
