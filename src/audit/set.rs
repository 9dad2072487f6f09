//! Findings about the set rather than one skill (SG7xx): duplicate names and descriptions,
//! near-duplicate bodies, and descriptions that together crowd an agent's skill listing.
//!
//! A pure function of the rows, so a merged set of shards gets exactly the findings of a
//! single run. Each duplicate is reported once, on the later skill (in path order), pointing
//! at the first one of its kind.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::finding::Severity;
use crate::lint::{self, Selection};

use super::fingerprint::{self, BUCKETS, MIN_FILLED};
use super::row::{FindingRecord, RelatedRecord, Row, is_set_level};

/// `[audit]` in `skillgate.toml`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case", default)]
pub struct AuditSettings {
    /// Most o200k tokens the descriptions of the whole set may take together in an agent's
    /// skill listing (SG704).
    pub listing_tokens: usize,
    /// Estimated Jaccard similarity of two bodies' word 5-grams from which they are
    /// near-duplicates (SG703), above 0 and at most 1.
    #[serde(deserialize_with = "share")]
    pub near_duplicate: f64,
    /// Codes of the set-level rules that the rule selection (`select`, `ignore`) turns off;
    /// not a key of `[audit]`.
    #[serde(skip)]
    pub disabled: Vec<String>,
}

impl AuditSettings {
    /// Whether `rule` runs.
    pub fn runs(&self, rule: &SetRule) -> bool {
        !self.disabled.iter().any(|code| code == rule.code)
    }
}

impl Default for AuditSettings {
    fn default() -> Self {
        AuditSettings {
            listing_tokens: 4_000,
            near_duplicate: 0.8,
            disabled: Vec::new(),
        }
    }
}

/// A number above 0 and at most 1.
fn share<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
    let value = f64::deserialize(deserializer)?;
    if value > 0.0 && value <= 1.0 {
        Ok(value)
    } else {
        Err(serde::de::Error::custom(format!(
            "{value} is not a similarity: write a number above 0 and at most 1"
        )))
    }
}

/// A set-level rule: its documentation; the checks are the functions below.
pub type SetRule = crate::lint::RuleDoc;

