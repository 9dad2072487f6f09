//! What a Dockerfile's `RUN` steps install, and whether the host already has it.
//!
//! The local backend runs a task on the host's programs, so a `RUN` step cannot be
//! reproduced; but the commonest ones only install packages, and whether the host has
//! those can be asked. A `RUN` is split into its commands (at `&&`, `||`, `;`, `|` and
//! line ends, a redirection ending a command's words); `apt-get install`/`apt install`, `pip install` (also `pip3`, `python -m pip`,
//! `uv pip`) and `npm install -g` name packages, and `apt-get update`, `apt-get clean`,
//! `rm -rf /var/lib/apt/lists/*` are housekeeping. A step made of nothing else is
//! understood; any other command (a build, a download, a `pip install -r`) leaves the step
//! among those the local backend says it does not reproduce, while the packages it names
//! are still checked.
//!
//! The host has an apt package when `dpkg-query` lists it as installed, or a program of
//! that name is on `PATH`; a pip package when the host's `python3` has its distribution;
//! an npm package when it is in `npm root -g`. A `name==version` pip pin the host has at
//! another version is told apart: the package is there, and the proof may still hold.
//! Each package is asked once per process.
//!
//! A step made only of commands that make files (`mkdir`, `touch`, `echo` or `printf` into
//! a file, `cp`, `chmod`...) is told apart with the absolute paths it names, so that the
//! local backend can run it in the cell when every one of them is the cell's own.

use std::collections::BTreeMap;
use std::process::{Command, Stdio};

/// Who installs a package.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Manager {
    /// `apt-get install`, `apt install`.
    Apt,
    /// `pip install` and its spellings.
    Pip,
    /// `npm install -g`.
    Npm,
}

impl Manager {
    fn name(self) -> &'static str {
        match self {
            Self::Apt => "apt",
            Self::Pip => "pip",
            Self::Npm => "npm",
        }
    }
}

/// One package a `RUN` step installs.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Install {
    /// Its manager.
    pub manager: Manager,
    /// Its name (pip names normalised: lower case, `_` and `.` as `-`).
    pub package: String,
    /// The exact version pinned (`pip install x==1.2`), when one is.
    pub pinned: Option<String>,
}

/// The packages one `RUN` step installs, and whether the step does nothing else.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunStep {
    /// Packages, in order.
    pub installs: Vec<Install>,
    /// Whether every command of the step is an install or housekeeping.
    pub understood: bool,
    /// When every command of the step only makes files ([`FILE_COMMANDS`], no command
    /// substitution): the absolute paths its words name, in order (a word of `echo`'s text
    /// that starts with `/` counts too, so a step is never run for naming fewer).
    pub makes_files: Option<Vec<String>>,
    /// Whether such a step names a path relative to its working directory (a file
    /// argument or redirection target not starting with `/`).
    pub relative: bool,
}

/// Commands that only make, copy, move or remove files, or write their arguments into one.
pub const FILE_COMMANDS: [&str; 12] = [
    "mkdir", "touch", "echo", "printf", "cat", "cp", "mv", "ln", "rm", "chmod", "true", "cd",
];

/// Reads a `RUN` instruction's text (with its `RUN` keyword and flags, shell or exec form).
pub fn read_run(text: &str) -> RunStep {
    let body = strip_keyword(text);
    let body = match exec_form(body) {
        Some(words) => words.join(" "),
        None => body.replace("\\\r\n", " ").replace("\\\n", " "),
    };
    if body.contains("<<") {
        // A here-document is a script of its own.
        return RunStep::default();
    }
    let mut step = RunStep {
        installs: Vec::new(),
        understood: true,
        makes_files: None,
        relative: false,
    };
    let mut paths = Some(Vec::new());
    for command in body
        .replace("&&", "\n")
        .replace("||", "\n")
        .split(['\n', ';', '|'])
        .map(str::trim)
        .filter(|c| !c.is_empty())
    {
        match read_command(command) {
            Some(installs) => {
                // An install has to be on the host already; a step mixing one with files
                // is not run.
                if !installs.is_empty() {
                    paths = None;
                }
                step.installs.extend(installs);
            }
            None => step.understood = false,
        }
        paths = paths.and_then(|mut all: Vec<String>| {
            let (named, relative) = file_paths(command)?;
            all.extend(named);
            step.relative |= relative;
            Some(all)
        });
    }
    if !step.understood {
        step.makes_files = paths;
    }
    step
}

