//! The JSON Schema of every `latch serve` message (`latch schema serve`,
//! committed as `schemas/serve.schema.json`). The events, outcomes,
//! diagnostics, explanations, async answers, trust listings and
//! `initialize`'s params are derived from the types the server reads and
//! writes, and the error codes come from [`super::rpc::code`], so those
//! cannot drift. The envelopes and the few small results written here by
//! hand (`initialize`'s result, the diagnostics notice, a cancel's params,
//! the trust changes) are checked against what a real server sends by the
//! clients' tests (`clients/python/tests/test_schema.py`,
//! `clients/node/test/schema.test.ts`).

use schemars::{SchemaGenerator, generate::SchemaSettings};
use serde_json::{Map, Value, json};

use crate::background::Answer;
use crate::explain::Explanation;
use crate::{Diagnostic, Event, Outcome};

use crate::cli::config::ConfigArgs;

/// The requests the server answers: each method, the schema definition of
/// its params (`None`: it reads none), and whether params are required.
pub(super) const REQUESTS: &[(&str, Option<&str>, bool)] = &[
    ("initialize", Some("InitializeParams"), false),
    ("fire", Some("FireParams"), true),
    ("explain", Some("ExplainParams"), true),
    ("trust/list", None, false),
    ("trust/approve", Some("TrustApproveParams"), true),
    ("trust/revoke", Some("TrustRevokeParams"), true),
    ("shutdown", None, false),
];

