//! The `docker` backend (bollard): one container per cell, from the task's image (or one
//! built from `environment/Dockerfile`, or a derived image with the agent installed),
//! with CPU, memory and pid limits. The workspace goes in as a tar; tests only after the
//! agent stops; the verifier runs with the container cut off from every network. The
//! container is removed when the session drops, on error and on Ctrl-C or SIGTERM too (a
//! second Ctrl-C kills every container of the run at once and exits). A task whose image
//! cannot be had is refused by `prepare`; the others still run.

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use bollard::Docker;
use bollard::container::LogOutput;
use bollard::exec::{CreateExecOptions, StartExecResults};
use bollard::models::{
    ContainerCreateBody, HostConfig, NetworkConnectRequest, NetworkDisconnectRequest,
};
use bollard::query_parameters::{
    BuildImageOptionsBuilder, CommitContainerOptionsBuilder, CreateContainerOptions,
    DownloadFromContainerOptionsBuilder, KillContainerOptionsBuilder, ListContainersOptionsBuilder,
    RemoveContainerOptionsBuilder, UploadToContainerOptionsBuilder,
};
use futures_util::StreamExt;
use tokio::runtime::Runtime;
use tokio::task::JoinHandle;

use crate::eval::EvalError;
use crate::eval::sandbox::cgroup::oom_kill_count;
use crate::eval::sandbox::error::{BuildError, ExitCode, InstallError, PullError, SandboxError};
use crate::eval::sandbox::signals;
use crate::eval::sandbox::{
    Bundle, CellError, ExecResult, ExecSpec, PIDS_LIMIT, Sandbox, Session, VERSION_TIMEOUT,
    one_line, remove_skills_script, version_line,
};
use crate::eval::task::{Phase, Refusal, Task, TaskProblem};

/// Label on every container skillgate starts.
pub const LABEL: &str = "skillgate";
/// Label carrying the run's identity, so a resumed run can clear what a killed one left.
pub const RUN_LABEL: &str = "skillgate.run";
/// The network a container uses when the task allows one.
const NETWORK: &str = "bridge";
/// Workspace root when the image sets no working directory (Harbor's convention).
const DEFAULT_WORKDIR: &str = "/app";
/// Containers started ahead of need at most (one per worker is enough).
const WARM_LIMIT: usize = 2;
/// Keeps a container alive between execs; present in busybox and coreutils alike.
const KEEPALIVE: [&str; 3] = ["tail", "-f", "/dev/null"];

/// The image and workspace root a task's cells use.
#[derive(Debug, Clone, PartialEq, Eq)]
struct TaskImage {
    image: String,
    workdir: String,
}

/// The docker backend.
pub struct DockerSandbox {
    docker: Docker,
    runtime: Runtime,
    install: Option<String>,
    run_id: String,
    build: bool,
    images: Mutex<HashMap<String, TaskImage>>,
    stopping: Arc<AtomicBool>,
    /// Containers being started ahead of need, by task id (oldest first).
    warm: Mutex<Vec<(String, Starting)>>,
    /// Whether the engine limits a container's disk, or why not (asked once).
    storage: std::sync::OnceLock<Result<(), String>>,
    /// Refuse a task whose storage limit the engine cannot enforce, rather than run it
    /// without.
    require_storage_limits: bool,
}

impl Drop for DockerSandbox {
    fn drop(&mut self) {
        let warm = self
            .warm
            .lock()
            .map(|mut w| std::mem::take(&mut *w))
            .unwrap_or_default();
        for (_, handle) in warm {
            self.runtime.block_on(self.discard(handle));
        }
    }
}

/// A container being started in the background; yields its id.
type Starting = JoinHandle<Result<String, CellError>>;

/// What a cell's container is created with.
#[derive(Debug, Clone)]
struct ContainerSpec {
    image: String,
    cpus: Option<f64>,
    memory_mb: Option<u64>,
    storage_mb: Option<u64>,
    network: bool,
    run_id: String,
}

impl ContainerSpec {
    /// `quotas`: whether the engine can limit the container's disk to the task's storage.
    fn new(image: &str, task: Option<&Task>, network: bool, run_id: &str, quotas: bool) -> Self {
        let env = task.map(|t| &t.config.environment);
        Self {
            image: image.to_owned(),
            cpus: env.and_then(|e| e.cpus),
            memory_mb: task.and_then(|t| t.settings.memory_mb),
            storage_mb: task.and_then(|t| t.settings.storage_mb).filter(|_| quotas),
            network,
            run_id: run_id.to_owned(),
        }
    }
}

/// Creates and starts a kept-alive container with the run's labels and the task's limits.
async fn start_container(
    docker: Docker,
    spec: ContainerSpec,
    stopping: Arc<AtomicBool>,
) -> Result<String, CellError> {
    if stopping.load(Ordering::SeqCst) {
        return Err(CellError("interrupted".into()));
    }
    let memory = spec.memory_mb.map(|mb| (mb * 1024 * 1024) as i64);
    let host = HostConfig {
        nano_cpus: spec.cpus.map(|c| (c * 1e9) as i64),
        memory,
        memory_swap: memory,
        pids_limit: Some(PIDS_LIMIT as i64),
        network_mode: Some(if spec.network { NETWORK } else { "none" }.to_owned()),
        storage_opt: spec
            .storage_mb
            .map(|mb| HashMap::from([("size".to_owned(), format!("{mb}m"))])),
        init: Some(false),
        ..HostConfig::default()
    };
    let labels = HashMap::from([
        (LABEL.to_owned(), "1".to_owned()),
        (RUN_LABEL.to_owned(), spec.run_id.clone()),
    ]);
    let body = ContainerCreateBody {
        image: Some(spec.image.clone()),
        cmd: Some(KEEPALIVE.map(String::from).to_vec()),
        labels: Some(labels),
        host_config: Some(host),
        ..ContainerCreateBody::default()
    };
    let created = docker
        .create_container(None::<CreateContainerOptions>, body)
        .await
        .map_err(|e| CellError::new("creating the container", e))?;
    // Started after a Ctrl-C's sweep listed the run's containers, it would outlive it.
    if stopping.load(Ordering::SeqCst) {
        let _ = docker.remove_container(&created.id, Some(forced())).await;
        return Err(CellError("interrupted".into()));
    }
    if let Err(e) = docker.start_container(&created.id, None).await {
        let options = RemoveContainerOptionsBuilder::default()
            .force(true)
            .v(true)
            .build();
        let _ = docker.remove_container(&created.id, Some(options)).await;
        return Err(CellError::new("starting the container", e));
    }
    Ok(created.id)
}