/// The absolute paths a command of [`FILE_COMMANDS`] names (its words and redirection
/// targets starting with `/`), and whether it names a relative one; `None` for any other
/// command, or one substituting another's output.
fn file_paths(command: &str) -> Option<(Vec<String>, bool)> {
    if command.contains("$(") || command.contains('`') || command.contains("<(") {
        return None;
    }
    let words: Vec<&str> = command.split_whitespace().collect();
    // A relative path climbing out of the working directory names a place unseen.
    if words.iter().any(|w| w.contains("../") || w.ends_with("..")) {
        return None;
    }
    let program = words.first()?;
    if !FILE_COMMANDS.contains(program) {
        return None;
    }
    let bare = |w: &str| {
        w.trim_start_matches(|c: char| c.is_ascii_digit() || "&<>".contains(c))
            .trim_matches(|c| c == '"' || c == '\'')
            .to_owned()
    };
    let paths = words[1..]
        .iter()
        .map(|w| bare(w))
        .filter(|w| w.starts_with('/'))
        .collect();
    // Redirection targets, and the operands of the commands whose operands are files
    // (`chmod`'s first is its mode).
    let redirect = |w: &str| {
        w.trim_start_matches(|c: char| c.is_ascii_digit() || c == '&')
            .starts_with(['>', '<'])
    };
    let mut relative = false;
    let mut operands = 0;
    let mut target = false;
    for word in &words[1..] {
        if redirect(word) {
            let rest = bare(word);
            target = rest.is_empty();
            relative |= !rest.is_empty() && !rest.starts_with('/');
            continue;
        }
        if target {
            relative |= !bare(word).starts_with('/');
            target = false;
            continue;
        }
        if matches!(*program, "echo" | "printf" | "true") || word.starts_with('-') {
            continue;
        }
        operands += 1;
        if *program == "chmod" && operands == 1 {
            continue;
        }
        relative |= !bare(word).starts_with('/');
    }
    Some((paths, relative))
}

/// The command a `RUN` instruction's text runs: its exec form's words, or its shell form
/// given to `/bin/sh -c`, as Docker runs it.
pub fn run_command(text: &str) -> Vec<String> {
    let body = strip_keyword(text);
    match serde_json::from_str::<Vec<String>>(body.trim()) {
        Ok(words) => words,
        Err(_) => vec!["/bin/sh".to_owned(), "-c".to_owned(), body.to_owned()],
    }
}

/// `RUN` and its `--mount=…`-style flags taken off.
fn strip_keyword(text: &str) -> &str {
    let mut rest = text.trim_start();
    if rest.len() >= 3 && rest[..3].eq_ignore_ascii_case("run") {
        rest = rest[3..].trim_start();
    }
    while let Some(flag) = rest.strip_prefix("--") {
        rest = flag
            .find(char::is_whitespace)
            .map_or("", |at| flag[at..].trim_start());
    }
    rest
}

/// The words of an exec-form `RUN ["sh", "-c", "…"]`: for a shell, its script.
fn exec_form(body: &str) -> Option<Vec<String>> {
    let words: Vec<String> = serde_json::from_str(body.trim()).ok()?;
    match words.as_slice() {
        [shell, flag, script, ..] if shell.ends_with("sh") && flag == "-c" => {
            Some(vec![script.clone()])
        }
        _ => Some(words),
    }
}

