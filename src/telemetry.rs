//! OpenTelemetry export: each dispatch a span, each hook run a child span
//! with the audit record's attributes, sent over OTLP/HTTP to the
//! collector a team already runs.
//!
//! Nothing is built unless the standard variables name an endpoint
//! (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, else `OTEL_EXPORTER_OTLP_ENDPOINT`
//! with `/v1/traces` appended); the protocol is `http/protobuf` unless
//! `OTEL_EXPORTER_OTLP_PROTOCOL` says `http/json`; the headers variables
//! apply as the official exporter reads them, the timeout variables as
//! `UreqClient` reads them (compression is not built in). Spans are batched on the SDK's own thread and sent
//! with `ureq`, latch's HTTP client (the exporter's own clients would add
//! reqwest or hyper); [`Telemetry::flush`] sends what is pending, which
//! `latch fire` does before it exits.
//!
//! Like the audit log, spans never carry the payload, what a hook printed
//! or environment values.
//!
//! # Example
//!
//! ```
//! use latch::telemetry::Telemetry;
//!
//! // Spans are exported only when an OTLP endpoint variable is set
//! // (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`).
//! let mut engine = latch::Engine::new();
//! if let Some(telemetry) = Telemetry::from_env()? {
//!     engine = engine.with_telemetry(std::sync::Arc::new(telemetry));
//! }
//! # drop(engine);
//! # Ok::<(), String>(())
//! ```

use std::time::{Duration, SystemTime};

use opentelemetry::trace::{Span, SpanKind, Status, TraceContextExt, Tracer, TracerProvider};
use opentelemetry::{Context, KeyValue};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::{SdkTracer, SdkTracerProvider};

use crate::audit::{AuditMode, AuditRecord};
use crate::event::Event;
use crate::outcome::Outcome;
use crate::text::serde_word as word;

/// The variables that turn the export on.
pub(crate) const ENDPOINT_VARS: [&str; 2] = [
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_EXPORTER_OTLP_ENDPOINT",
];

/// The exporter: one per process.
#[derive(Debug)]
pub struct Telemetry {
    provider: SdkTracerProvider,
    tracer: SdkTracer,
}

impl Telemetry {
    /// The exporter the environment asks for; `Ok(None)` when no endpoint
    /// variable is set (nothing is built).
    ///
    /// # Errors
    /// When the variables are set but unusable (an invalid URL, an unknown
    /// protocol).
    pub fn from_env() -> Result<Option<Telemetry>, String> {
        let set = ENDPOINT_VARS
            .iter()
            .any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()));
        if !set {
            return Ok(None);
        }
        use opentelemetry_otlp::{WithExportConfig, WithHttpConfig};
        // The specification's default is protobuf; the exporter, built with
        // both encodings, would otherwise pick JSON.
        let protocol = match std::env::var("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
            .or_else(|_| std::env::var("OTEL_EXPORTER_OTLP_PROTOCOL"))
            .as_deref()
        {
            Ok("http/json") => opentelemetry_otlp::Protocol::HttpJson,
            Ok("http/protobuf") | Err(_) => opentelemetry_otlp::Protocol::HttpBinary,
            Ok(other) => {
                return Err(format!(
                    "OTEL_EXPORTER_OTLP_PROTOCOL={other:?} is not supported (http/protobuf, http/json)"
                ));
            }
        };
        let exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_http_client(UreqClient::from_env())
            .with_protocol(protocol)
            .build()
            .map_err(|e| format!("the OpenTelemetry exporter cannot be built: {e}"))?;
        let provider = SdkTracerProvider::builder()
            .with_batch_exporter(exporter)
            .with_resource(Resource::builder().with_service_name("latch").build())
            .build();
        let tracer = provider.tracer("latch");
        Ok(Some(Telemetry { provider, tracer }))
    }

    /// Records one dispatch, which ran from `started` until now, and its
    /// hook runs.
    pub(crate) fn record(
        &self,
        session: Option<&str>,
        event: &Event,
        event_id: &str,
        outcome: &Outcome,
        started: SystemTime,
    ) {
        let ended = SystemTime::now();
        let mut attributes = vec![
            KeyValue::new("latch.event", event.event.as_str()),
            KeyValue::new("latch.event_id", event_id.to_owned()),
            KeyValue::new("latch.decision", word(&outcome.decision)),
            KeyValue::new("latch.runs", outcome.runs.len() as i64),
        ];
        if let Some(s) = session {
            attributes.push(KeyValue::new("latch.session", s.to_owned()));
        }
        if let Some(tool) = event.tool_name() {
            attributes.push(KeyValue::new("latch.tool", tool.to_owned()));
        }
        let parent = self
            .tracer
            .span_builder(format!("latch dispatch {}", event.event.as_str()))
            .with_kind(SpanKind::Internal)
            .with_start_time(started)
            .with_attributes(attributes)
            .start(&self.tracer);
        let cx = Context::current_with_span(parent);
        let records = crate::audit::records(
            AuditMode::Runs,
            session.unwrap_or(""),
            event,
            event_id,
            outcome,
        );
        for (run, record) in outcome.runs.iter().zip(&records) {
            let duration = Duration::from_secs_f64(record.duration_ms.max(0.0) / 1000.0);
            let start = run.started.unwrap_or(started);
            let mut span = self
                .tracer
                .span_builder(format!("latch hook {}", record.hook))
                .with_kind(SpanKind::Internal)
                .with_start_time(start)
                .with_attributes(hook_attributes(record))
                .start_with_context(&self.tracer, &cx);
            if record.error.is_some() {
                span.set_status(Status::error(
                    record.error.map(|e| word(&e)).unwrap_or_default(),
                ));
            }
            span.end_with_timestamp(start + duration);
        }
        cx.span().end_with_timestamp(ended);
    }

    /// Sends every span not sent yet, waiting for the collector.
    pub fn flush(&self) {
        let _ = self.provider.force_flush();
    }
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        let _ = self.provider.shutdown();
    }
}

