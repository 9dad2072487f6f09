//! A generated folder of many skills, some unreadable and some copied, for the audit tests
//! and the audit benchmark (which includes this file).

use std::path::Path;

/// What [`generate`] wrote, for the counts an audit must report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Generated {
    /// Skills an audit must find (the `node_modules` one is not among them).
    pub skills: usize,
    /// Skills without frontmatter.
    pub unreadable: usize,
    /// Exact copies of another skill, under another folder name.
    pub copies: usize,
}

const SYLLABLES: &[&str] = &[
    "ka", "lo", "mi", "ren", "to", "sa", "vi", "du", "pe", "zor", "an", "qui", "bel", "tor", "ne",
    "fa", "gu", "hil", "jo", "wex",
];

/// A deterministic stream of word-like text: `words` words from seed `seed`.
pub fn prose(seed: u64, words: usize) -> String {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut out = String::new();
    for i in 0..words {
        let r = next();
        let n = 2 + (r % 3) as usize;
        for k in 0..n {
            out.push_str(SYLLABLES[((r >> (8 * k + 4)) % SYLLABLES.len() as u64) as usize]);
        }
        out.push(if i % 12 == 11 { '.' } else { ' ' });
        if i % 36 == 35 {
            out.push_str("\n\n");
        }
    }
    out.push('\n');
    out
}

/// One skill's SKILL.md: a unique name and description, a body of `words` words, a code
/// block in every third skill.
fn manifest(i: usize, words: usize) -> String {
    let code = if i.is_multiple_of(3) {
        format!("\n```python\ndef step_{i}(items):\n    return sorted(items)\n```\n")
    } else {
        String::new()
    };
    format!(
        "---\nname: skill-{i:05}\ndescription: Formats ledger report {i} for the finance team. Use when a report {i} export is asked for.\n---\n# Skill {i}\n\n{}\nNever edit the exported file by hand.\n{code}",
        prose(i as u64 + 1, words)
    )
}

/// Write `count` skills of about `words` words under `dir`: one in a hundred has no
/// frontmatter, one in a hundred is also copied under `copies/`, one in ten lives in a hidden
/// `.claude/skills/` folder, and a skill under `node_modules/` must be skipped.
pub fn generate(dir: &Path, count: usize, words: usize) -> Generated {
    let write = |rel: String, text: &str| {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().expect("has a parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    };
    let mut generated = Generated {
        skills: 0,
        unreadable: 0,
        copies: 0,
    };
    for i in 0..count {
        let folder = if i % 10 == 3 {
            format!(".claude/skills/skill-{i:05}")
        } else {
            format!("pack-{}/skills/skill-{i:05}", i % 4)
        };
        generated.skills += 1;
        if i % 100 == 7 {
            generated.unreadable += 1;
            write(
                format!("{folder}/SKILL.md"),
                "# A skill without frontmatter\n",
            );
            continue;
        }
        let text = manifest(i, words);
        write(format!("{folder}/SKILL.md"), &text);
        if i % 100 == 42 {
            generated.skills += 1;
            generated.copies += 1;
            write(format!("copies/skill-{i:05}-copy/SKILL.md"), &text);
        }
    }
    write(
        "node_modules/dependency/skills/vendored/SKILL.md".into(),
        &manifest(count + 1, words),
    );
    generated
}
