//! `skill::tokens` against the reference tokenizers: tiktoken's own o200k_base (through
//! `tiktoken-rs`, which runs tiktoken's pattern on `fancy-regex` as tiktoken does) and
//! `bpe-openai`.

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use fancy_regex::Regex;
use skillgate::skill::tokens;

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