impl std::fmt::Debug for DockerSandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DockerSandbox")
            .field("run_id", &self.run_id)
            .finish_non_exhaustive()
    }
}

fn docker_err(action: &'static str) -> impl FnOnce(bollard::errors::Error) -> EvalError {
    move |error| SandboxError::Docker { action, error }.into()
}

impl DockerSandbox {
    /// Connects to the local daemon (`DOCKER_HOST` respected) and checks it answers.
    /// `run_id` labels this run's containers; `install` is the agent's install step.
    pub fn connect(run_id: &str, install: Option<String>) -> Result<Self, EvalError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(SandboxError::Runtime)?;
        let docker = runtime.block_on(async {
            let docker = Docker::connect_with_defaults().map_err(SandboxError::Unreachable)?;
            let docker = docker
                .negotiate_version()
                .await
                .map_err(SandboxError::Unreachable)?;
            docker.ping().await.map_err(SandboxError::Unreachable)?;
            Ok::<_, SandboxError>(docker)
        })?;
        let sandbox = Self {
            docker,
            runtime,
            install,
            run_id: run_id.to_owned(),
            build: false,
            images: Mutex::new(HashMap::new()),
            stopping: Arc::new(AtomicBool::new(false)),
            warm: Mutex::new(Vec::new()),
            storage: std::sync::OnceLock::new(),
            require_storage_limits: false,
        };
        sandbox.remove_on_interrupt()?;
        Ok(sandbox)
    }

    /// Builds `environment/Dockerfile` even for tasks that name a `docker_image`.
    pub fn build_images(mut self, build: bool) -> Self {
        self.build = build;
        self
    }

    /// Refuses tasks whose `[environment] storage` the engine cannot enforce (by default
    /// they run without the limit, and their cells say so).
    pub fn require_storage_limits(mut self, require: bool) -> Self {
        self.require_storage_limits = require;
        self
    }

    /// Whether containers get the task's disk quota: only once the engine was found to give
    /// them (asked by [`Self::storage_support`], at the latest in `prepare`).
    fn quotas(&self) -> bool {
        self.storage.get().is_some_and(Result::is_ok)
    }

    /// Whether the engine can limit a container's disk (`--storage-opt size`), or why not.
    /// Docker honours it on the storage drivers that keep per-container quotas (overlay2 on
    /// xfs mounted with `pquota`, btrfs, zfs, devicemapper, windowsfilter). On overlay2 over
    /// xfs mounted without `pquota` the engine refuses the container itself, and each cell
    /// fails with the engine's message.
    pub fn storage_support(&self) -> Result<(), String> {
        self.storage
            .get_or_init(|| {
                let info = self
                    .block_on(self.docker.info())
                    .map_err(|e| format!("asking the engine for its storage driver: {e}"))?;
                let driver = info.driver.unwrap_or_default();
                let backing = info
                    .driver_status
                    .unwrap_or_default()
                    .into_iter()
                    .find(|pair| pair.first().is_some_and(|k| k == "Backing Filesystem"))
                    .and_then(|pair| pair.get(1).cloned())
                    .unwrap_or_default();
                storage_driver_limits(&driver, &backing)
            })
            .clone()
    }

    /// The client, for callers that manage images themselves (tests, benchmarks).
    pub fn client(&self) -> &Docker {
        &self.docker
    }

    /// Runs a future on this sandbox's runtime.
    pub fn block_on<F: std::future::Future>(&self, f: F) -> F::Output {
        self.runtime.block_on(f)
    }

    /// On Ctrl-C or SIGTERM, stops new containers from starting, removes every container
    /// of this run (also ones a worker created while this ran), then exits with 130. The
    /// removal is forced, so it kills the containers' processes at once. A second Ctrl-C (or
    /// SIGTERM) cuts the removal short: every container of the run is killed at once, given
    /// a moment to be removed, and the process exits.
    fn remove_on_interrupt(&self) -> Result<(), EvalError> {
        let mut caught = signals::caught()?;
        let before = *caught.borrow_and_update();
        let docker = self.docker.clone();
        let stopping = Arc::clone(&self.stopping);
        let label = format!("{RUN_LABEL}={}", self.run_id);
        self.runtime.spawn(async move {
            if caught.wait_for(|n| *n > before).await.is_err() {
                return;
            }
            stopping.store(true, Ordering::SeqCst);
            let removal = remove_run(&docker, &label);
            tokio::pin!(removal);
            tokio::select! {
                biased;
                again = async { caught.wait_for(|n| *n > before + 1).await.is_ok() } => {
                    if again {
                        kill_run(&docker, &label).await;
                    } else {
                        removal.await;
                    }
                }
                () = &mut removal => {}
            }
            std::process::exit(130);
        });
        Ok(())
    }

    /// Containers labelled with this run (left by a killed process).
    pub fn run_containers(&self) -> Result<Vec<String>, EvalError> {
        self.block_on(async {
            let filters = HashMap::from([("label", vec![format!("{RUN_LABEL}={}", self.run_id)])]);
            let list = self
                .docker
                .list_containers(Some(
                    ListContainersOptionsBuilder::default()
                        .all(true)
                        .filters(&filters)
                        .build(),
                ))
                .await
                .map_err(docker_err("listing containers"))?;
            Ok(list.into_iter().filter_map(|c| c.id).collect())
        })
    }

    async fn resolve_image(&self, task: &Task) -> Result<TaskImage, EvalError> {
        let base = self.base_image(task).await?;
        let inspect =
            self.docker
                .inspect_image(&base)
                .await
                .map_err(|error| SandboxError::ImageMissing {
                    task: task.id.clone(),
                    image: base.clone(),
                    error,
                })?;
        let workdir = task.settings.workdir.clone().unwrap_or_else(|| {
            inspect
                .config
                .and_then(|c| c.working_dir)
                .filter(|w| !w.is_empty())
                .unwrap_or_else(|| DEFAULT_WORKDIR.to_owned())
        });
        let image = match &self.install {
            Some(install) => {
                self.with_agent(&base, inspect.id.as_deref().unwrap_or(&base), install)
                    .await?
            }
            None => base,
        };
        Ok(TaskImage { image, workdir })
    }

    /// The task's image, as Harbor chooses it: `docker_image` (pulled when missing), and
    /// `environment/Dockerfile` built when there is no image, when the image can be had
    /// neither here nor from its registry, or when building was asked for.
    async fn base_image(&self, task: &Task) -> Result<String, EvalError> {
        let dockerfile = task.dockerfile_dir();
        let image = task.config.environment.docker_image.clone();
        match (image, dockerfile) {
            (Some(_), Some(dir)) if self.build => self.build(task, &dir).await,
            (Some(image), dockerfile) => {
                if self.docker.inspect_image(&image).await.is_ok() {
                    return Ok(image);
                }
                match (self.pull(&image).await, dockerfile) {
                    (Ok(()), _) => Ok(image),
                    (Err(e), Some(dir)) => {
                        eprintln!(
                            "task {}: image `{image}` cannot be pulled ({e}); building environment/Dockerfile",
                            task.id
                        );
                        self.build(task, &dir).await
                    }
                    (Err(error), None) => Err(SandboxError::Pull {
                        task: task.id.clone(),
                        image,
                        error,
                    }
                    .into()),
                }
            }
            (None, Some(dir)) => self.build(task, &dir).await,
            (None, None) => Err(EvalError::Task {
                task: task.id.clone(),
                problem: Box::new(TaskProblem::NoImage),
            }),
        }
    }

    /// Pulls an image, printing its progress on standard error (one line per layer event
    /// that changes its status, so a log stays readable).
    async fn pull(&self, image: &str) -> Result<(), PullError> {
        let (name, tag) = split_reference(image);
        let options = bollard::query_parameters::CreateImageOptionsBuilder::default()
            .from_image(name)
            .tag(tag)
            .build();
        let mut stream = self.docker.create_image(Some(options), None, None);
        let mut last: HashMap<String, String> = HashMap::new();
        eprintln!("pulling {image}");
        while let Some(step) = stream.next().await {
            let info = step.map_err(PullError::Docker)?;
            if let Some(error) = info.error_detail.and_then(|d| d.message) {
                return Err(PullError::Registry(error));
            }
            let (Some(id), Some(status)) = (info.id, info.status) else {
                continue;
            };
            if last.get(&id) != Some(&status) {
                eprintln!("  {image} {id}: {status}");
                last.insert(id, status);
            }
        }
        Ok(())
    }

    /// Builds `environment/` once per content hash: with BuildKit through the `docker` CLI
    /// when it has BuildKit (real Dockerfiles use heredocs), else with the engine's classic
    /// builder.
    async fn build(&self, task: &Task, dir: &std::path::Path) -> Result<String, EvalError> {
        let hash = crate::eval::task::tree_sha256(dir)?;
        let tag = format!("skillgate-task-{}:{}", sanitize(&task.id), &hash[..12]);
        if self.docker.inspect_image(&tag).await.is_ok() {
            return Ok(tag);
        }
        let failed = |error: BuildError| -> EvalError {
            SandboxError::Build {
                task: task.id.clone(),
                error,
            }
            .into()
        };
        if let Some(built) = buildkit_build(dir, &tag) {
            return built.map(|()| tag).map_err(failed);
        }
        let mut context = Bundle::new();
        context.add_dir("", dir)?;
        let tar = context.to_tar()?;
        let options = BuildImageOptionsBuilder::default()
            .dockerfile("Dockerfile")
            .t(&tag)
            .rm(true)
            .forcerm(true)
            .build();
        let mut stream =
            self.docker
                .build_image(options, None, Some(bollard::body_full(tar.into())));
        while let Some(step) = stream.next().await {
            step.map_err(|e| failed(BuildError::Docker(e)))?;
        }
        Ok(tag)
    }

    /// The base image with the agent installed, committed once and reused by tag.
    async fn with_agent(
        &self,
        base: &str,
        base_id: &str,
        install: &str,
    ) -> Result<String, EvalError> {
        let hash = crate::eval::sha256_hex(format!("{base_id}\0{install}").as_bytes());
        let tag = format!("skillgate-agent:{}", &hash[..16]);
        if self.docker.inspect_image(&tag).await.is_ok() {
            return Ok(tag);
        }
        let failed = |error: InstallError| -> EvalError {
            SandboxError::AgentInstall {
                image: base.to_owned(),
                error,
            }
            .into()
        };
        let id = self
            .create(base, None, true)
            .await
            .map_err(|e| failed(InstallError::Container(e)))?;
        let installed = async {
            let argv = vec!["sh".to_owned(), "-c".to_owned(), install.to_owned()];
            let exec = self
                .docker
                .create_exec(&id, exec_options(argv, Vec::new(), None))
                .await
                .map_err(InstallError::Docker)?;
            let mut log = Vec::new();
            if let StartExecResults::Attached { mut output, .. } = self
                .docker
                .start_exec(&exec.id, None)
                .await
                .map_err(InstallError::Docker)?
            {
                while let Some(Ok(chunk)) = output.next().await {
                    log.extend_from_slice(&chunk.into_bytes());
                }
            }
            let code = self
                .docker
                .inspect_exec(&exec.id)
                .await
                .map_err(InstallError::Docker)?
                .exit_code;
            if code != Some(0) {
                return Err(InstallError::Exited {
                    command: install.to_owned(),
                    code: ExitCode(code),
                    log: crate::eval::sandbox::tail(&log, 2000),
                });
            }
            let options = CommitContainerOptionsBuilder::default()
                .container(&id)
                .repo("skillgate-agent")
                .tag(&hash[..16])
                .build();
            self.docker
                .commit_container(options, bollard::models::ContainerConfig::default())
                .await
                .map_err(InstallError::Docker)?;
            Ok(())
        }
        .await;
        self.remove_container(&id).await;
        installed.map_err(failed)?;
        Ok(tag)
    }

    /// `program --version` in a container of `image`: its first line when it exits 0
    /// within [`VERSION_TIMEOUT`]. The container is removed in every case.
    async fn version_in(&self, image: &str, program: &str) -> Option<String> {
        let id = self.create(image, None, false).await.ok()?;
        let run = async {
            let argv = vec![program.to_owned(), "--version".to_owned()];
            let exec = self
                .docker
                .create_exec(&id, exec_options(argv, Vec::new(), None))
                .await
                .ok()?;
            let mut stdout = Vec::new();
            if let StartExecResults::Attached { mut output, .. } =
                self.docker.start_exec(&exec.id, None).await.ok()?
            {
                while let Some(Ok(chunk)) = output.next().await {
                    if let LogOutput::StdOut { message } = chunk {
                        stdout.extend_from_slice(&message);
                    }
                }
            }
            let code = self.docker.inspect_exec(&exec.id).await.ok()?.exit_code;
            (code == Some(0)).then(|| version_line(&stdout)).flatten()
        };
        let version = tokio::time::timeout(VERSION_TIMEOUT, run)
            .await
            .ok()
            .flatten();
        self.remove_container(&id).await;
        version
    }

    /// Creates and starts a kept-alive container.
    async fn create(
        &self,
        image: &str,
        task: Option<&Task>,
        network: bool,
    ) -> Result<String, CellError> {
        let spec = ContainerSpec::new(image, task, network, &self.run_id, self.quotas());
        start_container(self.docker.clone(), spec, Arc::clone(&self.stopping)).await
    }

    /// A started container for `task`: one warmed up earlier if there is one, and in any
    /// case a replacement is started in the background for the task's next cell, so that
    /// container start-up overlaps the current cell instead of adding to it.
    fn container_for(&self, task: &Task, image: &TaskImage) -> Result<String, CellError> {
        let network = task.network(Phase::Agent);
        let spec = ContainerSpec::new(
            &image.image,
            Some(task),
            network,
            &self.run_id,
            self.quotas(),
        );
        let ready = self.warm.lock().ok().and_then(|mut warm| {
            let at = warm.iter().position(|(id, _)| *id == task.id)?;
            Some(warm.remove(at).1)
        });
        let replacement = self.runtime.spawn(start_container(
            self.docker.clone(),
            spec.clone(),
            Arc::clone(&self.stopping),
        ));
        let evicted = self.warm.lock().ok().and_then(|mut warm| {
            warm.push((task.id.clone(), replacement));
            (warm.len() > WARM_LIMIT).then(|| warm.remove(0).1)
        });
        if let Some(handle) = evicted {
            self.block_on(self.discard(handle));
        }
        match ready {
            Some(handle) => match self.block_on(handle) {
                Ok(started) => started,
                Err(e) => Err(CellError::new("starting the container", e)),
            },
            None => self.block_on(start_container(
                self.docker.clone(),
                spec,
                Arc::clone(&self.stopping),
            )),
        }
    }

    /// Removes a warmed-up container that will not be used.
    async fn discard(&self, handle: Starting) {
        if let Ok(Ok(id)) = handle.await {
            self.remove_container(&id).await;
        }
    }

    async fn remove_container(&self, id: &str) {
        let options = RemoveContainerOptionsBuilder::default()
            .force(true)
            .v(true)
            .build();
        let _ = self.docker.remove_container(id, Some(options)).await;
    }
}

