//! Verdicts per model: one journal with three models (one helped, one untouched, one
//! harmed), the transfer figures between them and the panel policies.

use skillgate::eval::journal::CellRecord;
use skillgate::stats::{StatsOptions, summarize_by_model};
use skillgate::verdict::{Decision, Evidence, Panel, PanelVerdict, VerdictPolicy, decide_panel};

use crate::synthetic::from_counts;

/// How the harmed model's pass count drops per task (of 12 seeds, from 11): distinct, so
/// the ranks have no ties; task 8 gains one instead.
const HARM: [i32; 12] = [10, 2, 11, 7, 1, 3, 6, -1, 8, 5, 4, 9];

fn with_model(model: &str, mut cells: Vec<CellRecord>) -> Vec<CellRecord> {
    for cell in &mut cells {
        cell.model = model.to_owned();
    }
    cells
}

/// Twelve tasks × 12 seeds per model; the length control does as no skill.
fn three_models() -> Vec<CellRecord> {
    // Helps: task i gains i + 1 passes of 12 (distinct effects, 1/12 to 12/12 of a pass share).
    let helps: Vec<(u32, u32, u32)> = (0..12).map(|i| (0, i + 1, 0)).collect();
    // Nothing: the same passes with and without the skill on every task.
    let nothing: Vec<(u32, u32, u32)> =
        (0..12).map(|i| (i % 4 + 4, i % 4 + 4, i % 4 + 4)).collect();
    // Harms: 11 passes without the skill, 11 − HARM[i] with it.
    let harms: Vec<(u32, u32, u32)> = HARM.iter().map(|&q| (11, (11 - q) as u32, 11)).collect();
    let mut cells = with_model("m-helps", from_counts(12, &helps));
    cells.extend(with_model("m-nothing", from_counts(12, &nothing)));
    cells.extend(with_model("m-harms", from_counts(12, &harms)));
    cells
}

fn panel(policy: Panel) -> PanelVerdict {
    let options = StatsOptions {
        resamples: 2_000,
        ..StatsOptions::default()
    };
    let measured = summarize_by_model(&three_models(), &options).unwrap();
    let policy = VerdictPolicy {
        panel: policy,
        ..VerdictPolicy::default()
    };
    decide_panel(&policy, &[], &measured, None, &options)
}

#[test]
fn each_model_gets_the_evidence_it_was_designed_for() {
    let p = panel(Panel::PerModel);
    let by_model: Vec<(&str, Option<Evidence>, Decision)> = p
        .verdicts
        .iter()
        .map(|v| (v.model.as_deref().unwrap(), v.evidence, v.decision))
        .collect();
    assert_eq!(
        by_model,
        [
            ("m-helps", Some(Evidence::Benefit), Decision::Inject),
            ("m-nothing", Some(Evidence::NoBenefit), Decision::Skip),
            ("m-harms", Some(Evidence::Harm), Decision::Skip),
        ]
    );
    // Every verdict names what it was measured with.
    for v in &p.verdicts {
        assert!(v.agent.is_some());
        assert_eq!(v.agent_version, Some(None));
    }
    // No spread on the untouched model: no MDE, with the reason.
    assert_eq!(p.verdicts[1].mde_points, Some(None));
    assert!(p.verdicts[0].mde_points.flatten().is_some());
    assert_eq!(
        p.decision, None,
        "per-model: each verdict decides for its model"
    );
    assert_eq!(
        p.reasons[1],
        "the models disagree: helps m-helps, no-benefit on m-nothing, harms m-harms"
    );
}

