//! The sink every ecosystem reader writes into, and the final assembly of a [`Project`].

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::tools::Role;
use super::{
    DepKind, Dependency, Ecosystem, LanguageCount, Located, OwnName, Project, Runtime, RuntimeKind,
    ScanDiagnostic, Tools, tools, version,
};

/// Accumulates what the readers find while the walk goes on.
pub(crate) struct Sink {
    root: PathBuf,
    dependencies: Vec<Dependency>,
    /// Lockfile versions in the order seen. A flat list, sorted once at the end: lockfiles
    /// hold tens of thousands of packages, and a map per package costs far more memory.
    locked: Vec<Locked>,
    /// `[workspace.dependencies]` of Cargo workspaces, for members that inherit them.
    cargo_workspace: HashMap<String, Located<String>>,
    /// Indices into `dependencies` of Cargo entries written `{ workspace = true }`.
    cargo_inherits: Vec<usize>,
    runtimes: Vec<Runtime>,
    evidence: Vec<(Role, String, Located<String>)>,
    diagnostics: Vec<ScanDiagnostic>,
    /// Files already read (requirements includes may also be found by the walk).
    read: HashSet<PathBuf>,
    own: Vec<OwnName>,
}

impl Sink {
    /// An empty sink for the repository at `root`.
    pub(crate) fn new(root: &Path) -> Self {
        Self {
            root: root.to_path_buf(),
            dependencies: Vec::new(),
            locked: Vec::new(),
            cargo_workspace: HashMap::new(),
            cargo_inherits: Vec::new(),
            runtimes: Vec::new(),
            evidence: Vec::new(),
            diagnostics: Vec::new(),
            read: HashSet::new(),
            own: Vec::new(),
        }
    }

    /// Records a package or module the project defines itself.
    pub(crate) fn own(&mut self, ecosystem: Ecosystem, name: &str) {
        let name = canonical_name(ecosystem, name);
        if !name.is_empty() {
            self.own.push(OwnName { ecosystem, name });
        }
    }

    /// The repository root.
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// Marks a file as read; false when it already was.
    pub(crate) fn first_read(&mut self, rel: &Path) -> bool {
        self.read.insert(rel.to_path_buf())
    }

    /// Records a declared dependency and returns its index.
    pub(crate) fn declare(
        &mut self,
        ecosystem: Ecosystem,
        name: &str,
        kind: DepKind,
        constraint: Option<Located<String>>,
    ) -> usize {
        self.dependencies.push(Dependency {
            ecosystem,
            name: canonical_name(ecosystem, name),
            kind,
            constraint,
            resolved: None,
        });
        self.dependencies.len() - 1
    }

    /// Sets the resolved version of a declared dependency (for formats where the manifest
    /// itself pins the exact version, such as `go.mod`).
    pub(crate) fn set_resolved(&mut self, index: usize, resolved: Located<String>) {
        if let Some(dep) = self.dependencies.get_mut(index) {
            dep.resolved = Some(resolved);
        }
    }

    /// Records a version a lockfile resolved for a package.
    ///
    /// A version that starts like one but does not read as a release in the ecosystem is
    /// reported and left out, so the manifest's constraint stands for the package instead of
    /// a value no rule can compare.
    pub(crate) fn lock(&mut self, ecosystem: Ecosystem, name: &str, version: Located<String>) {
        let value = version.value.trim_start_matches(['v', 'V']);
        if value.starts_with(|c: char| c.is_ascii_digit())
            && version::release_line(ecosystem, value).is_none()
        {
            let message = format!(
                "the locked version `{}` of {name} is not a version by {}'s rules; \
                 the manifest's constraint is used instead",
                version.value,
                ecosystem.as_str()
            );
            self.diagnostic(&version.path, version.line, version.column, message);
            return;
        }
        self.locked.push(Locked {
            ecosystem,
            name: canonical_name(ecosystem, name),
            version,
        });
    }

    /// Records a `[workspace.dependencies]` entry.
    pub(crate) fn cargo_workspace_dep(&mut self, name: &str, constraint: Located<String>) {
        self.cargo_workspace.insert(name.to_string(), constraint);
    }

