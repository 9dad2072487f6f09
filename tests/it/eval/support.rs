//! Shared helpers: the fixture skill, options, journal reading, the busybox image.

use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use skillgate::eval::Backend;
use skillgate::eval::agent::AgentKind;
use skillgate::eval::journal::{CellRecord, read_cells};
use skillgate::eval::sandbox::docker::DockerSandbox;
use skillgate::eval::{Condition, EvalOptions, Placement, SkillParts};

/// The image every docker test uses, built from `busybox-static` on first use.
pub const BUSYBOX_IMAGE: &str = "skillgate-test-busybox:1";
/// The image the Harbor look-alike tasks name: busybox plus bash (from `bash-static`) and
/// `/usr/bin/env`, as the scripts of real Harbor tasks expect.
pub const HARBOR_IMAGE: &str = "skillgate-test-harbor:1";

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn fixture(path: &str) -> PathBuf {
    root().join("fixtures").join(path)
}

/// A SKILL.md read by the real skill model, in the parts the conditions need.
pub fn skill_parts(path: &Path) -> SkillParts {
    let skill = skillgate::skill::Skill::load(path).unwrap();
    SkillParts::from_skill(&skill)
}

/// A skill built from raw parts, for matching tests over several shapes.
pub fn shaped_skill(body: String, code_blocks: Vec<Range<usize>>) -> SkillParts {
    SkillParts {
        name: "shape".into(),
        dir: PathBuf::from("/nonexistent"),
        frontmatter: "---\nname: shape\ndescription: a test shape\n---\n".into(),
        body,
        code_blocks,
        prohibitions: Vec::new(),
    }
}

pub fn fixture_skill() -> SkillParts {
    skill_parts(&fixture("skills/inventory-conventions/SKILL.md"))
}

/// Options for a run of the command fixture agent on the example tasks.
pub fn options(backend: Backend, out: &Path, agent_args: &str) -> EvalOptions {
    let cmd = format!(
        "{} {agent_args}",
        fixture("agents/command-agent.sh").display()
    );
    EvalOptions {
        skill: fixture("skills/inventory-conventions/SKILL.md"),
        repo: fixture("repos/inventory"),
        tasks: root().join("tasks"),
        agent: AgentKind::Command,
        agent_cmd: Some(cmd.trim_end().to_owned()),
        model: None,
        models: Vec::new(),
        seeds: 1,
        attempts: 1,
        conditions: vec![Condition::C0, Condition::C1],
        placement: Placement::Discover,
        backend,
        jobs: 1,
        out: out.to_owned(),
        resume: false,
        retries: 0,
        worktree: true,
        cache_dir: None,
        pass_env: Vec::new(),
        install: None,
        quiet: true,
        verifier_offline: false,
        require_storage_limits: false,
        build: false,
        shard: None,
    }
}

pub fn cells(run_dir: &Path) -> Vec<CellRecord> {
    read_cells(&run_dir.join("cells.jsonl")).unwrap()
}

pub fn by_condition(cells: &[CellRecord]) -> HashMap<Condition, Vec<&CellRecord>> {
    let mut map: HashMap<Condition, Vec<&CellRecord>> = HashMap::new();
    for c in cells {
        map.entry(c.condition).or_default().push(c);
    }
    map
}

/// `skillgate eval` of the fixture skill on `tasks` with the command fixture agent in `mode`:
/// conditions C0 and C1, two cells at a time, no cache, quiet. The caller adds `--out`.
pub fn eval_command(backend: &str, tasks: &Path, mode: &str) -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_skillgate"));
    cmd.arg("eval")
        .arg(fixture("skills/inventory-conventions/SKILL.md"))
        .arg("--repo")
        .arg(fixture("repos/inventory"))
        .arg("--worktree")
        .arg("--tasks")
        .arg(tasks)
        .args(["--agent", "command", "--agent-cmd"])
        .arg(format!(
            "{} {mode}",
            fixture("agents/command-agent.sh").display()
        ))
        .args(["--conditions", "C0,C1", "-j", "2", "--no-cache", "--quiet"])
        .args(["--backend", backend]);
    cmd
}

/// `skillgate tasks check` of `tasks` against the fixture repository's worktree on `backend`,
/// as a user runs it. The caller adds flags and runs it.
pub fn tasks_check_command(tasks: &Path, backend: &str) -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_skillgate"));
    cmd.args(["tasks", "check"])
        .arg(tasks)
        .arg("--repo")
        .arg(fixture("repos/inventory"))
        .args(["--worktree", "--backend", backend]);
    cmd
}

/// Every agent stdout log of a run, with its path.
pub fn agent_logs(run_dir: &Path) -> Vec<(PathBuf, String)> {
    run_logs(run_dir, "-agent.stdout")
}

/// A copy of one example task with other time limits, in `dir`.
pub fn task_copy(dir: &Path, task: &str, agent_timeout: f64) -> PathBuf {
    let src = root().join("tasks").join(task);
    let dest = dir.join(task);
    copy_dir(&src, &dest);
    let toml = std::fs::read_to_string(dest.join("task.toml")).unwrap();
    let toml = toml.replace(
        "[agent]\ntimeout_sec = 120.0",
        &format!("[agent]\ntimeout_sec = {agent_timeout:.1}"),
    );
    std::fs::write(dest.join("task.toml"), toml).unwrap();
    dest
}

/// Replaces `from` with `to` in a file, which must contain it.
pub fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{} lacks {from:?}", path.display());
    std::fs::write(path, text.replace(from, to)).unwrap();
}

/// An executable `#!/bin/sh` script in `dir`; returns its path.
pub fn script(dir: &Path, name: &str, body: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.to_string_lossy().into_owned()
}

