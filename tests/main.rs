//! kbench's integration tests: one binary, helpers in `common`.

mod coldwalk;
mod common;
mod cyclictest;
mod fingerprint;
mod hackbench;
mod responsiveness;
mod store;