fn hook_attributes(r: &AuditRecord<'_>) -> Vec<KeyValue> {
    let mut out = vec![
        KeyValue::new("latch.dialect", r.dialect.to_string()),
        KeyValue::new("latch.hook", r.hook.to_string()),
        KeyValue::new("latch.hook_event", r.hook_event.to_string()),
        KeyValue::new("latch.status", word(&r.status)),
        KeyValue::new("latch.duration_ms", r.duration_ms),
    ];
    if let Some(s) = &r.source {
        out.push(KeyValue::new("latch.source", s.clone()));
    }
    if let Some(t) = r.trust {
        out.push(KeyValue::new("latch.trust", word(&t)));
    }
    if let Some(c) = r.exit_code {
        out.push(KeyValue::new("latch.exit_code", i64::from(c)));
    }
    if let Some(s) = r.signal {
        out.push(KeyValue::new("latch.signal", i64::from(s)));
    }
    if !r.contributed.is_empty() {
        out.push(KeyValue::new("latch.contributed", r.contributed.join(",")));
    }
    if let Some(e) = r.error {
        out.push(KeyValue::new("latch.error", word(&e)));
    }
    if r.stdout_truncated || r.stderr_truncated {
        out.push(KeyValue::new("latch.truncated", true));
    }
    out
}

/// The exporter's HTTP client: `ureq`, blocking, one agent for the
/// process. The SDK calls it from its batch thread (and from `flush`),
/// never from an async task of latch.
#[derive(Debug)]
struct UreqClient {
    agent: ureq::Agent,
}

/// The longest a collector may take to answer one export, unless
/// `OTEL_EXPORTER_OTLP_TRACES_TIMEOUT` or `OTEL_EXPORTER_OTLP_TIMEOUT`
/// (milliseconds) says otherwise: the specification's default.
const EXPORT_TIMEOUT: Duration = Duration::from_secs(10);

impl UreqClient {
    fn from_env() -> UreqClient {
        let timeout = [
            "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT",
            "OTEL_EXPORTER_OTLP_TIMEOUT",
        ]
        .iter()
        .find_map(|v| std::env::var(v).ok()?.trim().parse::<u64>().ok())
        .map_or(EXPORT_TIMEOUT, Duration::from_millis);
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .http_status_as_error(false)
            .build()
            .into();
        UreqClient { agent }
    }
}

#[async_trait::async_trait]
impl opentelemetry_http::HttpClient for UreqClient {
    async fn send_bytes(
        &self,
        request: http::Request<bytes::Bytes>,
    ) -> Result<http::Response<bytes::Bytes>, opentelemetry_http::HttpError> {
        let (parts, body) = request.into_parts();
        let request = http::Request::from_parts(parts, body.to_vec());
        let mut response = self.agent.run(request)?;
        let status = response.status();
        let bytes = response
            .body_mut()
            .with_config()
            .limit(1024 * 1024)
            .read_to_vec()?;
        let mut out = http::Response::new(bytes::Bytes::from(bytes));
        *out.status_mut() = status;
        Ok(out)
    }
}
