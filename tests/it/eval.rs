//! The evaluation against real sandboxes: the `local` backend and the real Docker engine
//! (with an image the tests build from Debian's busybox-static). Docker tests fail, not
//! skip, when the engine or busybox is missing.

mod scenarios;
pub mod support;
mod transcripts;

mod docker;
mod interrupt;
mod local;
mod unit;
