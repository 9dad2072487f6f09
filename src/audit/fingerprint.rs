//! Compact, stable summaries of a skill's description and body, so near-duplicates can be
//! found among thousands of skills, and across shards, without keeping the text.
//!
//! The body's summary is a one-permutation MinHash over word 5-grams: each 5-gram is hashed
//! once, the hash picks one of [`BUCKETS`] buckets, and each bucket keeps its smallest
//! value. Two bodies agree on a bucket with a probability equal to the Jaccard similarity of
//! their 5-gram sets, so the share of agreeing buckets estimates it.

use serde::{Deserialize, Serialize};

use crate::shard::fnv1a;

/// Buckets of the body signature.
pub const BUCKETS: usize = 64;
/// Words per shingle.
const SHINGLE_WORDS: usize = 5;
/// A bucket no shingle fell into.
const EMPTY: u16 = u16::MAX;
/// Fewest filled buckets for a body to be compared at all: shorter bodies (about a dozen
/// words) say too little to call two of them near-duplicates.
pub const MIN_FILLED: usize = 8;

/// The description's and the body's summaries, as hex text in every format.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Fingerprint {
    /// FNV-1a hash of the description with case and spacing folded; empty without one.
    pub description: String,
    /// The body's MinHash signature: [`BUCKETS`] 16-bit values, `ffff` for an empty bucket.
    pub body: String,
}

impl Fingerprint {
    /// Summarise a description and a body.
    pub fn of(description: Option<&str>, body: &str) -> Fingerprint {
        let description = description
            .map(normalise)
            .filter(|d| !d.is_empty())
            .map(|d| format!("{:016x}", fnv1a(d.as_bytes())))
            .unwrap_or_default();
        let body = signature(body).iter().map(|v| format!("{v:04x}")).collect();
        Fingerprint { description, body }
    }

    /// The body signature as numbers; `None` when it is not well-formed hex of the right
    /// length (a hand-edited or foreign file).
    pub fn body_signature(&self) -> Option<[u16; BUCKETS]> {
        if self.body.len() != BUCKETS * 4 || !self.body.is_ascii() {
            return None;
        }
        let mut out = [EMPTY; BUCKETS];
        for (i, slot) in out.iter_mut().enumerate() {
            *slot = u16::from_str_radix(&self.body[i * 4..i * 4 + 4], 16).ok()?;
        }
        Some(out)
    }
}

/// Lower case, words separated by single spaces.
fn normalise(text: &str) -> String {
    text.split_whitespace()
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// A 64-bit finaliser (splitmix64), so bucket and value use independent bits.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The one-permutation MinHash signature of `body`'s word 5-grams (words compared in lower
/// case, punctuation kept).
fn signature(body: &str) -> [u16; BUCKETS] {
    let words: Vec<u64> = body
        .split_whitespace()
        .map(|w| fnv1a(w.to_lowercase().as_bytes()))
        .collect();
    let mut mins = [u64::MAX; BUCKETS];
    for window in words.windows(SHINGLE_WORDS) {
        let h = mix(window.iter().fold(0u64, |acc, &w| acc.rotate_left(13) ^ w));
        let bucket = (h >> 58) as usize;
        let value = h & ((1 << 58) - 1);
        mins[bucket] = mins[bucket].min(value);
    }
    mins.map(|m| {
        if m == u64::MAX {
            EMPTY
        } else {
            // The top 16 of the 58 value bits; never EMPTY.
            ((m >> 42) as u16).min(EMPTY - 1)
        }
    })
}

/// How many buckets a signature fills.
pub fn filled(sig: &[u16; BUCKETS]) -> usize {
    sig.iter().filter(|&&v| v != EMPTY).count()
}

/// The estimated Jaccard similarity of two bodies' 5-gram sets.
pub fn similarity(a: &[u16; BUCKETS], b: &[u16; BUCKETS]) -> f64 {
    let (mut union, mut equal) = (0usize, 0usize);
    for (x, y) in a.iter().zip(b) {
        if *x == EMPTY && *y == EMPTY {
            continue;
        }
        union += 1;
        if x == y {
            equal += 1;
        }
    }
    if union == 0 {
        0.0
    } else {
        equal as f64 / union as f64
    }
}

/// The keys of the signature's bands (4 buckets each), for finding candidate pairs without
/// comparing every pair. Empty buckets are part of a key (two copies of a short body leave
/// the same buckets empty); a band with no filled bucket has no key.
pub fn bands(sig: &[u16; BUCKETS]) -> impl Iterator<Item = (usize, u64)> + '_ {
    sig.chunks(4).enumerate().filter_map(|(i, band)| {
        if band.iter().all(|&v| v == EMPTY) {
            return None;
        }
        Some((
            i,
            band.iter().fold(0u64, |acc, &v| (acc << 16) | u64::from(v)),
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(seed: u64, words: usize) -> String {
        // A deterministic stream of distinct-looking words.
        (0..words as u64)
            .map(|i| format!("w{}", mix(seed * 1_000_003 + i) % 50_000))
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn sig(body: &str) -> [u16; BUCKETS] {
        Fingerprint::of(None, body)
            .body_signature()
            .expect("round-trips")
    }

    #[test]
    fn identical_bodies_are_fully_similar_and_unrelated_ones_are_not() {
        let a = text(1, 400);
        assert_eq!(similarity(&sig(&a), &sig(&a)), 1.0);
        assert!(similarity(&sig(&a), &sig(&text(2, 400))) < 0.1);
    }

    #[test]
    fn a_few_edits_keep_bodies_near() {
        let a = text(3, 600);
        let mut words: Vec<&str> = a.split(' ').collect();
        for i in (0..words.len()).step_by(100) {
            words[i] = "changed";
        }
        let b = words.join(" ");
        let s = similarity(&sig(&a), &sig(&b));
        // 6 edits touch at most 30 of ~600 shingles: the true Jaccard is above 0.9.
        assert!(s > 0.8, "{s}");
    }

    #[test]
    fn descriptions_fold_case_and_spacing() {
        let a = Fingerprint::of(Some("Drafts  release notes.\n"), "");
        let b = Fingerprint::of(Some("drafts release NOTES."), "");
        assert_eq!(a.description, b.description);
        assert_eq!(Fingerprint::of(Some("  "), "").description, "");
    }

    #[test]
    fn a_short_body_fills_few_buckets() {
        assert!(filled(&sig("one two three four")) == 0);
        assert!(filled(&sig(&text(4, 300))) >= MIN_FILLED);
    }
}
