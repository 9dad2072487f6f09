//! The markdown body parsed once into the elements rules look at, each with its byte span in
//! the file (not in the body), so every element maps straight to a line and column.

use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
use serde::Serialize;

use super::code::CodeSnippet;
use super::tokens;

/// A parsed markdown document: sections, code blocks, links, list items and prose lines.
#[derive(Debug, Clone, Default)]
pub struct Document {
    /// Byte range of the markdown in its file (after any frontmatter).
    pub range: Range<usize>,
    /// Headings in order, with the text each one owns; a preamble before the first heading
    /// is a section of level 0.
    pub sections: Vec<Section>,
    /// Fenced and indented code blocks in order.
    pub code_blocks: Vec<CodeBlock>,
    /// Links and images in order.
    pub links: Vec<Link>,
    /// Inline code spans (`like this`), which often name files and commands.
    pub inline_code: Vec<Range<usize>>,
    /// List items in order (nested ones too).
    pub list_items: Vec<Range<usize>>,
    /// HTML comments (block or inline), where suppressions live.
    pub comments: Vec<Range<usize>>,
    /// Lines of prose: every non-blank line outside code blocks and HTML blocks, without its
    /// line terminator.
    pub prose_lines: Vec<Range<usize>>,
    /// o200k_base tokens of the whole document; 0 when it was not counted.
    pub tokens: usize,
    /// Whether the document's tokens were counted ([`Document::parse`]); when not
    /// ([`Document::parse_uncounted`]), every token field of it and of its sections and code
    /// blocks is 0.
    pub counted: bool,
}

/// A heading and the text up to the next heading of any level.
#[derive(Debug, Clone, Serialize)]
pub struct Section {
    /// Heading level 1-6, or 0 for the preamble before the first heading.
    pub level: u8,
    /// Heading text without markup.
    pub title: String,
    /// Byte range of the heading line (the whole section start for the preamble).
    #[serde(skip)]
    pub heading: Range<usize>,
    /// Byte range from the heading to the next heading.
    #[serde(skip)]
    pub range: Range<usize>,
    /// Index of the enclosing section (the nearest earlier heading of lower level).
    pub parent: Option<usize>,
    /// o200k_base tokens of `range`.
    pub tokens: usize,
}

/// A code block, fenced or indented.
#[derive(Debug, Clone)]
pub struct CodeBlock {
    /// First word of the fence's info string, if any (`rust` in "```rust title=x").
    pub lang: Option<String>,
    /// Byte range of the whole block, fences included.
    pub range: Range<usize>,
    /// Byte range of the code inside the fences.
    pub content: Range<usize>,
    /// Number of lines of code inside the fences.
    pub lines: usize,
    /// o200k_base tokens of the whole block, fences included: what a model reads.
    pub tokens: usize,
    /// Whether the block came from a fence.
    pub fenced: bool,
    /// For a fenced block, whether a closing fence was found.
    pub closed: bool,
}

/// A link or image.
#[derive(Debug, Clone)]
pub struct Link {
    /// The destination as written (after reference resolution).
    pub dest: String,
    /// Byte range of the link in the file.
    pub range: Range<usize>,
    /// Whether this is an image.
    pub image: bool,
}

/// A code block being read: language, fenced, start offset, content range so far.
type OpenCode = (Option<String>, bool, usize, Option<Range<usize>>);

impl Document {
    /// Parse `text[range]` as markdown and count the tokens of the whole, of every section
    /// and of every code block. `text` is the whole file so spans are file offsets.
    pub fn parse(text: &str, range: Range<usize>) -> Self {
        Self::parse_with(text, range, true)
    }

    /// [`Document::parse`] without counting tokens: for files whose size only a threshold
    /// rule reads, which decides with [`tokens::exceeds`] on the text instead.
    pub fn parse_uncounted(text: &str, range: Range<usize>) -> Self {
        Self::parse_with(text, range, false)
    }

