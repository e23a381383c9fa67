//! `trust/list`, `trust/approve` and `trust/revoke`: `latch trust` for
//! the project's configuration, through the server.

use serde_json::json;
use serde_json::value::RawValue;
use tokio::sync::oneshot;
use tokio::task::JoinSet;

use super::rpc::{self, RequestId, code};
use super::setup::loaded_off_thread;
use super::{SERVED_NO_STATE_DIRECTORY, Server, named, watch};

/// The answer to a `trust/…` request about `definitions` (every hook for
/// `list`, the chosen ones otherwise), and whether the store changed;
/// blocking: reads, hashes, locks and writes the store.
fn trust_answer(
    id: &RequestId,
    root: &std::path::Path,
    definitions: &[crate::trust::Definition],
    action: TrustAction,
) -> (String, bool) {
    if action == TrustAction::List {
        let answer = match crate::trust::Store::load(root) {
            Ok(store) => rpc::result(id, &crate::trust::list(definitions, &store)),
            Err(e) => rpc::error(id, code::INTERNAL_ERROR, &e.to_string()),
        };
        return (answer, false);
    }
    let (key, changed) = if action == TrustAction::Approve {
        ("approved", crate::trust::approve(root, definitions))
    } else {
        ("revoked", crate::trust::revoke(root, definitions))
    };
    match changed {
        Ok(changed) => {
            let listed: Vec<crate::trust::Brief> = changed.iter().map(|d| (*d).into()).collect();
            (
                rpc::result(id, &json!({ key: listed })),
                !changed.is_empty(),
            )
        }
        Err(e) => (rpc::error(id, code::INTERNAL_ERROR, &e.to_string()), false),
    }
}

/// Which `trust/…` method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TrustAction {
    List,
    Approve,
    Revoke,
}

/// The params of `trust/approve` and `trust/revoke`.
#[derive(Debug, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct TrustParams {
    /// Hooks by label, or `FILE:LINE` of their declaration.
    pub hooks: Vec<String>,
    /// Every hook that needs approval (approve), or every listed one
    /// (revoke).
    pub all: bool,
}

impl Server {
    /// `trust/list`, `trust/approve`, `trust/revoke`: `latch trust` for the
    /// project's configuration, against the server's state directory. The
    /// store's lock, its fsync and the scripts' hashes are waited for on a
    /// blocking thread, so other sessions' events go on meanwhile; the
    /// answer is sent when it is ready (`None` here; `shutdown` and the end
    /// of input wait for it, as for a fire).
    pub(super) fn trust(
        &mut self,
        id: &RequestId,
        params: &RawValue,
        action: TrustAction,
        tasks: &mut JoinSet<()>,
    ) -> Option<String> {
        let setup = match self.ready(id) {
            Ok(s) => s,
            Err(response) => return Some(response),
        };
        // `trust/list` reads no params, as `shutdown` and `exit` do.
        let params: TrustParams = match params.get().trim() {
            _ if action == TrustAction::List => TrustParams::default(),
            "null" => TrustParams::default(),
            text if text.starts_with('{') => match named(params) {
                Ok(p) => p,
                Err(e) => return Some(rpc::error(id, code::INVALID_PARAMS, &e)),
            },
            _ => {
                return Some(rpc::error(
                    id,
                    code::INVALID_PARAMS,
                    "params must be an object",
                ));
            }
        };
        let Some(root) = setup.state_root.clone() else {
            return Some(rpc::error(
                id,
                code::INTERNAL_ERROR,
                SERVED_NO_STATE_DIRECTORY,
            ));
        };
        let (id, out) = (id.clone(), self.out.clone());
        // Trust requests run one after another, in the order they came: an
        // approve then a revoke must leave the hooks revoked.
        let (done, finished) = oneshot::channel::<()>();
        let before = self.trust_tail.replace(finished);
        tasks.spawn(async move {
            // Sent when this task ends, however it ends.
            let _done = done;
            if let Some(before) = before {
                let _ = before.await;
            }
            // The project's configuration: cached since `initialize`, unless
            // the cache of 64 directories started again.
            let definitions = match loaded_off_thread(&setup, &out, None, &id).await {
                Ok(loaded) => loaded.engine.definitions(),
                Err(response) => {
                    let _ = out.send(response);
                    return;
                }
            };
            // Approve and revoke work on the hooks named, checked here.
            let definitions = if action == TrustAction::List {
                definitions
            } else {
                match crate::trust::select(&definitions, &params.hooks, params.all) {
                    Ok(chosen) => chosen.into_iter().cloned().collect(),
                    Err(why) => {
                        let _ = out.send(rpc::error(&id, code::INVALID_PARAMS, &why));
                        return;
                    }
                }
            };
            let (asked, reloading, notices) = (id.clone(), setup.clone(), out.clone());
            let answer = watch::off_thread_caught(move || {
                let (answer, changed) = trust_answer(&asked, &root, &definitions, action);
                // Under a trust policy, every configuration is loaded again
                // with the new approvals before the answer, so the next
                // `fire` sees them, as the next `latch fire` would (the
                // watcher's reload would come too late).
                if changed
                    && reloading.config.uses_trust()
                    && let Err(why) = crate::panic::catch(|| watch::reload(&reloading, &notices, None))
                {
                    // The store is written: the answer stands, and the
                    // watcher's reload follows.
                    eprintln!(
                        "latch: error: reloading the configuration after a trust change failed ({why}); the configuration loaded before stays until the next reload"
                    );
                }
                answer
            })
            .await
            .unwrap_or_else(|why| rpc::error(&id, code::INTERNAL_ERROR, &why));
            let _ = out.send(answer);
        });
        None
    }
}
