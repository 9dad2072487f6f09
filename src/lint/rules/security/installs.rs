//! SG612: installs that bypass the registry a reviewer expects — an archive fetched from a
//! URL, a foreign registry or package index, and names one edit away from a popular package.

use crate::lint::RuleDoc;
use std::sync::LazyLock;

use super::shell::{Command, Word};
use super::{flow, scan};
use crate::finding::Severity;
use crate::lint::Rule;

/// SG612.
pub const UNTRUSTED_INSTALL: Rule = Rule {
    doc: RuleDoc {
        code: "SG612",
        name: "untrusted-install",
        severity: Severity::Warning,
        summary: "A package is installed from a URL, a foreign registry or index, or under a name \
              one edit away from a popular package",
        what: "Reads `pip`, `uv pip`, `npm`, `pnpm`, `yarn`, `npx` and `bunx` commands in code \
           blocks, inline code and scripts, and flags: a package archive given as an \
           `http(s)://` URL (`pip install https://host/x.whl`), a registry or index option \
           pointing away from the public registry (`--registry`, `--index-url`, \
           `--extra-index-url`, `-i`), a package name one letter swap, change or drop away \
           from one of the 2,000 most downloaded PyPI or npm packages (`reqeusts`, `lodahs`; \
           the lists and their sources are in `rules/popular/`), and a `git+https://` \
           repository on a host that is not a known forge (GitHub, GitLab, Bitbucket, \
           Codeberg, SourceHut, Hugging Face, Azure DevOps). Shown text (a typosquat \
           given as an example of an attack) is an info note.",
        why: "These are how a supply-chain attack reaches a user: the package comes from a host \
          the attacker controls, or has a name chosen to be mistyped for a trusted one.",
        fires: "---\nname: demo\ndescription: Sets up the demo client. Use when installing demo.\n---\n```bash\npip install reqeusts\n```\n",
        passes: "---\nname: demo\ndescription: Sets up the demo client. Use when installing demo.\n---\n```bash\npip install requests==2.32.3\n```\n",
    },
    check: |cx, out| {
        let scan = scan(cx);
        for command in &scan.commands {
            for (word, message) in untrusted(command) {
                let message = if command.counter_example {
                    format!("{message} (shown as an example, not an instruction)")
                } else {
                    message
                };
                let finding = out.report(
                    scan.files[command.at.file].source,
                    word.span.clone(),
                    message,
                );
                if command.counter_example {
                    finding.severity(Severity::Info);
                }
                finding.help("install the reviewed package by its exact name from the public registry, with a pinned version");
            }
        }
    },
};

/// Public registries and indexes: an option naming one of these is no finding.
const PUBLIC_HOSTS: &[&str] = &[
    "pypi.org",
    "pypi.python.org",
    "files.pythonhosted.org",
    "test.pypi.org",
    "download.pytorch.org",
    "registry.npmjs.org",
    "registry.yarnpkg.com",
    "npm.pkg.github.com",
];

/// Code forges whose repositories a reviewer can read: `git+https://` on one of these is no
/// finding.
const FORGES: &[&str] = &[
    "github.com",
    "gitlab.com",
    "bitbucket.org",
    "codeberg.org",
    "sr.ht",
    "huggingface.co",
    "dev.azure.com",
];

/// The most downloaded PyPI projects and npm packages (`rules/popular/`, each file naming
/// its source and commit), for names one edit away from them.
pub(super) static POPULAR_PYPI: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    names(include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/rules/popular/pypi.txt"
    )))
});
pub(super) static POPULAR_NPM: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    names(include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/rules/popular/npm.txt"
    )))
});

/// The names of a list file: one a line, `#` comments and blank lines left out.
pub(super) fn names(text: &'static str) -> Vec<&'static str> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

/// The popular names of the registry an installer reads.
fn popular_for(installer: &str) -> &'static [&'static str] {
    match installer {
        "pip" | "pip3" | "python" | "python3" | "uv" => &POPULAR_PYPI,
        _ => &POPULAR_NPM,
    }
}

