//! A ready [`Background`] for harnesses that embed latch: each job runs on
//! a tokio task of the dispatching runtime, and its answer is kept in the
//! session's on-disk state for a later event, exactly as `latch fire`'s
//! detached processes keep it, so the two can be mixed.
//!
//! # Example
//!
//! ```
//! use std::time::Duration;
//!
//! use latch::background::Tasks;
//! use latch::dialect::claude::{self, Claude};
//! use latch::{Engine, Event, EventKind, RawJson, Session};
//!
//! // An `async` PostToolUse hook: the event does not wait for it.
//! let settings = r#"{"hooks": {"PostToolUse": [{"hooks": [{"type": "command", "async": true,
//!     "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PostToolUse\", \"additionalContext\": \"lint passed\"}}'"}]}]}}"#;
//! let state = tempfile::tempdir()?;
//! let (answers, mut answered) = tokio::sync::mpsc::unbounded_channel();
//! let engine = Engine::new()
//!     .with_dialect(Claude::load(claude::Options {
//!         sources: claude::Sources {
//!             settings: Some(settings.into()),
//!             managed_dir: Some(state.path().join("managed")),
//!             ..Default::default()
//!         },
//!         ..Default::default()
//!     }))
//!     .with_background(Tasks::new(state.path()).with_listener(move |answer| {
//!         let _ = answers.send(answer.clone());
//!     }));
//! let mut event = Event::tool_before("Bash", serde_json::json!({"command": "make lint"}))
//!     .with_session("s1");
//! event.event = EventKind::ToolAfter;
//! if let Some(tool) = event.tool.as_mut() {
//!     tool.output = Some(RawJson::from_value(&serde_json::json!("ok")));
//! }
//! let session = Session::open(state.path(), "s1")?;
//! let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
//! let answer = runtime.block_on(async {
//!     engine.dispatch(&event, &session).await?;
//!     // The hook runs on this runtime; its answer arrives once it ends
//!     // (and is kept for the session's next event).
//!     let answer = tokio::time::timeout(Duration::from_secs(30), answered.recv()).await?;
//!     Ok::<_, Box<dyn std::error::Error>>(answer)
//! })?;
//! let answer = answer.ok_or("no answer")?;
//! assert!(answer.texts.iter().any(|t| t.contains("lint passed")), "{answer:?}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::path::PathBuf;
use std::sync::Arc;

use crate::pipeline::{Background, BackgroundJob, DetachedJob};
use crate::run::{Cancel, RunResult, Runner, Termination};
use crate::session::Session;

/// What a finished background hook said, for a harness that wants to know
/// at once (for example to wake an idle agent).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Answer {
    /// The session it belongs to.
    pub session_id: String,
    /// The dialect that started it.
    pub dialect: String,
    /// The hook's label.
    pub hook: String,
    /// The event it ran for, in the dialect's spelling.
    pub event: String,
    /// The texts the model reads with the session's next tool result.
    pub texts: Vec<String>,
    /// What went wrong keeping the answer for the session's next event
    /// (its state cannot be used): the texts above are then all there is
    /// of it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// Called with every answer as it arrives.
pub type Listener = Arc<dyn Fn(&Answer) + Send + Sync>;

/// Runs background jobs on tokio tasks (see the module docs).
#[derive(Clone)]
pub struct Tasks {
    state_root: PathBuf,
    runner: Runner,
    listener: Option<Listener>,
}

impl Tasks {
    /// Keeps answers in the sessions under `state_root` (the directory
    /// `latch fire --state-dir` takes).
    pub fn new(state_root: impl Into<PathBuf>) -> Tasks {
        Tasks {
            state_root: state_root.into(),
            runner: Runner::default(),
            listener: None,
        }
    }

    /// Also calls `listener` with each answer as it arrives.
    pub fn with_listener(mut self, listener: impl Fn(&Answer) + Send + Sync + 'static) -> Tasks {
        self.listener = Some(Arc::new(listener));
        self
    }

