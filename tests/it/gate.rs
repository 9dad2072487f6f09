//! `skillgate gate` against a local HTTP server that plays the GitHub REST API: the exact
//! requests, their order and bodies, the fallback, retries, and that the token never leaks.

use std::path::Path;

use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::support::{manifest, root, skillgate, tree};

/// A token no output may ever contain.
const TOKEN: &str = "ghs_gateTestToken0123456789abcdefXYZ";
/// `pull_request.head.sha` of the fixture payload.
const HEAD_SHA: &str = "ec26c3e57ca3a959ca5aad62de7213c562f8c821";
/// `pull_request.base.sha` of the fixture payload.
const BASE_SHA: &str = "f95f852bd8fca8fcc58a9a2d6c842781e32a215e";
/// The merge commit Actions puts in GITHUB_SHA on a pull_request event.
const MERGE_SHA: &str = "6c1e2b9d0f4a7d3e8b5c2a1f0e9d8c7b6a5f4e3d";
const RUNS: &str = "/repos/pack-maintainers/agent-skills/check-runs";

/// What one gate run left behind.
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
    step_summary: String,
    outputs: String,
}

impl Run {
    /// Every text the run wrote, for the token check.
    fn everything(&self) -> String {
        format!(
            "{}{}{}{}",
            self.stdout, self.stderr, self.step_summary, self.outputs
        )
    }
}

/// Run `skillgate gate ARGS` in `dir` as a pull_request workflow would, against `api`.
fn gate(dir: &Path, api: Option<&str>, token: Option<&str>, args: &[&str]) -> Run {
    gate_on(
        ("pull_request", "pull_request.synchronize.json"),
        dir,
        api,
        token,
        args,
    )
}

/// Run `skillgate gate ARGS` in `dir` on the event `(name, payload file in fixtures/github)`.
fn gate_on(
    (event_name, payload): (&str, &str),
    dir: &Path,
    api: Option<&str>,
    token: Option<&str>,
    args: &[&str],
) -> Run {
    let files = tempfile::tempdir().unwrap();
    let summary = files.path().join("step_summary.md");
    let outputs = files.path().join("output.txt");
    let mut cmd = skillgate();
    cmd.current_dir(dir)
        .arg("gate")
        .args(args)
        .env(
            "GITHUB_EVENT_PATH",
            root().join("fixtures/github").join(payload),
        )
        .env("GITHUB_EVENT_NAME", event_name)
        .env("GITHUB_SHA", MERGE_SHA)
        .env("GITHUB_REPOSITORY", "pack-maintainers/agent-skills")
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("GITHUB_OUTPUT", &outputs);
    match api {
        Some(url) => cmd.env("GITHUB_API_URL", url),
        None => cmd.env_remove("GITHUB_API_URL"),
    };
    match token {
        Some(t) => cmd.env("GITHUB_TOKEN", t),
        None => cmd.env_remove("GITHUB_TOKEN"),
    };
    let out = cmd.output().unwrap();
    let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
    let run = Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        step_summary: read(&summary),
        outputs: read(&outputs),
    };
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    assert!(
        !run.everything().contains(TOKEN),
        "the token leaked:\n{}",
        run.everything()
    );
    run
}

/// A skill pack with one skill `name` whose body is `body`.
fn pack(name: &str, body: &str) -> tempfile::TempDir {
    tree(&[(&format!("skills/{name}/SKILL.md"), &manifest(name, body))])
}

/// A body with `n` links to files the skill folder does not have.
fn broken_links(n: usize) -> String {
    let mut body = String::from("# Release notes\n\nNever publish notes without a review.\n\n");
    for i in 0..n {
        body.push_str(&format!("- See [part {i}](references/missing-{i}.md).\n"));
    }
    body
}

/// The requests the server received, as (method, path with query, JSON body).
async fn requests(server: &MockServer) -> Vec<(String, String, Value)> {
    server
        .received_requests()
        .await
        .unwrap_or_default()
        .into_iter()
        .map(|r| {
            let target = match r.url.query() {
                Some(q) => format!("{}?{q}", r.url.path()),
                None => r.url.path().to_owned(),
            };
            let body = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
            (r.method.to_string(), target, body)
        })
        .collect()
}

