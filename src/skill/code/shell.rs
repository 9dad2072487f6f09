//! Shell: package installs (`pip install "x>=2"`, `npm i -D x@1`, `cargo add x@1`...).
//!
//! Commands come from the bash grammar, so quoting, `&&` chains and line continuations are
//! handled by the parser; each command's words are then read by the installer's own syntax.

use tree_sitter::Node;

use super::facts::{CodeFacts, Install, Span};
use super::syntax::{Source, pep508, walk};
use crate::project::{Ecosystem, canonical_name};

/// Collects the installs of a bash tree.
pub(super) fn read(root: Node<'_>, source: Source<'_>, facts: &mut CodeFacts) {
    walk(root, |node, _| {
        if node.kind() == "command" {
            let words = words(node, source);
            facts.installs.extend(installs(&words));
        }
    });
}

/// A transcript's commands: lines after a `$`, `%` or `>` prompt, with everything else
/// (output, the prompt itself) blanked byte for byte so offsets stay those of the block.
pub(crate) fn console_commands(text: &str) -> String {
    let mut out = Vec::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let prompt = ["$ ", "% ", "> "].iter().find(|p| trimmed.starts_with(**p));
        let keep_from = prompt.map_or(line.len(), |p| line.len() - trimmed.len() + p.len());
        let (blanked, kept) = line.as_bytes().split_at(keep_from);
        out.extend(
            blanked
                .iter()
                .map(|&b| if b == b'\n' { b'\n' } else { b' ' }),
        );
        out.extend_from_slice(kept);
    }
    // Kept parts are whole lines' tails after ASCII prompts, so the bytes stay UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

/// One shell word, unquoted, with its span.
#[derive(Debug, Clone)]
struct Word {
    text: String,
    span: Span,
}

/// The command's name and arguments, quotes removed.
fn words(command: Node<'_>, source: Source<'_>) -> Vec<Word> {
    let mut cursor = command.walk();
    command
        .named_children(&mut cursor)
        .filter(|child| {
            !matches!(
                child.kind(),
                "variable_assignment" | "file_redirect" | "comment"
            )
        })
        .map(|child| Word {
            text: shell_word(source.text(child)),
            span: source.span(child),
        })
        .collect()
}