    /// Marks a Cargo dependency as inheriting its constraint from the workspace.
    pub(crate) fn cargo_inherits(&mut self, index: usize) {
        self.cargo_inherits.push(index);
    }

    /// Records a runtime version or range.
    pub(crate) fn runtime(&mut self, name: &str, kind: RuntimeKind, mut version: Located<String>) {
        if name == "java" {
            version.value = java_release(&version.value);
        }
        self.runtimes.push(Runtime {
            name: name.to_string(),
            kind,
            version,
        });
    }

    /// Records evidence that a tool is used.
    pub(crate) fn tool(&mut self, role: Role, name: &str, evidence: Located<String>) {
        self.evidence.push((role, name.to_string(), evidence));
    }

    /// Records a file that could not be read or parsed.
    pub(crate) fn diagnostic(&mut self, path: &Path, line: u32, column: u32, message: String) {
        self.diagnostics.push(ScanDiagnostic {
            path: path.to_path_buf(),
            line,
            column,
            message,
        });
    }

    /// Appends what another sink found (one lockfile read on its own thread).
    pub(crate) fn merge(&mut self, other: Sink) {
        let offset = self.dependencies.len();
        self.dependencies.extend(other.dependencies);
        self.cargo_inherits
            .extend(other.cargo_inherits.into_iter().map(|i| i + offset));
        self.cargo_workspace.extend(other.cargo_workspace);
        if self.locked.is_empty() {
            self.locked = other.locked;
        } else {
            self.locked.extend(other.locked);
        }
        self.runtimes.extend(other.runtimes);
        self.evidence.extend(other.evidence);
        self.diagnostics.extend(other.diagnostics);
        self.read.extend(other.read);
        self.own.extend(other.own);
    }

    /// Resolves inheritance and lockfile versions and assembles the project.
    pub(crate) fn finish(mut self, languages: Vec<LanguageCount>) -> Project {
        self.apply_cargo_inheritance();
        let locked = sorted_unique(std::mem::take(&mut self.locked));
        fill_resolved(&mut self.dependencies, &locked);
        add_transitive(&mut self.dependencies, locked);
        self.dependencies.sort_unstable_by(|a, b| {
            (a.ecosystem, &a.name, a.kind, location_key(a)).cmp(&(
                b.ecosystem,
                &b.name,
                b.kind,
                location_key(b),
            ))
        });
        let mut tools = Tools::default();
        tools::infer(&self.dependencies, self.evidence, &mut tools);
        self.diagnostics
            .sort_by(|a, b| (&a.path, a.line, a.column).cmp(&(&b.path, b.line, b.column)));
        self.own.sort();
        self.own.dedup();
        Project {
            own: self.own,
            root: self.root,
            languages,
            dependencies: self.dependencies,
            runtimes: self.runtimes,
            tools,
            diagnostics: self.diagnostics,
        }
    }

    fn apply_cargo_inheritance(&mut self) {
        for &index in &self.cargo_inherits {
            let Some(dep) = self.dependencies.get_mut(index) else {
                continue;
            };
            if let Some(constraint) = self.cargo_workspace.get(&dep.name) {
                dep.constraint = Some(constraint.clone());
            }
        }
    }
}

/// A version a lockfile resolved.
struct Locked {
    ecosystem: Ecosystem,
    name: String,
    version: Located<String>,
}

/// Sorted by package, first-seen order kept within a package, repeated versions dropped.
fn sorted_unique(mut locked: Vec<Locked>) -> Vec<Locked> {
    locked.sort_by(|a, b| (a.ecosystem, &a.name).cmp(&(b.ecosystem, &b.name)));
    locked.dedup_by(|b, a| {
        a.ecosystem == b.ecosystem && a.name == b.name && a.version.value == b.version.value
    });
    locked
}

/// The locked entries of one package in a sorted list.
fn locked_versions<'a>(locked: &'a [Locked], ecosystem: Ecosystem, name: &str) -> &'a [Locked] {
    let key = (ecosystem, name);
    let start = locked.partition_point(|l| (l.ecosystem, l.name.as_str()) < key);
    let len = locked[start..].partition_point(|l| (l.ecosystem, l.name.as_str()) == key);
    &locked[start..start + len]
}