#[test]
fn transfer_matches_a_hand_computation() {
    let p = panel(Panel::PerModel);
    let pairs: Vec<(&str, &str)> = p
        .transfer
        .iter()
        .map(|r| (r.figures.a.as_str(), r.figures.b.as_str()))
        .collect();
    assert_eq!(
        pairs,
        [
            ("m-helps", "m-nothing"),
            ("m-helps", "m-harms"),
            ("m-nothing", "m-harms")
        ]
    );
    let helps_harms = &p.transfer[1].figures;
    assert_eq!(helps_harms.tasks, 12);
    // Signs: the helped model gains on all 12 tasks, the harmed one only on task 8.
    assert!((helps_harms.sign_agreement.unwrap() - 1.0 / 12.0).abs() < 1e-12);
    // Ranks of the helped model's effects are 1..12 in task order; of the harmed model's,
    // (2, 10, 1, 5, 11, 9, 6, 12, 4, 7, 8, 3). Σd² = 1 + 64 + 4 + 1 + 36 + 9 + 1 + 16 + 25
    // + 9 + 9 + 81 = 256, so ρ = 1 − 6·256 / (12·143) = 0.1049.
    let rho = helps_harms.spearman.unwrap();
    assert!(
        (rho - (1.0 - 6.0 * 256.0 / (12.0 * 143.0))).abs() < 1e-12,
        "{rho}"
    );
    let (lo, hi) = (
        helps_harms.spearman_lo.unwrap(),
        helps_harms.spearman_hi.unwrap(),
    );
    assert!(
        -1.0 <= lo && lo < rho && rho < hi && hi <= 1.0,
        "[{lo}, {hi}]"
    );
    // Twelve tasks leave ρ's interval wide: it cannot tell no relation from a moderate one.
    assert!(lo < 0.0 && hi > 0.5, "[{lo}, {hi}]");
    assert!(!p.transfer[1].decisions_agree);
    // The untouched model's effect is 0 on every task: no signs agree, ρ has no ranks.
    let nothing = &p.transfer[0].figures;
    assert_eq!(nothing.sign_agreement, Some(0.0));
    assert_eq!(nothing.spearman, None);
    assert!(nothing.undefined["spearman"].contains("same on every common task"));
    assert!(p.transfer[2].decisions_agree, "both skip");
    let expected = format!(
        "transfer m-helps / m-harms on 12 common tasks: signs agree on 8%, Spearman ρ +0.10 \
         [{}, {}]; decisions differ",
        skillgate::verdict::signed_fixed(lo, 2),
        skillgate::verdict::signed_fixed(hi, 2)
    );
    assert!(p.reasons.contains(&expected), "{:#?}", p.reasons);
}

#[test]
fn panel_policies_decide_over_the_models() {
    assert_eq!(panel(Panel::All).decision, Some(Decision::Skip));
    assert_eq!(panel(Panel::Any).decision, Some(Decision::Inject));
    assert!(panel(Panel::All).reasons[0].ends_with("1 of 3 are"));
}

#[test]
fn the_transfer_is_deterministic() {
    assert_eq!(panel(Panel::PerModel), panel(Panel::PerModel));
}

#[test]
fn the_panel_policy_reads_from_the_verdict_table() {
    #[derive(serde::Deserialize)]
    struct File {
        verdict: VerdictPolicy,
    }
    let file: File = toml::from_str("[verdict]\npanel = \"all\"\n").unwrap();
    assert_eq!(file.verdict.panel, Panel::All);
    assert_eq!(VerdictPolicy::default().panel, Panel::PerModel);
    assert!(toml::from_str::<File>("[verdict]\npanel = \"most\"\n").is_err());
}

/// The fixture agent, made to depend on SKILLGATE_MODEL: `m-helps` follows the skill as the
/// fixture does, `m-nothing` never changes anything, `m-harms` solves the task from its own
/// copy of the skill except when it is given the skill (it then does nothing).
pub(crate) fn model_agent(dir: &std::path::Path) -> String {
    let fixture =
        std::fs::read_to_string(crate::support::root().join("fixtures/agents/command-agent.sh"))
            .unwrap();
    let prelude = r#"case "${SKILLGATE_MODEL:-}" in
    m-nothing) source_file=/dev/null ;;
    m-harms)
        if grep -q '^# fixture:solve$' "$source_file"; then
            source_file=/dev/null
        else
            source_file=$2
        fi
        ;;
esac
"#;
    let script = fixture.replacen("\nbytes=", &format!("\n{prelude}bytes="), 1);
    assert_ne!(script, fixture, "the fixture changed shape");
    let path = dir.join("model-agent.sh");
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let skill = crate::support::root().join("fixtures/skills/inventory-conventions/SKILL.md");
    format!("{} follow {}", path.display(), skill.display())
}

