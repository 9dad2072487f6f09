//! skillgate's integration tests: one binary, one module per area.

mod cli;
mod code;
mod fences;
mod fit;
mod formats;
mod inputs;
mod knowledge;
mod project;
mod rules;
mod support;
mod tokens;