/// Every log of a run whose name ends with `suffix`, with its path, sorted by path.
pub fn run_logs(run_dir: &Path, suffix: &str) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let mut stack = vec![run_dir.join("logs")];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.to_string_lossy().ends_with(suffix) {
                out.push((p.clone(), std::fs::read_to_string(&p).unwrap_or_default()));
            }
        }
    }
    out.sort();
    out
}

pub fn copy_dir(src: &Path, dest: &Path) {
    std::fs::create_dir_all(dest).unwrap();
    for e in std::fs::read_dir(src).unwrap().flatten() {
        let to = dest.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &to);
        } else {
            std::fs::copy(e.path(), &to).unwrap();
        }
    }
}

/// Connects to the engine and makes sure the busybox image exists, importing a rootfs tar
/// (busybox plus one link per applet) through the API. Panics with a clear message when
/// Docker or busybox-static is missing: these tests must not pass silently.
pub fn docker(run_id: &str) -> DockerSandbox {
    let sandbox = DockerSandbox::connect(run_id, None)
        .unwrap_or_else(|e| panic!("Docker is required for these tests and is not usable: {e}"));
    import_image(&sandbox, BUSYBOX_IMAGE, false);
    sandbox
}

/// [`docker`], with [`HARBOR_IMAGE`] too.
pub fn docker_with_bash(run_id: &str) -> DockerSandbox {
    let sandbox = docker(run_id);
    import_image(&sandbox, HARBOR_IMAGE, true);
    sandbox
}

fn import_image(sandbox: &DockerSandbox, image: &str, bash: bool) {
    let docker = sandbox.client().clone();
    let exists = sandbox.block_on(docker.inspect_image(image)).is_ok();
    if !exists {
        let tar = busybox_rootfs(bash);
        let (repo, tag) = image.split_once(':').unwrap();
        let options = bollard::query_parameters::CreateImageOptionsBuilder::default()
            .from_src("-")
            .repo(repo)
            .tag(tag)
            .changes(vec![
                "WORKDIR /app".into(),
                "CMD [\"sh\"]".into(),
                "ENV PATH=/bin".into(),
            ])
            .build();
        sandbox.block_on(async {
            use futures_util::StreamExt;
            let mut stream =
                docker.create_image(Some(options), Some(bollard::body_full(tar.into())), None);
            while let Some(step) = stream.next().await {
                step.expect("importing the busybox rootfs");
            }
        });
    }
}

fn busybox_rootfs(bash: bool) -> Vec<u8> {
    let busybox = ["/bin/busybox", "/usr/bin/busybox"]
        .into_iter()
        .find(|p| Path::new(p).is_file())
        .expect("busybox-static is required (apt-get install -y busybox-static)");
    let list = std::process::Command::new(busybox)
        .arg("--list")
        .output()
        .expect("busybox --list");
    let mut builder = tar::Builder::new(Vec::new());
    for dir in ["bin", "tmp", "app", "etc", "root"] {
        let mut h = tar::Header::new_gnu();
        h.set_entry_type(tar::EntryType::Directory);
        h.set_mode(if dir == "tmp" { 0o1777 } else { 0o755 });
        h.set_size(0);
        builder
            .append_data(&mut h, format!("{dir}/"), std::io::empty())
            .unwrap();
    }
    let bytes = std::fs::read(busybox).unwrap();
    let mut h = tar::Header::new_gnu();
    h.set_mode(0o755);
    h.set_size(bytes.len() as u64);
    builder
        .append_data(&mut h, "bin/busybox", bytes.as_slice())
        .unwrap();
    if bash {
        let bash = std::fs::read("/bin/bash-static")
            .expect("bash-static is required (apt-get install -y bash-static)");
        let mut h = tar::Header::new_gnu();
        h.set_mode(0o755);
        h.set_size(bash.len() as u64);
        builder
            .append_data(&mut h, "bin/bash", bash.as_slice())
            .unwrap();
        let mut h = tar::Header::new_gnu();
        h.set_entry_type(tar::EntryType::Directory);
        h.set_mode(0o755);
        h.set_size(0);
        builder
            .append_data(&mut h, "usr/bin/", std::io::empty())
            .unwrap();
        let mut h = tar::Header::new_gnu();
        h.set_entry_type(tar::EntryType::Symlink);
        h.set_mode(0o777);
        h.set_size(0);
        builder
            .append_link(&mut h, "usr/bin/env", "/bin/busybox")
            .unwrap();
    }
    let passwd = b"root:x:0:0:root:/root:/bin/sh\n";
    let mut h = tar::Header::new_gnu();
    h.set_mode(0o644);
    h.set_size(passwd.len() as u64);
    builder
        .append_data(&mut h, "etc/passwd", passwd.as_slice())
        .unwrap();
    for applet in String::from_utf8_lossy(&list.stdout)
        .lines()
        .filter(|a| *a != "busybox")
    {
        let mut h = tar::Header::new_gnu();
        h.set_entry_type(tar::EntryType::Symlink);
        h.set_mode(0o777);
        h.set_size(0);
        builder
            .append_link(&mut h, format!("bin/{applet}"), "busybox")
            .unwrap();
    }
    builder.into_inner().unwrap()
}

/// Containers of a run still present (must be none once a run is over).
pub fn leftover_containers(sandbox: &DockerSandbox) -> Vec<String> {
    sandbox.run_containers().unwrap()
}

/// Removes one image a test made for itself (by exact tag: other runs may share the daemon).
pub fn remove_image(sandbox: &DockerSandbox, tag: &str) {
    let docker = sandbox.client().clone();
    let options = bollard::query_parameters::RemoveImageOptionsBuilder::default()
        .force(true)
        .build();
    sandbox
        .block_on(docker.remove_image(tag, Some(options), None))
        .unwrap();
}
