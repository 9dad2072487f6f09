//! SG0xx: problems with the suppression comments themselves.

use crate::finding::Severity;
use crate::lint::RuleDoc;
use crate::lint::suppress;
use crate::lint::{Context, Emitter, Rule};

/// SG001.
pub const SUPPRESSION_WITHOUT_REASON: Rule = Rule {
    doc: RuleDoc {
        code: "SG001",
        name: "suppression-without-reason",
        severity: Severity::Warning,
        summary: "A skillgate-ignore comment gives no reason",
        what: "Flags `<!-- skillgate-ignore CODE -->` comments without `: reason`. Such a \
           suppression is not honoured: the finding it meant to silence is still reported.",
        why: "A suppression is a decision someone will have to revisit; without the reason, the \
          next reader cannot tell whether it still holds.",
        fires: r"---
name: demo
description: Formats release notes. Use when preparing a release.
---
<!-- skillgate-ignore SG303 -->
Currently the tool supports two formats.
",
        passes: r"---
name: demo
description: Formats release notes. Use when preparing a release.
---
<!-- skillgate-ignore SG303: the sentence describes this skill's own versions -->
Currently the tool supports two formats.
",
    },
    check: |cx: &Context<'_>, out: &mut Emitter| {
        for s in suppress::comments(cx.skill)
            .iter()
            .filter(|s| s.reason.is_none())
        {
            out.report(
                s.file,
                s.span.clone(),
                "suppression without a reason is not honoured",
            )
            .help("write the reason after a colon: <!-- skillgate-ignore SG201: why -->");
        }
    },
};

/// SG002.
pub const UNKNOWN_SUPPRESSION_CODE: Rule = Rule {
    doc: RuleDoc {
        code: "SG002",
        name: "unknown-suppression-code",
        severity: Severity::Warning,
        summary: "A skillgate-ignore comment names no known rule",
        what: "Flags suppression comments that name no codes, or codes that match no rule.",
        why: "A mistyped code silences nothing, and the author believes otherwise.",
        fires: r"---
name: demo
description: Formats release notes. Use when preparing a release.
---
<!-- skillgate-ignore SG999: typo -->
Some text.
",
        passes: r"---
name: demo
description: Formats release notes. Use when preparing a release.
---
<!-- skillgate-ignore SG3: examples quote old wording on purpose -->
Some text.
",
    },
    check: |cx: &Context<'_>, out: &mut Emitter| {
        for s in suppress::comments(cx.skill) {
            let unknown: Vec<&str> = s.unknown_codes().collect();
            if s.codes.is_empty() {
                out.report(s.file, s.span.clone(), "suppression names no rule code")
                    .help("name the codes it silences: <!-- skillgate-ignore SG201: why -->");
            } else if !unknown.is_empty() {
                out.report(
                    s.file,
                    s.span.clone(),
                    format!("no rule matches {}", unknown.join(", ")),
                )
                .help("`skillgate rules` lists every code");
            }
        }
    },
};
