//! kbench's integration tests: one binary, helpers in `common`.

mod architecture;
mod code_rules;
mod coldwalk;
mod common;
mod compare;
mod contest;
mod cyclictest;
mod docs;
mod fingerprint;
mod first_look;
mod hackbench;
mod hardening;
mod health;
mod hostile;
mod interbench;
mod lava_server;
mod lifecycle;
mod list;
mod loads;
mod postgres;
mod responsiveness;
mod scenario;
mod schbench;
mod store;
mod terminal;
mod track;