/// The packages one command installs (empty for housekeeping); `None` for anything else.
fn read_command(command: &str) -> Option<Vec<Install>> {
    let mut words: Vec<&str> = command.split_whitespace().collect();
    // Leading variable assignments and `sudo` change nothing here.
    while let Some(first) = words.first() {
        let assignment = first.split_once('=').is_some_and(|(name, _)| {
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        });
        if assignment || *first == "sudo" {
            words.remove(0);
        } else {
            break;
        }
    }
    // A redirection ends what the command names.
    let redirect = |w: &&str| {
        w.trim_start_matches(|c: char| c.is_ascii_digit() || c == '&')
            .starts_with(['>', '<'])
    };
    if let Some(at) = words.iter().position(redirect) {
        words.truncate(at);
    }
    let (program, args) = words.split_first()?;
    match *program {
        "apt-get" | "apt" => apt(args),
        "pip" | "pip3" => pip(args),
        "python" | "python3" if args.first() == Some(&"-m") && args.get(1) == Some(&"pip") => {
            pip(&args[2..])
        }
        "uv" if args.first() == Some(&"pip") => pip(&args[1..]),
        "npm" => npm(args),
        "rm" if args
            .iter()
            .all(|a| a.starts_with('-') || a.starts_with("/var/lib/apt/lists")) =>
        {
            Some(Vec::new())
        }
        _ => None,
    }
}

fn apt(args: &[&str]) -> Option<Vec<Install>> {
    let sub = args
        .iter()
        .enumerate()
        .position(|(n, a)| !a.starts_with('-') && (n == 0 || !APT_VALUED.contains(&args[n - 1])))?;
    match args[sub] {
        "update" | "clean" | "autoclean" | "autoremove" => Some(Vec::new()),
        "install" => Some(
            without_values(&args[sub + 1..], APT_VALUED)
                .filter(|a| !a.starts_with('-'))
                .map(|a| {
                    // `pkg=1.2` pins, `pkg:amd64` names an architecture: the name is what
                    // the host is asked for.
                    let name = a.split(['=', ':']).next().unwrap_or(a);
                    Install {
                        manager: Manager::Apt,
                        package: name.to_owned(),
                        pinned: None,
                    }
                })
                .collect(),
        ),
        _ => None,
    }
}

/// pip options (and `uv pip`'s) that take a value as the next word: the value is not a
/// package (`--retries 3`, `--python 3.12`).
const PIP_VALUED: &[&str] = &[
    "-i",
    "--index-url",
    "--extra-index-url",
    "--index",
    "-f",
    "--find-links",
    "-c",
    "--constraint",
    "-t",
    "--target",
    "--trusted-host",
    "--retries",
    "--timeout",
    "--prefix",
    "--root",
    "--src",
    "--upgrade-strategy",
    "--platform",
    "--python-version",
    "--implementation",
    "--abi",
    "--progress-bar",
    "--cache-dir",
    "--log",
    "--proxy",
    "--cert",
    "--client-cert",
    "--exists-action",
    "--no-binary",
    "--only-binary",
    "--root-user-action",
    "--python",
    "-p",
    "-C",
    "--config-settings",
];

/// apt options that take a value as the next word (`-o Dpkg::Options::=--force-confold`,
/// `-t bookworm-backports`).
const APT_VALUED: &[&str] = &[
    "-o",
    "--option",
    "-c",
    "--config-file",
    "-t",
    "--target-release",
];

