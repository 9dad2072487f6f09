//! Code facts: what a skill's code blocks import, call, install and pin.
//!
//! Each fenced block is parsed with the tree-sitter grammar of its language (Python,
//! JavaScript, TypeScript/TSX, Java, Go, Rust, Ruby, PHP, C#, Bash, YAML, TOML, JSON) or read by a small
//! dedicated reader (XML manifests with `quick-xml`, Dockerfile instructions, Gradle string
//! literals, HTML attribute values; CSS is only text). The result,
//! [`CodeFacts`], carries byte spans in SKILL.md coordinates so that findings point at the
//! skill's own lines. Extraction never panics: an unknown tag yields empty facts, an
//! oversized block is skipped and says so, and tree-sitter recovers from syntax errors.

mod csharp;
mod docker;
mod facts;
mod go;
mod gradle;
mod java;
mod javascript;
mod manifest;
mod markup;
mod php;
mod python;
mod ruby;
mod rust;
pub(crate) mod shell;
mod syntax;
mod yaml;

use tree_sitter::{Node, Parser};

pub use self::facts::{
    Access, ActionUse, ArgKind, Binding, Call, Class, CodeFacts, CodeSnippet, Decorator, Image,
    Import, ImportedName, Install, Lang, ManifestEntry, MethodCall, Span, Syntax, SyntaxUse,
    TextRun, Unparsed, YamlPair, module_under,
};
pub(crate) use self::facts::{join_qualified, normalise_path};
use self::syntax::Source;

/// Blocks larger than this are not parsed: no skill example needs more, and the limit keeps
/// extraction time bounded whatever the input.
pub const MAX_BLOCK_BYTES: usize = 64 * 1024;

/// Reads code blocks into facts, reusing one parser per language across blocks.
#[derive(Default)]
pub struct FactExtractor {
    parsers: Vec<(Grammar, Parser)>,
}

impl std::fmt::Debug for FactExtractor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FactExtractor")
            .field("parsers", &self.parsers.len())
            .finish()
    }
}

/// The tree-sitter grammars in use; TSX and TypeScript are separate grammars.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Grammar {
    Python,
    JavaScript,
    TypeScript,
    Tsx,
    Java,
    Go,
    Rust,
    Ruby,
    Php,
    CSharp,
    Bash,
    Yaml,
    Toml,
    Json,
}

impl Grammar {
    fn language(self) -> tree_sitter::Language {
        match self {
            Self::Python => tree_sitter_python::LANGUAGE.into(),
            Self::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Self::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Self::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Self::Java => tree_sitter_java::LANGUAGE.into(),
            Self::Go => tree_sitter_go::LANGUAGE.into(),
            Self::Rust => tree_sitter_rust::LANGUAGE.into(),
            Self::Ruby => tree_sitter_ruby::LANGUAGE.into(),
            // The PHP-only grammar reads code with or without `<?php`; skills often omit it.
            Self::Php => tree_sitter_php::LANGUAGE_PHP_ONLY.into(),
            Self::CSharp => tree_sitter_c_sharp::LANGUAGE.into(),
            Self::Bash => tree_sitter_bash::LANGUAGE.into(),
            Self::Yaml => tree_sitter_yaml::LANGUAGE.into(),
            Self::Toml => tree_sitter_toml_ng::LANGUAGE.into(),
            Self::Json => tree_sitter_json::LANGUAGE.into(),
        }
    }
}

impl FactExtractor {
    /// An extractor with no parser built yet; parsers are made on first use.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads one block.
    pub fn extract(&mut self, snippet: &CodeSnippet<'_>) -> CodeFacts {
        let lang = snippet.lang.and_then(Lang::from_tag);
        let mut facts = CodeFacts {
            lang,
            ..CodeFacts::default()
        };
        let Some(lang) = lang else { return facts };
        if snippet.text.len() > MAX_BLOCK_BYTES {
            facts.unparsed = Some(Unparsed::TooLarge);
            return facts;
        }
        let source = Source {
            text: snippet.text,
            offset: snippet.offset,
        };
        let read = self.read(lang, source, &mut facts);
        if !read {
            facts.unparsed = Some(Unparsed::GrammarUnavailable);
        }
        facts
    }

