//! The `skillgate` binary: everything happens in [`skillgate::cli`].

fn main() -> std::process::ExitCode {
    skillgate::cli::main()
}
