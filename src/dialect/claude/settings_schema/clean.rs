//! What Claude Code removes from a settings file before it checks it.

use super::*;

/// What Claude Code removes from a settings file before it checks it, in
/// its order (2.1.332's `TA`: `so`, then `Se`): the settings only managed
/// settings may set; an alias (`additionalMarketplaces`,
/// `allowedMarketplaces`), which becomes the setting it names; a `null`
/// of a setting that restricts (`allowManagedHooksOnly`, …); a permission
/// rule that is not text; the broken parts of `hooks` (`load` warns of
/// those); an `extraKnownMarketplaces` that is not an object or an entry of
/// it that does not fit (but one of a source type Claude Code does not
/// know, which fails the file); a `modelPicker`, `modelPricing` or
/// `remoteControl` of the wrong shape or a part of one that does not fit;
/// an `allowedMcpServers` or `deniedMcpServers` that is not a list, or an
/// entry of one that does not fit. An `enabledMcpjsonServers` or
/// `disabledMcpjsonServers` that is one server's name becomes a list of it.
/// Each removal is a warning here, and the file still loads. (Claude Code
/// also drops permission rules whose syntax it refuses; latch leaves them,
/// which changes nothing here.) Managed settings (2.1.332's `TA` with a
/// policy source: no `so`, no `w0t`) lose the `null` of a setting that
/// restricts (recorded: `m332_null_restricting`, `m332_amho_null`), the
/// permission rules that are not text, the MCP server lists' wrong parts
/// and `hooks`' broken parts; a wrong setting there is dropped alone
/// afterwards (`load`), so the rest of the cleaning changes nothing
/// they load.
pub fn clean(root: &Node, managed: bool) -> (Node, Vec<Rejected>) {
    let mut root = root.clone();
    let mut removed = Vec::new();
    let Value::Map(entries) = &mut root.value else {
        return (root, removed);
    };
    if managed {
        restricting_nulls(entries);
    } else {
        before_the_rest(entries, &mut removed);
    }
    for (key, value) in entries.iter_mut() {
        match key.scalar_text().as_str() {
            "permissions" => {
                let Value::Map(kinds) = &mut value.value else {
                    continue;
                };
                for (kind, rules) in kinds.iter_mut() {
                    let kind = kind.scalar_text();
                    if !["allow", "deny", "ask"].contains(&kind.as_str()) {
                        continue;
                    }
                    if let Value::Seq(items) = &mut rules.value {
                        items.retain(|rule| {
                            let text = rule.as_str().is_some();
                            if !text {
                                removed.push(Rejected {
                                    setting: "permissions".to_owned(),
                                    at: rule.position,
                                    message: format!(
                                        "`permissions.{kind}` holds {}, not a rule; Claude Code removes it",
                                        rule.json_kind()
                                    ),
                                });
                            }
                            text
                        });
                    }
                }
            }
            name @ ("allowedMcpServers" | "deniedMcpServers") => {
                let item = schema()
                    .pointer(&format!("/fields/{name}/items"))
                    .cloned()
                    .unwrap_or(Json::Null);
                match &mut value.value {
                    Value::Seq(items) => items.retain(|entry| match fits(entry, &item, name) {
                        Ok(()) => true,
                        Err(e) => {
                            removed.push(Rejected {
                                setting: name.to_owned(),
                                at: e.at,
                                message: format!("{}; Claude Code removes this entry", e.message),
                            });
                            false
                        }
                    }),
                    _ => {
                        removed.push(Rejected {
                            setting: name.to_owned(),
                            at: value.position,
                            message: format!(
                                "`{name}` must be an array, not {}; Claude Code ignores it",
                                value.json_kind()
                            ),
                        });
                        // Checked no further: `check` skips a null.
                        value.value = Value::Seq(Vec::new());
                    }
                }
            }
            "hooks" => {
                let events = schema()
                    .pointer("/fields/hooks/keys/values")
                    .and_then(Json::as_array);
                match &mut value.value {
                    Value::Map(entries) => entries.retain(|(k, v)| {
                        matches!(v.value, Value::Seq(_))
                            && events.is_some_and(|e| e.contains(&Json::from(k.scalar_text())))
                    }),
                    // Left for `check` to pass over (an empty object).
                    _ => value.value = Value::Map(Vec::new()),
                }
            }
            _ => {}
        }
    }
    (root, removed)
}

/// `Fr`: a `null` of a setting that restricts is no setting (removed
/// without a word, in managed settings too).
fn restricting_nulls(entries: &mut Vec<(Node, Node)>) {
    let nulls: Vec<String> = last_of_each(entries)
        .into_iter()
        .filter(|(name, _, v)| v.value == Value::Null && null_is_removed(name))
        .map(|(name, _, _)| name)
        .collect();
    for name in nulls {
        take(entries, &name);
    }
}

