//! Lays out the o200k_base vocabulary and the character classes of its split pattern as static
//! tables in `OUT_DIR`, so that `skill::tokens` reads them in place and parses nothing at
//! start-up.
//!
//! Files written:
//! - `o200k_token_bytes.bin`: every token's bytes, concatenated in rank order;
//! - `o200k_token_offsets.bin`: `count + 1` little-endian `u32` offsets into those bytes;
//! - `o200k_slots.bin`: an open-addressing hash table of `2^SLOT_BITS` little-endian `u32`
//!   slots, each `tag | rank` or `EMPTY_SLOT` (see `layout.rs`);
//! - `o200k_meta.rs`: constants about the vocabulary;
//! - `o200k_classes.rs`: a two-level table from code point to class bits.

use std::collections::HashMap;
use std::error::Error;
use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use bpe_openai::byte_pair_encoding::BytePairEncoding;
use regex_syntax::hir::{Class, HirKind};

use crate::layout::{self, class};

type BuildResult<T> = Result<T, Box<dyn Error>>;

/// One more than the largest Unicode scalar value.
const CODE_POINTS: usize = 0x11_0000;

/// Writes every o200k table into `out_dir`.
pub(crate) fn generate(out_dir: &Path) -> BuildResult<()> {
    write_vocabulary(&bpe_openai::o200k_base().bpe, out_dir)?;
    write_classes(out_dir)
}

/// Writes the token bytes, their offsets, the rank hash table and the vocabulary constants.
fn write_vocabulary(bpe: &BytePairEncoding, out_dir: &Path) -> BuildResult<()> {
    let count = u32::try_from(bpe.num_tokens())?;
    if count >= layout::RANK_MASK {
        return Err(format!(
            "{count} tokens do not fit in {} rank bits",
            layout::RANK_BITS
        )
        .into());
    }
    // Lookups rely on empty slots to stop probing misses quickly.
    if count as usize * 2 > 1 << layout::SLOT_BITS {
        return Err(format!("{count} tokens fill more than half of the rank hash table").into());
    }
    let token = |rank: u32| bpe.token_bytes(rank);
    let mut bytes = Vec::new();
    let mut offsets = Vec::with_capacity((count as usize + 1) * 4);
    offsets.extend(0u32.to_le_bytes());
    let mut slots = vec![layout::EMPTY_SLOT; 1 << layout::SLOT_BITS];
    let mut longest_probe = 0;
    for rank in 0..count {
        bytes.extend_from_slice(token(rank));
        offsets.extend(u32::try_from(bytes.len())?.to_le_bytes());
        longest_probe = longest_probe.max(insert(&mut slots, rank, &token)?);
    }
    let max_token_len = (0..count).map(|rank| token(rank).len()).max().unwrap_or(0);
    let slot_bytes: Vec<u8> = slots.iter().flat_map(|slot| slot.to_le_bytes()).collect();
    fs::write(out_dir.join("o200k_token_bytes.bin"), bytes)?;
    fs::write(out_dir.join("o200k_token_offsets.bin"), offsets)?;
    fs::write(out_dir.join("o200k_slots.bin"), slot_bytes)?;
    let meta = format!(
        "/// The longest token, in bytes; no longer byte string has a rank.\n\
         const MAX_TOKEN_LEN: usize = {max_token_len};\n\
         // Longest probe sequence of a vocabulary token: {longest_probe} slots.\n"
    );
    fs::write(out_dir.join("o200k_meta.rs"), meta)?;
    Ok(())
}

/// Puts `rank` into its slot by linear probing and returns how many slots it visited.
fn insert<'a>(
    slots: &mut [u32],
    rank: u32,
    token: &impl Fn(u32) -> &'a [u8],
) -> BuildResult<usize> {
    let bytes = token(rank);
    let hash = layout::hash(bytes);
    let mask = slots.len() - 1;
    let mut index = layout::home_slot(hash);
    for probe in 1..=slots.len() {
        let slot = slots[index];
        if slot == layout::EMPTY_SLOT {
            slots[index] = layout::tag(hash) | rank;
            return Ok(probe);
        }
        if token(slot & layout::RANK_MASK) == bytes {
            return Err(
                format!("token {rank} duplicates token {}", slot & layout::RANK_MASK).into(),
            );
        }
        index = (index + 1) & mask;
    }
    Err("the rank hash table is full".into())
}

/// Writes `o200k_classes.rs`: class bits per code point, as a block index and distinct blocks.
fn write_classes(out_dir: &Path) -> BuildResult<()> {
    let mut classes = vec![0u8; CODE_POINTS];
    for (pattern, bit) in [
        (r"\p{L}", class::LETTER),
        (r"\p{N}", class::NUMBER),
        (r"\s", class::SPACE),
        (r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]", class::HEAD),
        (r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]", class::TAIL),
    ] {
        for (start, end) in class_ranges(pattern)? {
            classes[start..=end].iter_mut().for_each(|c| *c |= bit);
        }
    }
    let block_len = 1 << layout::CLASS_BLOCK_BITS;
    let mut distinct: HashMap<&[u8], u16> = HashMap::new();
    let mut blocks: Vec<&[u8]> = Vec::new();
    let mut index = Vec::with_capacity(CODE_POINTS / block_len);
    for block in classes.chunks(block_len) {
        let next = u16::try_from(blocks.len())?;
        let id = *distinct.entry(block).or_insert_with(|| {
            blocks.push(block);
            next
        });
        index.push(id);
    }
    let mut source = String::new();
    writeln!(source, "/// Block number of each {block_len} code points.")?;
    writeln!(
        source,
        "static CLASS_BLOCK_INDEX: [u16; {}] = {index:?};",
        index.len()
    )?;
    writeln!(source, "/// Class bits of each code point in a block.")?;
    writeln!(
        source,
        "static CLASS_BLOCKS: [[u8; {block_len}]; {}] = {blocks:?};",
        blocks.len()
    )?;
    fs::write(out_dir.join("o200k_classes.rs"), source)?;
    Ok(())
}

/// The code-point ranges of a Unicode class, as the `regex` crates that tiktoken and
/// bpe-openai use parse it.
fn class_ranges(pattern: &str) -> BuildResult<Vec<(usize, usize)>> {
    let hir = regex_syntax::Parser::new().parse(pattern)?;
    let HirKind::Class(Class::Unicode(class)) = hir.kind() else {
        return Err(format!("{pattern} is not a Unicode class").into());
    };
    Ok(class
        .ranges()
        .iter()
        .map(|range| (range.start() as usize, range.end() as usize))
        .collect())
}