fn eval_models(out: &std::path::Path, config: &std::path::Path, agent: &str, extra: &[&str]) {
    let mut args = vec![
        "eval",
        "fixtures/skills/inventory-conventions/SKILL.md",
        "--repo",
        "fixtures/repos/inventory",
        "--worktree",
        "--tasks",
        "tasks",
        "--agent",
        "command",
        "--agent-cmd",
        agent,
        "--backend",
        "local",
        "--conditions",
        "C0,C1,C2",
        "--models",
        "m-helps,m-nothing,m-harms",
        "--no-cache",
        "--quiet",
        "--config",
        config.to_str().unwrap(),
    ];
    let out_arg = out.display().to_string();
    args.extend(["--out", &out_arg]);
    args.extend(extra);
    let (code, stdout, stderr) = crate::support::run(&args);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
}

fn report_json(run_dir: &std::path::Path) -> serde_json::Value {
    let dir = run_dir.display().to_string();
    let (code, out, stderr) = crate::support::run(&["report", &dir, "--format", "json"]);
    assert_eq!(code, 0, "{stderr}");
    serde_json::from_str(&out).unwrap()
}

fn journal_models(run_dir: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(run_dir.join("cells.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["model"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

#[test]
fn a_scripted_agent_gets_a_verdict_per_model() {
    let dir = tempfile::tempdir().unwrap();
    let agent = model_agent(dir.path());
    let config = dir.path().join("skillgate.toml");
    std::fs::write(&config, "[verdict]\nmin-tasks = 3\npanel = \"all\"\n").unwrap();
    let out = dir.path().join("run");
    eval_models(&out, &config, &agent, &["--seeds", "1"]);
    // 3 tasks × 3 conditions × 1 seed per model, the model in every cell.
    let models = journal_models(&out);
    assert_eq!(models.len(), 27);
    for m in ["m-helps", "m-nothing", "m-harms"] {
        assert_eq!(models.iter().filter(|x| *x == m).count(), 9, "{m}");
    }

    let doc = report_json(&out);
    let panel = &doc["verdicts"];
    assert_eq!(panel["panel"], "all");
    assert_eq!(panel["decision"], "skip", "not every model gains");
    let states: Vec<(String, String, String)> = panel["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            assert_eq!(v["agent"], "command");
            (
                v["model"].as_str().unwrap().to_owned(),
                v["evidence"].as_str().unwrap().to_owned(),
                v["decision"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let expect = |m: &str, e: &str, d: &str| (m.to_owned(), e.to_owned(), d.to_owned());
    assert_eq!(
        states,
        [
            expect("m-helps", "benefit", "inject"),
            expect("m-nothing", "no-benefit", "skip"),
            expect("m-harms", "harm", "skip"),
        ]
    );
    // Per task the effects are +1, 0 and −1 on every task: no sign agrees, and ρ has no
    // ranks (every effect of a model is the same).
    let transfer = panel["transfer"].as_array().unwrap();
    assert_eq!(transfer.len(), 3);
    for row in transfer {
        assert_eq!(row["tasks"], 3);
        assert_eq!(row["sign_agreement"], 0.0);
        assert!(row["spearman"].is_null());
        assert!(row["undefined"]["spearman"].is_string());
    }
    assert_eq!(transfer[0]["decisions_agree"], false);
    assert_eq!(transfer[2]["decisions_agree"], true);

    // The scripted agent is a host file: its version is its hash, recorded by the run.
    let info: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("run.json")).unwrap()).unwrap();
    let version = info["versions"]["agent"].as_str().unwrap().to_owned();
    assert!(version.starts_with("sha256:"), "{version}");
    for v in panel["verdicts"].as_array().unwrap() {
        assert_eq!(v["agent_version"], version.as_str());
    }
    for format in ["human", "markdown", "html"] {
        let dir = out.display().to_string();
        let (code, text, stderr) = crate::support::run(&["report", &dir, "--format", format]);
        assert_eq!(code, 0, "{stderr}");
        assert!(
            text.contains("helps m-helps, no-benefit on m-nothing, harms m-harms"),
            "{format}: {text}"
        );
        assert!(text.contains("m-helps / m-harms"), "{format}");
        assert!(
            text.contains(&format!("agent command ({version}), model m-nothing")),
            "{format}"
        );
    }
    let (_, html, _) = crate::support::run(&["report", out.to_str().unwrap(), "--format", "html"]);
    assert!(
        html.contains("aria-label=\"Forest plot of Δ per model\""),
        "{html}"
    );
    // A point per model, then each model's own Δ, ΔLength and ΔContent.
    assert_eq!(html.matches("<circle").count(), 3 + 3 * 3);
}

/// What two runs of the same cells must agree on (wall times differ from run to run).
fn essentials(doc: &serde_json::Value) -> serde_json::Value {
    let panel = &doc["verdicts"];
    let verdicts: Vec<serde_json::Value> = panel["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            serde_json::json!([
                v["model"],
                v["decision"],
                v["evidence"],
                v["eval"]["delta"],
                v["eval"]["per_task"]
            ])
        })
        .collect();
    serde_json::json!([
        panel["decision"],
        panel["transfer"],
        panel["reasons"],
        verdicts
    ])
}

#[test]
fn two_models_split_across_shards_merge_and_resume_as_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let agent = model_agent(dir.path());
    let config = dir.path().join("skillgate.toml");
    std::fs::write(&config, "[verdict]\nmin-tasks = 3\n").unwrap();
    let whole = dir.path().join("whole");
    eval_models(&whole, &config, &agent, &["--seeds", "1"]);

    let shards: Vec<std::path::PathBuf> = (1..=2)
        .map(|k| {
            let out = dir.path().join(format!("shard-{k}"));
            eval_models(
                &out,
                &config,
                &agent,
                &["--seeds", "1", "--shard", &format!("{k}/2")],
            );
            out
        })
        .collect();
    let sizes: Vec<usize> = shards.iter().map(|s| journal_models(s).len()).collect();
    assert_eq!(sizes.iter().sum::<usize>(), 27, "{sizes:?}");
    // The model is part of the shard key: each share holds cells of more than one model.
    for shard in &shards {
        let mut models = journal_models(shard);
        models.sort();
        models.dedup();
        assert!(models.len() > 1, "{models:?}");
    }
    let merged = dir.path().join("merged");
    let (code, _, stderr) = crate::support::run(&[
        "merge",
        shards[0].to_str().unwrap(),
        shards[1].to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        essentials(&report_json(&merged)),
        essentials(&report_json(&whole))
    );

    // An interrupted run: the journal lost its last cells; --resume runs only those.
    let journal = whole.join("cells.jsonl");
    let text = std::fs::read_to_string(&journal).unwrap();
    let kept: Vec<&str> = text.lines().take(20).collect();
    std::fs::write(&journal, kept.join("\n") + "\n").unwrap();
    let (code, _, stderr) = crate::support::run(&[
        "eval",
        "--quiet",
        "--resume",
        whole.to_str().unwrap(),
        "--no-cache",
        "--config",
        config.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(journal_models(&whole).len(), 27);
    assert_eq!(
        essentials(&report_json(&whole)),
        essentials(&report_json(&merged))
    );
}

#[test]
fn models_named_twice_or_empty_are_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    for (models, why) in [
        ("m-a,m-a", "`m-a` is named twice"),
        ("m-a,,m-b", "a model name is empty"),
    ] {
        let out = dir.path().join("run").display().to_string();
        let (code, _, stderr) = crate::support::run(&[
            "eval",
            "fixtures/skills/inventory-conventions/SKILL.md",
            "--repo",
            "fixtures/repos/inventory",
            "--agent",
            "command",
            "--agent-cmd",
            "true",
            "--models",
            models,
            "--out",
            &out,
        ]);
        assert_ne!(code, 0);
        assert!(stderr.contains(why), "{stderr}");
        assert!(!dir.path().join("run").join("cells.jsonl").exists());
    }
}