/// A word as bash passes it on: one pair of enclosing quotes, `$'…'`, and the quotes and
/// escaping backslashes inside (`cur\l`, `c"u"rl`) removed. The skill's code facts and the
/// security rules read shell words through this one function.
pub(crate) fn shell_word(raw: &str) -> String {
    let bytes = raw.as_bytes();
    if bytes.len() >= 2
        && (bytes[0] == b'"' || bytes[0] == b'\'')
        && bytes[bytes.len() - 1] == bytes[0]
    {
        return raw[1..raw.len() - 1].to_owned();
    }
    if let Some(inner) = raw.strip_prefix("$'").and_then(|r| r.strip_suffix('\'')) {
        return inner.to_owned();
    }
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' | '\'' => {}
            '\\' => {
                if let Some(next) = chars.next().filter(|n| *n != '\n') {
                    out.push(next);
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// The installs one command makes.
fn installs(words: &[Word]) -> Vec<Install> {
    let words = strip_wrappers(words);
    let Some((tool, rest)) = words.split_first() else {
        return Vec::new();
    };
    // A prompt glued to the command (`$cargo add x`) is not part of its name.
    let tool = tool.text.trim_start_matches('$');
    let sub = rest.first().map(|w| w.text.as_str());
    let args = rest.get(1..).unwrap_or_default();
    match (tool, sub) {
        ("pip" | "pip3", Some("install")) => pip(args, "pip"),
        ("python" | "python3" | "py", Some("-m")) => match rest.get(1..3) {
            Some([module, install])
                if module.text.starts_with("pip") && install.text == "install" =>
            {
                pip(rest.get(3..).unwrap_or_default(), "pip")
            }
            _ => Vec::new(),
        },
        ("uv", Some("pip")) if args.first().is_some_and(|w| w.text == "install") => {
            pip(args.get(1..).unwrap_or_default(), "uv")
        }
        ("uv", Some("add")) => pip(args, "uv"),
        ("poetry", Some("add")) => poetry(args),
        ("pipenv", Some("install")) => pip(args, "pipenv"),
        ("npm", Some("install" | "i" | "add")) => npm(args, "npm"),
        ("pnpm", Some("add" | "install" | "i")) => npm(args, "pnpm"),
        ("yarn", Some("add")) => npm(args, "yarn"),
        ("bun", Some("add" | "install" | "i")) => npm(args, "bun"),
        ("cargo", Some("add")) => cargo(args),
        ("go", Some("get")) => go(args),
        ("gem", Some("install")) => gem(args),
        ("bundle", Some("add")) => gem(args),
        ("composer", Some("require")) => composer(args),
        ("dotnet", Some("add")) => dotnet(rest),
        _ => Vec::new(),
    }
}

/// Drops `sudo` and its flags, so `sudo -E pip install x` reads as `pip install x`.
fn strip_wrappers(words: &[Word]) -> &[Word] {
    let mut words = words;
    while let Some((first, rest)) = words.split_first() {
        if first.text != "sudo" {
            break;
        }
        words = rest;
        while words.first().is_some_and(|w| w.text.starts_with('-')) {
            words = &words[1..];
        }
    }
    words
}

/// Options whose value is the next word, per installer; their value is not a package.
const PIP_VALUED: &[&str] = &[
    "-r",
    "--requirement",
    "-c",
    "--constraint",
    "-e",
    "--editable",
    "-i",
    "--index-url",
    "--extra-index-url",
    "-f",
    "--find-links",
    "-t",
    "--target",
    "--prefix",
    "--python",
    "-p",
    "--group",
    "--optional",
    "--extra",
    "--source",
    "--root",
    "--platform",
    "--python-version",
    "--jobs",
];
const NPM_VALUED: &[&str] = &[
    "--registry",
    "--prefix",
    "-w",
    "--workspace",
    "--filter",
    "--cwd",
    "--tag",
];
const CARGO_VALUED: &[&str] = &[
    "-F",
    "--features",
    "--rename",
    "-p",
    "--package",
    "--path",
    "--git",
    "--branch",
    "--tag",
    "--rev",
    "--registry",
    "--target",
    "--manifest-path",
];

/// The positional arguments: options, their values and environment-looking words dropped.
fn positionals<'w>(args: &'w [Word], valued: &[&str]) -> Vec<&'w Word> {
    let mut out = Vec::new();
    let mut skip_next = false;
    for word in args {
        if skip_next {
            skip_next = false;
        } else if word.text.starts_with('-') {
            skip_next = valued.contains(&word.text.as_str());
        } else if is_package_word(&word.text) {
            out.push(word);
        }
    }
    out
}

/// Paths, URLs, archives, variables and shell operators are not registry packages.
fn is_package_word(text: &str) -> bool {
    !text.is_empty()
        && !text.contains("://")
        && !text.starts_with(['.', '/', '~', '$', '<', '>', '|', '&', ';', '('])
        && !text.ends_with(".txt")
        && !text.ends_with(".whl")
        && !text.ends_with(".tar.gz")
        && !text.starts_with("git+")
}

/// `x==1`, `x[extra]>=1,<2`, `x` (PEP 508).
fn pip(args: &[Word], manager: &'static str) -> Vec<Install> {
    positionals(args, PIP_VALUED)
        .into_iter()
        .filter_map(|word| {
            let (package, constraint) = pep508(&word.text)?;
            Some(Install {
                manager,
                ecosystem: Ecosystem::Pypi,
                package,
                constraint,
                span: word.span,
            })
        })
        .collect()
}

/// `poetry add x@^1`, `poetry add "x>=1"`.
fn poetry(args: &[Word]) -> Vec<Install> {
    positionals(args, PIP_VALUED)
        .into_iter()
        .filter_map(|word| {
            let (name, constraint) = match word.text.split_once('@') {
                Some((name, version)) => (name, nonempty(version)),
                None => {
                    let split = word
                        .text
                        .find(['=', '<', '>', '!', '~', '^'])
                        .unwrap_or(word.text.len());
                    let (name, rest) = word.text.split_at(split);
                    (name, nonempty(rest))
                }
            };
            super::syntax::pypi_name(name)?;
            Some(Install {
                manager: "poetry",
                ecosystem: Ecosystem::Pypi,
                package: canonical_name(Ecosystem::Pypi, name),
                constraint,
                span: word.span,
            })
        })
        .collect()
}

/// `x@1`, `@scope/x@^2`, `x`. A global install (`npm i -g vercel`) sets up a command-line
/// tool for the machine, not a dependency of a project, and installs nothing here.
fn npm(args: &[Word], manager: &'static str) -> Vec<Install> {
    if args
        .iter()
        .any(|w| matches!(w.text.as_str(), "-g" | "--global"))
    {
        return Vec::new();
    }
    positionals(args, NPM_VALUED)
        .into_iter()
        .filter_map(|word| {
            let text = word.text.as_str();
            // The version separator is the last `@` that is not the scope's leading one.
            let (name, constraint) = match text.rfind('@').filter(|&at| at > 0) {
                Some(at) => (&text[..at], nonempty(&text[at + 1..])),
                None => (text, None),
            };
            npm_name(name)?;
            Some(Install {
                manager,
                ecosystem: Ecosystem::Npm,
                package: name.to_owned(),
                constraint,
                span: word.span,
            })
        })
        .collect()
}

/// An npm package name: lowercase-ish, optionally `@scope/name`; no paths or tarballs.
fn npm_name(name: &str) -> Option<&str> {
    let bare = name
        .strip_prefix('@')
        .and_then(|n| n.split_once('/'))
        .map_or(name, |(_, n)| n);
    let valid = !bare.is_empty()
        && !name.contains(':')
        && bare
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && !name.ends_with(".tgz");
    valid.then_some(name)
}

/// `cargo add x@1 y --features z`.
fn cargo(args: &[Word]) -> Vec<Install> {
    positionals(args, CARGO_VALUED)
        .into_iter()
        .filter_map(|word| {
            let (name, constraint) = match word.text.split_once('@') {
                Some((name, version)) => (name, nonempty(version)),
                None => (word.text.as_str(), None),
            };
            let valid = !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'));
            valid.then(|| Install {
                manager: "cargo",
                ecosystem: Ecosystem::Cargo,
                package: name.to_owned(),
                constraint,
                span: word.span,
            })
        })
        .collect()
}

/// `go get example.com/m@v1.2.3`.
fn go(args: &[Word]) -> Vec<Install> {
    positionals(args, &[])
        .into_iter()
        .filter_map(|word| {
            let (path, version) = match word.text.split_once('@') {
                Some((path, version)) => (path, nonempty(version)),
                None => (word.text.as_str(), None),
            };
            // A module path has a dot in its first element (a host) and no spaces.
            let host = path.split('/').next().unwrap_or_default();
            let valid = host.contains('.') && !path.contains(char::is_whitespace);
            valid.then(|| Install {
                manager: "go",
                ecosystem: Ecosystem::Go,
                package: path.trim_end_matches("/...").to_owned(),
                constraint: version,
                span: word.span,
            })
        })
        .collect()
}

/// `gem install x -v 1.2`, `gem install x --version '~> 1.2'`, `bundle add x --version 1`.
fn gem(args: &[Word]) -> Vec<Install> {
    let version = option_value(args, &["-v", "--version"]);
    positionals(
        args,
        &[
            "-v",
            "--version",
            "--source",
            "--group",
            "-g",
            "--install-dir",
            "-i",
        ],
    )
    .into_iter()
    .filter(|word| {
        word.text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    })
    .map(|word| Install {
        manager: "gem",
        ecosystem: Ecosystem::Rubygems,
        package: word.text.clone(),
        constraint: version.clone(),
        span: word.span,
    })
    .collect()
}

/// `composer require vendor/x:^2`, `vendor/x=^2` or `vendor/x "^2"`.
fn composer(args: &[Word]) -> Vec<Install> {
    let positionals = positionals(args, &["--working-dir", "-d"]);
    let mut out = Vec::new();
    let mut index = 0;
    while let Some(word) = positionals.get(index) {
        index += 1;
        let (name, mut constraint) = match word.text.split_once([':', '=', ' ']) {
            Some((name, version)) => (name, nonempty(version)),
            None => (word.text.as_str(), None),
        };
        if !name.contains('/') {
            continue;
        }
        // A separate constraint word follows the name.
        if constraint.is_none() {
            let next = positionals.get(index).filter(|w| !w.text.contains('/'));
            if let Some(next) = next {
                constraint = Some(next.text.clone());
                index += 1;
            }
        }
        out.push(Install {
            manager: "composer",
            ecosystem: Ecosystem::Composer,
            package: name.to_ascii_lowercase(),
            constraint,
            span: word.span,
        });
    }
    out
}

/// `dotnet add [project] package X [--version 1]`.
fn dotnet(rest: &[Word]) -> Vec<Install> {
    let Some(at) = rest.iter().position(|w| w.text == "package") else {
        return Vec::new();
    };
    let args = rest.get(at + 1..).unwrap_or_default();
    let version = option_value(args, &["-v", "--version"]);
    let valued = [
        "-v",
        "--version",
        "-f",
        "--framework",
        "-s",
        "--source",
        "--package-directory",
    ];
    positionals(args, &valued)
        .into_iter()
        .take(1)
        .map(|word| Install {
            manager: "dotnet",
            ecosystem: Ecosystem::Nuget,
            package: word.text.clone(),
            constraint: version.clone(),
            span: word.span,
        })
        .collect()
}

/// The value of the first of `names` in `args` (`-v 1`, `--version=1`).
fn option_value(args: &[Word], names: &[&str]) -> Option<String> {
    args.iter().enumerate().find_map(|(i, word)| {
        if names.contains(&word.text.as_str()) {
            return args.get(i + 1).map(|value| value.text.clone());
        }
        let (name, value) = word.text.split_once('=')?;
        names.contains(&name).then(|| value.to_owned())
    })
}

fn nonempty(text: &str) -> Option<String> {
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::super::tests::{facts, spanned};
    use super::shell_word;
    use crate::project::Ecosystem;

    fn installs(lang: &str, text: &str) -> Vec<(Ecosystem, String, Option<String>, String)> {
        facts(lang, text)
            .installs
            .into_iter()
            .map(|i| {
                (
                    i.ecosystem,
                    i.package,
                    i.constraint,
                    spanned(text, i.span).to_owned(),
                )
            })
            .collect()
    }

    fn one(
        eco: Ecosystem,
        package: &str,
        constraint: Option<&str>,
        span: &str,
    ) -> (Ecosystem, String, Option<String>, String) {
        (
            eco,
            package.to_owned(),
            constraint.map(str::to_owned),
            span.to_owned(),
        )
    }

    #[test]
    fn pip_uv_and_poetry() {
        let text = "sudo pip install -U \"x>=2\" Y_Z==1 -r req.txt 'w[all]>=1,<2'\n\
                    python -m pip install requests\nuv add httpx\nuv pip install 'a~=1.4'\npoetry add pydantic@^1 \"b>=3\"\n";
        let got = installs("bash", text);
        assert_eq!(
            got,
            [
                one(Ecosystem::Pypi, "x", Some(">=2"), "\"x>=2\""),
                one(Ecosystem::Pypi, "y-z", Some("==1"), "Y_Z==1"),
                one(Ecosystem::Pypi, "w", Some(">=1,<2"), "'w[all]>=1,<2'"),
                one(Ecosystem::Pypi, "requests", None, "requests"),
                one(Ecosystem::Pypi, "httpx", None, "httpx"),
                one(Ecosystem::Pypi, "a", Some("~=1.4"), "'a~=1.4'"),
                one(Ecosystem::Pypi, "pydantic", Some("^1"), "pydantic@^1"),
                one(Ecosystem::Pypi, "b", Some(">=3"), "\"b>=3\""),
            ]
        );
    }

    #[test]
    fn javascript_package_managers() {
        let text = "npm i -D @s/p@1 q && npm install --save-dev typescript@~5.4\n\
                    pnpm add react@18\nyarn add vue\nbun add hono@^4\nnpm install\nnpm i ./local\n";
        let got = installs("sh", text);
        assert_eq!(
            got,
            [
                one(Ecosystem::Npm, "@s/p", Some("1"), "@s/p@1"),
                one(Ecosystem::Npm, "q", None, "q"),
                one(
                    Ecosystem::Npm,
                    "typescript",
                    Some("~5.4"),
                    "typescript@~5.4"
                ),
                one(Ecosystem::Npm, "react", Some("18"), "react@18"),
                one(Ecosystem::Npm, "vue", None, "vue"),
                one(Ecosystem::Npm, "hono", Some("^4"), "hono@^4"),
            ]
        );
    }

    #[test]
    fn cargo_go_gem_composer_dotnet() {
        let text = "cargo add tokio@1 serde --features derive\ngo get github.com/gin-gonic/gin@v1.9.1\n\
                    gem install rails -v 7.1\ncomposer require laravel/framework:^11 monolog/monolog \"^3\"\n\
                    dotnet add package Newtonsoft.Json --version 13.0.3\n";
        let got = installs("shell", text);
        assert_eq!(
            got,
            [
                one(Ecosystem::Cargo, "tokio", Some("1"), "tokio@1"),
                one(Ecosystem::Cargo, "serde", None, "serde"),
                one(
                    Ecosystem::Go,
                    "github.com/gin-gonic/gin",
                    Some("v1.9.1"),
                    "github.com/gin-gonic/gin@v1.9.1"
                ),
                one(Ecosystem::Rubygems, "rails", Some("7.1"), "rails"),
                one(
                    Ecosystem::Composer,
                    "laravel/framework",
                    Some("^11"),
                    "laravel/framework:^11"
                ),
                one(
                    Ecosystem::Composer,
                    "monolog/monolog",
                    Some("^3"),
                    "monolog/monolog"
                ),
                one(
                    Ecosystem::Nuget,
                    "Newtonsoft.Json",
                    Some("13.0.3"),
                    "Newtonsoft.Json"
                ),
            ]
        );
    }

    #[test]
    fn console_reads_only_prompted_lines() {
        let text =
            "$ pip install flask==3.0\nCollecting flask==3.0\n  Downloading é…\n$ npm i left-pad\n";
        let got = installs("console", text);
        assert_eq!(
            got,
            [
                one(Ecosystem::Pypi, "flask", Some("==3.0"), "flask==3.0"),
                one(Ecosystem::Npm, "left-pad", None, "left-pad"),
            ]
        );
    }

    #[test]
    fn variables_are_not_packages() {
        assert_eq!(
            installs("bash", "pip install $PKG \"${EXTRA}\" requests\n"),
            [one(Ecosystem::Pypi, "requests", None, "requests")]
        );
    }

    #[test]
    fn non_install_commands_are_ignored() {
        for text in [
            "pip list\n",
            "npm run build\n",
            "echo pip install x\n",
            "cargo install ripgrep\n",
            "go install x.io/y@latest\n",
        ] {
            assert!(installs("bash", text).is_empty(), "{text}");
        }
    }

    #[test]
    fn shell_words_lose_quotes_and_escapes_as_bash_reads_them() {
        assert_eq!(shell_word("\"x>=2\""), "x>=2");
        assert_eq!(shell_word("$'a b'"), "a b");
        assert_eq!(shell_word("cur\\l"), "curl");
        assert_eq!(shell_word("c\"u\"rl"), "curl");
        assert_eq!(shell_word("requests[socks]==2"), "requests[socks]==2");
    }
}