impl Sandbox for DockerSandbox {
    fn name(&self) -> &'static str {
        "docker"
    }

    fn interrupted(&self) -> bool {
        self.stopping.load(Ordering::SeqCst)
    }

    fn refuses(&self, task: &Task) -> Option<String> {
        let mb = task
            .settings
            .storage_mb
            .filter(|_| self.require_storage_limits)?;
        let why = self.storage_support().err()?;
        Some(format!(
            "[environment] storage ({mb} MB) cannot be enforced on this Docker engine: {why}; use --backend local as root"
        ))
    }

    fn storage_not_enforced(&self, task: &Task) -> Option<String> {
        task.settings
            .storage_mb
            .filter(|_| !self.require_storage_limits)?;
        self.storage_support().err()
    }

    fn program_version(&self, program: &str) -> Option<String> {
        // In the image of the first prepared task (by id), where the cells run it.
        let image = {
            let images = self.images.lock().ok()?;
            let first = images.keys().min()?;
            images.get(first)?.image.clone()
        };
        self.block_on(self.version_in(&image, program))
    }

    fn after_interrupt(&self) {
        // The interrupt handler removes this run's containers and ends the process.
        std::thread::sleep(std::time::Duration::from_secs(5));
    }

    fn prepare(&self, tasks: &[Task]) -> Result<Vec<Refusal>, EvalError> {
        // A killed earlier process of the same run may have left containers behind.
        for id in self.run_containers()? {
            self.block_on(self.remove_container(&id));
        }
        if tasks.iter().any(|t| t.settings.storage_mb.is_some()) {
            // Asked here, outside the runtime, so containers know whether to ask for quotas.
            let _ = self.storage_support();
        }
        let mut resolved = HashMap::new();
        let mut refused = Vec::new();
        for task in tasks {
            if self.interrupted() {
                return Err(EvalError::Interrupted);
            }
            // An image that cannot be had refuses its task only; the others still run.
            match self.block_on(self.resolve_image(task)) {
                Ok(image) => {
                    resolved.insert(task.id.clone(), image);
                }
                Err(e) => refused.push(Refusal {
                    task: task.id.clone(),
                    reason: unavailable(&e),
                }),
            }
        }
        let mut images = self.images.lock().map_err(|_| SandboxError::ImageTable)?;
        images.extend(resolved);
        Ok(refused)
    }

    fn open(&self, task: &Task, workspace: &Bundle) -> Result<Box<dyn Session + '_>, CellError> {
        let image = self
            .images
            .lock()
            .ok()
            .and_then(|m| m.get(&task.id).cloned())
            .ok_or_else(|| CellError(format!("task {} was not prepared", task.id)))?;
        let network = task.network(Phase::Agent);
        let id = self.container_for(task, &image)?;
        let mut session = DockerSession {
            sandbox: self,
            id,
            workdir: image.workdir,
            connected: network,
            oom_kills: 0,
            storage_limited: task.settings.storage_mb.is_some() && self.quotas(),
            removed_skills: Vec::new(),
            host_uploaded: Vec::new(),
        };
        let workdir = session.workdir.clone();
        session.upload(&workdir, workspace)?;
        let script = remove_skills_script();
        let (out, code) = self.block_on(
            session.helper(&["sh", "-c", &script], "removing the environment's skills"),
        )?;
        if code != Some(0) {
            return Err(CellError(format!(
                "removing the skills the environment holds failed (exit {code:?})"
            )));
        }
        session.removed_skills = String::from_utf8_lossy(&out)
            .lines()
            .map(str::to_owned)
            .collect();
        Ok(Box::new(session))
    }
}