/// The schema document: one definition per message part, with every type
/// they use.
pub fn schema() -> Value {
    // What the server reads is described as it is deserialized (a field
    // with a default may be left out); what it writes, as it is serialized
    // (a field skipped when empty may be absent).
    let mut g: SchemaGenerator = SchemaSettings::draft2020_12().into_generator();
    let mut out: SchemaGenerator = SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator();
    let mut defs = Map::new();
    let mut put = |name: &str, v: Value| {
        defs.insert(name.to_owned(), v);
    };
    g.subschema_for::<ConfigArgs>();
    let event = g.subschema_for::<Event>().to_value();
    let outcome = out.subschema_for::<Outcome>().to_value();
    let diagnostic = out.subschema_for::<Diagnostic>().to_value();
    let explanation = out.subschema_for::<Vec<Explanation>>().to_value();
    let answer = out.subschema_for::<Answer>().to_value();
    let listed = out.subschema_for::<Vec<crate::trust::Listed>>().to_value();
    let trust_params = g.subschema_for::<super::TrustParams>().to_value();
    put(
        "InitializeResult",
        json!({
            "type": "object",
            "required": ["server", "dialects", "diagnostics"],
            "properties": {
                "server": {"type": "object", "required": ["name", "version"], "properties": {"name": {"const": "latch"}, "version": {"type": "string"}}},
                "dialects": {"type": "array", "items": {"enum": ["poolside", "peen", "evener", "claude"]}},
                "diagnostics": {"type": "array", "items": diagnostic},
            },
        }),
    );
    put("FireParams", event.clone());
    put("TrustListResult", listed);
    put("TrustApproveParams", trust_params.clone());
    put("TrustRevokeParams", trust_params);
    let changed = |key: &str| {
        json!({
            "type": "object",
            "required": [key],
            "properties": {key: {"type": "array", "items": {
                "type": "object",
                "required": ["dialect", "event", "hook", "source"],
                "properties": {"dialect": {"type": "string"}, "event": {"type": "string"}, "hook": {"type": "string"}, "source": {"type": "string"}},
            }}},
        })
    };
    put("TrustApproveResult", changed("approved"));
    put("TrustRevokeResult", changed("revoked"));
    put("FireResult", outcome);
    put("ExplainParams", event);
    put("ExplainResult", explanation);
    put("ShutdownResult", json!({"type": "null"}));
    put(
        "CancelRequestParams",
        json!({"type": "object", "required": ["id"], "additionalProperties": false, "properties": {"id": {"type": ["number", "string"], "description": "The id of the `fire` to cancel, as its request wrote it."}}}),
    );
    put("AsyncResultParams", answer);
    put(
        "DiagnosticsParams",
        json!({
            "type": "object",
            "required": ["cwd", "first_load", "reloaded", "reason", "kept", "diagnostics"],
            "properties": {
                "cwd": {"type": ["string", "null"], "description": "The working directory the configuration is for (null: the project's)."},
                "first_load": {"type": "boolean", "description": "true: the configuration was loaded for an event from a working directory that had none loaded (a new one, or one dropped from the cache of 64), and the load has diagnostics or kept files; false: it was reloaded after an edit on disk."},
                "reloaded": {"type": "boolean", "description": "true: the configuration on disk is in use, except the files in `kept`; false: the reload had errors no file could be blamed for alone, and the configuration loaded before stays in use, whole."},
                "reason": {"type": ["string", "null"], "description": "Why files, or the whole configuration loaded before, are kept; null when nothing is."},
                "kept": {"type": "array", "items": {"type": "string"}, "description": "Files whose new text has errors: each keeps the version of the last load that had it (or stays missing, if it was)."},
                "diagnostics": {"type": "array", "items": diagnostic},
            },
        }),
    );
    put(
        "Error",
        json!({
            "type": "object",
            "required": ["code", "message"],
            "properties": {
                "code": {"enum": super::rpc::code::ALL},
                "message": {"type": "string"},
            },
        }),
    );
    // The JSON-RPC 2.0 envelopes, one per line. A request's and a
    // notification's params are tied to the method: `if` the method is
    // this one, `then` the params are that definition (required when the
    // server needs them; ignored, and not constrained, when it reads none).
    let params_of = |methods: &[(&str, Option<&str>, bool)]| -> Vec<Value> {
        methods
            .iter()
            .map(|&(method, def, required)| {
                let params = match def {
                    Some(def) if required => json!({"$ref": format!("#/$defs/{def}")}),
                    Some(def) => {
                        json!({"anyOf": [{"$ref": format!("#/$defs/{def}")}, {"type": "null"}]})
                    }
                    None => json!({"description": "Not read: a client sends none (or null); the server ignores any given."}),
                };
                let mut then = json!({"properties": {"params": params}});
                if required {
                    then["required"] = json!(["params"]);
                }
                json!({
                    "if": {"required": ["method"], "properties": {"method": {"const": method}}},
                    "then": then,
                })
            })
            .collect()
    };
    let requests = REQUESTS;
    put(
        "Request",
        json!({
            "type": "object",
            "required": ["jsonrpc", "id", "method"],
            "properties": {
                "jsonrpc": {"const": "2.0"},
                "id": {"type": ["number", "string"], "description": "Any JSON number or string, echoed in the response."},
                "method": {"enum": requests.iter().map(|r| r.0).collect::<Vec<_>>()},
                "params": {"description": "The method's params definition (InitializeParams, FireParams, …); none for `trust/list` and `shutdown` (ignored if given)."},
            },
            "allOf": params_of(requests),
        }),
    );
    put(
        "Notification",
        json!({
            "type": "object",
            "required": ["jsonrpc", "method"],
            "not": {"required": ["id"]},
            "properties": {
                "jsonrpc": {"const": "2.0"},
                "method": {"type": "string", "description": "From the client: `$/cancelRequest`, `exit`; from the server: `latch/diagnostics`, `latch/asyncResult`. The server ignores any other, and a client should too."},
                "params": {"description": "The method's params definition (CancelRequestParams, AsyncResultParams, DiagnosticsParams); none for `exit` (ignored if given)."},
            },
            "allOf": params_of(&[
                ("$/cancelRequest", Some("CancelRequestParams"), true),
                ("exit", None, false),
                ("latch/asyncResult", Some("AsyncResultParams"), true),
                ("latch/diagnostics", Some("DiagnosticsParams"), true),
            ]),
        }),
    );
    put(
        "Response",
        json!({
            "type": "object",
            "required": ["jsonrpc", "id"],
            "properties": {
                "jsonrpc": {"const": "2.0"},
                "id": {"type": ["number", "string", "null"], "description": "The request's, as written; null when it could not be read."},
                "result": {"description": "The request's method's result definition (InitializeResult, FireResult, …)."},
                "error": {"$ref": "#/$defs/Error"},
            },
            "oneOf": [{"required": ["result"]}, {"required": ["error"]}],
        }),
    );
    let mut all = g.take_definitions(true);
    // The configuration flags, `state_dir` included.
    let mut init = all.remove("ConfigArgs").unwrap_or_else(|| json!({}));
    init["description"] = json!("`latch fire`'s configuration flags in snake_case.");
    defs.insert("InitializeParams".to_owned(), init);
    defs.extend(all);
    for (name, written) in out.take_definitions(true) {
        match defs.get(&name) {
            // A type both read and written, alike both ways.
            Some(read) if *read == written => {}
            // A type read one way and written another would need two
            // definitions and references told apart; none is, and the
            // tests (debug builds) hold it. The read form is kept.
            Some(_) => debug_assert!(false, "{name} is read and written differently"),
            None => {
                defs.insert(name, written);
            }
        }
    }
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "latch serve messages",
        "description": "Generated by `latch schema serve`. JSON-RPC 2.0, one message per line (Request, Response, Notification): a request's params and result are the definitions named after its method (InitializeParams, InitializeResult, FireParams, TrustListResult, …); notifications' params likewise (CancelRequestParams, AsyncResultParams, DiagnosticsParams). Request and Notification check the params of each method they know; a response names no method, so its result is checked against the definition of the request's. See docs/serve.md.",
        "$defs": defs,
    })
}

