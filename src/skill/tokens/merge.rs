//! Byte-pair merging of one piece, as tiktoken does it: start from single bytes and keep
//! merging the adjacent pair whose concatenation has the lowest rank (the leftmost such pair
//! on a tie) until no adjacent pair is a token.
//!
//! tiktoken rescans every pair after each merge, which is quadratic in the piece's length; a
//! min-heap keyed by `(rank, start)` picks the same pair each time in logarithmic time, so a
//! pathological piece (a megabyte of one punctuation character) stays linearithmic. Merging
//! changes only the new part's two pairs; entries for pairs that no longer exist stay in the
//! heap and are recognised and skipped when they come out.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use super::vocab;

/// Marks a byte offset that no longer starts a part.
const MERGED: usize = usize::MAX;
/// Marks a part whose pair with its right neighbour is not a token.
const NO_PAIR: u32 = u32::MAX;
/// Longest piece whose count is remembered: words and identifiers repeat, long runs rarely.
const KNOWN_PIECE_BYTES: usize = 64;
/// Most remembered counts; the memory is cleared when it is full.
const KNOWN_PIECES: usize = 1 << 15;

/// Reusable buffers for merging pieces one after another.
#[derive(Debug, Default)]
pub(super) struct Merger {
    /// `end[i]`: where the part starting at byte `i` ends, or `MERGED`.
    end: Vec<usize>,
    /// `start_before[i]`: where the part before the one starting at byte `i` starts (meaningless
    /// for the first part, which has none).
    start_before: Vec<usize>,
    /// `pair_rank[i]`: the rank of the pair made of the part starting at byte `i` and its right
    /// neighbour, or `NO_PAIR` when that pair is not a token.
    pair_rank: Vec<u32>,
    /// Candidate merges `(rank, left start)`; stale ones are skipped when popped.
    candidates: BinaryHeap<Reverse<(u32, usize)>>,
    /// Counts of short pieces that are not one token, merged before: a piece's count
    /// depends on its bytes alone.
    known: HashMap<Box<[u8]>, usize>,
}

impl Merger {
    /// Number of tokens byte-pair encoding gives `piece`.
    pub(super) fn count(&mut self, piece: &[u8]) -> usize {
        if piece.is_empty() {
            return 0;
        }
        if piece.len() == 1 || vocab::rank(piece).is_some() {
            return 1;
        }
        if let Some(&parts) = self.known.get(piece) {
            return parts;
        }
        let parts = self.merge_all(piece);
        if piece.len() <= KNOWN_PIECE_BYTES {
            if self.known.len() >= KNOWN_PIECES {
                self.known.clear();
            }
            self.known.insert(piece.into(), parts);
        }
        parts
    }

    /// Number of parts left when every possible merge of `piece` is done.
    fn merge_all(&mut self, piece: &[u8]) -> usize {
        self.reset(piece);
        let mut parts = piece.len();
        while let Some(Reverse((rank, left))) = self.candidates.pop() {
            if self.is_current(rank, left) {
                self.merge(piece, left);
                parts -= 1;
            }
        }
        parts
    }

    /// One part per byte, and a candidate for every adjacent pair that is a token.
    fn reset(&mut self, piece: &[u8]) {
        let len = piece.len();
        self.end.clear();
        self.end.extend(1..=len);
        self.start_before.clear();
        self.start_before
            .extend((0..len).map(|i| i.wrapping_sub(1)));
        self.pair_rank.clear();
        self.pair_rank.extend((0..len).map(|left| {
            piece
                .get(left..left + 2)
                .and_then(vocab::rank)
                .unwrap_or(NO_PAIR)
        }));
        // Heapify all first pairs at once (linear) rather than pushing them one by one.
        let mut candidates = std::mem::take(&mut self.candidates).into_vec();
        candidates.clear();
        candidates.extend(
            self.pair_rank
                .iter()
                .enumerate()
                .filter(|&(_, &rank)| rank != NO_PAIR)
                .map(|(left, &rank)| Reverse((rank, left))),
        );
        self.candidates = BinaryHeap::from(candidates);
    }

    /// Whether the part at `left` still exists and still forms the pair of this rank with its
    /// right neighbour.
    ///
    /// A rank names one byte string, so a pair starting at `left` with the same rank spans the
    /// same bytes: it is the very pair the candidate was made for.
    fn is_current(&self, rank: u32, left: usize) -> bool {
        self.end.get(left).is_some_and(|&end| end != MERGED)
            && self.pair_rank.get(left) == Some(&rank)
    }

    /// Merges the part at `left` with its right neighbour, then ranks the two pairs the new
    /// part forms with its neighbours.
    fn merge(&mut self, piece: &[u8], left: usize) {
        // Only a part with a right neighbour has a pair rank, so `right` is a part start.
        let right = self.end[left];
        let right_end = self.end[right];
        self.end[left] = right_end;
        self.end[right] = MERGED;
        if let Some(start) = self.start_before.get_mut(right_end) {
            *start = left;
        }
        if left > 0 {
            self.propose(piece, self.start_before[left], right_end);
        }
        let next_end = self.end.get(right_end).copied().unwrap_or(MERGED);
        self.propose(piece, left, next_end);
    }

    /// Records the rank of the pair spanning `start..end` (none when `end` is `MERGED` or its
    /// bytes are not a token) and queues its merge when it has one.
    fn propose(&mut self, piece: &[u8], start: usize, end: usize) {
        let rank = piece
            .get(start..end)
            .and_then(vocab::rank)
            .unwrap_or(NO_PAIR);
        self.pair_rank[start] = rank;
        if rank != NO_PAIR {
            self.candidates.push(Reverse((rank, start)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// tiktoken's own quadratic merge, written for comparison.
    fn quadratic_count(piece: &[u8]) -> usize {
        if vocab::rank(piece).is_some() {
            return 1;
        }
        let mut bounds: Vec<usize> = (0..=piece.len()).collect();
        loop {
            let best = (0..bounds.len().saturating_sub(2))
                .filter_map(|i| vocab::rank(&piece[bounds[i]..bounds[i + 2]]).map(|r| (r, i)))
                .min();
            match best {
                Some((_, i)) => {
                    bounds.remove(i + 1);
                }
                None => return bounds.len() - 1,
            }
        }
    }

    #[test]
    fn heap_merge_equals_the_quadratic_merge() {
        let pieces: [&[u8]; 11] = [
            b"",
            // Runs where equal-rank pairs overlap, so only leftmost-first gives tiktoken's count.
            b" -----------------------------",
            b"|-------|-------|-----------------|\n",
            b"a",
            b" unbelievably",
            b"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            b"!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!",
            b"1234567",
            "\u{1F469}\u{200D}\u{1F4BB}\u{1F3F3}\u{FE0F}\u{200D}\u{1F308}".as_bytes(),
            "\u{4E2D}\u{6587}\u{5206}\u{8BCD}\u{6D4B}\u{8BD5}".as_bytes(),
            b"\xe2\x80\x8bzero\xe2\x80\x8bwidth",
        ];
        let mut merger = Merger::default();
        for piece in pieces {
            assert_eq!(merger.count(piece), quadratic_count(piece), "{piece:?}");
        }
    }

    #[test]
    fn long_pieces_merge_like_the_reference() {
        let o200k = &bpe_openai::o200k_base().bpe;
        let mut merger = Merger::default();
        for piece in [
            vec![b'='; 100_000],
            b"-=".repeat(30_000),
            vec![b' '; 50_001],
        ] {
            assert_eq!(
                merger.count(&piece),
                o200k.count(&piece),
                "{} bytes",
                piece.len()
            );
        }
    }
}
