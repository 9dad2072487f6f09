//! `skill::tokens` against the reference tokenizers: tiktoken's own o200k_base (through
//! `tiktoken-rs`, which runs tiktoken's pattern on `fancy-regex` as tiktoken does) and
//! `bpe-openai`.

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use fancy_regex::Regex;
use skillgate::skill::{Document, tokens};

/// Skills written by others, used when the machine has them; the generated cases below do
/// not depend on it.
const CORPUS: &str = "/work/shared/corpus/skills";

/// tiktoken's split pattern, compiled by the engine tiktoken uses.
static PATTERN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(tiktoken_rs::O200K_BASE_PAT_STR).expect("tiktoken's pattern"));

/// Asserts that pieces and counts of `text` equal the references'.
#[track_caller]
fn assert_matches_references(text: &str) {
    let expected_pieces: Vec<&str> = PATTERN
        .find_iter(text)
        .map(|found| found.expect("no backtrack limit").as_str())
        .collect();
    let pieces: Vec<&str> = tokens::pieces(text).collect();
    assert_eq!(pieces, expected_pieces, "pieces of {text:?}");
    let count = tokens::count(text);
    let tiktoken = tiktoken_rs::o200k_base_singleton()
        .encode_ordinary(text)
        .len();
    assert_eq!(count, tiktoken, "count against tiktoken for {text:?}");
    assert_eq!(
        count,
        bpe_openai::o200k_base().count(text),
        "count against bpe-openai for {text:?}"
    );
}

#[test]
fn edge_cases_match_the_references() {
    let digits = ["1", "12", "123", "1234", "12345", "123456", "1234567"];
    let fixed = [
        "",
        " ",
        "  ",
        "   ",
        "\t",
        "\n",
        "  \n",
        "\n  ",
        "\r\n",
        "\r\n\r\n",
        " \r\n ",
        "a  ",
        "word \n",
        "trailing   ",
        "'S",
        "'s",
        "it'S",
        "I'LL",
        "we've",
        "THEY'RE",
        "x'ſ",
        "'",
        "''",
        "' s",
        "don't!",
        "<|endoftext|>",
        "<|endofprompt|>hi",
        "a\u{0301}",
        "\u{0301}",
        "\u{0301}1",
        " \u{0301}",
        "ǅemal",
        "ʰa",
        "中文分词",
        "٣٤٥٦",
        "Ⅻ½²",
        "\u{a0}\u{a0}x",
        "\u{3000}x",
        "\u{85}",
        "\u{2028}\u{2029}",
        "\u{200b}",
        "👩‍💻🏳️‍🌈",
        "https://a.b/c//\n/",
        "!!\n/\n",
        " ?",
        "  ?",
        "ABCdef",
        "HTTPServer",
        "x\u{feff}y",
        "\u{0301}!",
        "中A1",
    ];
    for text in digits.iter().chain(&fixed) {
        assert_matches_references(text);
    }
}

#[test]
fn generated_texts_match_the_references() {
    let mut rng = SplitMix64(0x5eed_0200);
    for case in 0..3_000 {
        let fragments = 1 + rng.below(if case % 10 == 0 { 200 } else { 24 });
        let text: String = (0..fragments).map(|_| rng.fragment()).collect();
        assert_matches_references(&text);
    }
}

/// `exceeds` decides "more than the limit" as the full count does, for limits on both sides
/// of the count and at each shortcut's edge: the byte length, the number of pieces.
#[test]
fn exceeds_agrees_with_the_full_count_around_every_edge() {
    let mut rng = SplitMix64(0x5eed_0e1c);
    for case in 0..2_000 {
        let fragments = 1 + rng.below(if case % 10 == 0 { 300 } else { 30 });
        let text: String = (0..fragments).map(|_| rng.fragment()).collect();
        let count = tokens::count(&text);
        let pieces = tokens::pieces(&text).count();
        let edges = [0, 1, pieces, count, text.len()];
        for limit in edges
            .iter()
            .flat_map(|&e| [e.saturating_sub(2), e.saturating_sub(1), e, e + 1, e + 2])
        {
            assert_eq!(
                tokens::exceeds(&text, limit),
                count > limit,
                "limit {limit}, count {count} of {text:?}"
            );
        }
    }
}

/// A reference parsed without counting reports no tokens and says so; its sections, code
/// blocks and links are those of a counted parse.
#[test]
fn an_uncounted_document_differs_only_in_its_counts() {
    let text = "# Guide\n\n## Part\n\nSee [x](x.md).\n\n```sh\nls\n```\n";
    let counted = Document::parse(text, 0..text.len());
    let uncounted = Document::parse_uncounted(text, 0..text.len());
    assert!(counted.counted && counted.tokens > 0);
    assert!(!uncounted.counted);
    assert_eq!(uncounted.tokens, 0);
    assert_eq!(counted.sections.len(), uncounted.sections.len());
    assert!(uncounted.sections.iter().all(|s| s.tokens == 0));
    assert_eq!(counted.code_blocks.len(), uncounted.code_blocks.len());
    assert_eq!(counted.links.len(), uncounted.links.len());
    assert_eq!(counted.prose_lines, uncounted.prose_lines);
}

