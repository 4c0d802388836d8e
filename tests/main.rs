//! kbench's integration tests: one binary, helpers in `common`.

mod common;
mod cyclictest;
mod fingerprint;
mod hackbench;
mod store;
