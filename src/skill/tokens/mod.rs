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
mod tokenized;
mod vocab;

pub use split::Pieces;
pub use tokenized::Tokenized;

use std::cell::RefCell;

use merge::Merger;

thread_local! {
    /// Each thread's merge buffers and remembered piece counts, kept from one text to the
    /// next (an audit counts thousands of skills on a few threads).
    static MERGER: RefCell<Merger> = RefCell::new(Merger::default());
}

/// Runs `f` with this thread's merger (a fresh one should it be in use already).
fn with_merger<R>(f: impl FnOnce(&mut Merger) -> R) -> R {
    MERGER.with(|merger| match merger.try_borrow_mut() {
        Ok(mut merger) => f(&mut merger),
        Err(_) => f(&mut Merger::default()),
    })
}

/// Number of o200k_base tokens in `text`.
pub fn count(text: &str) -> usize {
    with_merger(|merger| count_with(merger, text))
}

/// Whether `text` has more than `limit` o200k_base tokens, deciding with as little counting
/// as the text allows: a text of at most `limit` bytes never has (every token is at least one
/// byte); one split into more than `limit` pieces always has (every piece is at least one
/// token); otherwise pieces are merged one by one until the tokens so far pass `limit`, or the
/// tokens so far plus the bytes still to count cannot.
pub fn exceeds(text: &str, limit: usize) -> bool {
    if text.len() <= limit {
        return false;
    }
    if split::pieces(text).nth(limit).is_some() {
        return true;
    }
    with_merger(|merger| {
        let mut tokens = 0;
        let mut rest = text.len();
        for piece in split::pieces(text) {
            if tokens + rest <= limit {
                return false;
            }
            tokens += merger.count(piece.as_bytes());
            rest -= piece.len();
            if tokens > limit {
                return true;
            }
        }
        false
    })
}

/// Number of o200k_base tokens in each of `texts`, in order, reusing one set of buffers.
pub fn count_many<'a>(texts: impl IntoIterator<Item = &'a str>) -> Vec<usize> {
    with_merger(|merger| {
        texts
            .into_iter()
            .map(|text| count_with(merger, text))
            .collect()
    })
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