/// The steps of 2.1.332's cleaning that 2.1.197 did not have (`so`, `uwe`,
/// `Fr`, `w0t`, `Wr`, `Jr`, `Kr`, `Qr`), for a file that is not managed.
fn before_the_rest(entries: &mut Vec<(Node, Node)>, removed: &mut Vec<Rejected>) {
    let warn = |removed: &mut Vec<Rejected>, setting: &str, at: Position, message: String| {
        removed.push(Rejected {
            setting: setting.to_owned(),
            at,
            message,
        });
    };
    // `so`: what only managed settings may set. Each name once, in the
    // order the file first gives it: `take` removes every entry of it.
    let mut seen = std::collections::HashSet::new();
    let names: Vec<String> = entries
        .iter()
        .map(|(k, _)| k.scalar_text())
        .filter(|n| listed("managedOnly", n) && seen.insert(n.clone()))
        .collect();
    for name in &names {
        if let Some((_, v)) = take(entries, name) {
            warn(
                removed,
                name,
                v.position,
                format!("`{name}` counts only in managed settings; Claude Code ignores it here"),
            );
        }
    }
    // `uwe`: an alias is read as the setting it names, unless that is set
    // too (not `null`).
    for pair in doc()["cleaning"]["aliases"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let (Some(alias), Some(canonical)) = (pair[0].as_str(), pair[1].as_str()) else {
            continue;
        };
        let Some((key, value)) = take(entries, alias) else {
            continue;
        };
        if value.value == Value::Null {
            continue;
        }
        match last(entries, canonical) {
            Some(set) if set.value != Value::Null => warn(
                removed,
                alias,
                value.position,
                format!(
                    "`{alias}` is another name for `{canonical}`, which this file sets too; Claude Code ignores `{alias}`"
                ),
            ),
            _ => {
                take(entries, canonical);
                entries.push((
                    Node {
                        value: Value::Str(canonical.to_owned()),
                        position: key.position,
                    },
                    value,
                ));
            }
        }
    }
    restricting_nulls(entries);
    // `w0t`: one server's name is a list of it.
    for name in ["enabledMcpjsonServers", "disabledMcpjsonServers"] {
        if let Some(v) = last_mut(entries, name)
            && let Value::Str(s) = &v.value
            && !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            let one = v.clone();
            v.value = Value::Seq(vec![one]);
        }
    }
    // `Wr`: marketplaces.
    if let Some(v) = last_mut(entries, "extraKnownMarketplaces") {
        if let Value::Map(markets) = &mut v.value {
            let ty = schema()
                .pointer("/fields/extraKnownMarketplaces/values")
                .unwrap_or(&Json::Null);
            let mut gone = std::collections::HashSet::new();
            for (name, _, market) in last_of_each(markets) {
                let path = format!("extraKnownMarketplaces.{name}");
                let why = match fits(market, ty, &path) {
                    // A source type Claude Code does not know keeps the entry,
                    // which then fails the file.
                    Err(_) if unknown_source(market) => None,
                    Err(e) => Some((e.at, e.message)),
                    Ok(()) => match (
                        market
                            .get("source")
                            .and_then(|s| s.get("source"))
                            .and_then(Node::as_str),
                        market
                            .get("source")
                            .and_then(|s| s.get("name"))
                            .and_then(Node::as_str),
                    ) {
                        (Some("settings"), Some(own)) if own != name => Some((
                            market.position,
                            format!("`{path}` must be named as its source is, `{own}`"),
                        )),
                        _ => None,
                    },
                };
                if let Some((at, message)) = why {
                    warn(
                        removed,
                        "extraKnownMarketplaces",
                        at,
                        format!("{message}; Claude Code ignores this marketplace"),
                    );
                    gone.insert(name);
                }
            }
            markets.retain(|(k, _)| !gone.contains(&k.scalar_text()));
        } else {
            warn(
                removed,
                "extraKnownMarketplaces",
                v.position,
                format!(
                    "`extraKnownMarketplaces` must be an object of marketplaces, not {}; Claude Code ignores it",
                    v.json_kind()
                ),
            );
            take(entries, "extraKnownMarketplaces");
        }
    }
    // `Jr`: the model picker.
    if let Some(v) = last_mut(entries, "modelPicker") {
        let rows = v.get("options").map(|o| matches!(o.value, Value::Seq(_)));
        if rows == Some(true) {
            let ty = schema()
                .pointer("/fields/modelPicker/fields/options/items")
                .unwrap_or(&Json::Null);
            if let Value::Map(fields) = &mut v.value {
                drop_wrong(fields, "replaceBuiltInOptions", removed, "modelPicker");
                if let Some(Value::Seq(items)) = last_mut(fields, "options").map(|o| &mut o.value) {
                    items.retain(|row| match fits(row, ty, "modelPicker.options") {
                        Ok(()) => true,
                        Err(e) => {
                            warn(
                                removed,
                                "modelPicker",
                                e.at,
                                format!("{}; Claude Code ignores this row", e.message),
                            );
                            false
                        }
                    });
                }
            }
        } else {
            warn(
                removed,
                "modelPicker",
                v.position,
                format!(
                    "`modelPicker` must be an object with an `options` array, not {}; Claude Code ignores it",
                    v.get("options").map_or(v.json_kind(), Node::json_kind)
                ),
            );
            take(entries, "modelPicker");
        }
    }
    // `Kr`: the prices.
    if let Some(v) = last_mut(entries, "modelPricing") {
        if let Value::Map(fields) = &mut v.value {
            drop_wrong(fields, "multiplier", removed, "modelPricing");
            if let Some(o) = last_mut(fields, "overrides")
                && let Value::Map(rows) = &mut o.value
            {
                let ty = schema()
                    .pointer("/fields/modelPricing/fields/overrides/values")
                    .unwrap_or(&Json::Null);
                let mut gone = std::collections::HashSet::new();
                for (model, _, row) in last_of_each(rows) {
                    let path = format!("modelPricing.overrides.{model}");
                    let why = match fits(row, ty, &path) {
                        Err(e) => Some((e.at, e.message)),
                        Ok(()) if model == "constructor" || model == "__proto__" => {
                            Some((row.position, format!("`{path}` is no model's name")))
                        }
                        Ok(()) => None,
                    };
                    if let Some((at, message)) = why {
                        warn(
                            removed,
                            "modelPricing",
                            at,
                            format!("{message}; Claude Code ignores this row"),
                        );
                        gone.insert(model);
                    }
                }
                rows.retain(|(k, _)| !gone.contains(&k.scalar_text()));
            }
            drop_wrong(fields, "overrides", removed, "modelPricing");
        } else {
            warn(
                removed,
                "modelPricing",
                v.position,
                format!(
                    "`modelPricing` must be an object, not {}; Claude Code ignores it",
                    v.json_kind()
                ),
            );
            take(entries, "modelPricing");
        }
    }
    // `Qr`: Remote Control's options.
    if let Some(v) = last(entries, "remoteControl")
        && v.as_map().is_none()
    {
        let message = format!(
            "`remoteControl` must be an object, not {}; Claude Code ignores it",
            v.json_kind()
        );
        warn(removed, "remoteControl", v.position, message);
        take(entries, "remoteControl");
    }
}

