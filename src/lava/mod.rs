//! A lab's fleet: kbench measurements run as LAVA jobs, their runs brought
//! back with the boot as the unit.
//!
//! LAVA (the dispatcher KernelCI, LKFT and CIP run their device farms
//! with) deploys a kernel, boots it, power-cycles and times out a board;
//! kbench does not do that again.  It writes the jobs (`lava job`: one
//! per boot, the kernels in `vm`'s mirrored seeded order), runs in each
//! boot as the test (`lava test`: the measurement, each run's summary as
//! LAVA test cases with measurement and unit, and the whole store as a
//! checked bundle in the log), and reads the logs back (`lava import`):
//! each boot's runs stored with the device's own fingerprint and the
//! job's marks, so `compare`, `track`, `bisect --candidates` and `push`
//! treat them as any runs, with the boot as the unit.

pub mod actions;
pub mod bundle;
pub mod guest;
pub mod import;
pub mod job;
pub mod rest;
