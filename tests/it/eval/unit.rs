//! C2 matching over several skill shapes, without a sandbox.

use skillgate::eval::control::{BodyMeasure, ControlPool};

use super::support::*;

fn code_block(lines: usize, tag: &str) -> String {
    let body: Vec<String> = (0..lines)
        .map(|i| format!("let value_{i} = compute_{tag}({i}, \"{tag}\");"))
        .collect();
    format!("```rust\n{}\n```", body.join("\n"))
}

fn prose(sentences: usize) -> String {
    (0..sentences)
        .map(|i| {
            format!("Step {i}: check the configuration before deploying the service to staging. ")
        })
        .collect()
}

/// Builds a body from (prose, code) pieces and records the code block ranges.
fn shape(pieces: &[(usize, usize)]) -> skillgate::eval::SkillParts {
    let mut body = String::from("# Shape\n\n");
    let mut ranges = Vec::new();
    for (i, &(sentences, lines)) in pieces.iter().enumerate() {
        if sentences > 0 {
            body.push_str(&prose(sentences));
            body.push_str("\n\n");
        }
        if lines > 0 {
            let block = code_block(lines, &format!("t{i}"));
            ranges.push(body.len()..body.len() + block.len());
            body.push_str(&block);
            body.push_str("\n\n");
        }
    }
    shaped_skill(body, ranges)
}

#[test]
fn c2_matches_tokens_and_code_share_over_many_shapes() {
    let pool = ControlPool::builtin();
    let shapes = [
        vec![(3, 0)],
        vec![(1, 0)],
        vec![(0, 4)],
        vec![(2, 3), (2, 3)],
        vec![(20, 0), (5, 40)],
        vec![(60, 2), (40, 2), (30, 0)],
        vec![(1, 80)],
        vec![(200, 10), (100, 60), (50, 0)],
    ];
    for pieces in shapes {
        let skill = shape(&pieces);
        let target = BodyMeasure::of_skill(&skill);
        let control = pool.matched_body(&skill).unwrap();
        let tokens = control.measure.tokens as f64;
        let want = target.tokens as f64;
        assert!(
            (tokens - want).abs() <= (want * 0.02).max(1.0),
            "{pieces:?}: {tokens} vs {want}"
        );
        let share_gap = (control.measure.code_share - target.code_share).abs();
        assert!(
            share_gap <= 0.05,
            "{pieces:?}: share {} vs {}",
            control.measure.code_share,
            target.code_share
        );
        assert_eq!(pool.matched_body(&skill).unwrap(), control, "deterministic");
        assert!(
            !control.body.contains("compute_t"),
            "control text is unrelated to the skill"
        );
    }
}

#[test]
fn c2_for_the_fixture_skill() {
    let skill = fixture_skill();
    let target = BodyMeasure::of_skill(&skill);
    assert!(target.code_share > 0.2, "{target:?}");
    let control = ControlPool::builtin().matched_body(&skill).unwrap();
    assert!(
        (control.measure.tokens as f64 - target.tokens as f64).abs() <= target.tokens as f64 * 0.02
    );
    assert!((control.measure.code_share - target.code_share).abs() <= 0.05);
    let from_dir = ControlPool::from_dir(&root().join("skills/controls")).unwrap();
    assert_eq!(
        from_dir.matched_body(&skill).unwrap(),
        control,
        "embedded pool = skills/controls/"
    );
}

#[test]
fn head_mode_uploads_tracked_files_only() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path();
    let git = |args: &[&str]| {
        let status = std::process::Command::new("git")
            .arg("-C")
            .arg(repo)
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(args)
            .status()
            .unwrap();
        assert!(status.success(), "git {args:?}");
    };
    git(&["init", "-q"]);
    std::fs::create_dir_all(repo.join("sub")).unwrap();
    std::fs::write(repo.join("sub/tracked.txt"), "committed").unwrap();
    git(&["add", "."]);
    git(&["commit", "-q", "-m", "one"]);
    std::fs::write(repo.join("sub/tracked.txt"), "edited, not committed").unwrap();
    std::fs::write(repo.join("untracked.txt"), "new").unwrap();
    let head = skillgate::eval::repo_bundle(repo, false).unwrap();
    let files: Vec<_> = head
        .entries()
        .iter()
        .map(|e| (e.path.clone(), e.read().unwrap()))
        .collect();
    assert_eq!(
        files,
        vec![("sub/tracked.txt".to_owned(), b"committed".to_vec())]
    );
    let tree = skillgate::eval::repo_bundle(repo, true).unwrap();
    let paths: Vec<_> = tree.entries().iter().map(|e| e.path.as_str()).collect();
    assert_eq!(paths, vec!["sub/tracked.txt", "untracked.txt"]);
}