/// One cell's container; removed on drop.
struct DockerSession<'a> {
    sandbox: &'a DockerSandbox,
    id: String,
    workdir: String,
    connected: bool,
    /// OOM kills the container had counted after the last command.
    oom_kills: u64,
    /// Whether the container has a disk quota (`[environment] storage`).
    storage_limited: bool,
    /// Skills the image held in an agent's skill folder, removed at the start.
    removed_skills: Vec<String>,
    /// Host paths named by the agent command, already copied into the container.
    host_uploaded: Vec<PathBuf>,
}

impl Drop for DockerSession<'_> {
    fn drop(&mut self) {
        self.sandbox
            .block_on(self.sandbox.remove_container(&self.id));
    }
}

impl DockerSession<'_> {
    async fn set_network(&mut self, on: bool) -> Result<(), CellError> {
        if on == self.connected {
            return Ok(());
        }
        let docker = &self.sandbox.docker;
        if on {
            let request = NetworkConnectRequest {
                container: self.id.clone(),
                ..NetworkConnectRequest::default()
            };
            docker
                .connect_network(NETWORK, request)
                .await
                .map_err(|e| CellError::new("reconnecting the network", e))?;
        } else {
            let request = NetworkDisconnectRequest {
                container: self.id.clone(),
                force: Some(true),
            };
            docker
                .disconnect_network(NETWORK, request)
                .await
                .map_err(|e| CellError::new("cutting the network", e))?;
        }
        self.connected = on;
        Ok(())
    }

    async fn run(&mut self, spec: &ExecSpec) -> Result<ExecResult, CellError> {
        self.set_network(spec.network).await?;
        let docker = &self.sandbox.docker;
        let mut env: Vec<String> = spec.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let mut argv = with_fresh_dirs(spec);
        if spec.user.is_some() {
            // Another user may not empty the folders: they are made, writable, as root.
            argv = spec.argv.clone();
            let script = "for d in \"$@\"; do rm -rf \"$d\" && mkdir -p \"$d\" && chmod 777 \"$d\" || exit 97; done";
            let mut fresh = vec!["sh", "-c", script, "sh"];
            fresh.extend(spec.fresh_dirs.iter().map(String::as_str));
            if !spec.fresh_dirs.is_empty()
                && self.helper(&fresh, "emptying folders").await?.1 != Some(0)
            {
                return Err(CellError(format!("emptying {:?} failed", spec.fresh_dirs)));
            }
        } else if !spec.fresh_dirs.is_empty() {
            env.push(format!("SKILLGATE_FRESH={}", spec.fresh_dirs.join(" ")));
        }
        let mut options = exec_options(argv, env, Some(spec.workdir.clone()));
        options.user = spec.user.clone();
        let exec = docker
            .create_exec(&self.id, options)
            .await
            .map_err(|e| CellError::new("creating the exec", e))?;
        let mut stdout = std::fs::File::create(&spec.stdout)
            .map_err(|e| CellError::new("creating the log", e))?;
        let mut stderr = std::fs::File::create(&spec.stderr)
            .map_err(|e| CellError::new("creating the log", e))?;
        let started = docker
            .start_exec(&exec.id, None)
            .await
            .map_err(|e| CellError::new("starting the exec", e))?;
        let StartExecResults::Attached { mut output, .. } = started else {
            return Err(CellError("exec started detached".into()));
        };
        let deadline = tokio::time::Instant::now() + spec.timeout;
        let mut timed_out = false;
        loop {
            match tokio::time::timeout_at(deadline, output.next()).await {
                Err(_) => {
                    timed_out = true;
                    break;
                }
                Ok(None) => break,
                Ok(Some(Err(e))) => return Err(CellError::new("reading the exec output", e)),
                Ok(Some(Ok(chunk))) => {
                    let written = match chunk {
                        LogOutput::StdErr { message } => stderr.write_all(&message),
                        other => stdout.write_all(&other.into_bytes()),
                    };
                    written.map_err(|e| CellError::new("writing the log", e))?;
                }
            }
        }
        drop(output);
        if timed_out {
            self.kill_all().await?;
        }
        let inspect = docker
            .inspect_exec(&exec.id)
            .await
            .map_err(|e| CellError::new("inspecting the exec", e))?;
        let exit = inspect.exit_code.map(|c| c as i32);
        // A kill for lack of memory ends the exec with 137, like any SIGKILL; the container's
        // counter tells them apart.
        let mut oom_killed = false;
        if !timed_out && exit != Some(0) {
            let kills = self.oom_kills().await?;
            oom_killed = kills > self.oom_kills;
            self.oom_kills = kills;
        }
        let storage_full = self.storage_limited && self.root_full().await?;
        Ok(ExecResult {
            exit: if timed_out { None } else { exit },
            timed_out,
            oom_killed,
            storage_full,
        })
    }

    /// Copies host files and folders that a command names (the agent command's later
    /// words, such as `python3 /opt/agent/main.py`) to the same paths in the container,
    /// once per cell, and takes their write permission away: the container cannot see the
    /// host's files, and the local backend binds them read-only at those paths too.
    fn upload_host_paths(&mut self, paths: &[PathBuf]) -> Result<(), CellError> {
        let fresh: Vec<&PathBuf> = paths
            .iter()
            .filter(|p| !self.host_uploaded.contains(*p))
            .collect();
        if fresh.is_empty() {
            return Ok(());
        }
        let mut bundle = Bundle::new();
        for path in &fresh {
            let shown = path.to_string_lossy();
            let meta = std::fs::metadata(path)
                .map_err(|e| CellError::new(&format!("reading {shown}"), e))?;
            if meta.is_dir() {
                bundle
                    .add_dir(shown.trim_start_matches('/'), path)
                    .map_err(|e| CellError(format!("reading {shown}: {e}")))?;
            } else {
                let bytes = std::fs::read(path)
                    .map_err(|e| CellError::new(&format!("reading {shown}"), e))?;
                use std::os::unix::fs::PermissionsExt;
                bundle.add_bytes(&shown, bytes, meta.permissions().mode() & 0o111 != 0);
            }
        }
        self.upload("/", &bundle)?;
        let mut argv = vec!["chmod".to_owned(), "-R".to_owned(), "a-w".to_owned()];
        argv.extend(fresh.iter().map(|p| p.to_string_lossy().into_owned()));
        let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
        let (_, code) = self
            .sandbox
            .block_on(self.helper(&argv, "making the agent command's files read-only"))?;
        if code != Some(0) {
            return Err(CellError(format!(
                "making the agent command's files read-only: chmod exited with {code:?}"
            )));
        }
        self.host_uploaded.extend(fresh.into_iter().cloned());
        Ok(())
    }

    /// Whether the container's disk quota is used up: a write past it fills it first.
    async fn root_full(&self) -> Result<bool, CellError> {
        let (out, _) = self
            .helper(&["df", "-Pk", "/"], "reading the disk usage")
            .await?;
        Ok(df_available_kib(&String::from_utf8_lossy(&out)) == Some(0))
    }

    /// Kills every process in the container but its keep-alive (pid 1), i.e. the timed-out
    /// command and everything it started.
    async fn kill_all(&self) -> Result<(), CellError> {
        self.helper(&["sh", "-c", "kill -9 -1"], "killing").await?;
        Ok(())
    }

    /// The container's count of OOM kills, from its memory controller (v2 or v1 layout).
    /// Docker's own `OOMKilled` flag only covers the container's first process.
    async fn oom_kills(&self) -> Result<u64, CellError> {
        let script = "cat /sys/fs/cgroup/memory.events /sys/fs/cgroup/memory/memory.oom_control 2>/dev/null; true";
        let (out, _) = self
            .helper(&["sh", "-c", script], "reading memory events")
            .await?;
        Ok(oom_kill_count(&String::from_utf8_lossy(&out)).unwrap_or(0))
    }

    /// Runs one of skillgate's own commands in the container: its standard output and exit.
    async fn helper(
        &self,
        argv: &[&str],
        action: &str,
    ) -> Result<(Vec<u8>, Option<i64>), CellError> {
        let docker = &self.sandbox.docker;
        let argv = argv.iter().map(|a| (*a).to_owned()).collect();
        let exec = docker
            .create_exec(&self.id, exec_options(argv, Vec::new(), None))
            .await
            .map_err(|e| CellError::new(action, e))?;
        let mut stdout = Vec::new();
        if let StartExecResults::Attached { mut output, .. } = docker
            .start_exec(&exec.id, None)
            .await
            .map_err(|e| CellError::new(action, e))?
        {
            while let Some(chunk) = output.next().await {
                if let Ok(LogOutput::StdOut { message }) = chunk {
                    stdout.extend_from_slice(&message);
                }
            }
        }
        let exit = docker
            .inspect_exec(&exec.id)
            .await
            .map_err(|e| CellError::new(action, e))?
            .exit_code;
        Ok((stdout, exit))
    }

    async fn download(&self, path: &str) -> Result<Option<Vec<u8>>, CellError> {
        let options = DownloadFromContainerOptionsBuilder::default()
            .path(path)
            .build();
        let mut stream = self
            .sandbox
            .docker
            .download_from_container(&self.id, Some(options));
        let mut tar = Vec::new();
        while let Some(chunk) = stream.next().await {
            match chunk {
                Ok(bytes) => tar.extend_from_slice(&bytes),
                Err(bollard::errors::Error::DockerResponseServerError {
                    status_code: 404, ..
                }) => return Ok(None),
                Err(e) => return Err(CellError::new(&format!("reading {path}"), e)),
            }
        }
        let mut archive = tar::Archive::new(tar.as_slice());
        let entries = archive
            .entries()
            .map_err(|e| CellError::new(&format!("reading {path}"), e))?;
        for entry in entries {
            let mut entry = entry.map_err(|e| CellError::new(&format!("reading {path}"), e))?;
            if entry.header().entry_type().is_file() {
                let mut bytes = Vec::new();
                std::io::Read::read_to_end(&mut entry, &mut bytes)
                    .map_err(|e| CellError::new(&format!("reading {path}"), e))?;
                return Ok(Some(bytes));
            }
        }
        Ok(None)
    }
}

