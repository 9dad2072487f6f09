//! The ecosystem a package, a runtime or an API belongs to: one enum for the scanner,
//! the knowledge files, the skill's claims and the rules.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A package ecosystem: the registry a dependency name belongs to, or the runtimes and
/// Kubernetes APIs a skill can name. Written lowercase in JSON output and `rules/` files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Ecosystem {
    /// npm packages (`package.json`; JavaScript, TypeScript).
    Npm,
    /// Python packages (PyPI), names PEP 503-normalised.
    Pypi,
    /// Rust crates (crates.io).
    Cargo,
    /// Go modules.
    Go,
    /// Maven artifacts (`group:artifact`), also Gradle plugins by id.
    Maven,
    /// Ruby gems.
    Rubygems,
    /// PHP packages (Packagist, Composer).
    Composer,
    /// .NET packages (NuGet).
    Nuget,
    /// GitHub Actions (`owner/repo`) and workflow commands.
    Actions,
    /// Container images (`FROM`).
    Docker,
    /// Language runtimes (python, node, go, rust, java, ruby, php, dotnet, bun, deno); the
    /// scanner reports them as [`Runtime`](super::Runtime)s, not as dependencies.
    Runtime,
    /// Kubernetes API versions; the scanner does not read them.
    Kubernetes,
}

impl Ecosystem {
    /// The name used in JSON output, rule files and directory names.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Npm => "npm",
            Self::Pypi => "pypi",
            Self::Cargo => "cargo",
            Self::Go => "go",
            Self::Maven => "maven",
            Self::Rubygems => "rubygems",
            Self::Composer => "composer",
            Self::Nuget => "nuget",
            Self::Actions => "actions",
            Self::Docker => "docker",
            Self::Runtime => "runtime",
            Self::Kubernetes => "kubernetes",
        }
    }

    /// Whether the scanner lists this ecosystem's packages among a project's
    /// dependencies: every registry, Actions and images, but not runtimes or Kubernetes.
    pub fn has_dependencies(self) -> bool {
        !matches!(self, Self::Runtime | Self::Kubernetes)
    }
}

impl fmt::Display for Ecosystem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialised_names_are_the_display_names() {
        use Ecosystem::*;
        for eco in [
            Npm, Pypi, Cargo, Go, Maven, Rubygems, Composer, Nuget, Actions, Docker, Runtime,
            Kubernetes,
        ] {
            let json = serde_json::to_string(&eco).unwrap_or_default();
            assert_eq!(json, format!("\"{eco}\""));
            let back: Result<Ecosystem, _> = serde_json::from_str(&json);
            assert_eq!(back.ok(), Some(eco));
        }
        assert!(Npm.has_dependencies() && Docker.has_dependencies());
        assert!(!Runtime.has_dependencies() && !Kubernetes.has_dependencies());
    }
}