fn pip(args: &[&str]) -> Option<Vec<Install>> {
    let (sub, rest) = args.split_first()?;
    if *sub != "install" {
        return None;
    }
    let mut installs = Vec::new();
    let mut words = rest.iter();
    while let Some(word) = words.next() {
        let word = word.trim_matches(|c| c == '"' || c == '\'');
        if PIP_VALUED.contains(&word) {
            words.next();
            continue;
        }
        if word.starts_with('-') {
            // `-r requirements.txt`, `-e .`: files this check does not read.
            if matches!(word, "-r" | "--requirement" | "-e" | "--editable") {
                return None;
            }
            continue;
        }
        if word.contains('/') || word.starts_with('.') || word.contains("://") {
            return None;
        }
        let end = word
            .find(|c: char| "=<>!~;[ ".contains(c))
            .unwrap_or(word.len());
        let name = word[..end].to_lowercase().replace(['_', '.'], "-");
        if name.is_empty() {
            return None;
        }
        let pinned = word[end..]
            .split_once("==")
            .map(|(_, v)| v.trim().to_owned())
            .filter(|v| !v.is_empty() && !v.contains('*'));
        installs.push(Install {
            manager: Manager::Pip,
            package: name,
            pinned,
        });
    }
    Some(installs)
}

/// The words of `args` without the values of the options in `valued`.
fn without_values<'a>(
    args: &'a [&'a str],
    valued: &'a [&'a str],
) -> impl Iterator<Item = &'a &'a str> {
    args.iter()
        .enumerate()
        .filter(move |(n, _)| *n == 0 || !valued.contains(&args[n - 1]))
        .map(|(_, a)| a)
}

fn npm(args: &[&str]) -> Option<Vec<Install>> {
    let (sub, rest) = args.split_first()?;
    let global = rest.iter().any(|a| matches!(*a, "-g" | "--global"));
    if !matches!(*sub, "install" | "i" | "add") || !global {
        return None;
    }
    Some(
        rest.iter()
            .filter(|a| !a.starts_with('-'))
            .map(|a| {
                // `name@1.2` and `@scope/name@1.2`: the version after the last `@` that
                // does not start the name.
                let name = match a[1..].rfind('@') {
                    Some(at) => &a[..at + 1],
                    None => a,
                };
                Install {
                    manager: Manager::Npm,
                    package: name.to_owned(),
                    pinned: None,
                }
            })
            .collect(),
    )
}

/// What the host makes of a task's installs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostCheck {
    /// Packages the host does not have at all, each as `apt jq`, in order and each once.
    pub missing: Vec<String>,
    /// Pinned packages the host has at another version, each as `pip numpy==1.26.4 (the
    /// host has 2.0.1)`.
    pub other_versions: Vec<String>,
}

/// Asks the host for each install (see the module's documentation).
pub fn check_host(installs: &[Install]) -> HostCheck {
    let mut by_manager: BTreeMap<Manager, Vec<&Install>> = BTreeMap::new();
    for install in installs {
        let list = by_manager.entry(install.manager).or_default();
        if !list.contains(&install) {
            list.push(install);
        }
    }
    let mut out = HostCheck::default();
    for (manager, list) in by_manager {
        let names: Vec<&str> = list.iter().map(|i| i.package.as_str()).collect();
        let found = host_has(manager, &names);
        for install in list {
            let shown = match &install.pinned {
                Some(v) => format!("{} {}=={v}", manager.name(), install.package),
                None => format!("{} {}", manager.name(), install.package),
            };
            match (found.get(&install.package), &install.pinned) {
                (None, _) => out.missing.push(shown),
                (Some(have), Some(pin)) if have != pin => {
                    out.other_versions
                        .push(format!("{shown} (the host has {have})"));
                }
                _ => {}
            }
        }
    }
    out
}

/// What the host was found to have, by manager and package (`None`: not there), so that
/// a set of tasks installing the same packages asks the host once.
type Known = BTreeMap<(Manager, String), Option<String>>;
static KNOWN: std::sync::Mutex<Known> = std::sync::Mutex::new(BTreeMap::new());

