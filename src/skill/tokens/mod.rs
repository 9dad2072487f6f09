//! Token counts with OpenAI's o200k_base vocabulary, offline and exact.
//!
//! A count is a contract: it must equal tiktoken's `len(encode_ordinary(text))` for
//! o200k_base, so special-token text such as `<|endoftext|>` counts as ordinary text.
//!
//! Nothing is parsed or compiled at start-up. `build.rs` lays the vocabulary out as a static
//! hash table over the token bytes and the split pattern's Unicode classes as a static
//! two-level table; both are read in place from the binary. Counting then runs in two steps,
//! as tiktoken does: the pre-tokenizer splits the text into pieces ([`pieces`]), and each
//! piece is byte-pair merged by rank.

mod layout;
mod merge;
mod split;
mod vocab;

pub use split::Pieces;

use merge::Merger;

/// Number of o200k_base tokens in `text`.
pub fn count(text: &str) -> usize {
    count_with(&mut Merger::default(), text)
}

/// Number of o200k_base tokens in each of `texts`, in order, reusing one set of buffers.
pub fn count_many<'a>(texts: impl IntoIterator<Item = &'a str>) -> Vec<usize> {
    let mut merger = Merger::default();
    texts
        .into_iter()
        .map(|text| count_with(&mut merger, text))
        .collect()
}

/// The pieces o200k_base's pre-tokenizer splits `text` into, exactly as tiktoken's pattern
/// does; every token lies inside one piece, and the pieces concatenate back to `text`.
pub fn pieces(text: &str) -> Pieces<'_> {
    split::pieces(text)
}

/// Number of tokens in a whole text: the sum over its pieces.
fn count_with(merger: &mut Merger, text: &str) -> usize {
    split::pieces(text)
        .map(|piece| merger.count(piece.as_bytes()))
        .sum()
}
