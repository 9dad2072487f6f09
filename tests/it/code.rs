//! Code facts, claims and API matching over whole skills.

use std::cmp::Ordering;

use skillgate::claims::{AliasTable, Origin, claims};
use skillgate::knowledge::{ApiChange, ApiFile, ChangeKind, PackageAlias, Pattern};
use skillgate::lint::ApiMatcher;
use skillgate::project::Ecosystem;
use skillgate::skill::code::{CodeSnippet, extract_facts};

use skillgate::skill::Document;

/// A skill with prose claims, many languages and one block of each hazard.
const SKILL: &str = r#"---
name: web-app-upgrades
description: Upgrade guide.
---
# Upgrading a React 18 app

This skill needs Node.js >= 20 and was written in 2024 (see section 3.2).

```bash
npm install react@18 react-dom@18
pip install "pydantic>=2"
```

```jsx
import ReactDOM from 'react-dom';
ReactDOM.render(<App />, document.getElementById('root'));
```

```python
from pydantic import validator
import numpy as np

class User:
    @validator("name")
    def check(cls, v):
        return np.float(v)
```

```yaml
steps:
  - uses: actions/checkout@v3
  - run: echo "::set-output name=ok::1"
```

```dockerfile
FROM node:20-alpine
```

```text
React 17 is mentioned in a text block and must not count.
```
"#;

/// The markdown as the crate's SKILL.md parser reads it.
fn parse(markdown: &str) -> Document {
    Document::parse(markdown, 0..markdown.len())
}

fn alias(names: &[&str], imports: &[&str], ecosystem: Ecosystem, package: &str) -> PackageAlias {
    PackageAlias {
        names: names.iter().map(|n| (*n).to_owned()).collect(),
        imports: imports.iter().map(|i| (*i).to_owned()).collect(),
        ecosystem,
        package: package.to_owned(),
        also: Vec::new(),
    }
}

fn change(id: &str, since: Option<&str>, pattern: Pattern, lang: &[&str]) -> ApiChange {
    ApiChange {
        id: id.to_owned(),
        kind: ChangeKind::Removed,
        since: since.map(str::to_owned),
        summary: String::new(),
        replacement: None,
        pattern,
        lang: lang.iter().map(|l| (*l).to_owned()).collect(),
        source: String::new(),
        checked: String::new(),
        example: String::new(),
        note: None,
        passes: None,
        evidence: None,
        old_works: None,
    }
}

fn api_files() -> Vec<ApiFile> {
    let file = |ecosystem, package: &str, changes| ApiFile {
        path: String::new(),
        ecosystem,
        package: package.to_owned(),
        changes,
    };
    vec![
        file(
            Ecosystem::Npm,
            "react-dom",
            vec![change(
                "react-dom-render",
                Some("19.0.0"),
                Pattern::ImportName {
                    import: "react-dom".into(),
                    name: "render".into(),
                },
                &["javascript", "jsx"],
            )],
        ),
        file(
            Ecosystem::Pypi,
            "pydantic",
            vec![change(
                "pydantic-validator",
                Some("2.0.0"),
                Pattern::Decorator {
                    decorator: "validator".into(),
                    import: Some("pydantic".into()),
                },
                &["python"],
            )],
        ),
        file(
            Ecosystem::Pypi,
            "numpy",
            vec![change(
                "numpy-float",
                Some("1.24.0"),
                Pattern::ImportName {
                    import: "numpy".into(),
                    name: "float".into(),
                },
                &["python"],
            )],
        ),
        file(
            Ecosystem::Actions,
            "workflow-commands",
            vec![change(
                "set-output",
                None,
                Pattern::Text {
                    text: r"::set-output\b".into(),
                },
                &["yaml"],
            )],
        ),
    ]
}

fn compare(_: Ecosystem, a: &str, b: &str) -> Option<Ordering> {
    let parse = |v: &str| -> Option<Vec<u64>> { v.split('.').map(|p| p.parse().ok()).collect() };
    Some(parse(a)?.cmp(&parse(b)?))
}