    /// Runs the jobs with `runner` (for example one that starts hooks off
    /// the calling thread, [`Runner::spawn_off_thread`]) instead of the
    /// default one.
    pub fn with_runner(mut self, runner: Runner) -> Tasks {
        self.runner = runner;
        self
    }
}

impl Background for Tasks {
    fn start(&self, job: BackgroundJob) -> Result<(), String> {
        let runtime = tokio::runtime::Handle::try_current()
            .map_err(|_| "no tokio runtime to run it on".to_owned())?;
        if job.deliver && job.session_id.is_none() {
            return Err("the event has no session_id to deliver its answer to".to_owned());
        }
        let me = self.clone();
        runtime.spawn(async move {
            let result = me.runner.run(&job.command).await;
            if job.deliver {
                me.keep(Answered::of(&job), &result.stdout.bytes, ended(&result))
                    .await;
            }
        });
        Ok(())
    }

    fn follows(&self) -> bool {
        true
    }

    fn adopt(&self, job: DetachedJob) -> Result<(), String> {
        let runtime = tokio::runtime::Handle::try_current()
            .map_err(|_| "no tokio runtime to run it on".to_owned())?;
        if job.session_id.is_none() {
            return Err("the event has no session_id to deliver its answer to".to_owned());
        }
        let me = self.clone();
        runtime.spawn(async move {
            let answered = Answered {
                dialect: job.dialect,
                hook: job.hook,
                event: job.event,
                session_id: job.session_id,
            };
            let result = job.process.finish(&me.runner, &Cancel::never()).await;
            me.keep(answered, &result.stdout.bytes, ended(&result))
                .await;
        });
        Ok(())
    }
}

impl Tasks {
    /// Keeps a finished hook's answer in its session and tells the
    /// listener.
    async fn keep(&self, answered: Answered, stdout: &[u8], ended: bool) {
        let Some(id) = answered.session_id.clone() else {
            return;
        };
        let session = Session::open_or_unusable(&self.state_root, &id);
        let (texts, kept) = keep_answer(&answered, stdout, ended, &session).await;
        let warnings = kept
            .err()
            .map(|e| format!("latch could not keep this answer for the session's next event: {e}"))
            .into_iter()
            .collect();
        if let Some(listener) = &self.listener {
            listener(&Answer {
                session_id: id,
                dialect: answered.dialect,
                hook: answered.hook,
                event: answered.event,
                texts,
                warnings,
            });
        }
    }
}

/// Whose answer a finished background hook gives.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Answered {
    /// The dialect that started it, which reads its answer.
    pub dialect: String,
    /// The hook's label.
    pub hook: String,
    /// The event it ran for, in the dialect's spelling.
    pub event: String,
    /// The session that receives the answer.
    pub session_id: Option<String>,
}

impl Answered {
    /// Whose answer `job` gives.
    pub fn of(job: &BackgroundJob) -> Answered {
        Answered {
            dialect: job.dialect.clone(),
            hook: job.hook.clone(),
            event: job.event.clone(),
            session_id: job.session_id.clone(),
        }
    }
}

/// Whether a background hook ended on its own (not stopped at its
/// timeout or by a cancel): only then does it give an answer.
pub fn ended(result: &RunResult) -> bool {
    matches!(result.termination, Termination::Exited(_))
}

/// Reads what a finished background hook printed on stdout by its
/// dialect's rules (`ended`: it ended on its own, not stopped at its
/// timeout) and keeps its answer in `session` for a later event; returns
/// the answer's texts, and whether they were kept. An unknown dialect
/// gives none.
pub async fn keep_answer(
    answered: &Answered,
    stdout: &[u8],
    ended: bool,
    session: &Session,
) -> (Vec<String>, std::io::Result<()>) {
    use crate::dialect::claude;
    if answered.dialect != claude::DIALECT {
        return (Vec::new(), Ok(()));
    }
    let texts = claude::background::answer_of(stdout, ended, &answered.event);
    let kept =
        claude::background::store(session, &Cancel::never(), &answered.hook, texts.clone()).await;
    (texts, kept)
}
