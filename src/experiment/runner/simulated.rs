//! A simulated unit, for tests: one run with normally drawn metrics,
//! tagged and stored as a child kbench would store it, so what reads an
//! experiment's units back is tested without running one.

use super::{Ran, Runner, Unit};
use crate::stats::bootstrap::SplitMix;
use crate::store::{RunRecord, Store};
use anyhow::Result;

/// Metrics drawn from normals: (name, mean, SD), seeded.
pub struct Simulated {
    rng: SplitMix,
    metrics: Vec<(String, f64, f64)>,
}

impl Simulated {
    pub fn new(seed: u64, metrics: &[(&str, f64, f64)]) -> Simulated {
        Simulated {
            rng: SplitMix(seed),
            metrics: metrics
                .iter()
                .map(|(n, m, s)| (n.to_string(), *m, *s))
                .collect(),
        }
    }
}

impl Runner for Simulated {
    fn run(&mut self, store: &mut dyn Store, unit: &Unit) -> Result<Ran> {
        let mut r = RunRecord::new(unit.label, "simulated", serde_json::json!({}), None);
        if let Some(t) = unit.tag {
            t.as_stored().set_on(&mut r);
        }
        for (name, mean, sd) in &self.metrics {
            let v = mean + sd * self.rng.normal();
            r.metrics.push(crate::measure::Metric::new(
                name,
                "s",
                v,
                crate::stats::Better::Lower,
            ));
        }
        let ids = store.save_runs(std::slice::from_ref(&r))?;
        r.id = ids[0];
        Ok(Ran {
            failed: None,
            interrupted: false,
            ids,
            runs: vec![r],
            wall_s: 0.0,
            code: None,
        })
    }
}
