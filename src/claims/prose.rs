//! Claims in prose: a known package name followed by a version ("React 18", "Python 3.12+").

use super::context::{prose_role, states_target};
use super::{AliasTable, Claim, Mention, Origin, VersionReq};
use crate::skill::code::Span;
use crate::skill::prose_versions::{mask_urls, version_after, word_boundary};

/// Version claims in prose lines: `(byte offset of the line in the file, line text)`.
pub fn prose_claims(lines: &[(usize, &str)], aliases: &AliasTable) -> Vec<Claim> {
    let Some(names) = &aliases.names else {
        return Vec::new();
    };
    let mut claims = Vec::new();
    // A version needs a digit; most prose lines have none and cost one byte scan.
    for &(offset, line) in lines
        .iter()
        .filter(|(_, line)| line.bytes().any(|b| b.is_ascii_digit()))
    {
        let masked = mask_urls(line);
        let lower = masked.to_ascii_lowercase();
        for found in names.find_iter(&lower) {
            let Some(subject) = aliases.named(&masked[found.range()]) else {
                continue;
            };
            if !word_boundary(&masked, found.start(), found.end()) {
                continue;
            }
            if let Some((written, kind, end)) = version_after(&masked, found.end()) {
                claims.push(Claim {
                    subject: subject.clone(),
                    requirement: VersionReq { written, kind },
                    span: Span {
                        start: offset + found.start(),
                        end: offset + end,
                    },
                    origin: Origin::Prose,
                    role: prose_role(&masked, found.start(), end),
                    stated: states_target(&masked, found.start()),
                });
            }
        }
    }
    claims
}

/// Every place prose names a known package, with or without a version ("a React hook",
/// "Next.js 15"): what a skill is about when its code does not say.
pub fn prose_mentions(lines: &[(usize, &str)], aliases: &AliasTable) -> Vec<Mention> {
    let Some(names) = &aliases.names else {
        return Vec::new();
    };
    let mut mentions = Vec::new();
    for &(offset, line) in lines {
        let masked = mask_urls(line);
        let lower = masked.to_ascii_lowercase();
        for found in names.find_iter(&lower) {
            let Some(subject) = aliases.named(&masked[found.range()]) else {
                continue;
            };
            if word_boundary(&masked, found.start(), found.end()) {
                mentions.push(Mention {
                    subject: subject.clone(),
                    span: Span {
                        start: offset + found.start(),
                        end: offset + found.end(),
                    },
                });
            }
        }
    }
    mentions
}
