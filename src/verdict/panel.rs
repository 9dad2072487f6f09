//! A run over several models: one verdict per model, how far the effect transfers between
//! them, and the panel policy that turns those verdicts into decisions.

use serde::{Deserialize, Serialize};

use super::{Decision, Evidence, Verdict, VerdictPolicy, decide};
use crate::finding::Finding;
use crate::stats::transfer::{Transfer, transfer};
use crate::stats::{EvalSummary, Measured, StatsOptions};

/// How the verdicts of several models become decisions (`[verdict] panel`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Panel {
    /// One decision per model: what a harness configured per model consumes.
    #[default]
    PerModel,
    /// One decision: inject only if every model's verdict is inject (so every model's
    /// evidence is benefit).
    All,
    /// One decision: inject if any model's verdict is inject.
    Any,
}

/// One model's verdict in a panel: the verdict names its model, agent and agent version.
pub type ModelVerdict = Verdict;

/// Two models compared: the transfer figures and whether their decisions agree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TransferRow {
    /// The per-task comparison of the two models' effects.
    #[serde(flatten)]
    pub figures: Transfer,
    /// Whether the two models' verdicts decide the same.
    pub decisions_agree: bool,
}

/// The verdicts of a run over several models.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PanelVerdict {
    /// The policy that made `decision`.
    pub panel: Panel,
    /// `all` and `any`: the one decision; `null` under `per-model`, where each model's
    /// verdict decides for that model.
    pub decision: Option<Decision>,
    /// One verdict per model, in the run's order.
    pub verdicts: Vec<ModelVerdict>,
    /// Every pair of models, in the run's order.
    pub transfer: Vec<TransferRow>,
    /// Plain sentences: the panel decision, and how the models differ when they do.
    pub reasons: Vec<String>,
}

impl PanelVerdict {
    /// The one decision a single gate (a check run's conclusion, a step output) takes from
    /// the panel: the panel's own under `all` and `any`; under `per-model`, where each model
    /// decides for itself, inject only when every model's verdict is inject, so a gate never
    /// passes a skill that one of the models it serves should skip.
    pub fn gate_decision(&self) -> Decision {
        self.decision.unwrap_or_else(|| {
            if !self.verdicts.is_empty()
                && self.verdicts.iter().all(|v| v.decision == Decision::Inject)
            {
                Decision::Inject
            } else {
                Decision::Skip
            }
        })
    }
}

/// A model as reports name it.
pub fn model_label(model: &str) -> &str {
    if model.is_empty() {
        "the agent's default model"
    } else {
        model
    }
}

/// Decides per model, compares the models pairwise and applies the panel policy.
pub fn decide_panel(
    policy: &VerdictPolicy,
    findings: &[Finding],
    measured: &[(Measured, EvalSummary)],
    agent_version: Option<&str>,
    stats: &StatsOptions,
) -> PanelVerdict {
    let verdicts: Vec<Verdict> = measured
        .iter()
        .map(|(m, summary)| {
            decide(policy, findings, Some(summary)).measured_with(&m.agent, &m.model, agent_version)
        })
        .collect();
    let mut rows = Vec::new();
    for i in 0..measured.len() {
        for j in i + 1..measured.len() {
            let (a, b) = (&measured[i], &measured[j]);
            rows.push(TransferRow {
                figures: transfer((&a.0.model, &a.1), (&b.0.model, &b.1), stats),
                decisions_agree: verdicts[i].decision == verdicts[j].decision,
            });
        }
    }
    let injects = verdicts
        .iter()
        .filter(|v| v.decision == Decision::Inject)
        .count();
    let decision = match policy.panel {
        Panel::PerModel => None,
        Panel::All => Some(if injects == verdicts.len() && injects > 0 {
            Decision::Inject
        } else {
            Decision::Skip
        }),
        Panel::Any => Some(if injects > 0 {
            Decision::Inject
        } else {
            Decision::Skip
        }),
    };
    let mut reasons = vec![panel_reason(policy.panel, &verdicts, injects)];
    reasons.extend(disagreement(&verdicts));
    reasons.extend(rows.iter().map(transfer_reason));
    PanelVerdict {
        panel: policy.panel,
        decision,
        verdicts,
        transfer: rows,
        reasons,
    }
}

