//! Build-time generation of static data that the crate embeds.

#[path = "src/skill/tokens/layout.rs"]
mod layout;
#[path = "build/o200k.rs"]
mod o200k;

use std::error::Error;
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn Error>> {
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").ok_or("OUT_DIR is not set")?);
    println!("cargo::rerun-if-changed=build.rs");
    o200k::generate(&out_dir)
}