/// The schema as committed.
pub fn text() -> String {
    format!(
        "{}\n",
        serde_json::to_string_pretty(&schema()).unwrap_or_default()
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_message_has_a_definition() {
        let s = super::schema();
        for name in [
            "InitializeParams",
            "InitializeResult",
            "FireParams",
            "FireResult",
            "ExplainParams",
            "ExplainResult",
            "ShutdownResult",
            "CancelRequestParams",
            "AsyncResultParams",
            "DiagnosticsParams",
            "TrustListResult",
            "TrustApproveParams",
            "TrustApproveResult",
            "TrustRevokeParams",
            "TrustRevokeResult",
            "Error",
            "Request",
            "Notification",
            "Event",
            "Outcome",
        ] {
            assert!(s["$defs"][name].is_object(), "{name}");
        }
        // `schema()` itself asserts, in the debug builds tests run, that no
        // type is read one way and written another (a reference to it
        // must mean one thing).
    }

    #[test]
    fn each_method_of_an_envelope_names_its_params() {
        let s = super::schema();
        let methods = |envelope: &str| -> Vec<(String, String)> {
            let rules = s["$defs"][envelope]["allOf"].as_array().unwrap();
            rules
                .iter()
                .map(|rule| {
                    let method = rule["if"]["properties"]["method"]["const"]
                        .as_str()
                        .unwrap();
                    let params = &rule["then"]["properties"]["params"];
                    let reference = params["$ref"]
                        .as_str()
                        .or_else(|| params["anyOf"][0]["$ref"].as_str())
                        .unwrap_or("none");
                    (method.to_owned(), reference.to_owned())
                })
                .collect()
        };
        let requests = methods("Request");
        // Every method the envelope lists has a rule, and every rule's
        // params are defined.
        let listed: Vec<&str> = s["$defs"]["Request"]["properties"]["method"]["enum"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap())
            .collect();
        assert_eq!(
            requests.iter().map(|(m, _)| m.as_str()).collect::<Vec<_>>(),
            listed
        );
        for (method, reference) in requests.iter().chain(&methods("Notification")) {
            if let Some(name) = reference.strip_prefix("#/$defs/") {
                assert!(s["$defs"][name].is_object(), "{method}: {name}");
            } else {
                assert!(
                    ["trust/list", "shutdown", "exit"].contains(&method.as_str()),
                    "{method}"
                );
            }
        }
    }
}
