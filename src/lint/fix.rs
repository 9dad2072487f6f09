//! Fixes: applying a finding's edits to a file's text, and the unified diff that shows them.
//! Pure functions; the command layer reads and writes the files.

use std::ops::Range;

use crate::skill::Document;

/// Why the fixed text `after` would damage the markdown of `before`, if it would: a fix is
/// kept only when re-reading the file gives the same structure apart from what it fixes.
/// Every closed code block keeps its content, in order; no code fence is left open that
/// was not (and a fix that closes a fence, `closes_fence`, leaves one fewer open); no
/// heading, link or list item is lost.
pub fn damage(before: &str, after: &str, closes_fence: bool) -> Option<&'static str> {
    let a = Document::parse(before, 0..before.len());
    let b = Document::parse(after, 0..after.len());
    let closed = |d: &Document, text: &str| -> Vec<String> {
        d.code_blocks
            .iter()
            .filter(|c| c.closed)
            .map(|c| text[c.content.clone()].to_owned())
            .collect()
    };
    let (ca, cb) = (closed(&a, before), closed(&b, after));
    let mut rest = cb.iter();
    if !ca.iter().all(|code| rest.any(|c| c == code)) {
        return Some("a code block's content would change");
    }
    let open = |d: &Document| d.code_blocks.iter().filter(|c| !c.closed).count();
    if open(&b) > open(&a) || (closes_fence && open(&b) >= open(&a)) {
        return Some("re-reading the file would leave a code fence open");
    }
    if b.sections.len() < a.sections.len()
        || b.links.len() < a.links.len()
        || b.list_items.len() < a.list_items.len()
    {
        return Some("re-reading the file would lose a heading, a link or a list item");
    }
    None
}

/// `text` with `edits` (byte span, replacement) applied. Edits are applied from the end so
/// spans stay valid; an edit that overlaps one already taken is skipped, and its index is
/// returned so the caller can say so.
pub fn apply(text: &str, edits: &[(Range<usize>, &str)]) -> (String, Vec<usize>) {
    let mut order: Vec<usize> = (0..edits.len()).collect();
    order.sort_by_key(|&i| (edits[i].0.start, edits[i].0.end));
    let mut taken: Vec<usize> = Vec::new();
    let mut skipped = Vec::new();
    let mut end = 0usize;
    for i in order {
        let span = &edits[i].0;
        let valid = span.start <= span.end
            && span.end <= text.len()
            && text.is_char_boundary(span.start)
            && text.is_char_boundary(span.end);
        if !valid || (span.start < end && !taken.is_empty()) {
            skipped.push(i);
            continue;
        }
        end = span.end.max(end);
        taken.push(i);
    }
    let mut out = text.to_owned();
    for &i in taken.iter().rev() {
        let (span, replacement) = &edits[i];
        out.replace_range(span.clone(), replacement);
    }
    (out, skipped)
}

/// Lines with their terminators, so joining them gives the text back.
fn lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Same(usize, usize),
    Del(usize),
    Add(usize),
}