    fn parse_with(text: &str, range: Range<usize>, counted: bool) -> Self {
        let base = range.start;
        let body = &text[range.clone()];
        // The body is tokenised once; sections and code blocks count ranges of it.
        let tokenized = counted.then(|| tokens::Tokenized::new(body));
        let tokenized = tokenized.as_ref();
        let mut doc = Document {
            range: range.clone(),
            counted,
            ..Document::default()
        };
        let mut html_blocks = Vec::new();
        // Blocks that hold prose: the lines they span, outside code and HTML, are its lines.
        let mut prose_blocks = Vec::new();
        let mut heading: Option<(u8, usize, String)> = None;
        let mut code: Option<OpenCode> = None;

        // Fences nested in a tagged block are read as part of it (see `nested_fences`); the
        // parse reads a copy with them masked, and every span still points into `text`.
        let read = nested_fences(body);
        let read = read.as_deref().unwrap_or(body);
        for (event, span) in Parser::new_ext(read, OPTIONS).into_offset_iter() {
            let span = span.start + base..span.end + base;
            match event {
                Event::Start(Tag::Heading { level, .. }) => {
                    prose_blocks.push(span.clone());
                    heading = Some((level as u8, span.start, String::new()));
                }
                Event::Start(
                    Tag::Paragraph
                    | Tag::Table(_)
                    | Tag::BlockQuote(_)
                    | Tag::FootnoteDefinition(_),
                ) => prose_blocks.push(span),
                Event::End(TagEnd::Heading(_)) => {
                    if let Some((level, start, title)) = heading.take() {
                        doc.push_heading(level, start..span.end, title.trim().to_owned());
                    }
                }
                Event::Start(Tag::CodeBlock(kind)) => {
                    let (lang, fenced) = match kind {
                        CodeBlockKind::Fenced(info) => {
                            let lang = info.split_whitespace().next().map(str::to_owned);
                            (lang.filter(|l| !l.is_empty()), true)
                        }
                        CodeBlockKind::Indented => (None, false),
                    };
                    code = Some((lang, fenced, span.start, None));
                }
                Event::End(TagEnd::CodeBlock) => {
                    if let Some((lang, fenced, start, content)) = code.take() {
                        let content = content.unwrap_or(span.end..span.end);
                        let range = start..span.end;
                        let tokens =
                            tokenized.map_or(0, |t| t.count(range.start - base..range.end - base));
                        doc.push_code_block(text, lang, fenced, range, content, tokens);
                    }
                }
                Event::Text(t) => {
                    if let Some((_, _, title)) = heading.as_mut() {
                        title.push_str(&t);
                    }
                    if let Some((_, _, _, content)) = code.as_mut() {
                        let start = content.as_ref().map_or(span.start, |c| c.start);
                        *content = Some(start..span.end);
                    }
                }
                Event::Code(t) => {
                    if let Some((_, _, title)) = heading.as_mut() {
                        title.push_str(&t);
                    }
                    doc.inline_code.push(span);
                }
                Event::Start(Tag::Link { dest_url, .. }) => {
                    doc.links.push(Link {
                        dest: dest_url.into_string(),
                        range: span,
                        image: false,
                    });
                }
                Event::Start(Tag::Image { dest_url, .. }) => {
                    doc.links.push(Link {
                        dest: dest_url.into_string(),
                        range: span,
                        image: true,
                    });
                }
                Event::Start(Tag::Item) => {
                    prose_blocks.push(span.clone());
                    doc.list_items.push(span);
                }
                Event::Start(Tag::HtmlBlock) => html_blocks.push(span),
                Event::Html(t) | Event::InlineHtml(t) if t.trim_start().starts_with("<!--") => {
                    doc.comments.push(span);
                }
                _ => {}
            }
        }
        doc.finish_sections(text, tokenized);
        doc.collect_prose_lines(text, &html_blocks, &prose_blocks);
        doc.tokens = tokenized.map_or(0, tokens::Tokenized::total);
        doc
    }

    /// Sum of the tokens of every code block.
    pub fn code_tokens(&self) -> usize {
        self.code_blocks.iter().map(|b| b.tokens).sum()
    }

    /// Share of the document's tokens that sit in code blocks (0 for an empty document).
    pub fn code_share(&self) -> f64 {
        if self.tokens == 0 {
            return 0.0;
        }
        (self.code_tokens() as f64 / self.tokens as f64).min(1.0)
    }