async fn check_run_api(server: &MockServer, id: u64) {
    Mock::given(method("POST"))
        .and(path(RUNS))
        .respond_with(ResponseTemplate::new(201).set_body_json(json!({ "id": id })))
        .mount(server)
        .await;
    Mock::given(method("PATCH"))
        .and(path(format!("{RUNS}/{id}")))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({ "id": id })))
        .mount(server)
        .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn one_check_run_on_the_head_sha_with_annotations_fifty_at_a_time() {
    let server = MockServer::start().await;
    check_run_api(&server, 42).await;
    let dir = pack("release-notes", &broken_links(120));
    let run = gate(
        dir.path(),
        Some(&server.uri()),
        Some(TOKEN),
        &["skills/release-notes", "--github", "--fail-on", "never"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);

    let sent = requests(&server).await;
    let shape: Vec<(&str, &str)> = sent
        .iter()
        .map(|(m, p, _)| (m.as_str(), p.as_str()))
        .collect();
    let run_path = format!("{RUNS}/42");
    assert_eq!(
        shape,
        [
            ("POST", RUNS),
            ("PATCH", run_path.as_str()),
            ("PATCH", run_path.as_str()),
            ("PATCH", run_path.as_str()),
            ("PATCH", run_path.as_str()),
        ]
    );
    assert_eq!(
        sent[0].2,
        json!({
            "name": "skillgate: release-notes",
            "head_sha": HEAD_SHA,
            "status": "in_progress",
        }),
        "created on the pull request's head, not on GITHUB_SHA's merge commit"
    );

    let batches: Vec<&Vec<Value>> = sent[1..4]
        .iter()
        .map(|(_, _, b)| b["output"]["annotations"].as_array().unwrap())
        .collect();
    assert_eq!(
        batches.iter().map(|b| b.len()).collect::<Vec<_>>(),
        [50, 50, 20]
    );
    let all: Vec<&Value> = batches.iter().flat_map(|b| b.iter()).collect();
    let first = all[0];
    assert_eq!(first["path"], "skills/release-notes/SKILL.md");
    assert_eq!(first["annotation_level"], "failure", "SG501 is an error");
    assert!(
        first["title"].as_str().unwrap().starts_with("SG50"),
        "{first}"
    );
    assert_eq!(first["start_line"], first["end_line"]);
    assert!(first["start_column"].is_u64() && first["end_column"].is_u64());
    for (_, _, body) in &sent[1..4] {
        assert!(body.get("status").is_none() && body.get("conclusion").is_none());
        assert!(body["output"]["title"].is_string() && body["output"]["summary"].is_string());
    }
    // Every link is annotated once, on its own line.
    let mut lines: Vec<u64> = all
        .iter()
        .map(|a| a["start_line"].as_u64().unwrap())
        .collect();
    lines.dedup();
    assert_eq!(lines.len(), 120);

    let last = &sent[4].2;
    assert_eq!(last["status"], "completed");
    assert_eq!(
        last["conclusion"], "neutral",
        "skip -> neutral; with --fail-on never no finding fails it"
    );
    assert!(last["output"].get("annotations").is_none());
    let summary = last["output"]["summary"].as_str().unwrap();
    assert!(
        summary.contains("**Verdict: not evaluated (injecting needs an evaluation)**"),
        "{summary}"
    );
    assert!(summary.contains("| Section | Tokens |"), "{summary}");
    let text = last["output"]["text"].as_str().unwrap();
    assert!(text.contains("missing-119.md"), "{text}");
    assert!(
        last["output"]["title"]
            .as_str()
            .unwrap()
            .starts_with("not evaluated (injecting needs an evaluation): 120 errors, 0 warnings")
    );
    // The token went where it belongs: the Authorization header, and nowhere in a body.
    for r in server.received_requests().await.unwrap() {
        let auth = r.headers.get("authorization").unwrap().to_str().unwrap();
        assert!(auth.ends_with(TOKEN), "{auth}");
        assert!(!String::from_utf8_lossy(&r.body).contains(TOKEN));
    }
    assert!(run.outputs.contains("findings=120\n"), "{}", run.outputs);
    assert!(run.outputs.contains("decision=skip\n"), "{}", run.outputs);
    assert_eq!(run.step_summary, "", "check runs need no step summary");
}

#[tokio::test(flavor = "multi_thread")]
async fn errors_fail_the_check_and_the_exit_status() {
    let server = MockServer::start().await;
    check_run_api(&server, 7).await;
    // A name that is not the folder's: SG1xx reports it as an error.
    let dir = tree(&[(
        "skills/notes/SKILL.md",
        "---\nname: Release Notes!\ndescription: Drafts release notes. Use when preparing a release.\n---\nNever skip the review.\n",
    )]);
    let run = gate(
        dir.path(),
        Some(&server.uri()),
        Some(TOKEN),
        &["skills/notes", "--github"],
    );
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    let sent = requests(&server).await;
    let last = &sent.last().unwrap().2;
    assert_eq!(last["conclusion"], "failure", "{last}");
    let annotations = &sent[1].2["output"]["annotations"];
    assert!(
        annotations
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["annotation_level"] == "failure"),
        "{annotations}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_gate_table_of_the_config_sets_the_conclusions() {
    let server = MockServer::start().await;
    check_run_api(&server, 8).await;
    let dir = pack(
        "release-notes",
        "# Notes\n\nNever publish without a review.\n",
    );
    std::fs::write(
        dir.path().join("skillgate.toml"),
        "[gate]\nskip = \"success\"\n",
    )
    .unwrap();
    let run = gate(
        dir.path(),
        Some(&server.uri()),
        Some(TOKEN),
        &["skills/release-notes", "--github", "--fail-on", "never"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let sent = requests(&server).await;
    assert_eq!(sent.len(), 2, "no findings, so no annotation request");
    assert_eq!(sent[1].2["conclusion"], "success");

    std::fs::write(
        dir.path().join("skillgate.toml"),
        "[gate]\nskip = \"green\"\n",
    )
    .unwrap();
    let run = gate(dir.path(), None, None, &["skills/release-notes"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("skillgate.toml"), "{}", run.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_over_long_summary_is_cut_at_a_line_with_a_note() {
    let server = MockServer::start().await;
    check_run_api(&server, 9).await;
    let mut body = String::new();
    for i in 0..6_000 {
        body.push_str(&format!(
            "## Step number {i} of the long procedure\n\nDo it.\n\n"
        ));
    }
    let dir = pack("long", &body);
    let run = gate(
        dir.path(),
        Some(&server.uri()),
        Some(TOKEN),
        &["skills/long", "--github", "--fail-on", "never"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let sent = requests(&server).await;
    let output = &sent.last().unwrap().2["output"];
    for key in ["summary", "text"] {
        let text = output[key].as_str().unwrap();
        assert!(
            text.chars().count() <= 65_535,
            "{key}: {}",
            text.chars().count()
        );
        assert!(
            text.contains("more characters of this report were left out"),
            "{key}"
        );
        let before_note = text.rsplit_once("\n\n*…").unwrap().0;
        let last_line = before_note.lines().last().unwrap();
        assert!(
            last_line.ends_with('|') || last_line.is_empty(),
            "{key} cut mid-line: {last_line:?}"
        );
    }
    assert!(
        output["summary"]
            .as_str()
            .unwrap()
            .contains("Step number 1 of the long procedure | ")
    );
}

const COMMENTS: &str = "/repos/pack-maintainers/agent-skills/issues/2/comments";
const COMMENT_ROUTE: &str = "/repos/pack-maintainers/agent-skills/issues/comments";

/// `GET /user` answers `login`, or 403 as it does for the Actions token when `None`.
async fn user_api(server: &MockServer, login: Option<&str>) {
    let answer = match login {
        Some(login) => ResponseTemplate::new(200).set_body_json(json!({ "login": login })),
        None => ResponseTemplate::new(403)
            .set_body_json(json!({ "message": "Resource not accessible by integration" })),
    };
    Mock::given(method("GET"))
        .and(path("/user"))
        .respond_with(answer)
        .mount(server)
        .await;
}

/// The pull request's comments are `listed`; creating and editing them succeeds.
async fn comment_api(server: &MockServer, listed: Value) {
    Mock::given(method("GET"))
        .and(path(COMMENTS))
        .respond_with(ResponseTemplate::new(200).set_body_json(listed))
        .mount(server)
        .await;
    Mock::given(method("POST"))
        .and(path(COMMENTS))
        .respond_with(ResponseTemplate::new(201).set_body_json(json!({ "id": 99 })))
        .mount(server)
        .await;
    Mock::given(method("PATCH"))
        .and(wiremock::matchers::path_regex(format!(
            "^{COMMENT_ROUTE}/[0-9]+$"
        )))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({})))
        .mount(server)
        .await;
}

/// The requests after the check runs' (the first `skip`), as (method, path).
fn shape(sent: &[(String, String, Value)], skip: usize) -> Vec<(&str, &str)> {
    sent[skip..]
        .iter()
        .map(|(m, p, _)| (m.as_str(), p.as_str()))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_comment_is_created_once_then_edited_in_place() {
    let server = MockServer::start().await;
    check_run_api(&server, 11).await;
    user_api(&server, None).await;
    comment_api(
        &server,
        json!([{ "id": 3, "body": "Looks good to me", "user": { "login": "octocat" } }]),
    )
    .await;
    let dir = pack(
        "release-notes",
        "# Notes\n\nNever publish without a review.\n",
    );
    let args = ["skills/release-notes", "--github", "--comment"];
    let run = gate(dir.path(), Some(&server.uri()), Some(TOKEN), &args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let sent = requests(&server).await;
    let listing = format!("{COMMENTS}?per_page=100&page=1");
    assert_eq!(
        shape(&sent, 2),
        [
            ("GET", "/user"),
            ("GET", listing.as_str()),
            ("POST", COMMENTS)
        ]
    );
    let created = sent[4].2["body"].as_str().unwrap().to_owned();
    assert!(created.starts_with("<!-- skillgate-gate"), "{created}");
    assert!(
        created.contains(
            "| `release-notes` | not evaluated (injecting needs an evaluation) | `neutral` |"
        ),
        "{created}"
    );

    // The next push finds the marked comment the Actions token wrote and edits it; no second
    // comment.
    server.reset().await;
    check_run_api(&server, 12).await;
    user_api(&server, None).await;
    comment_api(
        &server,
        json!([
            { "id": 3, "body": "Looks good to me", "user": { "login": "octocat" } },
            { "id": 99, "body": created, "user": { "login": "github-actions[bot]" } },
        ]),
    )
    .await;
    let run = gate(dir.path(), Some(&server.uri()), Some(TOKEN), &args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let sent = requests(&server).await;
    let edited = format!("{COMMENT_ROUTE}/99");
    assert_eq!(
        shape(&sent, 2),
        [
            ("GET", "/user"),
            ("GET", listing.as_str()),
            ("PATCH", edited.as_str())
        ]
    );
    assert!(
        sent[4].2["body"]
            .as_str()
            .unwrap()
            .contains("<!-- skillgate-gate")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_marked_comment_someone_else_wrote_is_never_edited() {
    let server = MockServer::start().await;
    check_run_api(&server, 15).await;
    // The token is a user's: its comments are that user's.
    user_api(&server, Some("release-bot")).await;
    let marked = "<!-- skillgate-gate: verdicts of the changed skills -->\n### skillgate\n\n\
                  | `release-notes` | inject (evaluated) | `success` | 0 | 0 | 0 |\n";
    comment_api(
        &server,
        json!([
            // The marker, copied by someone else: never edited.
            { "id": 4, "body": marked, "user": { "login": "mallory" } },
            // The Actions bot is not this token.
            { "id": 5, "body": marked, "user": { "login": "github-actions[bot]" } },
        ]),
    )
    .await;
    let dir = pack(
        "release-notes",
        "# Notes\n\nNever publish without a review.\n",
    );
    let args = ["skills/release-notes", "--github", "--comment"];
    let run = gate(dir.path(), Some(&server.uri()), Some(TOKEN), &args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let sent = requests(&server).await;
    let listing = format!("{COMMENTS}?per_page=100&page=1");
    assert_eq!(
        shape(&sent, 2),
        [
            ("GET", "/user"),
            ("GET", listing.as_str()),
            ("POST", COMMENTS)
        ],
        "a new comment, and no PATCH of comment 4 or 5"
    );
    assert!(
        sent[4].2["body"]
            .as_str()
            .unwrap()
            .contains("| `release-notes` | not evaluated (injecting needs an evaluation) |")
    );

    // The same token's own marked comment, after someone else's, is the one edited.
    server.reset().await;
    check_run_api(&server, 16).await;
    user_api(&server, Some("release-bot")).await;
    comment_api(
        &server,
        json!([
            { "id": 4, "body": marked, "user": { "login": "mallory" } },
            { "id": 6, "body": marked, "user": { "login": "release-bot" } },
        ]),
    )
    .await;
    let run = gate(dir.path(), Some(&server.uri()), Some(TOKEN), &args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let sent = requests(&server).await;
    let edited = format!("{COMMENT_ROUTE}/6");
    assert_eq!(
        shape(&sent, 2),
        [
            ("GET", "/user"),
            ("GET", listing.as_str()),
            ("PATCH", edited.as_str())
        ]
    );
}

/// A repository with skills `a` and `b` committed, then a commit that changes only README.md;
/// returns it and the first commit.
fn repository_with_a_change_to_no_skill() -> (tempfile::TempDir, String) {
    let dir = tree(&[
        ("skills/a/SKILL.md", &manifest("a", "Never skip.\n")),
        ("skills/b/SKILL.md", &manifest("b", "Never skip.\n")),
        ("README.md", "pack\n"),
    ]);
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .current_dir(dir.path())
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    git(&["init", "-q", "-b", "main"]);
    git(&["add", "."]);
    git(&["commit", "-q", "-m", "base"]);
    let base = git(&["rev-parse", "HEAD"]).trim().to_owned();
    std::fs::write(dir.path().join("README.md"), "pack, changed\n").unwrap();
    git(&["commit", "-q", "-am", "readme"]);
    (dir, base)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_push_that_changes_no_skill_says_so_on_the_comment() {
    let server = MockServer::start().await;
    user_api(&server, None).await;
    let old = "<!-- skillgate-gate: verdicts of the changed skills -->\n### skillgate\n\n\
               | `a` | skip (static) | `failure` | 3 | 0 | 0 |\n";
    comment_api(
        &server,
        json!([
            { "id": 8, "body": old, "user": { "login": "mallory" } },
            { "id": 9, "body": old, "user": { "login": "github-actions[bot]" } },
        ]),
    )
    .await;
    let (dir, base) = repository_with_a_change_to_no_skill();
    let args = ["--changed-since", &base, "--github", "--comment"];
    let run = gate(dir.path(), Some(&server.uri()), Some(TOKEN), &args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("0 skill folders changed"),
        "{}",
        run.stderr
    );
    let sent = requests(&server).await;
    let listing = format!("{COMMENTS}?per_page=100&page=1");
    let edited = format!("{COMMENT_ROUTE}/9");
    assert_eq!(
        shape(&sent, 0),
        [
            ("GET", "/user"),
            ("GET", listing.as_str()),
            ("PATCH", edited.as_str())
        ],
        "no check run, and only the gate's own comment is edited"
    );
    let body = sent[2].2["body"].as_str().unwrap();
    assert!(body.starts_with("<!-- skillgate-gate"), "{body}");
    assert!(
        body.contains("This pull request changes no skill as of `ec26c3e57ca3`"),
        "{body}"
    );
    assert!(body.contains("no longer apply"), "{body}");
    assert!(!body.contains("| `a` |"), "no stale verdict: {body}");

    // Without a comment from the gate, none is created for a change that touches no skill.
    server.reset().await;
    user_api(&server, None).await;
    comment_api(
        &server,
        json!([{ "id": 8, "body": old, "user": { "login": "mallory" } }]),
    )
    .await;
    let run = gate(dir.path(), Some(&server.uri()), Some(TOKEN), &args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let sent = requests(&server).await;
    assert_eq!(
        shape(&sent, 0),
        [("GET", "/user"), ("GET", listing.as_str())]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_403_falls_back_to_workflow_commands_and_the_step_summary() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(RUNS))
        .respond_with(
            ResponseTemplate::new(403)
                .set_body_json(json!({ "message": "Resource not accessible by integration" })),
        )
        .mount(&server)
        .await;
    let warnings =
        "# Notes\n\nAs of 2024 the latest version is 3.\n\nUse either pnpm, npm, yarn or bun.\n";
    let dir = tree(&[
        ("skills/warn/SKILL.md", &manifest("warn", warnings)),
        (
            "skills/links/SKILL.md",
            &manifest("links", &broken_links(12)),
        ),
    ]);
    let run = gate(
        dir.path(),
        Some(&server.uri()),
        Some(TOKEN),
        &["skills/warn", "skills/links", "--github"],
    );
    assert_eq!(run.code, 1, "error-level findings fail as without --github");
    assert_eq!(
        requests(&server).await.len(),
        1,
        "a plain 403 is not retried"
    );
    assert_eq!(
        run.stderr.matches("may not write check runs").count(),
        1,
        "{}",
        run.stderr
    );
    let commands: Vec<&str> = run.stdout.lines().filter(|l| l.starts_with("::")).collect();
    let levels: Vec<&str> = commands
        .iter()
        .map(|l| l[2..].split(' ').next().unwrap())
        .collect();
    let mut sorted = levels.clone();
    sorted.sort_by_key(|l| ["error", "warning", "notice"].iter().position(|x| x == l));
    assert_eq!(
        levels, sorted,
        "most severe first, though the warnings' skill came first"
    );
    assert_eq!(levels.iter().filter(|l| **l == "error").count(), 12);
    assert!(
        levels.iter().filter(|l| **l == "warning").count() >= 2,
        "{levels:?}"
    );
    assert!(
        commands[0].starts_with("::error file=skills/links/SKILL.md,line="),
        "{}",
        commands[0]
    );
    let s = &run.step_summary;
    assert!(s.contains("instead of check runs"), "{s}");
    assert!(s.contains("Resource not accessible by integration"), "{s}");
    assert!(
        s.contains("GitHub shows only the first 10 error, 10 warning"),
        "{s}"
    );
    assert!(
        s.contains("## skillgate: warn") && s.contains("## skillgate: links"),
        "{s}"
    );
    assert!(
        s.contains("missing-11.md"),
        "every finding is in the summary: {s}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn no_token_falls_back_too() {
    let dir = pack(
        "release-notes",
        "# Notes\n\nNever publish without a review.\n",
    );
    let run = gate(
        dir.path(),
        Some("http://127.0.0.1:9"),
        None,
        &["skills/release-notes", "--github"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("GITHUB_TOKEN is not set"),
        "{}",
        run.stderr
    );
    assert!(run.step_summary.contains("## skillgate: release-notes"));
    assert!(
        !run.step_summary.contains("GitHub shows only"),
        "few findings, no note"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_502_is_retried_once_then_the_run_goes_on() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(RUNS))
        .respond_with(ResponseTemplate::new(502).set_body_string("Bad Gateway"))
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    check_run_api(&server, 5).await;
    let dir = pack(
        "release-notes",
        "# Notes\n\nNever publish without a review.\n",
    );
    let run = gate(
        dir.path(),
        Some(&server.uri()),
        Some(TOKEN),
        &["skills/release-notes", "--github"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let shape: Vec<(String, String)> = requests(&server)
        .await
        .into_iter()
        .map(|(m, p, _)| (m, p))
        .collect();
    let run_path = format!("{RUNS}/5");
    assert_eq!(
        shape,
        [
            ("POST".to_owned(), RUNS.to_owned()),
            ("POST".to_owned(), RUNS.to_owned()),
            ("PATCH".to_owned(), run_path),
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unreachable_api_is_one_clear_error() {
    let dir = pack(
        "release-notes",
        "# Notes\n\nNever publish without a review.\n",
    );
    // Port 9 (discard) on loopback: nothing listens, the connection is refused.
    let run = gate(
        dir.path(),
        Some("http://127.0.0.1:9"),
        Some(TOKEN),
        &["skills/release-notes", "--github"],
    );
    assert_eq!(run.code, 2);
    let errors: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("  x "))
        .collect();
    assert_eq!(errors.len(), 1, "{}", run.stderr);
    assert!(
        errors[0].contains("cannot reach the GitHub API at http://127.0.0.1:9"),
        "{}",
        errors[0]
    );
}

#[test]
fn the_changed_skills_come_from_the_pull_requests_base() {
    let dir = tree(&[
        ("skills/a/SKILL.md", &manifest("a", "Never skip.\n")),
        ("skills/b/SKILL.md", &manifest("b", "Never skip.\n")),
    ]);
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .current_dir(dir.path())
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q", "-b", "main"]);
    git(&["add", "."]);
    git(&["commit", "-q", "-m", "base"]);
    let base = String::from_utf8(
        std::process::Command::new("git")
            .current_dir(dir.path())
            .args(["rev-parse", "HEAD"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    std::fs::write(
        dir.path().join("skills/b/SKILL.md"),
        manifest("b", "Never skip the review.\n"),
    )
    .unwrap();
    git(&["commit", "-q", "-am", "change b"]);

    // The event's base SHA is the default; here the fixture's SHA is not in this history, so
    // --changed-since names the real base, as a workflow with another base would.
    let run = gate(dir.path(), None, None, &["--changed-since", base.trim()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("1 skill folders changed"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.contains("skills/b/SKILL.md"), "{}", run.stdout);
    assert!(!run.stdout.contains("skills/a/SKILL.md"), "{}", run.stdout);

    // Without --changed-since the pull request's base is used: the fixture's, which this
    // history lacks, so git says so and the gate tells what to do.
    let run = gate(dir.path(), None, None, &[]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains(BASE_SHA), "{}", run.stderr);
    assert!(run.stderr.contains("fetch-depth: 0"), "{}", run.stderr);
}

#[test]
fn sarif_fingerprints_follow_a_finding_when_lines_above_it_move() {
    let sarif = |body: &str| -> Value {
        let dir = pack("release-notes", body);
        let out = skillgate()
            .current_dir(dir.path())
            .args([
                "check",
                "skills/release-notes",
                "--format",
                "sarif",
                "--fail-on",
                "never",
            ])
            .output()
            .unwrap();
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let links = "- See [a](references/a.md).\n- See [a](references/a.md).\n";
    let before = sarif(&format!("# Notes\n\nNever skip.\n\n{links}"));
    let after = sarif(&format!(
        "# Notes\n\nNever skip.\n\nA new paragraph.\n\n{links}"
    ));
    let facts = |log: &Value| -> Vec<(String, u64)> {
        log["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["ruleId"].as_str().unwrap().starts_with("SG50"))
            .map(|r| {
                (
                    r["partialFingerprints"]["skillgateFinding/v1"]
                        .as_str()
                        .unwrap()
                        .to_owned(),
                    r["locations"][0]["physicalLocation"]["region"]["startLine"]
                        .as_u64()
                        .unwrap(),
                )
            })
            .collect()
    };
    let (before, after) = (facts(&before), facts(&after));
    assert!(before.len() >= 2, "{before:?}");
    assert_eq!(
        before.iter().map(|(f, _)| f).collect::<Vec<_>>(),
        after.iter().map(|(f, _)| f).collect::<Vec<_>>(),
        "same findings, same fingerprints"
    );
    assert_ne!(before[0].1, after[0].1, "the lines did move");
    assert_ne!(before[0].0, before[1].0, "repeated findings are told apart");
}

/// Every file below `dir`, read as text.
fn all_text(dir: &Path) -> String {
    let mut out = String::new();
    for entry in ignore::WalkBuilder::new(dir)
        .hidden(false)
        .ignore(false)
        .git_ignore(false)
        .build()
        .flatten()
    {
        if entry.file_type().is_some_and(|t| t.is_file()) {
            out.push_str(&String::from_utf8_lossy(
                &std::fs::read(entry.path()).unwrap_or_default(),
            ));
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn with_eval_the_verdict_and_its_tables_come_from_the_evaluation() {
    let server = MockServer::start().await;
    check_run_api(&server, 21).await;
    let runs = tempfile::tempdir().unwrap();
    // The agent prints its whole environment first, so the run's logs show what it was given.
    // It is one file (the command's first word is what is uploaded into the sandbox).
    let fixture = std::fs::read_to_string(root().join("fixtures/agents/command-agent.sh")).unwrap();
    let bin = tempfile::tempdir().unwrap();
    let wrapper = bin.path().join("env-agent.sh");
    std::fs::write(&wrapper, fixture.replacen("\n", "\nenv\n", 1)).unwrap();
    std::fs::set_permissions(
        &wrapper,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let agent = wrapper.display().to_string();
    // The fixture has three tasks: a policy that asks for three lets them decide.
    let config = bin.path().join("skillgate.toml");
    std::fs::write(&config, "[verdict]\nmin-tasks = 3\n").unwrap();
    let run = gate(
        &root(),
        Some(&server.uri()),
        Some(TOKEN),
        &[
            "fixtures/skills/inventory-conventions",
            "--repo",
            "fixtures/repos/inventory",
            "--config",
            config.to_str().unwrap(),
            "--github",
            "--eval",
            "--tasks",
            "tasks",
            "--agent",
            "command",
            "--agent-cmd",
            &agent,
            "--backend",
            "local",
            "--conditions",
            "C0,C1,C2",
            "--sequential",
            "--max-seeds",
            "3",
            "--worktree",
            "--no-cache",
            "--runs",
            runs.path().to_str().unwrap(),
        ],
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let sent = requests(&server).await;
    let last = &sent.last().unwrap().2;
    assert_eq!(last["conclusion"], "success", "inject -> success: {last}");
    let summary = last["output"]["summary"].as_str().unwrap();
    assert!(
        summary.contains("**Verdict: inject (evaluated)**"),
        "{summary}"
    );
    assert!(summary.contains("| Condition | Pass rate |"), "{summary}");
    assert!(run.outputs.contains("decision=inject"), "{}", run.outputs);
    // Every task passes with the skill and fails without it: the first round settles it.
    assert!(
        run.stderr
            .contains("inventory-conventions: seed round 1: InjectSettled"),
        "{}",
        run.stderr
    );
    let logs = all_text(runs.path());
    assert!(
        logs.contains("PATH="),
        "the agent's environment is in its logs"
    );
    assert!(!logs.contains(TOKEN), "the token reached the sandbox");
    assert!(
        !logs.contains("GITHUB_TOKEN="),
        "the token reached the sandbox"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_push_reports_on_github_sha_through_an_enterprise_api_path() {
    let server = MockServer::start().await;
    let runs = format!("/api/v3{RUNS}");
    Mock::given(method("POST"))
        .and(path(runs.as_str()))
        .respond_with(ResponseTemplate::new(201).set_body_json(json!({ "id": 31 })))
        .mount(&server)
        .await;
    Mock::given(method("PATCH"))
        .and(path(format!("{runs}/31")))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({ "id": 31 })))
        .mount(&server)
        .await;
    let dir = pack(
        "release-notes",
        "# Notes\n\nNever publish without a review.\n",
    );
    let api = format!("{}/api/v3/", server.uri());
    let run = gate_on(
        ("push", "push.json"),
        dir.path(),
        Some(&api),
        Some(TOKEN),
        &["skills/release-notes", "--github"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let sent = requests(&server).await;
    assert_eq!(sent.len(), 2, "{sent:?}");
    assert_eq!(sent[0].1, runs);
    assert_eq!(
        sent[0].2["head_sha"], MERGE_SHA,
        "on a push, GITHUB_SHA is the pushed commit"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_rate_limited_403_is_waited_out_not_taken_for_a_read_only_token() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(RUNS))
        .respond_with(
            ResponseTemplate::new(403)
                .insert_header("x-ratelimit-remaining", "0")
                .insert_header("retry-after", "1")
                .set_body_json(json!({ "message": "API rate limit exceeded" })),
        )
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    check_run_api(&server, 6).await;
    let dir = pack(
        "release-notes",
        "# Notes\n\nNever publish without a review.\n",
    );
    let run = gate(
        dir.path(),
        Some(&server.uri()),
        Some(TOKEN),
        &["skills/release-notes", "--github"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        !run.stderr.contains("instead"),
        "no fallback: {}",
        run.stderr
    );
    assert_eq!(
        requests(&server).await.len(),
        3,
        "403, then 201 and the final update"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_that_cannot_be_finished_is_cancelled_not_left_in_progress() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(RUNS))
        .respond_with(ResponseTemplate::new(201).set_body_json(json!({ "id": 13 })))
        .mount(&server)
        .await;
    Mock::given(method("PATCH"))
        .and(path(format!("{RUNS}/13")))
        .respond_with(
            ResponseTemplate::new(422)
                .set_body_json(json!({ "message": "Invalid request: annotations" })),
        )
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("PATCH"))
        .and(path(format!("{RUNS}/13")))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({ "id": 13 })))
        .mount(&server)
        .await;
    let dir = pack("release-notes", &broken_links(3));
    let run = gate(
        dir.path(),
        Some(&server.uri()),
        Some(TOKEN),
        &["skills/release-notes", "--github"],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("HTTP 422: Invalid request: annotations"),
        "{}",
        run.stderr
    );
    let sent = requests(&server).await;
    assert_eq!(
        sent.len(),
        3,
        "create, the refused annotations, the cancellation"
    );
    let last = &sent[2].2;
    assert_eq!(last["status"], "completed");
    assert_eq!(last["conclusion"], "cancelled");
    assert!(
        last["output"]["summary"]
            .as_str()
            .unwrap()
            .contains("Invalid request: annotations")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_403_on_the_annotations_cancels_the_run_and_falls_back() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(RUNS))
        .respond_with(ResponseTemplate::new(201).set_body_json(json!({ "id": 14 })))
        .mount(&server)
        .await;
    Mock::given(method("PATCH"))
        .and(path(format!("{RUNS}/14")))
        .respond_with(
            ResponseTemplate::new(403)
                .set_body_json(json!({ "message": "Resource not accessible by integration" })),
        )
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("PATCH"))
        .and(path(format!("{RUNS}/14")))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({ "id": 14 })))
        .mount(&server)
        .await;
    let dir = pack("release-notes", &broken_links(3));
    let run = gate(
        dir.path(),
        Some(&server.uri()),
        Some(TOKEN),
        &["skills/release-notes", "--github"],
    );
    assert_eq!(
        run.code, 1,
        "the error findings, as without --github: {}",
        run.stderr
    );
    let sent = requests(&server).await;
    assert_eq!(
        sent.len(),
        3,
        "create, the refused annotations, the cancellation: {sent:?}"
    );
    let last = &sent[2].2;
    assert_eq!(
        *last,
        json!({
            "status": "completed",
            "conclusion": "cancelled",
            "output": {
                "title": "skillgate could not finish this report",
                "summary": "skillgate stopped before this report was complete: annotating the \
                            check run \"skillgate: release-notes\": 403 Forbidden: Resource not \
                            accessible by integration.\n\nThe findings are in the workflow's log.",
            },
        })
    );
    // The findings still reach the reviewers.
    assert!(
        run.stdout
            .contains("::error file=skills/release-notes/SKILL.md"),
        "{}",
        run.stdout
    );
    assert!(run.step_summary.contains("## skillgate: release-notes"));
}

/// Run `git ARGS` in `dir` and return its output.
fn git_in(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_skill_kept_in_its_repository_links_the_repositorys_files_and_passes_once() {
    let body = "# Regenerate the client\n\n\
                1. Run `scripts/regen.sh` from the repository root.\n\
                2. Run [the client's spec](../../../tests/foo.spec.ts); never edit \
                `src/client.ts` by hand.\n\
                3. The same script is [here too](scripts/regen.sh).\n";
    let dir = tree(&[
        (".claude/skills/x/SKILL.md", &manifest("x", body)),
        ("tests/foo.spec.ts", "test('client', () => {});\n"),
        ("scripts/regen.sh", "#!/bin/sh\necho regenerated\n"),
        ("src/client.ts", "export const client = 1;\n"),
        (
            "package.json",
            "{\"name\":\"app\",\"devDependencies\":{\"vitest\":\"1.0.0\"}}\n",
        ),
    ]);
    let root = dir.path();
    // The skill's `scripts` is the repository's own, and a second client finds the same skill
    // through a symlinked folder.
    std::os::unix::fs::symlink("../../../scripts", root.join(".claude/skills/x/scripts")).unwrap();
    std::fs::create_dir_all(root.join(".agents/skills")).unwrap();
    std::os::unix::fs::symlink("../../.claude/skills/x", root.join(".agents/skills/x")).unwrap();
    git_in(root, &["init", "-q", "-b", "main"]);
    git_in(root, &["add", "."]);
    git_in(root, &["commit", "-q", "-m", "base"]);
    let base = git_in(root, &["rev-parse", "HEAD"]).trim().to_owned();
    std::fs::write(
        root.join(".claude/skills/x/SKILL.md"),
        manifest(
            "x",
            &format!("{body}4. Never commit the regenerated file unreviewed.\n"),
        ),
    )
    .unwrap();
    git_in(root, &["commit", "-q", "-am", "change the skill"]);

    let server = MockServer::start().await;
    check_run_api(&server, 40).await;
    let run = gate(
        root,
        Some(&server.uri()),
        Some(TOKEN),
        &["--changed-since", &base, "--github"],
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("1 skill folders changed"),
        "{}",
        run.stderr
    );
    let sent = requests(&server).await;
    let created: Vec<&Value> = sent
        .iter()
        .filter(|(m, p, _)| m == "POST" && p == RUNS)
        .map(|(_, _, b)| b)
        .collect();
    assert_eq!(created.len(), 1, "one check run: {sent:?}");
    assert_eq!(created[0]["name"], "skillgate: x");
    let last = &sent.last().unwrap().2;
    assert_eq!(last["conclusion"], "neutral", "{last}");
    assert!(
        last["output"]["title"]
            .as_str()
            .unwrap()
            .contains(": 0 errors, 0 warnings"),
        "{last}"
    );
    assert_eq!(
        run.stdout.matches("SKILL.md: ").count(),
        1,
        "checked once: {}",
        run.stdout
    );

    // Named through both folders, or found by walking the repository: still once.
    for args in [&[".claude/skills/x", ".agents/skills/x"][..], &[][..]] {
        let out = skillgate()
            .current_dir(root)
            .arg("gate")
            .args(args)
            .env_remove("GITHUB_EVENT_PATH")
            .env_remove("GITHUB_SHA")
            .env_remove("GITHUB_TOKEN")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}\n{stdout}\n{stderr}");
        assert_eq!(
            stdout.matches("SKILL.md: ").count(),
            1,
            "{args:?}: {stdout}"
        );
        assert!(stdout.contains("0 errors, 0 warnings"), "{stdout}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_skill_that_cannot_be_loaded_gets_its_check_run_with_one_error() {
    let server = MockServer::start().await;
    check_run_api(&server, 50).await;
    let dir = tree(&[
        (
            "skills/good/SKILL.md",
            &manifest("good", "# Notes\n\nNever publish without a review.\n"),
        ),
        (
            "skills/bad/SKILL.md",
            "---\nname: bad\ndescription: [unclosed\n---\nbody\n",
        ),
    ]);
    let run = gate(
        dir.path(),
        Some(&server.uri()),
        Some(TOKEN),
        &["skills/bad", "skills/good", "--github"],
    );
    assert_eq!(run.code, 2, "unreadable input: {}", run.stderr);
    assert!(
        run.stderr.contains("invalid frontmatter YAML"),
        "{}",
        run.stderr
    );
    let sent = requests(&server).await;
    let created: Vec<&str> = sent
        .iter()
        .filter(|(m, _, _)| m == "POST")
        .map(|(_, _, b)| b["name"].as_str().unwrap())
        .collect();
    assert_eq!(created, ["skillgate: good", "skillgate: bad"], "{sent:?}");
    let bad = &sent[sent
        .iter()
        .position(|(m, _, b)| m == "POST" && b["name"] == "skillgate: bad")
        .unwrap()..];
    let annotations = bad[1].2["output"]["annotations"].as_array().unwrap();
    assert_eq!(annotations.len(), 1, "{annotations:?}");
    assert_eq!(annotations[0]["title"], "SG509 unloadable-skill");
    assert_eq!(annotations[0]["annotation_level"], "failure");
    assert_eq!(annotations[0]["path"], "skills/bad/SKILL.md");
    assert_eq!(bad[2].2["conclusion"], "failure", "{}", bad[2].2);
    assert!(
        bad[2].2["output"]["title"]
            .as_str()
            .unwrap()
            .starts_with("no verdict: 1 errors"),
        "{}",
        bad[2].2
    );
}

/// `--models` evaluates each skill on every model: the check run and the comment show one
/// line per model and the panel's decision, and the JSON holds a verdict per model.
#[tokio::test(flavor = "multi_thread")]
async fn with_several_models_the_check_run_and_comment_show_each_model_and_the_panel() {
    let server = MockServer::start().await;
    check_run_api(&server, 51).await;
    user_api(&server, None).await;
    comment_api(&server, json!([])).await;
    let work = tempfile::tempdir().unwrap();
    // Helps m-helps, does nothing on m-nothing, harms m-harms (see tests/it/panel.rs).
    let agent = crate::panel::model_agent(work.path());
    // The default panel policy, per-model: each model decides for itself.
    let config = work.path().join("skillgate.toml");
    std::fs::write(&config, "[verdict]\nmin-tasks = 3\n").unwrap();
    let runs = work.path().join("runs");
    let json_out = work.path().join("gate.json");
    let run = gate(
        &root(),
        Some(&server.uri()),
        Some(TOKEN),
        &[
            "fixtures/skills/inventory-conventions",
            "--repo",
            "fixtures/repos/inventory",
            "--config",
            config.to_str().unwrap(),
            "--github",
            "--comment",
            "--json",
            json_out.to_str().unwrap(),
            "--eval",
            "--tasks",
            "tasks",
            "--agent",
            "command",
            "--agent-cmd",
            &agent,
            "--backend",
            "local",
            "--conditions",
            "C0,C1,C2",
            "--models",
            "m-helps,m-nothing,m-harms",
            "--seeds",
            "1",
            "--worktree",
            "--no-cache",
            "--runs",
            runs.to_str().unwrap(),
        ],
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let panel = "inject on m-helps, skip on m-nothing, skip on m-harms (panel: per-model)";
    let sent = requests(&server).await;
    let check = sent
        .iter()
        .rev()
        .find(|(m, p, _)| m == "PATCH" && p.starts_with(RUNS))
        .map(|(_, _, body)| body)
        .unwrap();
    // One gate conclusion: a skill one of its models should skip does not pass.
    assert_eq!(check["conclusion"], "neutral", "{check}");
    assert!(
        check["output"]["title"]
            .as_str()
            .unwrap()
            .starts_with(panel),
        "{check}"
    );
    let summary = check["output"]["summary"].as_str().unwrap();
    assert!(
        summary.contains(&format!("**Verdicts: {panel}**")),
        "{summary}"
    );
    for line in [
        "- m-helps (command sha256:",
        "- m-nothing (command sha256:",
        "- m-harms (command sha256:",
    ] {
        assert!(summary.contains(line), "{line}: {summary}");
    }
    assert!(
        summary.contains("): inject · benefit · Δ +100.0 pts"),
        "{summary}"
    );
    assert!(
        summary.contains("): skip · no-benefit · Δ 0.0 pts"),
        "{summary}"
    );
    assert!(
        summary.contains("): skip · harm · Δ −100.0 pts"),
        "{summary}"
    );
    assert!(summary.contains("**Transfer**"), "{summary}");

    let comment = sent
        .iter()
        .find(|(m, p, _)| m == "POST" && p == COMMENTS)
        .map(|(_, _, body)| body["body"].as_str().unwrap().to_owned())
        .unwrap();
    assert!(
        comment.contains(&format!(
            "| `inventory-conventions` | {panel} | `neutral` |"
        )),
        "{comment}"
    );
    assert!(comment.contains("- m-harms (command sha256:"), "{comment}");
    assert!(run.outputs.contains("decision=skip"), "{}", run.outputs);

    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json_out).unwrap()).unwrap();
    assert!(
        doc["verdict"].is_null(),
        "no single verdict speaks for every model"
    );
    let models: Vec<&str> = doc["verdicts"]["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["model"].as_str().unwrap())
        .collect();
    assert_eq!(models, ["m-helps", "m-nothing", "m-harms"]);
    assert!(
        run.stdout.contains(&format!("verdicts: {panel}")),
        "{}",
        run.stdout
    );
}

#[test]
fn sequential_rounds_and_several_models_are_refused_together() {
    let dir = tempfile::tempdir().unwrap();
    let run = gate(
        &root(),
        None,
        None,
        &[
            "fixtures/skills/inventory-conventions",
            "--repo",
            "fixtures/repos/inventory",
            "--eval",
            "--tasks",
            "tasks",
            "--agent",
            "command",
            "--agent-cmd",
            "true",
            "--backend",
            "local",
            "--models",
            "a,b",
            "--sequential",
            "--runs",
            dir.path().to_str().unwrap(),
        ],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("cannot run over several --models"),
        "{}",
        run.stderr
    );
}
