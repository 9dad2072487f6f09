//! skillgate: decide whether an agent skill should be injected into an agent working on a
//! given repository, with evidence.
//!
//! Data flows one way: a [`skill::Skill`] is parsed once, [`lint`] rules turn it into
//! [`finding::Finding`]s, and [`render`] turns those into every output format.

pub mod assess;
pub mod audit;
pub mod claims;
pub mod config;
pub mod eval;
pub mod finding;
pub mod github;
pub mod knowledge;
pub mod lint;
pub mod mine;
pub mod project;
pub mod render;
pub mod shard;
pub mod skill;
pub mod snippet;
pub mod stats;
pub mod targets;
pub mod verdict;

pub mod cli;