    /// The code blocks as snippets for fact extraction: language tag, code inside the fences,
    /// and its offset in `text` (the whole file this document was parsed from).
    pub fn snippets<'a>(&'a self, text: &'a str) -> Vec<CodeSnippet<'a>> {
        self.code_blocks
            .iter()
            .filter_map(|block| {
                Some(CodeSnippet {
                    lang: block.lang.as_deref(),
                    text: text.get(block.content.clone())?,
                    offset: block.content.start,
                })
            })
            .collect()
    }

    /// The prose lines as `(offset in text, line)` pairs.
    pub fn prose<'t>(&self, text: &'t str) -> Vec<(usize, &'t str)> {
        self.prose_lines
            .iter()
            .filter_map(|line| Some((line.start, text.get(line.clone())?)))
            .collect()
    }

    /// Whether byte `offset` lies inside a code block.
    pub fn in_code_block(&self, offset: usize) -> bool {
        self.code_blocks.iter().any(|b| b.range.contains(&offset))
    }

    fn push_heading(&mut self, level: u8, heading: Range<usize>, title: String) {
        if self.sections.is_empty() && !self.range.is_empty() {
            let preamble = self.range.start..heading.start;
            self.sections.push(Section {
                level: 0,
                title: String::new(),
                heading: preamble.clone(),
                range: preamble,
                parent: None,
                tokens: 0,
            });
        }
        let parent = self
            .sections
            .iter()
            .rposition(|s| s.level < level && s.level > 0);
        self.sections.push(Section {
            level,
            title,
            range: heading.start..heading.end,
            heading,
            parent,
            tokens: 0,
        });
    }

    fn push_code_block(
        &mut self,
        text: &str,
        lang: Option<String>,
        fenced: bool,
        range: Range<usize>,
        content: Range<usize>,
        tokens: usize,
    ) {
        let code = &text[content.clone()];
        let lines = code.lines().count();
        let closed = !fenced || has_closing_fence(&text[range.clone()]);
        self.code_blocks.push(CodeBlock {
            lang,
            range,
            content,
            lines,
            tokens,
            fenced,
            closed,
        });
    }

    /// Give every section the text up to the next heading and count its tokens (`tokenized`
    /// is the body's, when it is counted). Drops an empty preamble.
    fn finish_sections(&mut self, text: &str, tokenized: Option<&tokens::Tokenized>) {
        if self.sections.is_empty() && !text[self.range.clone()].trim().is_empty() {
            self.sections.push(Section {
                level: 0,
                title: String::new(),
                heading: self.range.clone(),
                range: self.range.clone(),
                parent: None,
                tokens: 0,
            });
        }
        let ends: Vec<usize> = self
            .sections
            .iter()
            .skip(1)
            .map(|s| s.heading.start)
            .chain(std::iter::once(self.range.end))
            .collect();
        let base = self.range.start;
        for (section, end) in self.sections.iter_mut().zip(ends) {
            section.range.end = end;
            section.tokens =
                tokenized.map_or(0, |t| t.count(section.range.start - base..end - base));
        }
        if self
            .sections
            .first()
            .is_some_and(|s| s.level == 0 && text[s.range.clone()].trim().is_empty())
        {
            self.sections.remove(0);
            for s in &mut self.sections {
                s.parent = s.parent.and_then(|p| p.checked_sub(1));
            }
        }
    }

    /// The prose lines: every non-blank line of a block the parser read as prose
    /// (`prose_blocks`: headings, paragraphs, list items, tables, blockquotes, footnotes),
    /// except a line a code or HTML block starts, after its indentation or not.
    fn collect_prose_lines(
        &mut self,
        text: &str,
        html_blocks: &[Range<usize>],
        prose_blocks: &[Range<usize>],
    ) {
        let mut start = self.range.start;
        let body_end = self.range.end;
        while start < body_end {
            let end = text[start..body_end]
                .find('\n')
                .map_or(body_end, |i| start + i);
            let line = start
                ..text[start..end]
                    .strip_suffix('\r')
                    .map_or(end, |l| start + l.len());
            let skipped = self
                .code_blocks
                .iter()
                .map(|b| &b.range)
                .chain(html_blocks)
                .any(|r| {
                    // A block that opens after the line's indentation (a fence inside a list
                    // item) starts the line as well.
                    let opens = r.start <= line.start
                        || (r.start < line.end && text[line.start..r.start].trim().is_empty());
                    opens && line.start < r.end.max(r.start + 1)
                });
            let prose = prose_blocks
                .iter()
                .any(|b| b.start < line.end.max(line.start + 1) && line.start < b.end);
            if prose && !skipped && !text[line.clone()].trim().is_empty() {
                self.prose_lines.push(line);
            }
            start = end + 1;
        }
    }
}

