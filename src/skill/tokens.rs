//! Token counts with OpenAI's o200k_base vocabulary, offline.

/// Number of o200k_base tokens in `text` (special-token text counts as ordinary text).
pub fn count(text: &str) -> usize {
    bpe_openai::o200k_base().count(text)
}
