//! The project's version of a knowledge package, and what kind of statement it is.

use super::{project_version, runtime_of};
use crate::project::version::Release;
use crate::project::{Ecosystem, Located, Project, RuntimeKind};

/// What the project's version of a package is: a lockfile's resolved version, a manifest's
/// constraint, a runtime range the project supports, or a runtime it pins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum VersionSource {
    /// A lockfile's (or an exact manifest's) resolved version.
    Resolved,
    /// A dependency constraint without a lockfile: compared by its floor.
    Constraint,
    /// A supported runtime range (`requires-python`, `engines.node`, the `go` directive).
    RuntimeRange,
    /// One runtime version the project develops or runs on (`.python-version`, `FROM`).
    RuntimePin,
}

/// The project's version of a knowledge package as the API matcher compares it.
#[derive(Debug, Clone)]
pub(super) struct KnownVersion<'p> {
    /// The version compared: the resolved version, or the floor of a constraint or range.
    pub version: String,
    /// Where the project states it, as written.
    pub place: &'p Located<String>,
    /// What kind of statement `place` is.
    pub source: VersionSource,
}

/// The lowest version a constraint admits, when it is a plain lower bound (`^19.0.0`,
/// `>=2.0,<3`, `~=1.4`, `v1.9.1`); a change since `X` applies to every admitted version
/// exactly when this floor is at or above `X`.
pub(super) fn floor(constraint: &str) -> Option<String> {
    let text = constraint.trim();
    if text.contains("||") || text.contains(" - ") {
        return None;
    }
    let first = text.split([',', ' ']).find(|s| !s.is_empty())?;
    let bare = ["^", "~=", "~>", "~", ">=", "==", "="]
        .iter()
        .find_map(|op| first.strip_prefix(op))
        .unwrap_or(first)
        .trim();
    Release::parse(bare).map(|_| bare.trim_start_matches(['v', 'V']).to_owned())
}

/// The project's version of a knowledge package, and where it comes from: a lockfile
/// version, the floor of a constraint, or a runtime's range floor or pin.
pub(super) fn knowledge_version<'p>(
    project: &'p Project,
    ecosystem: Ecosystem,
    package: &str,
) -> Option<KnownVersion<'p>> {
    if ecosystem == Ecosystem::Runtime {
        let runtime = runtime_of(project, package)?;
        let place = &runtime.version;
        let (version, source) = match runtime.kind {
            RuntimeKind::Range => (floor(&place.value)?, VersionSource::RuntimeRange),
            RuntimeKind::Pin => (
                Release::parse(&place.value)?.to_string(),
                VersionSource::RuntimePin,
            ),
        };
        return Some(KnownVersion {
            version,
            place,
            source,
        });
    }
    if !ecosystem.has_dependencies() {
        return None;
    }
    let (place, resolved) = project_version(project, ecosystem, package)?;
    let (version, source) = if resolved {
        (place.value.clone(), VersionSource::Resolved)
    } else {
        (floor(&place.value)?, VersionSource::Constraint)
    };
    Some(KnownVersion {
        version,
        place,
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floor_reads_plain_lower_bounds_only() {
        assert_eq!(floor("^19.0.0").as_deref(), Some("19.0.0"));
        assert_eq!(floor(">=2.0,<3").as_deref(), Some("2.0"));
        assert_eq!(floor("~=1.4").as_deref(), Some("1.4"));
        assert_eq!(floor("v1.9.1").as_deref(), Some("1.9.1"));
        assert_eq!(floor("<3"), None);
        assert_eq!(floor("1 || 2"), None);
        assert_eq!(floor("latest"), None);
        assert_eq!(floor("V1.9").as_deref(), Some("1.9"));
        assert_eq!(floor("=1.2.3").as_deref(), Some("1.2.3"));
        assert_eq!(floor("~> 2.1").as_deref(), None);
    }

    /// Wildcards, tag suffixes and an operator apart from its version are not plain lower
    /// bounds: no floor, so no SG402 finding rests on a guess.
    #[test]
    fn floor_refuses_what_is_not_a_plain_release() {
        for constraint in [
            "2.x",
            "^2.x",
            "2.*",
            "3.12-slim",
            ">= 3.12",
            "1.2.3.4.5",
            "*",
        ] {
            assert_eq!(floor(constraint), None, "{constraint:?}");
        }
        assert_eq!(floor("1.2.3.4").as_deref(), Some("1.2.3.4"));
    }
}