/// Two skills with the same `name`.
pub const DUPLICATE_SKILL_NAME: SetRule = SetRule {
    code: "SG701",
    name: "duplicate-skill-name",
    severity: Severity::Warning,
    summary: "Another skill of the set has the same name",
    what: "The `name` of every readable skill against the names of the skills before it (in path order); the later skill of a pair carries the finding, pointing at the first one.",
    why: "Agents and installers key skills by name: one of the two shadows the other, and which one wins depends on the client.",
    fires: "@folder skills
==> pdf-forms/SKILL.md <==
---
name: pdf-tools
description: Fills PDF forms. Use when a task asks to fill in a PDF form.
---
Fill the fields with `pdftk form.pdf fill_form data.fdf output filled.pdf`.
==> pdf-merge/SKILL.md <==
---
name: pdf-tools
description: Merges PDF files. Use when several PDFs must become one document.
---
Merge the files with `qpdf --empty --pages a.pdf b.pdf -- merged.pdf`.
",
    passes: "@folder skills
==> pdf-forms/SKILL.md <==
---
name: pdf-forms
description: Fills PDF forms. Use when a task asks to fill in a PDF form.
---
Fill the fields with `pdftk form.pdf fill_form data.fdf output filled.pdf`.
==> pdf-merge/SKILL.md <==
---
name: pdf-merge
description: Merges PDF files. Use when several PDFs must become one document.
---
Merge the files with `qpdf --empty --pages a.pdf b.pdf -- merged.pdf`.
",
};
/// Two skills with the same description.
pub const DUPLICATE_DESCRIPTION: SetRule = SetRule {
    code: "SG702",
    name: "duplicate-description",
    severity: Severity::Warning,
    summary: "Another skill of the set has the same description",
    what: "The `description` of every readable skill, with case and runs of white space ignored, against those of the skills before it (in path order).",
    why: "The description is all an agent reads to pick a skill; two identical ones leave the choice to chance.",
    fires: "@folder skills
==> changelog/SKILL.md <==
---
name: changelog
description: Writes release notes. Use when a release is being prepared.
---
List the merged pull requests since the last tag, grouped by label.
==> release-notes/SKILL.md <==
---
name: release-notes
description: Writes  release notes. Use when a release is being prepared.
---
Summarise the milestone's issues for users, newest first.
",
    passes: "@folder skills
==> changelog/SKILL.md <==
---
name: changelog
description: Writes CHANGELOG.md entries from merged pull requests. Use when a release is being prepared.
---
List the merged pull requests since the last tag, grouped by label.
==> release-notes/SKILL.md <==
---
name: release-notes
description: Writes the user-facing announcement of a release. Use when a release is published.
---
Summarise the milestone's issues for users, newest first.
",
};
/// Two skills with highly similar bodies.
pub const NEAR_DUPLICATE_BODY: SetRule = SetRule {
    code: "SG703",
    name: "near-duplicate-body",
    severity: Severity::Warning,
    summary: "Another skill of the set has a highly similar body",
    what: "The body of every readable skill long enough to compare, as word 5-grams, against the bodies of the skills before it (in path order); an estimated similarity at or above `near-duplicate` under [audit] (0.8 by default) fires.",
    why: "A copied or lightly edited skill doubles what users install and review without adding a procedure.",
    fires: "@folder skills
==> changelog/SKILL.md <==
---
name: changelog
description: Writes CHANGELOG.md entries. Use when a release is being prepared.
---
Collect the merged pull requests since the last tag, group them by label, and write one line per change in the imperative mood, linking each line to its pull request and keeping breaking changes at the top of the section so that readers who upgrade see them before anything else.
==> changelog-copy/SKILL.md <==
---
name: changelog-entries
description: Drafts changelog entries for a release. Use before tagging.
---
Collect the merged pull requests since the last tag, group them by label, and write one line per change in the imperative mood, linking each line to its pull request and keeping breaking changes at the top of the section so that readers who upgrade see them first.
",
    passes: "@folder skills
==> changelog/SKILL.md <==
---
name: changelog
description: Writes CHANGELOG.md entries. Use when a release is being prepared.
---
Collect the merged pull requests since the last tag, group them by label, and write one line per change in the imperative mood, linking each line to its pull request and keeping breaking changes at the top of the section so that readers who upgrade see them before anything else.
==> flaky-tests/SKILL.md <==
---
name: flaky-tests
description: Finds flaky tests. Use when a test passes and fails on the same commit.
---
Run the failing test fifty times with a fixed seed, record which runs fail, compare their logs line by line, and look for shared state, wall-clock time, network calls and test order before touching the assertion itself; quarantine the test only with an issue that names its owner.
",
};
/// Descriptions that together exceed the listing budget.
pub const CROWDED_SKILL_LISTING: SetRule = SetRule {
    code: "SG704",
    name: "crowded-skill-listing",
    severity: Severity::Warning,
    summary: "The descriptions of the set together exceed the skill-listing budget",
    what: "The o200k tokens of every readable skill's description, summed over the set, against `listing-tokens` under [audit] (4,000 by default); one finding, on the skill with the longest description.",
    why: "Agents list every installed skill's description in their context; past a budget, clients cut the listing and skills go unseen, and every token of it is paid on every request.",
    fires: "@folder skills
==> skillgate.toml <==
[audit]
listing-tokens = 30
==> changelog/SKILL.md <==
---
name: changelog
description: Writes CHANGELOG.md entries from the merged pull requests since the last tag. Use when a release is being prepared.
---
List the merged pull requests since the last tag, grouped by label.
==> flaky-tests/SKILL.md <==
---
name: flaky-tests
description: Finds flaky tests by running them many times with a fixed seed. Use when a test passes and fails on the same commit.
---
Run the failing test fifty times and compare the logs of the failing runs.
",
    passes: "@folder skills
==> skillgate.toml <==
[audit]
listing-tokens = 30
==> changelog/SKILL.md <==
---
name: changelog
description: Writes CHANGELOG.md entries. Use before a release.
---
List the merged pull requests since the last tag, grouped by label.
==> flaky-tests/SKILL.md <==
---
name: flaky-tests
description: Finds flaky tests. Use when a test flakes.
---
Run the failing test fifty times and compare the logs of the failing runs.
",
};

/// Every set-level rule, in code order.
pub const SET_RULES: &[&SetRule] = &[
    &DUPLICATE_SKILL_NAME,
    &DUPLICATE_DESCRIPTION,
    &NEAR_DUPLICATE_BODY,
    &CROWDED_SKILL_LISTING,
];

/// Codes of the set-level rules that `selection` turns off.
pub fn disabled(selection: &Selection) -> Vec<String> {
    SET_RULES
        .iter()
        .filter(|r| !selection.enabled(r.code))
        .map(|r| r.code.to_owned())
        .collect()
}

