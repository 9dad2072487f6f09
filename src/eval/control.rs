//! The C2 control: an irrelevant body matched to the skill's body in o200k tokens and in
//! the share of tokens inside fenced code blocks, built deterministically from a pool of
//! texts on unrelated subjects (`skills/controls/`).

use serde::{Deserialize, Serialize};

use crate::eval::EvalError;
use crate::eval::condition::SkillParts;
use crate::skill::tokens;

/// The pool shipped with skillgate, embedded at build time.
const BUILTIN_POOL: &[(&str, &str)] = &[
    (
        "beekeeping.md",
        include_str!("../../skills/controls/beekeeping.md"),
    ),
    (
        "bookbinding.md",
        include_str!("../../skills/controls/bookbinding.md"),
    ),
    (
        "orbital-mechanics.md",
        include_str!("../../skills/controls/orbital-mechanics.md"),
    ),
    (
        "railway-signalling.md",
        include_str!("../../skills/controls/railway-signalling.md"),
    ),
    (
        "sourdough.md",
        include_str!("../../skills/controls/sourdough.md"),
    ),
    ("tides.md", include_str!("../../skills/controls/tides.md")),
];

/// One paragraph or one fenced code block of the pool.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Piece {
    text: String,
    is_code: bool,
}

/// The pool of control texts, split into prose paragraphs and fenced code blocks.
#[derive(Debug, Clone)]
pub struct ControlPool {
    prose: Vec<String>,
    code: Vec<String>,
}

/// Token count and code share of a body, as recorded in `run.json`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BodyMeasure {
    /// o200k tokens of the whole body.
    pub tokens: usize,
    /// o200k tokens inside fenced code blocks (each block counted on its own).
    pub code_tokens: usize,
    /// `code_tokens / tokens`, 0 for an empty body.
    pub code_share: f64,
}

impl BodyMeasure {
    fn new(tokens: usize, code_tokens: usize) -> Self {
        let code_share = if tokens == 0 {
            0.0
        } else {
            code_tokens as f64 / tokens as f64
        };
        Self {
            tokens,
            code_tokens,
            code_share,
        }
    }

    /// Measures a skill body whose code blocks are known.
    pub fn of_skill(skill: &SkillParts) -> Self {
        let code = skill.code_texts().map(tokens::count).sum();
        Self::new(tokens::count(&skill.body), code)
    }
}

/// A matched control body with its measure.
#[derive(Debug, Clone, PartialEq)]
pub struct ControlBody {
    /// The markdown body.
    pub body: String,
    /// Its measure.
    pub measure: BodyMeasure,
}

impl ControlPool {
    /// The pool embedded in the binary.
    pub fn builtin() -> Self {
        Self::from_texts(BUILTIN_POOL.iter().map(|(_, text)| *text))
    }

    /// Reads every `*.md` file of `dir` (sorted by name, so the pool is deterministic).
    pub fn from_dir(dir: &std::path::Path) -> Result<Self, EvalError> {
        let entries = std::fs::read_dir(dir).map_err(|e| EvalError::io("reading", dir, e))?;
        let mut paths: Vec<_> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "md"))
            .collect();
        paths.sort();
        let mut texts = Vec::new();
        for path in paths {
            texts.push(
                std::fs::read_to_string(&path).map_err(|e| EvalError::io("reading", &path, e))?,
            );
        }
        Ok(Self::from_texts(texts.iter().map(String::as_str)))
    }

    /// Splits texts into prose paragraphs and fenced code blocks.
    pub fn from_texts<'a>(texts: impl IntoIterator<Item = &'a str>) -> Self {
        let mut prose = Vec::new();
        let mut code = Vec::new();
        for piece in texts.into_iter().flat_map(split_pieces) {
            if piece.is_code {
                code.push(piece.text);
            } else {
                prose.push(piece.text);
            }
        }
        Self { prose, code }
    }

    /// Builds the control body for `skill`: same token count (within 2%) and code share
    /// (within 5 points) as its body. The same skill always gets the same text.
    pub fn matched_body(&self, skill: &SkillParts) -> Result<ControlBody, EvalError> {
        let target = BodyMeasure::of_skill(skill);
        if target.tokens == 0 {
            return Ok(ControlBody {
                body: String::new(),
                measure: target,
            });
        }
        if self.prose.is_empty() || (target.code_tokens > 0 && self.code.is_empty()) {
            return Err(EvalError::ControlPool);
        }
        let seed = crate::eval::sha256_hex(skill.body.as_bytes());
        let code = take_code(&ordered(&self.code, &seed), target.code_tokens);
        let prose = ordered(&self.prose, &seed);
        let body = fit_prose(&prose, &code, target.tokens);
        let code_tokens = code.iter().map(|c| tokens::count(c)).sum();
        let measure = BodyMeasure::new(tokens::count(&body), code_tokens);
        Ok(ControlBody { body, measure })
    }
}

/// Splits one pool text on blank lines, keeping fenced blocks whole.
fn split_pieces(text: &str) -> Vec<Piece> {
    let mut pieces = Vec::new();
    let mut current = String::new();
    let mut in_fence = false;
    let flush = |current: &mut String, pieces: &mut Vec<Piece>, is_code: bool| {
        let text = current.trim().to_owned();
        if !text.is_empty() && !text.starts_with('#') {
            pieces.push(Piece { text, is_code });
        }
        current.clear();
    };
    for line in text.lines() {
        let fence = line.trim_start().starts_with("```");
        if fence && !in_fence {
            flush(&mut current, &mut pieces, false);
            in_fence = true;
            current.push_str(line);
            current.push('\n');
        } else if fence && in_fence {
            current.push_str(line);
            flush(&mut current, &mut pieces, true);
            in_fence = false;
        } else if in_fence {
            current.push_str(line);
            current.push('\n');
        } else if line.trim().is_empty() {
            flush(&mut current, &mut pieces, false);
        } else {
            current.push_str(line);
            current.push('\n');
        }
    }
    flush(&mut current, &mut pieces, in_fence);
    pieces
}