/// What is untrusted in one install command.
fn untrusted(command: &Command) -> Vec<(&Word, String)> {
    let words = command.effective();
    let Some(first) = words.first() else {
        return Vec::new();
    };
    let name = first.text.rsplit('/').next().unwrap_or(&first.text);
    let sub = words.get(1).map(|w| w.text.as_str());
    let args: &[Word] = match (name, sub) {
        ("pip" | "pip3" | "pnpm" | "yarn" | "bun", Some("install" | "add" | "i")) => &words[2..],
        ("npm", Some("install" | "i" | "add" | "exec")) => &words[2..],
        ("python" | "python3", Some("-m"))
            if words.get(2).is_some_and(|w| w.text == "pip")
                && words.get(3).is_some_and(|w| w.text == "install") =>
        {
            &words[4..]
        }
        ("uv", Some("pip")) if words.get(2).is_some_and(|w| w.text == "install") => &words[3..],
        ("npx" | "bunx", _) => &words[1..],
        _ => return Vec::new(),
    };
    let mut out = Vec::new();
    let mut iter = args.iter().peekable();
    let mut first_package = true;
    while let Some(word) = iter.next() {
        let text = word.text.as_str();
        let (option, inline) = match text.split_once('=') {
            Some((o, v)) if o.starts_with('-') => (o, Some(v)),
            _ => (text, None),
        };
        if matches!(
            option,
            "--registry" | "--index-url" | "--extra-index-url" | "-i" | "--index"
        ) {
            let value = inline
                .map(str::to_owned)
                .or_else(|| iter.next().map(|w| w.text.clone()));
            if let Some(value) = value
                && let Some(host) = flow::host_of(&value)
                && !PUBLIC_HOSTS
                    .iter()
                    .any(|p| host == *p || host.ends_with(&format!(".{p}")))
            {
                out.push((
                    word,
                    format!("`{option}` installs from `{host}`, not the public registry"),
                ));
            }
            continue;
        }
        if text.starts_with('-') {
            continue;
        }
        // `git+https://host/…`: a repository on a forge a reviewer knows is a reviewable
        // source; one on any other host is not.
        if let Some(host) = text.strip_prefix("git+").and_then(flow::host_of)
            && !FORGES
                .iter()
                .any(|f| host == *f || host.ends_with(&format!(".{f}")))
        {
            out.push((
                word,
                format!("installs from a Git repository on `{host}`, not a known forge"),
            ));
            continue;
        }
        if (text.starts_with("https://") || text.starts_with("http://"))
            && [".whl", ".tar.gz", ".tgz", ".zip"]
                .iter()
                .any(|e| text.ends_with(e))
        {
            out.push((word, format!("installs a package archive from `{text}`")));
            continue;
        }
        // npx runs its first package; the rest are its arguments.
        if matches!(name, "npx" | "bunx") && !first_package {
            continue;
        }
        first_package = false;
        let bare = package_name(text);
        if let Some(popular) = lookalike(bare, popular_for(name)) {
            out.push((
                word,
                format!("`{bare}` is one letter away from the popular package `{popular}`"),
            ));
        }
    }
    out
}

/// A package word without version, extras or scope-less suffixes (`x[y]==1` -> `x`).
fn package_name(text: &str) -> &str {
    let end = text
        .find(['=', '<', '>', '~', '!', '[', ';', ' '])
        .unwrap_or(text.len());
    let text = &text[..end];
    match text.rfind('@').filter(|&at| at > 0) {
        Some(at) => &text[..at],
        None => text,
    }
}

/// The popular package `name` is one edit away from (see [`one_edit`]), unless `name` is
/// itself in the list: popular names one edit from each other are both real.
fn lookalike(name: &str, list: &'static [&'static str]) -> Option<&'static str> {
    let name = name.to_ascii_lowercase().replace('_', "-");
    if list.contains(&name.as_str()) {
        return None;
    }
    let name: Vec<char> = name.chars().collect();
    list.iter().copied().find(|p| one_edit(&name, p))
}

/// Whether `name` is one swap of neighbours or one changed letter from `popular` (five
/// letters or more), or one dropped letter from a name of seven or more; never the same.
fn one_edit(a: &[char], popular: &str) -> bool {
    // A name of another length is no edit away; most of the list ends here, unallocated.
    if popular.len() < 5 || (popular.is_ascii() && popular.len().abs_diff(a.len()) > 1) {
        return false;
    }
    let b: Vec<char> = popular.chars().collect();
    if a.len() == b.len() {
        let mut diff = (0..a.len()).filter(|&i| a[i] != b[i]);
        return match (diff.next(), diff.next(), diff.next()) {
            // A separator typed as a letter (`ppmap` for `p-map`) is another name, not a slip.
            (Some(i), None, None) => a[i].is_alphanumeric() == b[i].is_alphanumeric(),
            (Some(i), Some(j), None) => j == i + 1 && a[i] == b[j] && a[j] == b[i],
            _ => false,
        };
    }
    if a.len() + 1 == b.len() && b.len() >= 7 {
        return (0..b.len()).any(|skip| {
            b.iter()
                .enumerate()
                .filter(|(i, _)| *i != skip)
                .map(|(_, c)| *c)
                .eq(a.iter().copied())
        });
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typosquats_are_one_edit_away() {
        let pypi = popular_for("pip");
        let npm = popular_for("npm");
        assert!(pypi.len() >= 1000 && npm.len() >= 1000);
        assert!(pypi.contains(&"requests") && npm.contains(&"lodash"));
        assert_eq!(lookalike("reqeusts", pypi), Some("requests"));
        assert_eq!(lookalike("requets", pypi), Some("requests"));
        assert_eq!(lookalike("Reqeusts", pypi), Some("requests"));
        assert_eq!(lookalike("numpi", pypi), Some("numpy"));
        assert_eq!(lookalike("lodahs", npm), Some("lodash"));
        // A letter that only looks alike is still one changed letter.
        assert_eq!(lookalike("reqüests", pypi), Some("requests"));
        assert_eq!(lookalike("requests", pypi), None);
        // Popular names one edit from each other are both real.
        assert_eq!(lookalike("preact", npm), None);
        assert_eq!(lookalike("numba", pypi), None);
        assert_eq!(lookalike("typing_extensions", pypi), None);
        assert_eq!(lookalike("requestsxyz", pypi), None);
        // A separator turned into a letter names another tool (`ppmap`, a scanner).
        assert_eq!(lookalike("ppmap", npm), None);
        assert_eq!(lookalike("p-mpa", npm), Some("p-map"));
        assert_eq!(package_name("reqeusts[socks]==2.0"), "reqeusts");
        assert_eq!(package_name("@scope/x@1.0"), "@scope/x");
    }
}