/// Every selector of `selection` that matches no rule, per-skill or set-level.
pub fn unknown(selection: &Selection) -> Vec<&str> {
    selection
        .unknown()
        .into_iter()
        .filter(|selector| {
            !SET_RULES
                .iter()
                .any(|r| lint::code_matches(r.code, selector))
        })
        .collect()
}

/// Counts of what the set-level rules found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetCounts {
    /// Skills whose name an earlier skill already has.
    pub duplicate_names: usize,
    /// Skills whose description an earlier skill already has.
    pub duplicate_descriptions: usize,
    /// Skills whose body is highly similar to an earlier skill's.
    pub near_duplicates: usize,
    /// o200k tokens of every description together.
    pub description_tokens: usize,
}

/// Most earlier skills compared per band, which bounds the work on large groups of copies.
const MAX_CANDIDATES: usize = 64;

/// Drop every set-level finding, compare the rows (sorted by path) again, attach the new
/// findings and recount each row.
pub fn apply(rows: &mut [Row], settings: &AuditSettings) -> SetCounts {
    for row in rows.iter_mut() {
        row.findings.retain(|f| !is_set_level(f));
    }
    let readable: Vec<usize> = (0..rows.len())
        .filter(|&i| rows[i].error.is_none())
        .collect();
    let mut counts = SetCounts {
        description_tokens: readable.iter().map(|&i| rows[i].description_tokens).sum(),
        ..SetCounts::default()
    };
    let mut found: Vec<(usize, FindingRecord)> = Vec::new();

    let mut names: HashMap<&str, usize> = HashMap::new();
    let mut descriptions: HashMap<&str, usize> = HashMap::new();
    let by_name = settings.runs(&DUPLICATE_SKILL_NAME);
    let by_description = settings.runs(&DUPLICATE_DESCRIPTION);
    for &i in &readable {
        if let Some(name) = rows[i].name.as_deref().filter(|n| by_name && !n.is_empty()) {
            if let Some(&first) = names.get(name) {
                counts.duplicate_names += 1;
                let message = format!("another skill of the set is also named `{name}`");
                found.push((
                    i,
                    record(&DUPLICATE_SKILL_NAME, &rows[i], &rows[first], message),
                ));
            } else {
                names.insert(name, i);
            }
        }
        let description = rows[i].fingerprint.description.as_str();
        if by_description && !description.is_empty() {
            if let Some(&first) = descriptions.get(description) {
                counts.duplicate_descriptions += 1;
                let message = "another skill of the set has the same description".to_owned();
                found.push((
                    i,
                    record(&DUPLICATE_DESCRIPTION, &rows[i], &rows[first], message),
                ));
            } else {
                descriptions.insert(description, i);
            }
        }
    }

    let signatures: Vec<Option<[u16; BUCKETS]>> = rows
        .iter()
        .map(|r| {
            (r.error.is_none() && settings.runs(&NEAR_DUPLICATE_BODY))
                .then(|| r.fingerprint.body_signature())
                .flatten()
                .filter(|s| fingerprint::filled(s) >= MIN_FILLED)
        })
        .collect();
    let mut bands: HashMap<(usize, u64), Vec<usize>> = HashMap::new();
    for (i, sig) in signatures.iter().enumerate() {
        let Some(sig) = sig else { continue };
        let mut best: Option<(usize, f64)> = None;
        for key in fingerprint::bands(sig) {
            let earlier = bands.entry(key).or_default();
            for &j in earlier.iter().take(MAX_CANDIDATES) {
                if best.is_some_and(|(b, _)| b <= j) {
                    break;
                }
                let Some(other) = &signatures[j] else {
                    continue;
                };
                let s = fingerprint::similarity(sig, other);
                if s >= settings.near_duplicate {
                    best = Some((j, s));
                    break;
                }
            }
            earlier.push(i);
        }
        if let Some((j, s)) = best {
            counts.near_duplicates += 1;
            let message = format!(
                "the body is a near-duplicate of another skill's (about {:.0}% of their 5-word sequences shared)",
                s * 100.0
            );
            found.push((i, record(&NEAR_DUPLICATE_BODY, &rows[i], &rows[j], message)));
        }
    }

    if settings.runs(&CROWDED_SKILL_LISTING) && counts.description_tokens > settings.listing_tokens
    {
        let longest = readable.iter().copied().max_by(|&a, &b| {
            rows[a]
                .description_tokens
                .cmp(&rows[b].description_tokens)
                .then(b.cmp(&a))
        });
        if let Some(i) = longest {
            let message = format!(
                "the descriptions of the {} skills total {} tokens, over the {}-token listing budget; this one is the longest ({} tokens)",
                readable.len(),
                counts.description_tokens,
                settings.listing_tokens,
                rows[i].description_tokens
            );
            let mut f = record(&CROWDED_SKILL_LISTING, &rows[i], &rows[i], message);
            f.related.clear();
            f.help = Some(
                "shorten the longest descriptions, split the set into packs installed separately, or raise `listing-tokens` under [audit] in skillgate.toml"
                    .to_owned(),
            );
            found.push((i, f));
        }
    }

    // Codes in order within a row, whatever order they were found in.
    found.sort_by(|a, b| (a.0, &a.1.code).cmp(&(b.0, &b.1.code)));
    for (i, f) in found {
        rows[i].findings.push(f);
    }
    for row in rows.iter_mut() {
        row.recount();
    }
    counts
}

