//! The kinds of designed experiment, each a small [`Design`](super::engine::Design)
//! that the engine drives: what its next unit is, what to do before it,
//! what its result means and what it reports.  A kind never writes the
//! unit loop, saves its plan or reads its runs back itself: that is
//! [`super::engine`]'s.

pub mod follow;
pub mod matrix;
pub mod vm;