impl Session for DockerSession<'_> {
    fn workdir(&self) -> String {
        self.workdir.clone()
    }

    fn path(&self, fixed: &str) -> String {
        fixed.to_owned()
    }

    fn upload(&mut self, dest: &str, bundle: &Bundle) -> Result<(), CellError> {
        let tar = rooted_tar(dest, bundle)?;
        let options = UploadToContainerOptionsBuilder::default().path("/").build();
        let docker = &self.sandbox.docker;
        self.sandbox
            .block_on(docker.upload_to_container(
                &self.id,
                Some(options),
                bollard::body_full(tar.into()),
            ))
            .map_err(|e| CellError::new(&format!("uploading to {dest}"), e))
    }

    fn exec(&mut self, spec: &ExecSpec) -> Result<ExecResult, CellError> {
        self.upload_host_paths(&spec.host_paths)?;
        let sandbox = self.sandbox;
        sandbox.block_on(self.run(spec))
    }

    fn read(&mut self, path: &str) -> Result<Option<Vec<u8>>, CellError> {
        self.sandbox.block_on(self.download(path))
    }

    fn removed_skills(&self) -> Vec<String> {
        self.removed_skills.clone()
    }

    fn remove(&mut self, paths: &[&str]) -> Result<(), CellError> {
        let mut argv = vec!["rm", "-rf"];
        argv.extend(paths);
        match self.sandbox.block_on(self.helper(&argv, "removing"))?.1 {
            Some(0) => Ok(()),
            code => Err(CellError(format!(
                "removing {paths:?}: rm exited with {code:?}"
            ))),
        }
    }
}