    /// Reads `source` as `lang`; false when its grammar could not be loaded.
    fn read(&mut self, lang: Lang, source: Source<'_>, facts: &mut CodeFacts) -> bool {
        match lang {
            Lang::Python => self.with_tree(Grammar::Python, source, facts, python::read),
            Lang::JavaScript => {
                self.with_tree(Grammar::JavaScript, source, facts, javascript::read)
            }
            Lang::TypeScript => {
                self.with_tree(Grammar::TypeScript, source, facts, javascript::read)
            }
            Lang::Tsx => self.with_tree(Grammar::Tsx, source, facts, javascript::read),
            Lang::Java => self.with_tree(Grammar::Java, source, facts, java::read),
            Lang::Go => self.with_tree(Grammar::Go, source, facts, go::read),
            Lang::Rust => self.with_tree(Grammar::Rust, source, facts, rust::read),
            Lang::Ruby => self.with_tree(Grammar::Ruby, source, facts, ruby::read),
            Lang::Php => self.with_tree(Grammar::Php, source, facts, php::read),
            Lang::CSharp => self.with_tree(Grammar::CSharp, source, facts, csharp::read),
            Lang::Shell => self.shell(source, facts),
            Lang::Console => {
                let commands = shell::console_commands(source.text);
                self.shell(
                    Source {
                        text: &commands,
                        offset: source.offset,
                    },
                    facts,
                )
            }
            Lang::Yaml => self.with_tree(Grammar::Yaml, source, facts, yaml::read),
            Lang::Toml => self.with_tree(Grammar::Toml, source, facts, manifest::read_toml),
            Lang::Json => self.with_tree(Grammar::Json, source, facts, manifest::read_json),
            Lang::Xml => {
                manifest::read_xml(source, facts);
                true
            }
            Lang::Dockerfile => {
                docker::read(self, source, facts);
                true
            }
            Lang::Css => {
                facts.texts.push(TextRun {
                    text: source.text.to_owned(),
                    span: source.whole(),
                });
                true
            }
            Lang::Html | Lang::Vue => {
                markup::read(source, facts);
                true
            }
            Lang::Gradle => {
                gradle::read(source, facts);
                true
            }
        }
    }

    /// Reads a shell script: its installs, and its whole text for `text` patterns.
    fn shell(&mut self, source: Source<'_>, facts: &mut CodeFacts) -> bool {
        facts.texts.push(TextRun {
            text: source.text.to_owned(),
            span: source.whole(),
        });
        self.with_tree(Grammar::Bash, source, facts, shell::read)
    }

    /// Parses `source` with `grammar` and hands the tree to `read`; false when the grammar
    /// could not be loaded or the parse was abandoned.
    pub(crate) fn with_tree(
        &mut self,
        grammar: Grammar,
        source: Source<'_>,
        facts: &mut CodeFacts,
        read: fn(Node<'_>, Source<'_>, &mut CodeFacts),
    ) -> bool {
        let Some(parser) = self.parser(grammar) else {
            return false;
        };
        let Some(tree) = parser.parse(source.text, None) else {
            return false;
        };
        read(tree.root_node(), source, facts);
        true
    }

    fn parser(&mut self, grammar: Grammar) -> Option<&mut Parser> {
        let index = match self.parsers.iter().position(|(g, _)| *g == grammar) {
            Some(index) => index,
            None => {
                let mut parser = Parser::new();
                parser.set_language(&grammar.language()).ok()?;
                self.parsers.push((grammar, parser));
                self.parsers.len() - 1
            }
        };
        self.parsers.get_mut(index).map(|(_, parser)| parser)
    }
}

