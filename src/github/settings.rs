//! The `[gate]` table of `skillgate.toml`: which check-run conclusion each outcome gets.

use serde::{Deserialize, Serialize};

/// Which check-run conclusion each outcome of `skillgate gate` gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case", default)]
pub struct Settings {
    /// Conclusion of a skill whose verdict is `inject`.
    pub inject: Conclusion,
    /// Conclusion of a skill whose verdict is `skip`.
    pub skip: Conclusion,
    /// Conclusion of a skill with a finding at or above `fail-on`; wins over the verdict.
    pub findings: Conclusion,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            inject: Conclusion::Success,
            skip: Conclusion::Neutral,
            findings: Conclusion::Failure,
        }
    }
}

/// A GitHub check-run conclusion `skillgate gate` may post.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Conclusion {
    /// Green.
    Success,
    /// Grey: reported, neither passing nor failing.
    Neutral,
    /// Red.
    Failure,
    /// Red, and marked as needing someone's action.
    ActionRequired,
    /// Grey, shown as skipped.
    Skipped,
}

impl Conclusion {
    /// The name GitHub uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Conclusion::Success => "success",
            Conclusion::Neutral => "neutral",
            Conclusion::Failure => "failure",
            Conclusion::ActionRequired => "action_required",
            Conclusion::Skipped => "skipped",
        }
    }
}
