//! Credentials carried through a file's shell code. A credential read puts its value into a
//! variable (`X=$(cat ~/.aws/credentials)`, a loop over key files), into a file (a
//! redirection, a copy, an archive, `tee`) or down a pipeline, and whatever later reads that
//! variable or file in the same file of the skill carries the credential on. A network
//! command that sends a carrier sends the credential: SG606 reports it with the read.

use std::collections::HashMap;

use super::shell::{Assignment, Command};
use super::{At, Scan, sensitive_path};

/// A credential and where it entered the file's code.
#[derive(Debug, Clone)]
pub(crate) struct Carried {
    /// What it is (`SSH keys (~/.ssh)`, `a .env file`).
    pub what: &'static str,
    /// The read, or the assignment that names the credential's path.
    pub at: At,
    /// The word that read it (`cat`, `for`, `KEYS=`).
    pub by: String,
    /// Whether a variable holds the credential's path rather than its content: only a word
    /// that starts with it names the file (`cat "$f"`, not `curl "$URL$f"`, a web path).
    pub path: bool,
}

/// The variables and files of each file of the skill that carry a credential.
#[derive(Default)]
pub(crate) struct Carriers {
    /// Carried variables, by file and the start of the assignment that set them: a later
    /// assignment of the same name (another loop over web paths) sets another value.
    variables: HashMap<(usize, usize), Carried>,
    /// Where each variable of each file is assigned, in file order.
    assigned: HashMap<(usize, String), Vec<usize>>,
    paths: Vec<(usize, String, Carried)>,
    /// Commands found to carry a credential, by index into [`Scan::commands`].
    commands: HashMap<usize, Carried>,
}

/// Rounds of propagation: a copy of a copy of a read is three steps; more is not seen in
/// skills, and each round costs a pass over the commands.
const ROUNDS: usize = 4;

impl Carriers {
    /// Follows every credential read of the skill (`reads` says what a command reads)
    /// through variables, files and pipelines.
    pub fn of(scan: &Scan<'_>, reads: fn(&Command) -> Option<&'static str>) -> Self {
        let mut carriers = Carriers::default();
        for assignment in &scan.assignments {
            carriers
                .assigned
                .entry((assignment.at.file, assignment.name.clone()))
                .or_default()
                .push(assignment.at.span.start);
        }
        for starts in carriers.assigned.values_mut() {
            starts.sort_unstable();
        }
        let mut pipelines: HashMap<usize, Vec<(usize, usize)>> = HashMap::new();
        for (index, command) in scan.commands.iter().enumerate() {
            if let Some((id, position)) = command.pipeline {
                pipelines.entry(id).or_default().push((position, index));
            }
            if let Some(what) = reads(command) {
                carriers.commands.insert(
                    index,
                    Carried {
                        what,
                        at: command.at.clone(),
                        by: command.name().to_owned(),
                        path: false,
                    },
                );
            }
        }
        for assignment in &scan.assignments {
            // `K=$(cat ~/.aws/credentials)` is read by its `cat`, which the rounds follow.
            let read_inside = carriers.commands.values().any(|c| {
                c.at.file == assignment.at.file
                    && assignment.at.span.start <= c.at.span.start
                    && c.at.span.end <= assignment.at.span.end
            });
            if read_inside {
                continue;
            }
            if let Some(what) = sensitive_path(text_of(scan, &assignment.at)) {
                carriers.variables.insert(
                    (assignment.at.file, assignment.at.span.start),
                    Carried {
                        what,
                        at: assignment.at.clone(),
                        by: by_assignment(scan, assignment),
                        path: true,
                    },
                );
            }
        }
        // Most skills read no credential: nothing to follow.
        if carriers.commands.is_empty() && carriers.variables.is_empty() {
            return carriers;
        }
        for _ in 0..ROUNDS {
            let before = carriers.size();
            for (index, command) in scan.commands.iter().enumerate() {
                let carried = carriers.commands.get(&index).cloned().or_else(|| {
                    carriers.read_by(command).or_else(|| {
                        // Fed by a carrier earlier in its pipeline.
                        let (id, position) = command.pipeline?;
                        pipelines[&id]
                            .iter()
                            .filter(|(p, _)| *p < position)
                            .find_map(|(_, i)| carriers.commands.get(i).cloned())
                    })
                });
                let Some(mut carried) = carried else { continue };
                // What a command prints is the content, whatever named the file.
                carried.path = false;
                carriers.commands.entry(index).or_insert(carried.clone());
                let file = command.at.file;
                for redirect in command.redirects.iter().filter(|r| !r.input) {
                    carriers.add_path(file, &redirect.target, &carried);
                }
                for written in written(command) {
                    carriers.add_path(file, written, &carried);
                }
                for assignment in scan.assignments.iter().filter(|a| {
                    a.at.file == file
                        && a.at.span.start <= command.at.span.start
                        && command.at.span.end <= a.at.span.end
                }) {
                    carriers
                        .variables
                        .entry((file, assignment.at.span.start))
                        .or_insert_with(|| carried.clone());
                }
            }
            // `ALL="$A$B"`, `for k in $KEYS`: an assignment that names a carrier.
            for assignment in &scan.assignments {
                let key = (assignment.at.file, assignment.at.span.start);
                if carriers.variables.contains_key(&key) {
                    continue;
                }
                let text = text_of(scan, &assignment.at);
                let value = text.split_once(['=', ' ']).map_or(text, |(_, v)| v);
                if let Some(carried) =
                    carriers.variable_in(assignment.at.file, assignment.at.span.start, value)
                {
                    carriers.variables.insert(key, carried);
                }
            }
            if carriers.size() == before {
                break;
            }
        }
        carriers
    }