/// The command, preceded (in the same exec, saving a round trip) by emptying its fresh dirs.
fn with_fresh_dirs(spec: &ExecSpec) -> Vec<String> {
    if spec.fresh_dirs.is_empty() {
        return spec.argv.clone();
    }
    let mut argv = vec![
        "sh".to_owned(),
        "-c".to_owned(),
        "for d in $SKILLGATE_FRESH; do rm -rf \"$d\" && mkdir -p \"$d\" || exit 97; done; exec \"$@\"".to_owned(),
        "sh".to_owned(),
    ];
    argv.extend(spec.argv.iter().cloned());
    argv
}

/// The bundle as a tar to extract at `/`, with `dest` and its parents as directory entries
/// so the upload creates them (the API refuses a missing destination).
fn rooted_tar(dest: &str, bundle: &Bundle) -> Result<Vec<u8>, CellError> {
    let prefix = dest.trim_matches('/');
    let mut builder = tar::Builder::new(Vec::new());
    let mut dir = String::new();
    for part in prefix.split('/').filter(|p| !p.is_empty()) {
        dir = if dir.is_empty() {
            part.to_owned()
        } else {
            format!("{dir}/{part}")
        };
        let mut header = tar::Header::new_gnu();
        header.set_entry_type(tar::EntryType::Directory);
        header.set_mode(0o755);
        header.set_size(0);
        builder
            .append_data(&mut header, format!("{dir}/"), std::io::empty())
            .map_err(|e| CellError::new("archiving", e))?;
    }
    for e in bundle.entries() {
        let bytes = e
            .read()
            .map_err(|err| CellError::new("reading files", err))?;
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(if e.executable { 0o755 } else { 0o644 });
        header.set_entry_type(tar::EntryType::Regular);
        let path = if prefix.is_empty() {
            e.path.clone()
        } else {
            format!("{prefix}/{}", e.path)
        };
        builder
            .append_data(&mut header, path, bytes.as_slice())
            .map_err(|err| CellError::new("archiving", err))?;
    }
    builder
        .into_inner()
        .map_err(|e| CellError::new("archiving", e))
}