/// The markdown extensions every document is read with.
const OPTIONS: Options = Options::ENABLE_TABLES
    .union(Options::ENABLE_STRIKETHROUGH)
    .union(Options::ENABLE_TASKLISTS)
    .union(Options::ENABLE_FOOTNOTES);

/// How many nested fences one document may have masked; past it the rest is read as
/// CommonMark reads it.
const MAX_NESTED: usize = 64;

/// A copy of `body` in which fences nested inside a tagged block are masked, or `None` when
/// there are none.
///
/// Authors put a fenced example inside a block (a Python string holding a README with a
/// ```` ```bash ```` block, a markdown template with its own fences) without lengthening the
/// outer fence. CommonMark then ends the outer block at the inner block's closing fence, and
/// the outer closing fence opens a new block that swallows the rest of the document. The
/// shape is read from pulldown-cmark's own blocks: a tagged block whose code holds a line
/// opening a fence with an info string, which the parser could not take as a closing one,
/// followed by an untagged block opened by a bare fence of the same kind (the outer block's
/// real closing fence). The inner opening and closing fences are masked with characters of
/// the same length, so the block runs to its own closing fence and offsets do not move.
fn nested_fences(body: &str) -> Option<String> {
    let mut masked: Option<String> = None;
    for _ in 0..MAX_NESTED {
        let read = masked.as_deref().unwrap_or(body);
        let Some(lines) = first_nested(read) else {
            break;
        };
        let mut bytes = masked
            .take()
            .unwrap_or_else(|| body.to_owned())
            .into_bytes();
        for range in lines {
            for b in &mut bytes[range] {
                if matches!(*b, b'`' | b'~') {
                    *b = b'\'';
                }
            }
        }
        // Only ASCII fence characters were replaced by an ASCII character.
        masked = Some(String::from_utf8(bytes).ok()?);
    }
    masked
}

/// A fenced block as (opening fence, whether tagged, code range, block range).
type FencedBlock = (String, bool, Option<Range<usize>>, Range<usize>);

/// The fence runs of the first nested opening and closing fence in `text` (see
/// [`nested_fences`]).
fn first_nested(text: &str) -> Option<[Range<usize>; 2]> {
    let mut blocks: Vec<FencedBlock> = Vec::new();
    let mut open: Option<(String, bool, usize, Option<Range<usize>>)> = None;
    for (event, span) in Parser::new_ext(text, OPTIONS).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) => {
                let fence = fence_of(&text[span.clone()]).to_owned();
                open = Some((fence, !info.trim().is_empty(), span.start, None));
            }
            Event::Text(_) => {
                if let Some((_, _, _, code)) = open.as_mut() {
                    let start = code.as_ref().map_or(span.start, |c| c.start);
                    *code = Some(start..span.end);
                }
            }
            Event::End(TagEnd::CodeBlock) => {
                if let Some((fence, tagged, start, code)) = open.take() {
                    blocks.push((fence, tagged, code, start..span.end));
                }
            }
            _ => {}
        }
    }
    for pair in blocks.windows(2) {
        let [
            (fence, tagged, code, range),
            (next_fence, next_tagged, _, next),
        ] = pair
        else {
            continue;
        };
        let Some(code) = code else { continue };
        let closes = next_fence.starts_with(&fence[..1]) && next_fence.len() >= fence.len();
        if !*tagged || *next_tagged || !closes || !has_closing_fence(&text[range.clone()]) {
            continue;
        }
        let mut at = code.start;
        let found = text[code.clone()].split_inclusive('\n').find_map(|line| {
            let start = at;
            at += line.len();
            let trimmed = line.trim_start_matches([' ', '\t', '>']);
            let run = fence_of(trimmed);
            let info = trimmed[run.len()..].trim();
            (run.len() >= fence.len() && run.starts_with(&fence[..1]) && !info.is_empty()).then(
                || {
                    let lead = line.len() - trimmed.len();
                    start + lead..start + lead + run.len()
                },
            )
        });
        let Some(opener) = found else { continue };
        // The block's own closing fence closed the nested one.
        let tail = &text[range.clone()];
        let last = tail.trim_end_matches(['\n', '\r']);
        let line_start = last.rfind('\n').map_or(0, |i| i + 1);
        let trimmed = &last[line_start..];
        let lead = trimmed.len() - trimmed.trim_start_matches([' ', '\t', '>']).len();
        let close = range.start + line_start + lead;
        let close = close..close + fence_of(&text[close..]).len();
        if next.start > close.end {
            return Some([opener, close]);
        }
    }
    None
}