/// Line operations turning `a` into `b`: common head and tail first, then a longest common
/// subsequence over the middle (or a plain replace when the middle is too large).
fn script(a: &[&str], b: &[&str]) -> Vec<Op> {
    let head = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (am, bm) = (&a[head..a.len() - tail], &b[head..b.len() - tail]);
    let mut ops: Vec<Op> = (0..head).map(|i| Op::Same(i, i)).collect();
    if am.len().saturating_mul(bm.len()) <= 4_000_000 {
        let (n, m) = (am.len(), bm.len());
        let mut table = vec![0u32; (n + 1) * (m + 1)];
        for i in (0..n).rev() {
            for j in (0..m).rev() {
                table[i * (m + 1) + j] = if am[i] == bm[j] {
                    table[(i + 1) * (m + 1) + j + 1] + 1
                } else {
                    table[(i + 1) * (m + 1) + j].max(table[i * (m + 1) + j + 1])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < n || j < m {
            if i < n && j < m && am[i] == bm[j] {
                ops.push(Op::Same(head + i, head + j));
                i += 1;
                j += 1;
            } else if i < n
                && (j == m || table[(i + 1) * (m + 1) + j] >= table[i * (m + 1) + j + 1])
            {
                ops.push(Op::Del(head + i));
                i += 1;
            } else {
                ops.push(Op::Add(head + j));
                j += 1;
            }
        }
    } else {
        ops.extend((0..am.len()).map(|i| Op::Del(head + i)));
        ops.extend((0..bm.len()).map(|j| Op::Add(head + j)));
    }
    let (a_end, b_end) = (a.len() - tail, b.len() - tail);
    ops.extend((0..tail).map(|k| Op::Same(a_end + k, b_end + k)));
    ops
}

/// A unified diff (three lines of context) from `old` to `new` for the file `path`, as
/// `git apply` reads it; empty when nothing changed.
pub fn unified_diff(path: &str, old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    let (a, b) = (lines(old), lines(new));
    let ops = script(&a, &b);
    const CONTEXT: usize = 3;
    let changed: Vec<usize> = ops
        .iter()
        .enumerate()
        .filter(|(_, op)| !matches!(op, Op::Same(..)))
        .map(|(i, _)| i)
        .collect();
    let mut out = format!("--- a/{path}\n+++ b/{path}\n");
    let mut k = 0;
    while k < changed.len() {
        let start = changed[k].saturating_sub(CONTEXT);
        let mut last = changed[k];
        while k + 1 < changed.len() && changed[k + 1] <= last + 2 * CONTEXT + 1 {
            k += 1;
            last = changed[k];
        }
        k += 1;
        let end = (last + CONTEXT + 1).min(ops.len());
        let hunk = &ops[start..end];
        // Where the hunk starts in each file: the first line it touches there.
        let a_start = hunk
            .iter()
            .find_map(|op| match op {
                Op::Same(i, _) | Op::Del(i) => Some(*i),
                Op::Add(_) => None,
            })
            .unwrap_or_else(|| a_before(&ops[..start]));
        let b_start = hunk
            .iter()
            .find_map(|op| match op {
                Op::Same(_, j) | Op::Add(j) => Some(*j),
                Op::Del(_) => None,
            })
            .unwrap_or_else(|| b_before(&ops[..start]));
        let a_len = hunk.iter().filter(|op| !matches!(op, Op::Add(_))).count();
        let b_len = hunk.iter().filter(|op| !matches!(op, Op::Del(_))).count();
        let a_shown = if a_len == 0 { a_start } else { a_start + 1 };
        let b_shown = if b_len == 0 { b_start } else { b_start + 1 };
        out.push_str(&format!("@@ -{a_shown},{a_len} +{b_shown},{b_len} @@\n"));
        for op in hunk {
            let (mark, line) = match *op {
                Op::Same(i, _) => (' ', a[i]),
                Op::Del(i) => ('-', a[i]),
                Op::Add(j) => ('+', b[j]),
            };
            out.push(mark);
            out.push_str(line);
            if !line.ends_with('\n') {
                out.push_str("\n\\ No newline at end of file\n");
            }
        }
    }
    out
}

/// How many lines of the old file come before the operations `ops`.
fn a_before(ops: &[Op]) -> usize {
    ops.iter().filter(|op| !matches!(op, Op::Add(_))).count()
}

/// How many lines of the new file come before the operations `ops`.
fn b_before(ops: &[Op]) -> usize {
    ops.iter().filter(|op| !matches!(op, Op::Del(_))).count()
}

#[cfg(test)]
mod tests {
    use super::{apply, unified_diff};

    #[test]
    fn edits_apply_from_the_end_and_overlaps_are_skipped() {
        let text = "name: Demo_Skill\nversion: 1\n";
        let (out, skipped) = apply(text, &[(6..16, "demo-skill"), (17..28, ""), (8..10, "x")]);
        assert_eq!(out, "name: demo-skill\n");
        assert_eq!(skipped, vec![2]);
    }

    #[test]
    fn diffs_have_context_and_counts() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let new = "a\nb\nc\nD\ne\nf\ng\nh\ni\n";
        let diff = unified_diff("x.md", old, new);
        assert_eq!(
            diff,
            "--- a/x.md\n+++ b/x.md\n@@ -1,8 +1,9 @@\n a\n b\n c\n-d\n+D\n e\n f\n g\n h\n+i\n"
        );
    }

    #[test]
    fn a_missing_final_newline_is_marked() {
        let diff = unified_diff("x.md", "a\nb", "a\nb\n```\n");
        assert!(
            diff.contains("-b\n\\ No newline at end of file\n+b\n+```\n"),
            "{diff}"
        );
    }
}