/// Force-removal: kills the container's processes, then removes it with its volumes.
fn forced() -> bollard::query_parameters::RemoveContainerOptions {
    RemoveContainerOptionsBuilder::default()
        .force(true)
        .v(true)
        .build()
}

/// The ids of the run's containers (`label` is `skillgate.run=<id>`), running or not.
async fn run_container_ids(docker: &Docker, label: &str) -> Result<Vec<String>, String> {
    let filters = HashMap::from([("label", vec![label.to_owned()])]);
    let options = ListContainersOptionsBuilder::default()
        .all(true)
        .filters(&filters)
        .build();
    match docker.list_containers(Some(options)).await {
        Ok(list) => Ok(list.into_iter().filter_map(|c| c.id).collect()),
        Err(e) => Err(format!("cannot list containers: {e}")),
    }
}

/// The first Ctrl-C's teardown: force-removes every container of the run, sweeping again
/// for a create already past its check when the first sweep ran.
async fn remove_run(docker: &Docker, label: &str) {
    let mut removed = 0;
    for _ in 0..3 {
        let ids = match run_container_ids(docker, label).await {
            Ok(ids) => ids,
            Err(e) => {
                eprintln!("interrupted: {e}");
                break;
            }
        };
        for id in ids {
            match docker.remove_container(&id, Some(forced())).await {
                Ok(()) => removed += 1,
                Err(e) => eprintln!("interrupted: could not remove container {id}: {e}"),
            }
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    eprintln!("interrupted: removed {removed} container(s) of this run");
}

/// The longest a second Ctrl-C waits for the engine before the process exits.
const SECOND_CTRL_C_LIMIT: std::time::Duration = std::time::Duration::from_secs(3);
/// How long, once they are killed, the run's containers are given to be removed.
const SECOND_CTRL_C_REMOVAL: std::time::Duration = std::time::Duration::from_millis(500);

/// The second Ctrl-C's teardown: SIGKILL to every container of the run at once (the engine
/// answers once each has stopped), then their removal, all at once too, given
/// [`SECOND_CTRL_C_REMOVAL`]; containers still there are stopped ones, which the next run
/// into the same folder (`--resume`) removes.
async fn kill_run(docker: &Docker, label: &str) {
    let work = async {
        let ids = run_container_ids(docker, label).await?;
        let options = || {
            Some(
                KillContainerOptionsBuilder::default()
                    .signal("SIGKILL")
                    .build(),
            )
        };
        let kills = futures_util::future::join_all(
            ids.iter().map(|id| docker.kill_container(id, options())),
        )
        .await;
        let mut killed = 0;
        for (id, kill) in ids.iter().zip(kills) {
            match kill {
                Ok(()) => killed += 1,
                // Not running (never started, or already stopped) or already gone.
                Err(bollard::errors::Error::DockerResponseServerError {
                    status_code: 404 | 409,
                    ..
                }) => {}
                Err(e) => eprintln!("interrupted again: could not kill container {id}: {e}"),
            }
        }
        let removals = futures_util::future::join_all(
            ids.iter()
                .map(|id| docker.remove_container(id, Some(forced()))),
        );
        // Removed, gone already, or being removed (by the first Ctrl-C's request).
        let removed = match tokio::time::timeout(SECOND_CTRL_C_REMOVAL, removals).await {
            Ok(done) => done
                .iter()
                .filter(|r| {
                    matches!(
                        r,
                        Ok(())
                            | Err(bollard::errors::Error::DockerResponseServerError {
                                status_code: 404 | 409,
                                ..
                            })
                    )
                })
                .count(),
            Err(_) => 0,
        };
        Ok::<_, String>((killed, ids.len(), removed))
    };
    match tokio::time::timeout(SECOND_CTRL_C_LIMIT, work).await {
        Ok(Ok((killed, listed, removed))) => {
            let left = listed.saturating_sub(removed);
            eprintln!(
                "interrupted again: killed {killed} running container(s) of this run{}",
                if left == 0 {
                    String::new()
                } else {
                    format!("; {left} stopped one(s) left for the next run to remove")
                }
            );
        }
        Ok(Err(e)) => eprintln!("interrupted again: {e}"),
        Err(_) => eprintln!(
            "interrupted again: the engine did not answer within {} s; the run's containers may still run",
            SECOND_CTRL_C_LIMIT.as_secs()
        ),
    }
}

/// Why a task's image cannot be had, in one line without the task's name (the line that
/// shows it names the task): the pull's or the build's error, cut short.
fn unavailable(error: &EvalError) -> String {
    match error {
        EvalError::Sandbox(SandboxError::Pull { image, error, .. }) => format!(
            "image `{image}` is missing and cannot be pulled: {}",
            one_line(&error.to_string())
        ),
        EvalError::Sandbox(SandboxError::ImageMissing { image, error, .. }) => format!(
            "image `{image}` is missing: {}",
            one_line(&error.to_string())
        ),
        EvalError::Sandbox(SandboxError::Build { error, .. }) => format!(
            "building environment/Dockerfile failed: {}",
            one_line(&error.to_string())
        ),
        EvalError::Sandbox(SandboxError::AgentInstall { image, error }) => format!(
            "the agent's install step fails in {image}: {}",
            one_line(&error.to_string())
        ),
        EvalError::Task { problem, .. } => one_line(&problem.to_string()),
        other => one_line(&other.to_string()),
    }
}

/// Whether a storage driver limits a container's disk, or why not.
fn storage_driver_limits(driver: &str, backing: &str) -> Result<(), String> {
    match driver {
        "btrfs" | "zfs" | "devicemapper" | "windowsfilter" => Ok(()),
        "overlay2" if backing == "xfs" => Ok(()),
        "overlay2" => Err(format!(
            "the engine's storage driver overlay2 has disk quotas only on xfs mounted with pquota, and it runs on {}",
            if backing.is_empty() {
                "an unknown file system"
            } else {
                backing
            }
        )),
        other => Err(format!(
            "the engine's storage driver {other} has no disk quotas (`--storage-opt size` needs overlay2 on xfs with pquota, btrfs, zfs or devicemapper)"
        )),
    }
}

/// The available space `df -Pk` reports on its last line, in KiB.
fn df_available_kib(output: &str) -> Option<u64> {
    output
        .lines()
        .last()?
        .split_whitespace()
        .nth(3)?
        .parse()
        .ok()
}

fn exec_options(
    argv: Vec<String>,
    env: Vec<String>,
    workdir: Option<String>,
) -> CreateExecOptions<String> {
    CreateExecOptions {
        cmd: Some(argv),
        env: Some(env),
        working_dir: workdir,
        attach_stdout: Some(true),
        attach_stderr: Some(true),
        ..CreateExecOptions::default()
    }
}

/// `name[:tag]` (a digest stays in the name), with `latest` as Docker's default tag.
fn split_reference(image: &str) -> (&str, &str) {
    if image.contains('@') {
        return (image, "");
    }
    match image.rsplit_once(':') {
        Some((name, tag)) if !tag.contains('/') => (name, tag),
        _ => (image, "latest"),
    }
}

/// Whether the `docker` CLI can build with BuildKit (it needs its buildx component).
fn buildkit_available() -> bool {
    static AVAILABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        std::process::Command::new("docker")
            .args(["buildx", "version"])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
}

/// Builds with BuildKit through the `docker` CLI; `None` when BuildKit is not available
/// there (then the engine's classic builder is used).
fn buildkit_build(dir: &std::path::Path, tag: &str) -> Option<Result<(), BuildError>> {
    if !buildkit_available() {
        return None;
    }
    let mut command = std::process::Command::new("docker");
    command
        .args(["build", "--quiet", "-t", tag, "-f"])
        .arg(dir.join("Dockerfile"))
        .arg(dir)
        .env("DOCKER_BUILDKIT", "1")
        .stdin(std::process::Stdio::null());
    let out = match command.output() {
        Ok(out) => out,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => return Some(Err(BuildError::Start(e))),
    };
    Some(if out.status.success() {
        Ok(())
    } else {
        Err(BuildError::Failed(crate::eval::sandbox::tail(
            &out.stderr,
            2000,
        )))
    })
}

/// A task id as a valid image-name component.
fn sanitize(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn storage_limits_follow_the_driver() {
        assert_eq!(storage_driver_limits("overlay2", "xfs"), Ok(()));
        assert_eq!(storage_driver_limits("btrfs", ""), Ok(()));
        let ext4 = storage_driver_limits("overlay2", "extfs").unwrap_err();
        assert!(ext4.contains("runs on extfs"), "{ext4}");
        let fuse = storage_driver_limits("fuse-overlayfs", "").unwrap_err();
        assert!(
            fuse.starts_with("the engine's storage driver fuse-overlayfs has no disk quotas"),
            "{fuse}"
        );
    }

    #[test]
    fn df_output_reads_the_available_column() {
        let out = "Filesystem     1024-blocks    Used Available Capacity Mounted on\n\
                   overlay             65536   65536         0     100% /\n";
        assert_eq!(df_available_kib(out), Some(0));
        assert_eq!(
            df_available_kib(
                "Filesystem 1K-blocks Used Available Use% Mounted on\nx 10 4 6 40% /\n"
            ),
            Some(6)
        );
        assert_eq!(df_available_kib(""), None);
    }
}