/// A seed-dependent but deterministic order of the pool's pieces.
fn ordered(items: &[String], seed: &str) -> Vec<String> {
    let mut keyed: Vec<(String, &String)> = items
        .iter()
        .map(|t| {
            (
                crate::eval::sha256_hex(format!("{seed}\0{t}").as_bytes()),
                t,
            )
        })
        .collect();
    keyed.sort();
    keyed.into_iter().map(|(_, t)| t.clone()).collect()
}

/// Picks whole code blocks (cycling through the pool) until `target` code tokens, then a
/// cut-down last block whose size is searched so the sum lands as close as possible.
fn take_code(pool: &[String], target: usize) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut have = 0;
    for block in pool.iter().cycle() {
        if have >= target || pool.is_empty() {
            break;
        }
        let size = tokens::count(block);
        if have + size <= target {
            blocks.push(block.clone());
            have += size;
            continue;
        }
        let rest = target - have;
        let cut = best_prefix(&split_keep(block_inner(block)), |inner| {
            tokens::count(&fenced(inner)) as i64 - rest as i64
        });
        // A fence alone can exceed a tiny remainder; an empty block is then closer than none.
        blocks.push(fenced(&cut));
        break;
    }
    blocks
}

/// Adds prose paragraphs (cycling) around the code blocks until the whole body reaches
/// `target` tokens, cutting the last paragraph at the word that lands closest.
fn fit_prose(pool: &[String], code: &[String], target: usize) -> String {
    let mut paragraphs: Vec<String> = Vec::new();
    loop {
        let body = assemble(&paragraphs, code);
        let size = tokens::count(&body);
        if size >= target {
            break;
        }
        let Some(next) = pool.get(paragraphs.len() % pool.len().max(1)) else {
            return body;
        };
        let mut with_next = paragraphs.clone();
        with_next.push(next.clone());
        if tokens::count(&assemble(&with_next, code)) <= target {
            paragraphs = with_next;
            continue;
        }
        let words = split_keep(next);
        let cut = best_prefix(&words, |prefix| {
            let mut trial = paragraphs.clone();
            trial.push(prefix.trim_end().to_owned());
            tokens::count(&assemble(&trial, code)) as i64 - target as i64
        });
        paragraphs.push(cut.trim_end().to_owned());
        break;
    }
    assemble(&paragraphs, code)
}

/// Interleaves paragraphs and code blocks so the code is spread through the body.
fn assemble(paragraphs: &[String], code: &[String]) -> String {
    let mut parts: Vec<&str> = Vec::new();
    let n = paragraphs.len().max(code.len());
    for i in 0..n {
        if let Some(p) = paragraphs.get(i).filter(|p| !p.is_empty()) {
            parts.push(p);
        }
        if let Some(c) = code.get(i) {
            parts.push(c);
        }
    }
    let mut body = parts.join("\n\n");
    if !body.is_empty() {
        body.push('\n');
    }
    body
}

/// Binary search over the number of pieces kept: `miss(prefix)` is the signed distance to
/// the target, non-decreasing in the prefix length. Returns the prefix with the smallest miss.
fn best_prefix(pieces: &[&str], miss: impl Fn(&str) -> i64) -> String {
    let prefix = |n: usize| pieces[..n].concat();
    let (mut lo, mut hi) = (0usize, pieces.len());
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if miss(&prefix(mid)) <= 0 {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let below = prefix(lo);
    if lo == pieces.len() {
        return below;
    }
    let above = prefix(lo + 1);
    if miss(&above).abs() < miss(&below).abs() {
        above
    } else {
        below
    }
}

/// Splits into words, each keeping its trailing whitespace, so prefixes re-join exactly.
fn split_keep(text: &str) -> Vec<&str> {
    text.split_inclusive(char::is_whitespace).collect()
}

/// The text between a block's fence lines.
fn block_inner(block: &str) -> &str {
    let after_open = block.find('\n').map_or(block.len(), |i| i + 1);
    let close = block
        .rfind("```")
        .filter(|&i| i >= after_open)
        .unwrap_or(block.len());
    &block[after_open..close]
}

/// Wraps code in fences (no language tag: the pool's languages do not matter to C2).
fn fenced(inner: &str) -> String {
    let inner = inner.trim_end();
    if inner.is_empty() {
        "```\n```".to_owned()
    } else {
        format!("```\n{inner}\n```")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_splits_prose_and_code() {
        let pool = ControlPool::from_texts([
            "# Title\n\nOne para\nstill.\n\n```rust\nfn a() {}\n\nfn b() {}\n```\nTwo.\n",
        ]);
        assert_eq!(pool.prose, vec!["One para\nstill.", "Two."]);
        assert_eq!(pool.code, vec!["```rust\nfn a() {}\n\nfn b() {}\n```"]);
    }

    #[test]
    fn best_prefix_finds_the_closest_cut() {
        let words = split_keep("a b c d e f");
        let cut = best_prefix(&words, |p| p.len() as i64 - 8);
        assert_eq!(cut, "a b c d ");
    }

    #[test]
    fn builtin_pool_has_prose_and_code() {
        let pool = ControlPool::builtin();
        assert!(pool.prose.len() >= 20, "{}", pool.prose.len());
        assert!(pool.code.len() >= 6, "{}", pool.code.len());
    }
}
