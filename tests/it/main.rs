//! skillgate's integration tests: one binary, one module per area.

mod audit;
mod cli;
mod code;
mod errors;
mod eval;
mod eval_cli;
mod eval_report;
mod fit;
mod formats;
mod inputs;
mod knowledge;
mod mine;
mod packs;
mod project;
mod rules;
mod security;
mod sequential;
mod stats;
mod support;
mod synthetic;
mod tokens;
mod verdict;