fn panel_reason(panel: Panel, verdicts: &[Verdict], injects: usize) -> String {
    let n = verdicts.len();
    match panel {
        Panel::PerModel => format!(
            "panel per-model: each model's verdict decides for that model ({injects} of {n} inject)"
        ),
        Panel::All => format!(
            "panel all: inject only if every model's verdict is inject; {injects} of {n} are"
        ),
        Panel::Any => {
            format!("panel any: inject if any model's verdict is inject; {injects} of {n} are")
        }
    }
}

/// "helps A, no-benefit on B", when the models' evidence differs.
fn disagreement(verdicts: &[Verdict]) -> Option<String> {
    let states: Vec<Option<Evidence>> = verdicts.iter().map(|v| v.evidence).collect();
    if states.windows(2).all(|w| w[0] == w[1]) {
        return None;
    }
    let parts: Vec<String> = verdicts
        .iter()
        .map(|v| {
            let model = model_label(v.model.as_deref().unwrap_or_default());
            match v.evidence {
                Some(Evidence::Benefit) => format!("helps {model}"),
                Some(Evidence::Harm) => format!("harms {model}"),
                Some(Evidence::NoBenefit) => format!("no-benefit on {model}"),
                Some(Evidence::Inconclusive) | None => format!("inconclusive on {model}"),
            }
        })
        .collect();
    Some(format!("the models disagree: {}", parts.join(", ")))
}

fn transfer_reason(row: &TransferRow) -> String {
    let t = &row.figures;
    let signs = t.sign_agreement.map_or_else(
        || "signs not comparable".to_owned(),
        |s| format!("signs agree on {:.0}%", s * 100.0),
    );
    let rho = match (t.spearman, t.spearman_lo, t.spearman_hi) {
        (Some(r), Some(lo), Some(hi)) => format!(
            "Spearman ρ {} [{}, {}]",
            signed_fraction(r),
            signed_fraction(lo),
            signed_fraction(hi)
        ),
        (Some(r), _, _) => format!("Spearman ρ {}", signed_fraction(r)),
        (None, _, _) => format!(
            "Spearman ρ undefined ({})",
            t.undefined.get("spearman").map_or("", String::as_str)
        ),
    };
    let decisions = if row.decisions_agree {
        "decisions agree"
    } else {
        "decisions differ"
    };
    format!(
        "transfer {} / {} on {} common {}: {signs}, {rho}; {decisions}",
        model_label(&t.a),
        model_label(&t.b),
        t.tasks,
        if t.tasks == 1 { "task" } else { "tasks" }
    )
}

/// A correlation with two decimals and an explicit sign.
fn signed_fraction(value: f64) -> String {
    super::signed_fixed(value, 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_decisions(panel: Panel, decision: Option<Decision>, each: &[Decision]) -> PanelVerdict {
        let verdicts = each
            .iter()
            .map(|&d| {
                let mut v = decide(&VerdictPolicy::default(), &[], None);
                v.decision = d;
                v
            })
            .collect();
        PanelVerdict {
            panel,
            decision,
            verdicts,
            transfer: Vec::new(),
            reasons: Vec::new(),
        }
    }

    #[test]
    fn a_single_gate_takes_the_panel_s_decision_or_every_model_s() {
        use Decision::{Inject, Skip};
        // `all` and `any` decide once; the gate takes that decision.
        assert_eq!(
            with_decisions(Panel::Any, Some(Inject), &[Inject, Skip]).gate_decision(),
            Inject
        );
        assert_eq!(
            with_decisions(Panel::All, Some(Skip), &[Inject, Skip]).gate_decision(),
            Skip
        );
        // Per model, a gate passes a skill only when every model's verdict is inject.
        assert_eq!(
            with_decisions(Panel::PerModel, None, &[Inject, Skip]).gate_decision(),
            Skip
        );
        assert_eq!(
            with_decisions(Panel::PerModel, None, &[Inject, Inject]).gate_decision(),
            Inject
        );
        assert_eq!(
            with_decisions(Panel::PerModel, None, &[]).gate_decision(),
            Skip
        );
    }

    #[test]
    fn an_empty_model_is_named_as_the_agent_s_choice() {
        assert_eq!(model_label(""), "the agent's default model");
        assert_eq!(model_label("m1"), "m1");
    }
}