/// The packages among `names` the host has, with their versions (empty where not known):
/// those asked before from [`KNOWN`], the others from the host.
fn host_has(manager: Manager, names: &[&str]) -> BTreeMap<String, String> {
    let known = KNOWN.lock().map(|k| k.clone()).unwrap_or_default();
    let unasked: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| !known.contains_key(&(manager, (*n).to_owned())))
        .collect();
    let asked = match (manager, unasked.is_empty()) {
        (_, true) => BTreeMap::new(),
        (Manager::Apt, false) => apt_installed(&unasked),
        (Manager::Pip, false) => pip_versions(&unasked),
        (Manager::Npm, false) => npm_installed(&unasked),
    };
    if let Ok(mut all) = KNOWN.lock() {
        for name in &unasked {
            all.insert((manager, (*name).to_owned()), asked.get(*name).cloned());
        }
    }
    names
        .iter()
        .filter_map(|n| {
            let have = match asked.get(*n) {
                Some(v) => Some(v.clone()),
                None => known.get(&(manager, (*n).to_owned())).cloned().flatten(),
            }?;
            Some(((*n).to_owned(), have))
        })
        .collect()
}

/// Runs a host command and returns its standard output, when it starts.
fn output(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Installed apt packages among `names` (or with a program of that name on `PATH`).
fn apt_installed(names: &[&str]) -> BTreeMap<String, String> {
    let mut found = BTreeMap::new();
    let mut args = vec!["-W", "-f", "${Package} ${db:Status-Status}\\n"];
    args.extend(names);
    for line in output("dpkg-query", &args).unwrap_or_default().lines() {
        if let Some((name, "installed")) = line.split_once(' ') {
            found.insert(name.to_owned(), String::new());
        }
    }
    for name in names {
        if !found.contains_key(*name) && on_path(name) {
            found.insert((*name).to_owned(), String::new());
        }
    }
    found
}

/// Versions of the distributions among `names` that the host's `python3` has.
fn pip_versions(names: &[&str]) -> BTreeMap<String, String> {
    const SCRIPT: &str = "import importlib.metadata as m, sys\n\
                          for n in sys.argv[1:]:\n    \
                              try: print(n, m.version(n))\n    \
                              except Exception: pass\n";
    let mut args = vec!["-c", SCRIPT];
    args.extend(names);
    output("python3", &args)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_once(' '))
        .map(|(n, v)| (n.to_owned(), v.trim().to_owned()))
        .collect()
}

/// Global npm packages among `names` that the host has.
fn npm_installed(names: &[&str]) -> BTreeMap<String, String> {
    let Some(root) = output("npm", &["root", "-g"]) else {
        return BTreeMap::new();
    };
    let root = std::path::PathBuf::from(root.trim());
    names
        .iter()
        .filter(|n| root.join(n).join("package.json").is_file())
        .map(|n| ((*n).to_owned(), String::new()))
        .collect()
}

