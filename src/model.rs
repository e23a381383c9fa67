//! An OpenAI-compatible chat endpoint, which `prompt` handlers ask (the
//! evener and claude dialects).
//!
//! latch speaks the chat-completions API: `POST {base_url}/chat/completions`
//! with one user message. The base URL, key and default model come from
//! [`PromptConfig`] (flags or environment); a handler's `model`
//! (`provider/model`) overrides the model, without its `provider/` prefix,
//! since the endpoint is the provider.
//!
//! The HTTP call uses `ureq` on a blocking thread with the handler's
//! timeout as ureq's global timeout. reqwest (async) was the other choice;
//! its rustls backend builds aws-lc from C, which costs minutes on a small
//! machine, for no gain here: the timeout bounds the call either way.

use std::time::Duration;

use serde_json::{Value, json};

/// Where prompt handlers send their requests.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PromptConfig {
    /// The API base URL, such as `https://api.openai.com/v1`.
    pub base_url: Option<String>,
    /// The bearer token.
    pub api_key: Option<String>,
    /// The model when the handler names none.
    pub model: Option<String>,
}

impl PromptConfig {
    /// Reads `LATCH_PROMPT_BASE_URL` (else `OPENAI_BASE_URL`),
    /// `LATCH_PROMPT_API_KEY` (else `OPENAI_API_KEY`) and `LATCH_PROMPT_MODEL`.
    pub fn from_env() -> Self {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        PromptConfig {
            base_url: var("LATCH_PROMPT_BASE_URL").or_else(|| var("OPENAI_BASE_URL")),
            api_key: var("LATCH_PROMPT_API_KEY").or_else(|| var("OPENAI_API_KEY")),
            model: var("LATCH_PROMPT_MODEL"),
        }
    }
}

/// The most of a reply's text (`choices[0].message.content`) latch keeps:
/// 1 MiB, the same as a command's stdout. The rest is dropped and the
/// reply is marked truncated.
pub const MAX_REPLY_TEXT: usize = 1024 * 1024;

/// The most of the HTTP response body latch reads: 4 MiB, room for a
/// reply text of [`MAX_REPLY_TEXT`] with JSON escapes. A longer body is
/// not read on: the call fails with a `prompt_error`.
pub const MAX_REPLY_BODY: u64 = 4 * 1024 * 1024;

/// A model's reply, capped at [`MAX_REPLY_TEXT`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// The reply text, at most [`MAX_REPLY_TEXT`] bytes (cut on a
    /// character boundary).
    pub text: String,
    /// The text was longer and was cut.
    pub truncated: bool,
}

/// Why a prompt got no reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AskError {
    /// The endpoint did not answer within the handler's timeout.
    TimedOut(String),
    /// Anything else: no endpoint, the request or the reply failed.
    Failed(String),
}

impl std::error::Error for AskError {}

impl std::fmt::Display for AskError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AskError::TimedOut(m) | AskError::Failed(m) => f.write_str(m),
        }
    }
}

/// Sends the prompt and returns the reply, or why there is none.
pub async fn ask(
    cfg: &PromptConfig,
    prompt: String,
    model: Option<&str>,
    timeout: Duration,
) -> Result<Reply, AskError> {
    let base = cfg.base_url.clone().ok_or_else(|| {
        AskError::Failed(
            "no model endpoint configured (set --prompt-base-url or LATCH_PROMPT_BASE_URL)"
                .to_owned(),
        )
    })?;
    let model = model
        .map(|m| m.split_once('/').map_or(m, |(_, name)| name).to_owned())
        .or_else(|| cfg.model.clone())
        .ok_or_else(|| AskError::Failed("no model configured (set the handler's \"model\", --prompt-model or LATCH_PROMPT_MODEL)".to_owned()))?;
    let url = format!("{}/chat/completions", base.trim_end_matches('/'));
    let key = cfg.api_key.clone();
    let body = json!({"model": model, "messages": [{"role": "user", "content": prompt}]});
    let call = tokio::task::spawn_blocking(move || post(&url, key.as_deref(), &body, timeout));
    match tokio::time::timeout(timeout + Duration::from_millis(200), call).await {
        Err(_) => Err(AskError::TimedOut(format!(
            "timed out after {} s",
            timeout.as_secs_f64()
        ))),
        Ok(Err(e)) => Err(AskError::Failed(format!("the request thread failed: {e}"))),
        Ok(Ok(reply)) => reply,
    }
}

fn post(url: &str, key: Option<&str>, body: &Value, timeout: Duration) -> Result<Reply, AskError> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .http_status_as_error(false)
        .build()
        .into();
    let mut req = agent.post(url);
    if let Some(k) = key {
        req = req.header("Authorization", &format!("Bearer {k}"));
    }
    let mut resp = req
        .send_json(body)
        .map_err(|e| ureq_error(e, &format!("request to {url} failed"), timeout))?;
    let status = resp.status();
    // The body read itself is capped: a huge reply is never buffered.
    let text = resp
        .body_mut()
        .with_config()
        .limit(MAX_REPLY_BODY)
        .read_to_string()
        .map_err(|e| match e {
            ureq::Error::BodyExceedsLimit(_) => AskError::Failed(format!(
                "the reply is larger than {} MiB; latch read no further",
                MAX_REPLY_BODY / (1024 * 1024)
            )),
            e => ureq_error(e, "reading the reply failed", timeout),
        })?;
    if !status.is_success() {
        return Err(AskError::Failed(format!(
            "the endpoint answered {status}: {}",
            crate::text::summary(&text, 200)
        )));
    }
    let reply: Value = serde_json::from_str(&text)
        .map_err(|e| AskError::Failed(format!("the reply is not JSON: {e}")))?;
    reply["choices"][0]["message"]["content"]
        .as_str()
        .map(capped)
        .ok_or_else(|| AskError::Failed("the reply has no choices[0].message.content".to_owned()))
}

/// A ureq error as an [`AskError`]: its own timeout is a timeout, said as
/// the handler's (ureq's own text, `timeout: global`, names no time).
fn ureq_error(e: ureq::Error, what: &str, timeout: Duration) -> AskError {
    match e {
        ureq::Error::Timeout(_) => {
            AskError::TimedOut(format!("timed out after {} s", timeout.as_secs_f64()))
        }
        e => AskError::Failed(format!("{what}: {e}")),
    }
}

/// The first [`MAX_REPLY_TEXT`] bytes of `text`, cut on a character boundary.
fn capped(text: &str) -> Reply {
    if text.len() <= MAX_REPLY_TEXT {
        return Reply {
            text: text.to_owned(),
            truncated: false,
        };
    }
    Reply {
        text: crate::text::at_most(text, MAX_REPLY_TEXT).to_owned(),
        truncated: true,
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_reply_is_cut_on_a_char_boundary() {
        let r = capped(&"é".repeat(MAX_REPLY_TEXT));
        assert!(r.truncated);
        assert_eq!(r.text.len(), MAX_REPLY_TEXT);
        let r = capped(&format!("a{}", "é".repeat(MAX_REPLY_TEXT / 2)));
        assert!(r.truncated);
        assert_eq!(r.text.len(), MAX_REPLY_TEXT - 1);
        assert_eq!(
            capped("short"),
            Reply {
                text: "short".into(),
                truncated: false
            }
        );
    }
}