    fn size(&self) -> usize {
        self.variables.len() + self.paths.len() + self.commands.len()
    }

    fn add_path(&mut self, file: usize, path: &str, carried: &Carried) {
        let path = normal(path);
        if path.len() <= 1 || path.starts_with('-') || path.starts_with("/dev/") {
            return;
        }
        if !self.paths.iter().any(|(f, p, _)| *f == file && *p == path) {
            self.paths.push((file, path, carried.clone()));
        }
    }

    /// A carried variable that `text`, at byte `pos` of `file`, references (`$KEYS`,
    /// `${KEYS}`) with the value its last assignment before `pos` gave it; one that holds a
    /// path counts only where it starts the word.
    fn variable_in(&self, file: usize, pos: usize, text: &str) -> Option<Carried> {
        let word = text
            .rsplit_once("=@")
            .map_or(text.trim_start_matches('@'), |(_, w)| w);
        let mut rest = text;
        while let Some(at) = rest.find('$') {
            let starts_word = word.len() == rest.len() - at;
            rest = &rest[at + 1..];
            let name: String = rest
                .trim_start_matches('{')
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let set = self.assigned.get(&(file, name)).and_then(|starts| {
                let before = starts.partition_point(|&s| s < pos);
                before.checked_sub(1).map(|i| starts[i])
            });
            if let Some(carried) = set.and_then(|start| self.variables.get(&(file, start)))
                && (!carried.path || starts_word)
            {
                return Some(carried.clone());
            }
        }
        None
    }

    /// The credential a command reads through a carrier: a carried variable in its
    /// arguments, or a carried file among its arguments (`@file`, `name=@file`,
    /// `--post-file=file`, a folder holding one) or input redirections.
    fn read_by(&self, command: &Command) -> Option<Carried> {
        if self.variables.is_empty() && self.paths.is_empty() {
            return None;
        }
        let file = command.at.file;
        let args = command.args();
        args.iter()
            .enumerate()
            // curl's `-w` format is printed here, not sent.
            .filter(|(i, _)| {
                !(command.name() == "curl"
                    && i.checked_sub(1)
                        .is_some_and(|p| matches!(args[p].text.as_str(), "-w" | "--write-out")))
            })
            .find_map(|(_, arg)| {
                self.variable_in(file, command.at.span.start, &arg.text)
                    .or_else(|| self.path_in(file, &arg.text))
            })
            .or_else(|| {
                command
                    .redirects
                    .iter()
                    .filter(|r| r.input)
                    .find_map(|r| self.path_in(file, &r.target))
            })
    }

    /// Whether a command carries a credential (read by it, fed to it, or through a carrier).
    pub fn carried_by(&self, index: usize) -> Option<&Carried> {
        self.commands.get(&index)
    }

    fn path_in(&self, file: usize, arg: &str) -> Option<Carried> {
        if self.paths.is_empty() {
            return None;
        }
        let path = arg
            .rsplit_once("=@")
            .map(|(_, p)| p)
            .or_else(|| arg.strip_prefix('@'))
            .or_else(|| {
                arg.split_once('=')
                    .filter(|(o, _)| o.starts_with("--"))
                    .map(|(_, p)| p)
            })
            .unwrap_or(arg);
        let path = normal(path);
        if path.len() <= 1 || path.starts_with('-') {
            return None;
        }
        self.paths
            .iter()
            .filter(|(f, _, _)| *f == file)
            .find(|(_, carried, _)| same_or_within(carried, &path))
            .map(|(_, _, c)| c.clone())
    }
}

