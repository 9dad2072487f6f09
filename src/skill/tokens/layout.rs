//! The layout of the generated o200k tables, shared by the writer and the reader.
//!
//! `build.rs` compiles this file into itself (`#[path]`) to write the tables, and the crate
//! compiles it as `tokens::layout` to read them, so both sides use one definition of the hash,
//! the slot encoding and the character-class bits.

/// Bits of a hash-table slot that hold a token rank; o200k_base has fewer than 2^18 tokens.
pub(super) const RANK_BITS: u32 = 18;

/// Mask selecting the rank part of a slot; the bits above it hold a tag of the token's hash.
pub(super) const RANK_MASK: u32 = (1 << RANK_BITS) - 1;

/// An empty slot. Its rank part is `RANK_MASK`, which is never a valid rank.
pub(super) const EMPTY_SLOT: u32 = u32::MAX;

/// The hash table has `2^SLOT_BITS` slots: for o200k's ~200k tokens a load factor near 0.38,
/// so a lookup almost always ends at its first or second slot.
pub(super) const SLOT_BITS: u32 = 19;

/// Code points per block of the two-level character-class table.
pub(super) const CLASS_BLOCK_BITS: u32 = 7;

/// Character classes of the o200k split pattern, one bit each.
pub(super) mod class {
    /// `\p{L}`: any letter.
    pub(in super::super) const LETTER: u8 = 1 << 0;
    /// `\p{N}`: any number.
    pub(in super::super) const NUMBER: u8 = 1 << 1;
    /// `\s`: Unicode `White_Space`.
    pub(in super::super) const SPACE: u8 = 1 << 2;
    /// `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`: what a word's capitalised head is made of.
    pub(in super::super) const HEAD: u8 = 1 << 3;
    /// `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`: what a word's lower-case tail is made of.
    pub(in super::super) const TAIL: u8 = 1 << 4;
}

/// Hashes a token's bytes (word-at-a-time multiply-rotate, then a final avalanche so that both
/// the high bits, which pick the slot, and the low bits, which form the tag, depend on every
/// input byte).
pub(super) fn hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let (words, tail) = bytes.as_chunks::<8>();
    let mut h = bytes.len() as u64;
    for word in words {
        h = (h.rotate_left(26) ^ u64::from_le_bytes(*word)).wrapping_mul(K);
    }
    let mut last = [0u8; 8];
    // `as_chunks` leaves fewer than 8 bytes in `tail`.
    last[..tail.len()].copy_from_slice(tail);
    h = (h.rotate_left(26) ^ u64::from_le_bytes(last)).wrapping_mul(K);
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^ (h >> 33)
}

/// The slot where a probe for a token with this hash starts.
pub(super) fn home_slot(hash: u64) -> usize {
    (hash >> (u64::BITS - SLOT_BITS)) as usize
}

/// The tag stored above the rank, from hash bits that `home_slot` does not use.
pub(super) fn tag(hash: u64) -> u32 {
    (hash as u32) & !RANK_MASK
}
