//! skillgate's integration tests: one binary, one module per area.

mod cli;
mod formats;
mod inputs;
mod knowledge;
mod rules;
mod support;