#[test]
fn count_many_equals_count_of_each() {
    let texts = ["", "one", "two words", "<|endoftext|> and 12345"];
    let expected: Vec<usize> = texts.iter().map(|text| tokens::count(text)).collect();
    assert_eq!(tokens::count_many(texts), expected);
}

#[test]
fn corpus_skills_match_the_references_when_present() {
    let mut files = Vec::new();
    collect_markdown(Path::new(CORPUS), &mut files);
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        let count = tokens::count(&text);
        let expected = bpe_openai::o200k_base().count(text.as_str());
        assert_eq!(count, expected, "{}", file.display());
        let tiktoken = tiktoken_rs::o200k_base_singleton()
            .encode_ordinary(&text)
            .len();
        assert_eq!(count, tiktoken, "{}", file.display());
    }
}

/// Ranges of a text counted from its pieces ([`tokens::Tokenized`]) against the same
/// ranges tokenised on their own: every pair of line starts and ends, and random cuts.
#[test]
fn ranges_of_generated_texts_count_as_their_own_text() {
    let mut rng = SplitMix64(0x5eed_0417);
    for case in 0..600 {
        let fragments = 1 + rng.below(if case % 10 == 0 { 120 } else { 30 });
        let text: String = (0..fragments).map(|_| rng.fragment()).collect();
        let tokenized = tokens::Tokenized::new(&text);
        assert_eq!(tokenized.total(), tokens::count(&text), "{text:?}");
        let offsets: Vec<usize> = text
            .char_indices()
            .map(|(at, _)| at)
            .chain([text.len()])
            .collect();
        let mut cuts: Vec<usize> = text
            .match_indices(['\n', '\r'])
            .flat_map(|(at, _)| [at, at + 1])
            .chain([0, text.len()])
            .collect();
        cuts.extend((0..8).map(|_| offsets[rng.below(offsets.len())]));
        for &start in &cuts {
            for &end in cuts.iter().filter(|&&end| end >= start) {
                assert_eq!(
                    tokenized.count(start..end),
                    tokens::count(&text[start..end]),
                    "{start}..{end} of {text:?}"
                );
            }
        }
    }
}

/// A document's sections and code blocks, counted from the body's pieces, against each
/// one's text tokenised on its own.
#[track_caller]
fn assert_parts_count_as_their_own_text(text: &str, body_start: usize) {
    let doc = Document::parse(text, body_start..text.len());
    assert_eq!(doc.tokens, tokens::count(&text[body_start..]), "{text:?}");
    for section in &doc.sections {
        let own = tokens::count(&text[section.range.clone()]);
        assert_eq!(
            section.tokens, own,
            "section {:?} of {text:?}",
            section.range
        );
    }
    for block in &doc.code_blocks {
        let own = tokens::count(&text[block.range.clone()]);
        assert_eq!(
            block.tokens, own,
            "code block {:?} of {text:?}",
            block.range
        );
    }
}

#[test]
fn markdown_parts_of_the_fixtures_count_as_their_own_text() {
    let mut files = Vec::new();
    for dir in ["fixtures", "skills", "docs"] {
        collect_markdown(&super::support::root().join(dir), &mut files);
    }
    assert!(files.len() > 50, "the fixtures hold markdown files");
    for file in files {
        let text = std::fs::read_to_string(&file).expect("fixture is UTF-8");
        let body_start = text
            .strip_prefix("---\n")
            .and_then(|rest| rest.find("\n---\n"))
            .map_or(0, |end| end + "---\n".len() + "\n---\n".len());
        assert_parts_count_as_their_own_text(&text, body_start);
    }
}

#[test]
fn markdown_parts_of_generated_documents_count_as_their_own_text() {
    /// Line openings where a heading, fence or list starts, with the white space around
    /// them that could join a neighbouring piece.
    const OPENINGS: &[&str] = &[
        "# ",
        "## ",
        "### ",
        "  # ",
        "   ## ",
        "#\t",
        "```",
        "```python",
        "  ```sh",
        "~~~",
        "    ",
        "\t",
        "- ",
        "  - ",
        "* ",
        "1. ",
        "> ",
        "===",
        "---",
        "| a | b |",
        "|---|---|",
        "<!-- note -->",
        "",
        " ",
        "\u{a0}",
        "/",
        "//",
    ];
    const ENDINGS: &[&str] = &[
        "\n", "\n", "\n", "\r\n", "  \n", "\t\n", " \r\n", "\n\n", "\u{a0}\n",
    ];
    let mut rng = SplitMix64(0x5eed_1d0c);
    for case in 0..400 {
        let lines = 1 + rng.below(if case % 10 == 0 { 80 } else { 20 });
        let mut text = String::new();
        if case % 3 == 0 {
            text.push_str("---\nname: generated\n---\n");
        }
        let body_start = text.len();
        for _ in 0..lines {
            text.push_str(rng.pick(OPENINGS));
            for _ in 0..rng.below(6) {
                text.push_str(&rng.fragment());
            }
            text.push_str(rng.pick(ENDINGS));
        }
        assert_parts_count_as_their_own_text(&text, body_start);
    }
}