/// Reads every block, one parser per language for the whole call.
pub fn extract_facts(snippets: &[CodeSnippet<'_>]) -> Vec<CodeFacts> {
    let mut extractor = FactExtractor::new();
    snippets
        .iter()
        .map(|snippet| extractor.extract(snippet))
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::syntax::{pep508, unquote};
    use super::*;

    /// Facts of one block placed at file offset 100, to check offsets are applied.
    pub(crate) fn facts(lang: &str, text: &str) -> CodeFacts {
        FactExtractor::new().extract(&CodeSnippet {
            lang: Some(lang),
            text,
            offset: 100,
        })
    }

    /// The file text a span covers, given the block was placed at offset 100.
    pub(crate) fn spanned(text: &str, span: Span) -> &str {
        &text[span.start - 100..span.end - 100]
    }

    #[test]
    fn tags_map_to_languages() {
        let cases = [
            ("py", Some(Lang::Python)),
            ("Python3", Some(Lang::Python)),
            ("jsx", Some(Lang::JavaScript)),
            ("mjs", Some(Lang::JavaScript)),
            ("typescript", Some(Lang::TypeScript)),
            ("tsx", Some(Lang::Tsx)),
            ("golang", Some(Lang::Go)),
            ("rs", Some(Lang::Rust)),
            ("rb", Some(Lang::Ruby)),
            ("Ruby", Some(Lang::Ruby)),
            ("php", Some(Lang::Php)),
            ("cs", Some(Lang::CSharp)),
            ("csharp", Some(Lang::CSharp)),
            ("C#", Some(Lang::CSharp)),
            ("zsh", Some(Lang::Shell)),
            ("console", Some(Lang::Console)),
            ("yml", Some(Lang::Yaml)),
            ("Dockerfile", Some(Lang::Dockerfile)),
            ("python title=\"app.py\"", Some(Lang::Python)),
            ("{.json}", Some(Lang::Json)),
            ("text", None),
            ("", None),
        ];
        for (tag, lang) in cases {
            assert_eq!(Lang::from_tag(tag), lang, "{tag}");
        }
    }

    #[test]
    fn unknown_and_oversized_blocks_yield_no_facts() {
        let none = facts("mermaid", "import numpy as np");
        assert_eq!(none.lang, None);
        assert!(none.imports.is_empty());
        let big = "import numpy\n".repeat(MAX_BLOCK_BYTES / 10);
        let skipped = facts("python", &big);
        assert_eq!(skipped.unparsed, Some(Unparsed::TooLarge));
        assert!(skipped.imports.is_empty());
    }

    #[test]
    fn broken_code_still_yields_what_parses() {
        let text = "import numpy as np\ndef broken(:\n    np.float(1)\n";
        let facts = facts("python", text);
        assert_eq!(facts.imports.len(), 1);
        assert!(facts.accesses.iter().any(|a| a.root == "np"));
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let text = format!("x = {}1{}", "[".repeat(20_000), "]".repeat(20_000));
        let facts = facts("python", &text);
        assert!(facts.imports.is_empty());
    }

    #[test]
    fn imports_module_respects_boundaries() {
        let rust = facts("rust", "use tokio::sync::mpsc;\n");
        assert!(rust.imports_module("tokio"));
        assert!(rust.imports_module("tokio::sync"));
        assert!(!rust.imports_module("tokio_util"));
        let js = facts("js", "import { createRoot } from 'react-dom/client';\n");
        assert!(js.imports_module("react-dom"));
        assert!(!js.imports_module("react"));
    }

    #[test]
    fn pep508_requirements() {
        let cases = [
            ("x==1", Some(("x", Some("==1")))),
            ("Y_Z[all]>=1,<2", Some(("y-z", Some(">=1,<2")))),
            ("a ; python_version < '3.9'", Some(("a", None))),
            ("b @ https://example.com/b.whl", Some(("b", None))),
            ("c (>=2)", Some(("c", Some(">=2")))),
            ("./local", None),
        ];
        for (spec, expected) in cases {
            let got = pep508(spec);
            let got = got.as_ref().map(|(n, c)| (n.as_str(), c.as_deref()));
            assert_eq!(got, expected, "{spec}");
        }
    }

    #[test]
    fn unquote_strips_one_matching_pair() {
        assert_eq!(unquote("\"x>=2\""), "x>=2");
        assert_eq!(unquote("'a'"), "a");
        assert_eq!(unquote("\"a'"), "\"a'");
        assert_eq!(unquote("\""), "\"");
    }
}