/// A finding of `rule` on `row`'s SKILL.md, first line, related to `first`'s.
fn record(rule: &SetRule, row: &Row, first: &Row, message: String) -> FindingRecord {
    FindingRecord {
        code: rule.code.to_owned(),
        name: rule.name.to_owned(),
        severity: rule.severity,
        message,
        help: Some(format!(
            "keep one of the two, or make each say what sets it apart from {}",
            first.path
        )),
        path: row.path.clone(),
        line: 1,
        column: 1,
        end_line: 1,
        end_column: 4,
        related: vec![RelatedRecord {
            path: first.path.clone(),
            line: 1,
            message: "the first skill of the set with it".to_owned(),
        }],
        fix: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::Fingerprint;

    fn row(path: &str, name: &str, description: &str, body: &str) -> Row {
        Row {
            path: path.to_owned(),
            name: Some(name.to_owned()),
            tokens: Some(1),
            code_share: Some(0.0),
            errors: 0,
            warnings: 0,
            infos: 0,
            security: 0,
            fit: None,
            decision: None,
            error: None,
            description_tokens: description.split_whitespace().count(),
            fingerprint: Fingerprint::of(Some(description), body),
            findings: Vec::new(),
        }
    }

    fn codes(row: &Row) -> Vec<&str> {
        row.findings.iter().map(|f| f.code.as_str()).collect()
    }

    const BODY: &str = "Collect the merged pull requests since the last tag, group them by label, and write one line per change in the imperative mood, linking each line to its pull request and keeping breaking changes at the top.";

    #[test]
    fn the_later_copy_carries_the_findings_and_applying_twice_changes_nothing() {
        let mut rows = vec![
            row("a/SKILL.md", "notes", "Drafts notes.", BODY),
            row("b/SKILL.md", "notes", "drafts  NOTES.", BODY),
            row("c/SKILL.md", "other", "Formats tables.", "Short body."),
        ];
        let settings = AuditSettings::default();
        let counts = apply(&mut rows, &settings);
        assert!(codes(&rows[0]).is_empty());
        assert_eq!(codes(&rows[1]), ["SG701", "SG702", "SG703"]);
        assert_eq!(rows[1].warnings, 3);
        assert!(codes(&rows[2]).is_empty(), "a short body is not compared");
        assert_eq!(
            (
                counts.duplicate_names,
                counts.duplicate_descriptions,
                counts.near_duplicates
            ),
            (1, 1, 1)
        );
        let once = rows.clone();
        apply(&mut rows, &settings);
        assert_eq!(rows, once);
    }

    #[test]
    fn the_listing_finding_goes_to_the_longest_description() {
        let mut rows = vec![
            row("a/SKILL.md", "a", "one two three", BODY),
            row(
                "b/SKILL.md",
                "b",
                "one two three four five",
                "Different text entirely here.",
            ),
        ];
        let tight = AuditSettings {
            listing_tokens: 5,
            ..AuditSettings::default()
        };
        let counts = apply(&mut rows, &tight);
        assert_eq!(counts.description_tokens, 8);
        assert_eq!(codes(&rows[1]), ["SG704"]);
        apply(&mut rows, &AuditSettings::default());
        assert!(
            rows.iter().all(|r| r.findings.is_empty()),
            "recomputed, not kept"
        );
    }
}