/// The run of fence characters a line starts with (empty when it starts with neither).
fn fence_of(line: &str) -> &str {
    let line = line.trim_start_matches([' ', '\t', '>']);
    let Some(c) = line.chars().next().filter(|c| matches!(c, '`' | '~')) else {
        return "";
    };
    let end = line.find(|x| x != c).unwrap_or(line.len());
    &line[..end]
}

/// Whether a fenced block's source ends with a fence that closes its opening fence. The
/// block's lines carry the markers of the containers it sits in (`> ` of a blockquote, a
/// list item's indent), which are not part of the fence.
fn has_closing_fence(block: &str) -> bool {
    let container = |line: &str| line.trim_start_matches([' ', '\t', '>']).to_owned();
    let mut lines = block.trim_end_matches(['\n', '\r']).lines().map(container);
    let Some(open) = lines.next() else {
        return false;
    };
    let fence_char = open.chars().next().unwrap_or('`');
    let fence_len = open.chars().take_while(|&c| c == fence_char).count();
    let Some(last) = lines.next_back() else {
        return false;
    };
    let last = last.trim();
    last.chars().all(|c| c == fence_char) && last.chars().count() >= fence_len
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Document {
        Document::parse(text, 0..text.len())
    }

    #[test]
    fn sections_form_a_tree_and_own_text_up_to_the_next_heading() {
        let text = "intro\n\n# A\n\none\n\n## B\n\ntwo\n\n# C\n";
        let doc = parse(text);
        let titles: Vec<_> = doc
            .sections
            .iter()
            .map(|s| (s.level, s.title.as_str(), s.parent))
            .collect();
        assert_eq!(
            titles,
            [
                (0, "", None),
                (1, "A", None),
                (2, "B", Some(1)),
                (1, "C", None)
            ]
        );
        assert_eq!(&text[doc.sections[2].range.clone()], "## B\n\ntwo\n\n");
    }

    #[test]
    fn code_blocks_know_language_lines_and_closing() {
        let text = "# T\n\n```python title=x\na = 1\nb = 2\n```\n\n```sh\nopen\n";
        let doc = parse(text);
        assert_eq!(doc.code_blocks.len(), 2);
        let first = &doc.code_blocks[0];
        assert_eq!(first.lang.as_deref(), Some("python"));
        assert_eq!(first.lines, 2);
        assert!(first.closed);
        assert_eq!(&text[first.content.clone()], "a = 1\nb = 2\n");
        assert!(!doc.code_blocks[1].closed);
    }

    #[test]
    fn a_fence_closed_inside_a_blockquote_or_a_list_item_is_closed() {
        let text = "> Example:\n>\n> ```sh\n> make test\n> ```\n\n- Step:\n\n  ```\n  run\n  ```\n\n> ```\n> open\n";
        let doc = parse(text);
        let closed: Vec<bool> = doc.code_blocks.iter().map(|b| b.closed).collect();
        assert_eq!(closed, [true, true, false]);
    }

    #[test]
    fn a_fence_nested_in_a_tagged_block_stays_inside_it() {
        let text = "# Docs\n\n```python\nREADME = \"\"\"\n```bash\npip install tool\n```\n\"\"\"\nprint(README)\n```\n\nNever guess.\n";
        let doc = parse(text);
        assert_eq!(doc.code_blocks.len(), 1, "{:?}", doc.code_blocks);
        let block = &doc.code_blocks[0];
        assert_eq!(block.lang.as_deref(), Some("python"));
        assert!(block.closed);
        assert_eq!(
            &text[block.content.clone()],
            "README = \"\"\"\n```bash\npip install tool\n```\n\"\"\"\nprint(README)\n"
        );
        let lines: Vec<_> = doc.prose_lines.iter().map(|r| &text[r.clone()]).collect();
        assert_eq!(lines, ["# Docs", "Never guess."]);
    }

    #[test]
    fn fences_that_close_and_open_blocks_are_not_nested() {
        // Two blocks one after the other, and a tagged block followed by prose and a
        // tagged block: CommonMark's reading.
        for text in [
            "```python\na = 1\n```\n\n```\nplain\n```\n",
            "```python\na = 1\n```\ntext\n\n```sh\nls\n```\n",
            // A longer outer fence already holds the inner one.
            "````markdown\n```bash\nls\n```\n````\n\n```\nplain\n```\n",
        ] {
            let doc = parse(text);
            assert_eq!(doc.code_blocks.len(), 2, "{text}");
            assert!(doc.code_blocks.iter().all(|b| b.closed), "{text}");
        }
        // A tagged block and a plain one before the nested shape do not hide it.
        let text = "```markdown\n# A\n```\n\n```\nplain\n```\n\n```markdown\n# B\n```bash\nls\n```\nmore\n```\n\nNever guess.\n";
        let doc = parse(text);
        assert_eq!(doc.code_blocks.len(), 3, "{:?}", doc.code_blocks);
        assert!(doc.code_blocks.iter().all(|b| b.closed));
        let lines: Vec<_> = doc.prose_lines.iter().map(|r| &text[r.clone()]).collect();
        assert_eq!(lines, ["Never guess."]);
        // An inner block in a tagged block with no closing fence after it is left as
        // CommonMark reads it: the outer block ends at the inner closing fence.
        let text = "```python\nx = 1\n```bash\nls\n```\nafter\n";
        let doc = parse(text);
        assert_eq!(doc.code_blocks.len(), 1);
        let lines: Vec<_> = doc.prose_lines.iter().map(|r| &text[r.clone()]).collect();
        assert_eq!(lines, ["after"]);
    }

    #[test]
    fn prose_lines_skip_code_and_html() {
        let text = "Say hi.\n\n```\nnever here\n```\n<!-- note -->\n\n- never there\n";
        let doc = parse(text);
        let lines: Vec<_> = doc.prose_lines.iter().map(|r| &text[r.clone()]).collect();
        assert_eq!(lines, ["Say hi.", "- never there"]);
        assert_eq!(doc.comments.len(), 1);
    }

    #[test]
    fn prose_lines_come_from_the_blocks_the_parser_reads_as_prose() {
        let text = "# Title\n\n   An indented paragraph\ncontinued lazily.\n\n---\n\n> Quoted\n> twice.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n1. Step\n\n   ```sh\n   ls\n   ```\n\n[ref]: https://example.com/x\n";
        let doc = parse(text);
        let lines: Vec<_> = doc.prose_lines.iter().map(|r| &text[r.clone()]).collect();
        // A thematic break and a link reference definition are no prose; a table's
        // delimiter row belongs to its table.
        assert_eq!(
            lines,
            [
                "# Title",
                "   An indented paragraph",
                "continued lazily.",
                "> Quoted",
                "> twice.",
                "| a | b |",
                "|---|---|",
                "| 1 | 2 |",
                "1. Step",
            ]
        );
    }

    #[test]
    fn links_and_inline_code_are_collected_with_file_offsets() {
        let text = "---\nname: x\n---\nSee [ref](references/a.md) and `scripts/b.py`.\n";
        let start = text.find("See").unwrap_or(0);
        let doc = Document::parse(text, start..text.len());
        assert_eq!(doc.links[0].dest, "references/a.md");
        assert_eq!(&text[doc.links[0].range.clone()], "[ref](references/a.md)");
        assert_eq!(&text[doc.inline_code[0].clone()], "`scripts/b.py`");
    }
}
