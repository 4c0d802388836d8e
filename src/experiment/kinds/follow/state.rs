//! What `track --follow` keeps in its plan: each change point it follows,
//! and what each step found, so the report is made from the plan alone.

use serde::{Deserialize, Serialize};

/// A follow's own part of its plan.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct State {
    pub command: Vec<String>,
    pub repo: String,
    pub build: Option<String>,
    /// The metric followed (the command's headline, or `--metric`).
    pub metric: String,
    pub alpha: f64,
    pub threshold_pct: f64,
    pub points: Vec<Point>,
    /// Unix seconds, when it began.
    pub started: f64,
}

/// One change point, followed.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Point {
    /// The labels on either side of it, and their revisions (full ids).
    pub between: [String; 2],
    pub revs: [String; 2],
    /// The change `track` saw (% of the mean before), and its adjusted p.
    pub track_change_pct: f64,
    pub track_p_adjusted: f64,
    /// Why this point could not be followed (a label with no revision, a
    /// build that failed), when it could not.
    pub cannot: Option<String>,
    /// The two revisions measured again, side by side.
    pub again: Option<Again>,
    /// The bisection between the revisions, when the change held.
    pub bisection: Option<crate::bisect::Answer>,
    /// What differs between the culprit and its parent, one line each.
    pub explanation: Vec<Explained>,
}

/// The change measured again.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Again {
    /// Units of each side.
    pub units: [usize; 2],
    pub change_pct: Option<f64>,
    pub ci_pct: Option<(f64, f64)>,
    pub p_adjusted: Option<f64>,
    pub verdict: String,
    /// It showed again, the same way, beyond the threshold.
    pub held: bool,
}

/// One metric that differs between culprit and parent, as compare decides.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Explained {
    pub benchmark: String,
    pub metric: String,
    pub unit: String,
    pub parent: f64,
    pub culprit: f64,
    pub change_pct: Option<f64>,
    pub ci_pct: Option<(f64, f64)>,
    pub verdict: String,
}

impl Point {
    pub fn held(&self) -> bool {
        self.again.as_ref().is_some_and(|a| a.held)
    }
}
