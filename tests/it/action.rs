//! The composite action's install script against a local file server holding a fake release:
//! it installs the archive whose sha256 the manifest lists, and refuses one that differs.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::Command;

use sha2::{Digest, Sha256};

use crate::support::root;

/// Serve the files of `dir` over HTTP/1.0 on a loopback port until the test ends; returns
/// the base URL.
fn serve(dir: &Path) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let dir = dir.to_path_buf();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request = String::new();
            if reader.read_line(&mut request).is_err() {
                continue;
            }
            // Skip the headers.
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                line.clear();
            }
            let name = request
                .split_whitespace()
                .nth(1)
                .unwrap_or("/")
                .trim_start_matches('/');
            let file = (!name.contains("..")).then(|| std::fs::read(dir.join(name)).ok());
            let _ = match file.flatten() {
                Some(body) => stream
                    .write_all(
                        format!("HTTP/1.0 200 OK\r\nContent-Length: {}\r\n\r\n", body.len())
                            .as_bytes(),
                    )
                    .and_then(|()| stream.write_all(&body)),
                None => stream.write_all(b"HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\n\r\n"),
            };
        }
    });
    url
}

/// A release archive `skillgate-9.9.9-x86_64-unknown-linux-gnu.tar.gz` in `dir` holding a
/// fake `skillgate`; returns its sha256.
fn fake_release(dir: &Path) -> String {
    let staging = dir.join("staging");
    std::fs::create_dir_all(&staging).unwrap();
    std::fs::write(
        staging.join("skillgate"),
        "#!/bin/sh\necho \"skillgate 9.9.9 (fake release)\"\n",
    )
    .unwrap();
    let archive = dir.join("skillgate-9.9.9-x86_64-unknown-linux-gnu.tar.gz");
    let ok = Command::new("tar")
        .arg("-czf")
        .arg(&archive)
        .arg("-C")
        .arg(&staging)
        .arg("skillgate")
        .status()
        .unwrap()
        .success();
    assert!(ok);
    let digest = Sha256::digest(std::fs::read(&archive).unwrap());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Run the install script; returns (success, stdout + stderr).
fn install(
    url: &str,
    manifest: &Path,
    version: &str,
    into: &Path,
    github_path: &Path,
) -> (bool, String) {
    let out = Command::new("bash")
        .arg(root().join("action/install.sh"))
        .env("SKILLGATE_VERSION", version)
        .env("SKILLGATE_CHECKSUMS", manifest)
        .env("SKILLGATE_DOWNLOAD_URL", url)
        .env("SKILLGATE_INSTALL_DIR", into)
        .env("RUNNER_OS", "Linux")
        .env("RUNNER_ARCH", "X64")
        .env("GITHUB_PATH", github_path)
        .output()
        .unwrap();
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

#[test]
fn installs_a_release_whose_checksum_matches() {
    let server_dir = tempfile::tempdir().unwrap();
    let sha = fake_release(server_dir.path());
    let url = serve(server_dir.path());
    let work = tempfile::tempdir().unwrap();
    let manifest = work.path().join("checksums.txt");
    std::fs::write(
        &manifest,
        format!(
            "# comment\n{}  skillgate-9.9.9-aarch64-apple-darwin.tar.gz\n{sha}  skillgate-9.9.9-x86_64-unknown-linux-gnu.tar.gz\n",
            "0".repeat(64)
        ),
    )
    .unwrap();
    let bin = work.path().join("bin");
    let github_path = work.path().join("github_path");
    let (ok, log) = install(&url, &manifest, "v9.9.9", &bin, &github_path);
    assert!(ok, "{log}");
    assert!(log.contains("skillgate 9.9.9 (fake release)"), "{log}");
    assert!(bin.join("skillgate").is_file());
    assert_eq!(
        std::fs::read_to_string(&github_path).unwrap(),
        format!("{}\n", bin.display())
    );
}

#[test]
fn refuses_a_release_whose_checksum_differs() {
    let server_dir = tempfile::tempdir().unwrap();
    let sha = fake_release(server_dir.path());
    let url = serve(server_dir.path());
    let work = tempfile::tempdir().unwrap();
    let manifest = work.path().join("checksums.txt");
    // One digit off.
    let wrong = format!(
        "{}{}",
        if sha.starts_with('0') { "1" } else { "0" },
        &sha[1..]
    );
    std::fs::write(
        &manifest,
        format!("{wrong}  skillgate-9.9.9-x86_64-unknown-linux-gnu.tar.gz\n"),
    )
    .unwrap();
    let bin = work.path().join("bin");
    let github_path = work.path().join("github_path");
    let (ok, log) = install(&url, &manifest, "9.9.9", &bin, &github_path);
    assert!(!ok, "{log}");
    assert!(log.contains("checksum mismatch"), "{log}");
    assert!(log.contains(&sha) && log.contains(&wrong), "{log}");
    assert!(!bin.join("skillgate").exists(), "nothing installed");
    assert!(!github_path.exists(), "nothing added to the PATH");
}

#[test]
fn a_version_without_a_release_and_other_than_the_source_is_refused() {
    let work = tempfile::tempdir().unwrap();
    let manifest = work.path().join("checksums.txt");
    std::fs::write(&manifest, "").unwrap();
    let bin = work.path().join("bin");
    let (ok, log) = install(
        "http://127.0.0.1:9",
        &manifest,
        "9.9.8",
        &bin,
        &work.path().join("github_path"),
    );
    assert!(!ok, "{log}");
    assert!(
        log.contains("no release binary of skillgate 9.9.8"),
        "{log}"
    );
    assert!(
        log.contains(&format!("version {}", env!("CARGO_PKG_VERSION"))),
        "{log}"
    );
}

#[test]
fn the_manifest_in_the_repository_is_well_formed() {
    let text = std::fs::read_to_string(root().join("action/checksums.txt")).unwrap();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let (sha, file) = line.split_once("  ").unwrap_or_else(|| panic!("{line:?}"));
        assert!(
            sha.len() == 64 && sha.bytes().all(|b| b.is_ascii_hexdigit()),
            "{line}"
        );
        assert!(
            file.starts_with("skillgate-") && file.ends_with(".tar.gz"),
            "{line}"
        );
    }
}

/// Run action/gate.sh with `inputs` and a `skillgate` that prints its arguments (and the
/// rules' documentation URL it was given, if any); returns (exit code, output).
fn run_script(inputs: &[(&str, &str)]) -> (i32, String) {
    let bin = tempfile::tempdir().unwrap();
    std::fs::write(
        bin.path().join("skillgate"),
        "#!/bin/sh\nfor a in \"$@\"; do printf '[%s]' \"$a\"; done\necho\n\
         if [ -n \"$SKILLGATE_RULES_DOC\" ]; then echo \"rules doc: $SKILLGATE_RULES_DOC\"; fi\n\
         exit 1\n",
    )
    .unwrap();
    std::fs::set_permissions(
        bin.path().join("skillgate"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .arg(root().join("action/gate.sh"))
        .current_dir(root())
        .env("PATH", path)
        .env("RUNNER_TEMP", bin.path())
        .env_remove("GITHUB_OUTPUT")
        .env_remove("SKILLGATE_RULES_DOC")
        .env_remove("ACTION_REPOSITORY")
        .env_remove("ACTION_REF")
        .env_remove("GITHUB_REPOSITORY")
        .env_remove("GITHUB_SHA")
        .env_remove("GITHUB_SERVER_URL")
        .envs(inputs.iter().copied())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
        .replace(&bin.path().display().to_string(), "$RUNNER_TEMP"),
    )
}

#[test]
fn the_run_script_turns_inputs_into_arguments_and_keeps_the_exit_status() {
    let (code, out) = run_script(&[
        (
            "INPUT_SKILLS",
            "skills/release-notes\n  fixtures/skills/inventory-*",
        ),
        ("INPUT_FAIL_ON", "warning"),
        ("INPUT_COMMENT", "true"),
        ("INPUT_SARIF", "out.sarif"),
        ("INPUT_EVAL", "true"),
        ("INPUT_TASKS", "tasks"),
        ("INPUT_AGENT", "command"),
        // Several models take the place of one.
        ("INPUT_MODEL", "ignored"),
        ("INPUT_MODELS", "m-a,m-b"),
        // Text that would run as code if it were pasted into the script.
        ("INPUT_CONFIG", "$(touch pwned); x.toml"),
    ]);
    assert_eq!(code, 1, "the gate's exit status: {out}");
    assert_eq!(
        out.trim(),
        "[gate][--github][--repo][.][--fail-on][warning][--config][$(touch pwned); x.toml]\
         [--comment][--json][$RUNNER_TEMP/skillgate-verdicts.json][--sarif][out.sarif][--eval]\
         [--tasks][tasks][--agent][command][--models][m-a,m-b][skills/release-notes]\
         [fixtures/skills/inventory-conventions]"
    );
    assert!(!root().join("pwned").exists());

    let (code, out) = run_script(&[("INPUT_SKILLS", "no-such-folder/*")]);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("'no-such-folder/*' matches no file or folder"),
        "{out}"
    );
}

#[test]
fn the_run_script_links_sarif_rules_to_the_docs_of_the_running_action() {
    let doc = |inputs: &[(&str, &str)]| {
        let (_, out) = run_script(inputs);
        out.lines()
            .find_map(|line| line.strip_prefix("rules doc: ").map(str::to_owned))
    };
    // Used as `owner/skillgate@v1.2.0`: the docs at the action's own ref.
    assert_eq!(
        doc(&[
            ("ACTION_REPOSITORY", "owner/skillgate"),
            ("ACTION_REF", "v1.2.0"),
            ("GITHUB_REPOSITORY", "someone/skills"),
            ("GITHUB_SHA", "0123abc"),
        ])
        .as_deref(),
        Some("https://github.com/owner/skillgate/blob/v1.2.0/docs/rules.md")
    );
    // Used as `./` from skillgate's own repository, on GitHub Enterprise.
    assert_eq!(
        doc(&[
            ("GITHUB_SERVER_URL", "https://ghe.example"),
            ("GITHUB_REPOSITORY", "owner/skillgate"),
            ("GITHUB_SHA", "0123abc"),
        ])
        .as_deref(),
        Some("https://ghe.example/owner/skillgate/blob/0123abc/docs/rules.md")
    );
    // A URL the workflow sets wins; outside Actions there is none.
    assert_eq!(
        doc(&[
            ("SKILLGATE_RULES_DOC", "https://docs.example/rules.md"),
            ("ACTION_REPOSITORY", "owner/skillgate"),
            ("ACTION_REF", "v1.2.0"),
        ])
        .as_deref(),
        Some("https://docs.example/rules.md")
    );
    assert_eq!(doc(&[]), None);
}