/// Whether a program of this name is on the host's `PATH`.
fn on_path(name: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(name).is_file()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(step: &RunStep) -> Vec<String> {
        step.installs
            .iter()
            .map(|i| match &i.pinned {
                Some(v) => format!("{} {}=={v}", i.manager.name(), i.package),
                None => format!("{} {}", i.manager.name(), i.package),
            })
            .collect()
    }

    #[test]
    fn installs_and_housekeeping_are_understood() {
        let step = read_run(
            "RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y \\\n    --no-install-recommends jq curl=7.88.1 2>&1 && rm -rf /var/lib/apt/lists/*",
        );
        assert!(step.understood);
        assert_eq!(names(&step), ["apt jq", "apt curl"]);
        let step = read_run(
            "RUN pip install --no-cache-dir -i https://x/simple numpy==1.26.4 Pandas_Extra[all]>=2 && npm i -g @scope/tool@1.2 typescript",
        );
        assert!(step.understood);
        assert_eq!(
            names(&step),
            [
                "pip numpy==1.26.4",
                "pip pandas-extra",
                "npm @scope/tool",
                "npm typescript"
            ]
        );
        let step =
            read_run("RUN [\"/bin/sh\", \"-c\", \"python3 -m pip install requests >/dev/null\"]");
        assert_eq!(names(&step), ["pip requests"]);
        assert!(step.understood);
    }

    #[test]
    fn option_values_are_not_packages() {
        let step = read_run(
            "RUN pip install --no-cache-dir --retries 3 --timeout 60 pytest==8.4.1 \\\n      pytest-json-ctrf==0.3.5",
        );
        assert!(step.understood);
        assert_eq!(
            names(&step),
            ["pip pytest==8.4.1", "pip pytest-json-ctrf==0.3.5"]
        );
        let step = read_run("RUN uv pip install --system --python 3.12 -p 3.12 numpy");
        assert_eq!(names(&step), ["pip numpy"]);
        let step = read_run(
            "RUN apt-get -o Acquire::Retries=3 install -y -o Dpkg::Options::=--force-confold -t bookworm-backports jq",
        );
        assert!(step.understood);
        assert_eq!(names(&step), ["apt jq"]);
    }

    #[test]
    fn steps_that_only_make_files_name_their_paths() {
        let step = read_run("RUN mkdir -p /app/data && printf \"1\\n2\\n\" > /app/data/n.txt");
        assert!(!step.understood);
        assert_eq!(
            step.makes_files,
            Some(vec!["/app/data".to_owned(), "/app/data/n.txt".to_owned()])
        );
        assert!(!step.relative);
        let step = read_run("RUN echo \"hello foo world\" >/app/input.txt; chmod +x run.sh");
        assert_eq!(step.makes_files, Some(vec!["/app/input.txt".to_owned()]));
        assert!(step.relative);
        assert!(read_run("RUN printf 'a b' > out.txt").relative);
        assert!(!read_run("RUN chmod 755 /app/run.sh && echo ok a b 2>/dev/null").relative);
        // Installs, downloads, command substitution and here-documents are not file steps.
        for text in [
            "RUN apt-get install -y jq && mkdir -p /app/data",
            "RUN mkdir -p /app && curl -fsSL https://x -o /app/x",
            "RUN echo \"$(date)\" > /app/when.txt",
            "RUN cat > /app/x <<EOF\nx\nEOF",
            "RUN pip install -r requirements.txt",
        ] {
            assert_eq!(read_run(text).makes_files, None, "{text}");
        }
        // Only installs and housekeeping: understood, nothing to run.
        let step = read_run("RUN apt-get update && rm -rf /var/lib/apt/lists/*");
        assert!(step.understood);
        assert_eq!(step.makes_files, None);
    }

    #[test]
    fn other_commands_leave_the_step_not_understood_with_its_installs_kept() {
        let step = read_run("RUN apt-get install -y make && make -C /src install");
        assert!(!step.understood);
        assert_eq!(names(&step), ["apt make"]);
        assert!(!read_run("RUN pip install -r requirements.txt").understood);
        assert!(!read_run("RUN npm install").understood);
        assert!(!read_run("RUN curl -fsSL https://x | sh").understood);
        assert!(!read_run("RUN <<EOF\napt-get install -y jq\nEOF").understood);
    }

    #[test]
    fn the_host_lacks_what_it_has_not() {
        let pip = pip_versions(&["pip"]);
        let have = pip.get("pip").cloned().unwrap_or_default();
        let check = check_host(&[
            Install {
                manager: Manager::Apt,
                package: "sh".into(),
                pinned: None,
            },
            Install {
                manager: Manager::Apt,
                package: "skillgate-no-such-package".into(),
                pinned: None,
            },
            Install {
                manager: Manager::Npm,
                package: "skillgate-no-such-package".into(),
                pinned: None,
            },
            Install {
                manager: Manager::Pip,
                package: "pip".into(),
                pinned: Some("0.0.1".into()),
            },
        ]);
        assert_eq!(
            check.missing,
            [
                "apt skillgate-no-such-package",
                "npm skillgate-no-such-package"
            ]
        );
        // The test host's python3 has pip; only its version differs from the pin.
        assert!(!have.is_empty());
        assert_eq!(
            check.other_versions,
            [format!("pip pip==0.0.1 (the host has {have})")]
        );
    }
}