#[test]
fn claims_of_a_whole_skill_point_at_their_text() {
    let table = AliasTable::new(&[
        alias(&["React"], &["react"], Ecosystem::Npm, "react"),
        alias(&["Node.js", "Node"], &[], Ecosystem::Runtime, "node"),
        alias(&["pydantic"], &["pydantic"], Ecosystem::Pypi, "pydantic"),
    ])
    .expect("table compiles");
    let doc = parse(SKILL);
    let prose = doc.prose(SKILL);
    let facts = extract_facts(&doc.snippets(SKILL));
    let all = claims(&prose, &facts, &table);
    let got: Vec<_> = all
        .iter()
        .map(|c| {
            (
                c.origin,
                c.subject.package.as_str(),
                &SKILL[c.span.start..c.span.end],
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (Origin::Prose, "react", "React 18"),
            (Origin::Prose, "node", "Node.js >= 20"),
            (Origin::Install, "react", "react@18"),
            (Origin::Install, "react-dom", "react-dom@18"),
            (Origin::Install, "pydantic", "\"pydantic>=2\""),
            // Packages the table does not know are named by their registry's rules.
            (
                Origin::Import,
                "react-dom",
                "import ReactDOM from 'react-dom';"
            ),
            (Origin::Import, "pydantic", "from pydantic import validator"),
            (Origin::Import, "numpy", "import numpy as np"),
            (Origin::Actions, "actions/checkout", "actions/checkout@v3"),
            (Origin::Docker, "node", "node:20-alpine"),
        ]
    );
}

#[test]
fn api_hits_follow_the_project_versions() {
    let files = api_files();
    let matcher = ApiMatcher::new(
        files
            .iter()
            .flat_map(|f| f.changes.iter().map(move |c| (f, c))),
    )
    .expect("patterns compile");
    let doc = parse(SKILL);
    let facts = extract_facts(&doc.snippets(SKILL));
    let new_project = |_: Ecosystem, package: &str| match package {
        "react-dom" => Some("19.1.0".to_owned()),
        "pydantic" => Some("2.7.0".to_owned()),
        "numpy" => Some("2.0.0".to_owned()),
        _ => None,
    };
    let hits = matcher.hits(&facts, &new_project, &compare);
    let got: Vec<_> = hits
        .iter()
        .map(|h| (h.change_id.as_str(), &SKILL[h.span.start..h.span.end]))
        .collect();
    assert_eq!(
        got,
        [
            ("react-dom-render", "ReactDOM.render"),
            ("pydantic-validator", "validator"),
            ("numpy-float", "np.float"),
            ("set-output", "::set-output"),
        ]
    );
    let old_project = |_: Ecosystem, package: &str| match package {
        "react-dom" => Some("18.3.1".to_owned()),
        "pydantic" => Some("1.10.13".to_owned()),
        "numpy" => Some("1.23.5".to_owned()),
        _ => None,
    };
    let hits = matcher.hits(&facts, &old_project, &compare);
    let ids: Vec<_> = hits.iter().map(|h| h.change_id.as_str()).collect();
    assert_eq!(ids, ["set-output"]);
}

/// Deterministic xorshift, so failures reproduce.
struct Noise(u64);

impl Noise {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn mangled_blocks_never_panic_and_spans_stay_inside() {
    let doc = parse(SKILL);
    let blocks = doc.snippets(SKILL);
    let mut noise = Noise(0x9E37_79B9_7F4A_7C15);
    let tags = [
        "python",
        "jsx",
        "tsx",
        "ts",
        "java",
        "go",
        "rust",
        "bash",
        "console",
        "yaml",
        "toml",
        "json",
        "xml",
        "dockerfile",
    ];
    for round in 0..200 {
        let block = &blocks[round % blocks.len()];
        let mut bytes = block.text.as_bytes().to_vec();
        for _ in 0..(noise.next() % 8) {
            if bytes.is_empty() {
                break;
            }
            let at = (noise.next() as usize) % bytes.len();
            match noise.next() % 3 {
                0 => bytes.truncate(at),
                1 => bytes[at] = b"{}[]()<>\"'`\\$@#:=\n"[(noise.next() % 18) as usize],
                _ => bytes.insert(at, "é∑\u{200b}"[..].as_bytes()[0]),
            }
        }
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let tag = tags[(noise.next() as usize) % tags.len()];
        let offset = 1000;
        let facts = extract_facts(&[CodeSnippet {
            lang: Some(tag),
            text: &text,
            offset,
        }]);
        let spans = facts[0]
            .imports
            .iter()
            .map(|i| i.span)
            .chain(facts[0].accesses.iter().map(|a| a.span))
            .chain(facts[0].installs.iter().map(|i| i.span))
            .chain(facts[0].texts.iter().map(|t| t.span))
            .chain(facts[0].manifest_entries.iter().map(|m| m.span));
        for span in spans {
            assert!(
                span.start >= offset && span.start <= span.end && span.end <= offset + text.len(),
                "{tag}: {span:?}"
            );
        }
    }
}