/// Gives each declared dependency the locked version its constraint admits (the first
/// locked version when none is known to).
fn fill_resolved(dependencies: &mut [Dependency], locked: &[Locked]) {
    for dep in dependencies.iter_mut().filter(|d| d.resolved.is_none()) {
        let versions = locked_versions(locked, dep.ecosystem, &dep.name);
        let admitted = dep.constraint.as_ref().and_then(|c| {
            versions.iter().find(|l| {
                version::satisfies(dep.ecosystem, &c.value, &l.version.value) == Some(true)
            })
        });
        dep.resolved = admitted
            .or_else(|| versions.first())
            .map(|l| l.version.clone());
    }
}

/// Lockfile packages nobody declares become transitive dependencies. They are moved
/// straight into the list, reserved once: lockfiles bring tens of thousands of them.
fn add_transitive(dependencies: &mut Vec<Dependency>, locked: Vec<Locked>) {
    let mut declared: Vec<(Ecosystem, String)> = dependencies
        .iter()
        .map(|d| (d.ecosystem, d.name.clone()))
        .collect();
    declared.sort_unstable();
    let is_declared = |l: &Locked| {
        declared
            .binary_search_by(|(e, n)| (*e, n.as_str()).cmp(&(l.ecosystem, l.name.as_str())))
            .is_ok()
    };
    dependencies.reserve_exact(locked.iter().filter(|l| !is_declared(l)).count());
    for l in locked.into_iter().filter(|l| !is_declared(l)) {
        dependencies.push(Dependency {
            ecosystem: l.ecosystem,
            name: l.name,
            kind: DepKind::Transitive,
            constraint: None,
            resolved: Some(l.version),
        });
    }
}

/// Where a dependency is written, for a stable order. Paths compare as plain strings:
/// comparing them component by component costs more than the rest of the sort.
fn location_key(dep: &Dependency) -> (Option<&std::ffi::OsStr>, u32) {
    let place = dep.constraint.as_ref().or(dep.resolved.as_ref());
    (
        place.map(|l| l.path.as_os_str()),
        place.map_or(0, |l| l.line),
    )
}

/// The canonical spelling of a package name in its ecosystem, so that lookups match
/// however the name was written.
pub(crate) fn canonical_name(ecosystem: Ecosystem, name: &str) -> String {
    let name = name.trim();
    match ecosystem {
        Ecosystem::Pypi => pep503(name),
        Ecosystem::Nuget | Ecosystem::Composer | Ecosystem::Docker => name.to_ascii_lowercase(),
        _ => name.to_string(),
    }
}

/// PEP 503: lowercase, runs of `-`, `_` and `.` become one `-`.
fn pep503(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut in_run = false;
    for c in name.chars() {
        if matches!(c, '-' | '_' | '.') {
            if !in_run {
                out.push('-');
            }
            in_run = true;
        } else {
            out.push(c.to_ascii_lowercase());
            in_run = false;
        }
    }
    out
}

/// A Java release by its feature number: `1.8` (and `1.8.0_292`) is Java 8, as the JDK
/// numbers releases since 9 and as skills write them; newer numbers stay as written.
fn java_release(written: &str) -> String {
    let old = written.strip_prefix("1.").map(|rest| {
        let end = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        &rest[..end]
    });
    match old {
        Some(major) if !major.is_empty() => major.to_owned(),
        _ => written.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pypi_names_are_normalised() {
        assert_eq!(pep503("Django_REST.framework"), "django-rest-framework");
        assert_eq!(pep503("zope..interface"), "zope-interface");
        assert_eq!(canonical_name(Ecosystem::Npm, "@Scope/X"), "@Scope/X");
    }

    #[test]
    fn java_releases_go_by_their_feature_number() {
        assert_eq!(java_release("1.8"), "8");
        assert_eq!(java_release("1.8.0_292"), "8");
        assert_eq!(java_release("1.7"), "7");
        assert_eq!(java_release("11"), "11");
        assert_eq!(java_release("17.0.2"), "17.0.2");
        assert_eq!(java_release("1."), "1.");
    }
}
