//! A minimal fence splitter for tests and the timing example: the crate's SKILL.md parser
//! does this with pulldown-cmark; here only fenced blocks and the lines outside them matter.

/// One fenced block: info string, text, byte offset of the text in the file.
#[derive(Debug, Clone, Copy)]
pub struct Block<'a> {
    pub lang: Option<&'a str>,
    pub text: &'a str,
    pub offset: usize,
}

/// Fenced blocks and prose lines `(offset, line)` of a markdown text.
pub fn split(markdown: &str) -> (Vec<Block<'_>>, Vec<(usize, &str)>) {
    let mut blocks = Vec::new();
    let mut prose = Vec::new();
    let mut open: Option<(&str, Option<&str>, usize)> = None;
    let mut offset = 0;
    for line in markdown.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let fence = ["```", "~~~"].into_iter().find(|f| trimmed.starts_with(f));
        match (open, fence) {
            (None, Some(fence)) => {
                let info = trimmed[fence.len()..].trim();
                let lang = (!info.is_empty()).then_some(info);
                open = Some((fence, lang, offset + line.len()));
            }
            (Some((fence, lang, start)), Some(closing))
                if closing == fence && trimmed[fence.len()..].trim().is_empty() =>
            {
                blocks.push(Block {
                    lang,
                    text: &markdown[start..offset],
                    offset: start,
                });
                open = None;
            }
            (Some(_), _) => {}
            (None, None) => prose.push((offset, line.trim_end_matches('\n'))),
        }
        offset += line.len();
    }
    (blocks, prose)
}
