//! The o200k_base vocabulary as static tables laid out by `build.rs`: read in place, so the
//! first lookup costs no more than any other.

use super::layout;

include!(concat!(env!("OUT_DIR"), "/o200k_meta.rs"));

/// Every token's bytes, concatenated in rank order.
static TOKEN_BYTES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/o200k_token_bytes.bin"));

/// Token `r` is `TOKEN_BYTES[offset(r)..offset(r + 1)]`; little-endian `u32`s.
static TOKEN_OFFSETS: &[[u8; 4]] =
    include_bytes!(concat!(env!("OUT_DIR"), "/o200k_token_offsets.bin"))
        .as_chunks::<4>()
        .0;

/// Open-addressing hash table from token bytes to rank; little-endian `u32` slots.
static SLOTS: &[[u8; 4]] = include_bytes!(concat!(env!("OUT_DIR"), "/o200k_slots.bin"))
    .as_chunks::<4>()
    .0;

/// The rank of the token whose bytes are exactly `bytes`, if there is one.
pub(super) fn rank(bytes: &[u8]) -> Option<u32> {
    if bytes.len() > MAX_TOKEN_LEN {
        return None;
    }
    let hash = layout::hash(bytes);
    let tag = layout::tag(hash);
    let mask = SLOTS.len().wrapping_sub(1);
    let mut index = layout::home_slot(hash);
    // The table is less than half full, so a probe meets an empty slot long before this bound.
    for _ in 0..SLOTS.len() {
        let slot = u32::from_le_bytes(*SLOTS.get(index)?);
        if slot == layout::EMPTY_SLOT {
            return None;
        }
        let rank = slot & layout::RANK_MASK;
        if slot & !layout::RANK_MASK == tag && token(rank) == Some(bytes) {
            return Some(rank);
        }
        index = (index + 1) & mask;
    }
    None
}

/// The bytes of the token with this rank.
fn token(rank: u32) -> Option<&'static [u8]> {
    let start = offset(rank as usize)?;
    let end = offset(rank as usize + 1)?;
    TOKEN_BYTES.get(start..end)
}

/// The start of token `rank` in `TOKEN_BYTES` (or the end of all tokens, for `rank == count`).
fn offset(rank: usize) -> Option<usize> {
    TOKEN_OFFSETS
        .get(rank)
        .map(|bytes| u32::from_le_bytes(*bytes) as usize)
}

/// Number of tokens in the vocabulary.
#[cfg(test)]
fn token_count() -> usize {
    TOKEN_OFFSETS.len() - 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_token_is_found_at_its_own_rank() {
        for rank in 0..token_count() as u32 {
            let bytes = token(rank).expect("every rank has bytes");
            assert_eq!(super::rank(bytes), Some(rank), "token {rank}: {bytes:?}");
        }
    }

    #[test]
    fn the_vocabulary_is_o200k_base() {
        let o200k = &bpe_openai::o200k_base().bpe;
        assert_eq!(token_count(), o200k.num_tokens());
        for rank in 0..token_count() as u32 {
            assert_eq!(token(rank), Some(o200k.token_bytes(rank)), "token {rank}");
        }
    }

    #[test]
    fn byte_strings_that_are_not_tokens_have_no_rank() {
        assert_eq!(rank(b""), None);
        assert_eq!(rank(b"\xff\xfe\xfd"), None);
        assert_eq!(rank(b"skillgate-is-not-a-single-token"), None);
        assert_eq!(rank(&[b'a'; MAX_TOKEN_LEN + 1]), None);
    }

    #[test]
    fn every_byte_is_a_token() {
        for byte in 0..=u8::MAX {
            assert!(rank(&[byte]).is_some(), "byte {byte:#04x}");
        }
    }
}