/// The text of a span of the scan.
fn text_of<'s>(scan: &'s Scan<'_>, at: &At) -> &'s str {
    scan.files[at.file]
        .source
        .text
        .get(at.span.clone())
        .unwrap_or_default()
}

/// How a finding names an assignment that reads a credential's path (`for`, `KEYS=`).
fn by_assignment(scan: &Scan<'_>, assignment: &Assignment) -> String {
    if text_of(scan, &assignment.at).starts_with("for") {
        "for".to_owned()
    } else {
        format!("{}=", assignment.name)
    }
}

/// The files a command writes what it reads into: a copy's destination, an archive.
fn written(command: &Command) -> Vec<&str> {
    let args = command.args();
    let operands = || args.iter().filter(|a| !a.text.starts_with('-'));
    match command.name() {
        "cp" | "mv" | "install" | "rsync" | "ditto" => {
            let count = operands().count();
            operands()
                .next_back()
                .filter(|_| count >= 2)
                .map(|w| w.text.as_str())
                .into_iter()
                .collect()
        }
        "tee" => operands().map(|w| w.text.as_str()).collect(),
        "zip" | "7z" | "7za" => operands()
            .find(|w| !matches!(w.text.as_str(), "a" | "u"))
            .map(|w| w.text.as_str())
            .into_iter()
            .collect(),
        "tar" => {
            for (i, arg) in args.iter().enumerate() {
                let text = arg.text.as_str();
                if let Some(file) = text.strip_prefix("--file=") {
                    return vec![file];
                }
                let bundle = text.trim_start_matches('-');
                let bundled = !text.starts_with("--")
                    && !bundle.is_empty()
                    && bundle.chars().all(|c| c.is_ascii_alphabetic())
                    && bundle.contains('f')
                    && (i == 0 || text.starts_with('-'));
                if bundled || text == "--file" {
                    return args
                        .get(i + 1)
                        .map(|w| w.text.as_str())
                        .into_iter()
                        .collect();
                }
            }
            Vec::new()
        }
        _ => Vec::new(),
    }
}

/// A path as the carriers compare it: without a trailing `/`, with each `$(…)` (a date, a
/// host name) read as any text.
fn normal(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut rest = path;
    while let Some(at) = rest.find("$(") {
        out.push_str(&rest[..at]);
        out.push('*');
        let mut depth = 0usize;
        let mut end = rest.len();
        for (i, c) in rest[at..].char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = at + i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    let trimmed = out.trim_end_matches('/');
    trimmed.to_owned()
}

/// Whether `used` is the carried path, a file inside it, or a folder that holds it.
fn same_or_within(carried: &str, used: &str) -> bool {
    glob(carried, used)
        || glob(used, carried)
        || used
            .strip_prefix(carried)
            .is_some_and(|rest| rest.starts_with('/'))
        || carried
            .strip_prefix(used)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// Whether `text` matches `pattern`, where `*` is any run of characters.
fn glob(pattern: &str, text: &str) -> bool {
    let Some((head, tail)) = pattern.split_once('*') else {
        return pattern == text;
    };
    let Some(rest) = text.strip_prefix(head) else {
        return false;
    };
    (0..=rest.len())
        .filter(|&i| rest.is_char_boundary(i))
        .any(|i| glob(tail, &rest[i..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_compare_through_substitutions_and_folders() {
        assert_eq!(normal("/tmp/b_$(date +%Y).tar.gz"), "/tmp/b_*.tar.gz");
        assert_eq!(normal("$DIR/"), "$DIR");
        assert!(same_or_within("/tmp/b_*.tar.gz", "/tmp/b_*.tar.gz"));
        assert!(same_or_within("/tmp/b_*.tar.gz", "/tmp/b_20261203.tar.gz"));
        assert!(same_or_within("$DIR/ssh_keys", "$DIR"));
        assert!(same_or_within("$DIR", "$DIR/ssh_keys"));
        assert!(!same_or_within("$DIR", "$DIRECTORY"));
        assert!(!same_or_within("/tmp/a", "/tmp/b"));
    }
}