/// Every `.md` file below `dir`; nothing when it does not exist.
fn collect_markdown(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for path in entries.filter_map(Result::ok).map(|entry| entry.path()) {
        if path.is_dir() {
            collect_markdown(&path, files);
        } else if path.extension().is_some_and(|ext| ext == "md") {
            files.push(path);
        }
    }
}

/// A small deterministic generator (SplitMix64), so failures reproduce.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n`.
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    /// A random run of 1 to 8 characters drawn from `chars`.
    fn run_of(&mut self, chars: &[char]) -> String {
        let len = 1 + self.below(8);
        (0..len).map(|_| chars[self.below(chars.len())]).collect()
    }

    /// 1 to 4 arbitrary scalar values, half of them from the Basic Multilingual Plane.
    fn any_chars(&mut self) -> String {
        let len = 1 + self.below(4);
        (0..len)
            .filter_map(|_| {
                let limit = if self.below(2) == 0 {
                    0x1_0000
                } else {
                    0x11_0000
                };
                char::from_u32(self.below(limit) as u32)
            })
            .collect()
    }

    /// One fragment of text: a word, a number, punctuation, white space, a contraction, a
    /// run of non-Latin characters or arbitrary code points.
    fn fragment(&mut self) -> String {
        const WORDS: &[&str] = &[
            "the",
            "The",
            "THE",
            "skill",
            "Skill",
            "cargo",
            "README",
            "McDonald",
            "iPhone",
            "naïve",
            "Straße",
            "Ελληνικά",
            "ΣΊΣΥΦΟΣ",
            "Привет",
            "ǅungla",
            "ʰʲ",
            "ﬁle",
            "İstanbul",
        ];
        const PUNCTUATION: &[&str] = &[
            ".",
            ",",
            "!",
            "?",
            "...",
            "--",
            "```",
            "`",
            "#",
            "##",
            "**",
            "->",
            "=>",
            "/",
            "//",
            "(",
            ")",
            "{}",
            "[",
            "]",
            "<|endoftext|>",
            "<|",
            "|>",
            "\"",
            "'",
            "''",
            "@",
            "$",
            "%",
            "&&",
            "||",
            "::",
            ";",
            "~",
            "^",
            "\\",
            "–",
            "—",
            "…",
            "«",
            "»",
            "€",
            "©",
        ];
        const SPACES: &[char] = &[
            ' ', ' ', ' ', '\t', '\n', '\r', '\u{a0}', '\u{3000}', '\u{85}', '\u{2028}', '\u{b}',
            '\u{c}',
        ];
        const CONTRACTIONS: &[&str] = &[
            "'s", "'S", "'t", "'T", "'re", "'RE", "'rE", "'ve", "'Ve", "'m", "'M", "'ll", "'lL",
            "'LL", "'d", "'D", "'ſ", "'r", "'v", "'l", "'x",
        ];
        const SCRIPTS: &[char] = &[
            '中',
            '文',
            '日',
            '本',
            '語',
            'の',
            'カ',
            'ー',
            '한',
            '국',
            'ا',
            'ل',
            '٣',
            'अ',
            'ि',
            '्',
            '\u{0301}',
            '\u{0308}',
            '\u{20dd}',
            '😀',
            '👩',
            '\u{200d}',
            '💻',
            '🏳',
            '\u{fe0f}',
            '🇺',
            '🇸',
            '👍',
            '🏽',
            'Ⅻ',
            '½',
            '²',
            '①',
            'ǅ',
            'ʰ',
            '\u{200b}',
            '\u{feff}',
            'ß',
            'ſ',
            'K',
            'Å',
            '\u{e000}',
            '\u{10ffff}',
        ];
        match self.below(10) {
            0 | 1 => self.pick(WORDS).to_owned(),
            2 => format!(" {}", self.pick(WORDS)),
            3 => (0..1 + self.below(9))
                .map(|_| char::from(b'0' + self.below(10) as u8))
                .collect(),
            4 => self.pick(PUNCTUATION).to_owned(),
            5 => self.run_of(SPACES),
            6 => self.pick(CONTRACTIONS).to_owned(),
            7 => self.run_of(SCRIPTS),
            8 => self.any_chars(),
            _ => self
                .pick(&["\r\n", "\n\n", " \n", "  ", "\n", " "])
                .to_owned(),
        }
    }
}
