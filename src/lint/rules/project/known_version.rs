//! The project's version of a knowledge package, and what kind of statement it is.

use super::{project_version, runtime_of};
use crate::project::version::{self, Release};
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

/// The project's version of a knowledge package, and where it comes from: a lockfile
/// version, the floor of a constraint ([`version::floor`]), or a runtime's range floor or pin.
pub(super) fn knowledge_version<'p>(
    project: &'p Project,
    ecosystem: Ecosystem,
    package: &str,
) -> Option<KnownVersion<'p>> {
    if ecosystem == Ecosystem::Runtime {
        let runtime = runtime_of(project, package)?;
        let place = &runtime.version;
        let (version, source) = match runtime.kind {
            RuntimeKind::Range => (
                version::floor(ecosystem, &place.value)?,
                VersionSource::RuntimeRange,
            ),
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
        (
            version::floor(ecosystem, &place.value)?,
            VersionSource::Constraint,
        )
    };
    Some(KnownVersion {
        version,
        place,
        source,
    })
}