/// A marketplace entry whose `source` (or a plugin's) is of a type Claude
/// Code does not know: its cleaning keeps it (`Wr`, `tka`).
fn unknown_source(market: &Node) -> bool {
    let Some(source) = market.get("source").filter(|s| s.as_map().is_some()) else {
        return false;
    };
    if source
        .get("source")
        .and_then(Node::as_str)
        .is_some_and(|t| !listed("marketplaceSources", t))
    {
        return true;
    }
    source
        .get("plugins")
        .and_then(Node::as_seq)
        .is_some_and(|plugins| {
            plugins.iter().any(|p| {
                p.get("source")
                    .filter(|s| s.as_map().is_some())
                    .and_then(|s| s.get("source"))
                    .and_then(Node::as_str)
                    .is_some_and(|t| !listed("pluginSources", t))
            })
        })
}

/// Removes `field` of the object `setting` where it does not fit its type.
fn drop_wrong(
    fields: &mut Vec<(Node, Node)>,
    field: &str,
    removed: &mut Vec<Rejected>,
    setting: &str,
) {
    let ty = schema()
        .pointer(&format!("/fields/{setting}/fields/{field}"))
        .unwrap_or(&Json::Null);
    let Some(value) = last(fields, field) else {
        return;
    };
    if let Err(e) = fits(value, ty, &format!("{setting}.{field}")) {
        removed.push(Rejected {
            setting: setting.to_owned(),
            at: e.at,
            message: format!("{}; Claude Code ignores it", e.message),
        });
        take(fields, field);
    }
}

/// Removes every entry of `key`, giving the last.
fn take(entries: &mut Vec<(Node, Node)>, key: &str) -> Option<(Node, Node)> {
    let mut gone = None;
    entries.retain(|(k, v)| {
        if k.as_str() == Some(key) {
            gone = Some((k.clone(), v.clone()));
            false
        } else {
            true
        }
    });
    gone
}

fn last<'a>(entries: &'a [(Node, Node)], key: &str) -> Option<&'a Node> {
    entries
        .iter()
        .rfind(|(k, _)| k.as_str() == Some(key))
        .map(|(_, v)| v)
}

fn last_mut<'a>(entries: &'a mut [(Node, Node)], key: &str) -> Option<&'a mut Node> {
    entries
        .iter_mut()
        .rfind(|(k, _)| k.as_str() == Some(key))
        .map(|(_, v)| v)
}
