//! settings.json, global (`<agentDir>/settings.json`) and project (`<cwd>/.pi/settings.json`),
//! merged as pi's SettingsManager does (pi-coding-agent `dist/core/settings-manager.js`), and the
//! project trust decision that gates the project file (`dist/main.js:573–580`,
//! `dist/core/project-trust.js`, `dist/core/trust-manager.js`).

// Text from the user: no string is sliced by byte range (a cut inside a character panics).
#![deny(clippy::string_slice)]

use crate::args::PiArgs;
use crate::diagnostics::Diagnostic;
use crate::inputs::VirtualFs;
use crate::js::path::{dirname, join_path, normalize_path};
use crate::js::{self, Object, Value};

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Settings {
    /// The effective settings object (project over global, as pi merges them).
    pub merged: Object,
    /// The global settings after migration.
    pub global: Object,
    /// The project settings after migration (`{}` when the project is untrusted).
    pub project: Object,
    /// Whether pi trusts the project (loads `.pi/settings.json`, `.pi/SYSTEM.md`,
    /// `.pi/APPEND_SYSTEM.md`, project skills).
    pub project_trusted: bool,
    /// Why the project is (not) trusted, for the trace.
    pub trust_reason: String,
}

/// pi's compaction settings (`getCompactionSettings`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CompactionSettings {
    pub enabled: bool,
    /// The tokens pi keeps free of the context window: it compacts past
    /// `contextWindow - reserveTokens` (NaN when the setting is not a number: pi never compacts).
    pub reserve_tokens: f64,
    /// About how many tokens of the newest messages a compaction keeps.
    pub keep_recent_tokens: f64,
}

impl Settings {
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.merged.get(key)
    }
    /// `getDefaultThinkingLevel()` (settings-manager.js:508): `settings.defaultThinkingLevel`.
    pub fn default_thinking_level(&self) -> Option<&str> {
        self.merged.get_str("defaultThinkingLevel")
    }
    /// `getModelThinkingLevel(provider, modelId)` (:516):
    /// `settings.modelThinkingLevels?.["provider/id"]`.
    pub fn model_thinking_level(&self, provider: &str, model_id: &str) -> Option<&str> {
        self.merged
            .get_object("modelThinkingLevels")
            .and_then(|m| m.get_str(&format!("{provider}/{model_id}")))
    }
    /// `getDefaultTools()` (:916): `tools ? [...tools] : undefined`. A string spreads into its
    /// characters, as in JS; non-string entries can never match a tool name and are left out.
    pub fn default_tools(&self) -> Option<Vec<String>> {
        match self.merged.get("defaultTools") {
            Some(Value::Array(a)) => Some(
                a.iter()
                    .filter_map(|v| v.as_str().map(String::from))
                    .collect(),
            ),
            Some(Value::String(s)) if !s.is_empty() => Some(s.chars().map(String::from).collect()),
            _ => None,
        }
    }
    /// `getCompactionSettings(model)`: whether pi compacts, and the tokens it keeps free
    /// (`reserveTokens`: pi compacts once the context passes `contextWindow - reserveTokens`,
    /// `shouldCompact`, CA/core/compaction/compaction.js:163) and keeps (`keepRecentTokens`).
    /// Defaults from the release's data (`defaults.json` `compaction`); from 0.86
    /// (`Rules::compaction_model_overrides`) per model, validated: the error is pi's.
    pub fn compaction(
        &self,
        pi: &crate::Pi,
        provider: &str,
        model_id: &str,
    ) -> Result<CompactionSettings, String> {
        let defaults = pi
            .data
            .defaults
            .get("compaction")
            .and_then(Value::as_object);
        let default = |k: &str| {
            defaults
                .and_then(|d| d.get(k))
                .and_then(Value::as_f64)
                .unwrap_or(f64::NAN)
        };
        let compaction = self.merged.get_object("compaction");
        let enabled = match compaction.and_then(|c| c.get("enabled")) {
            None | Some(Value::Null) => defaults
                .and_then(|d| d.get("enabled"))
                .is_none_or(Value::truthy),
            Some(v) => v.truthy(),
        };
        let token = |field: &str| -> Result<f64, String> {
            let ordinary = compaction.and_then(|c| c.get(field));
            if !pi.rules.compaction_model_overrides {
                // `settings.compaction?.[field] ?? default`, used in `-` (JS coerces it).
                return Ok(match ordinary {
                    None | Some(Value::Null) => default(field),
                    Some(v) => js::to_number(Some(v)),
                });
            }
            let valid = |v: &Value| {
                v.as_f64()
                    .is_some_and(|n| n >= 0.0 && n.fract() == 0.0 && n <= 9_007_199_254_740_991.0)
            };
            let shown = |v: &Value| js::to_js_string(Some(v));
            if let Some(v) = ordinary.filter(|v| !valid(v)) {
                return Err(format!(
                    "Invalid compaction.{field} setting: {}. Expected a non-negative safe integer.",
                    shown(v)
                ));
            }
            let key = format!("{provider}/{model_id}");
            let entry = compaction
                .and_then(|c| c.get_object("modelOverrides"))
                .and_then(|o| o.get(&key));
            let entry = match entry {
                None => None,
                Some(Value::Object(o)) => Some(o),
                Some(v) => {
                    return Err(format!(
                    "Invalid compaction.modelOverrides[\"{key}\"] setting: {}. Expected an object.",
                    shown(v)
                ))
                }
            };
            let over = entry.and_then(|e| e.get(field));
            if let Some(v) = over.filter(|v| !valid(v)) {
                return Err(format!("Invalid compaction.modelOverrides[\"{key}\"].{field} setting: {}. Expected a non-negative safe integer.", shown(v)));
            }
            Ok(over
                .or(ordinary)
                .and_then(Value::as_f64)
                .unwrap_or_else(|| default(field)))
        };
        Ok(CompactionSettings {
            enabled,
            reserve_tokens: token("reserveTokens")?,
            keep_recent_tokens: token("keepRecentTokens")?,
        })
    }
    /// `getBlockImages()` (:902): `settings.images?.blockImages ?? false`, used for truthiness.
    pub fn block_images(&self) -> bool {
        self.merged
            .get_object("images")
            .and_then(|o| o.get("blockImages"))
            .is_some_and(Value::truthy)
    }
    /// `getImageAutoResize()` (:891): `settings.images?.autoResize ?? true`.
    pub fn image_auto_resize(&self) -> bool {
        match self
            .merged
            .get_object("images")
            .and_then(|o| o.get("autoResize"))
        {
            None | Some(Value::Null) => true,
            Some(v) => v.truthy(),
        }
    }
    /// `getThinkingBudgets()` (:794).
    pub fn thinking_budgets(&self) -> Option<&Object> {
        self.merged.get_object("thinkingBudgets")
    }
    /// `getTransport()` (:540): `settings.transport ?? "auto"`.
    pub fn transport(&self) -> &str {
        self.merged.get_str("transport").unwrap_or("auto")
    }
    /// `getEnableInstallTelemetry()` (:697): `settings.enableInstallTelemetry ?? true`.
    pub fn enable_install_telemetry(&self) -> bool {
        match self.merged.get("enableInstallTelemetry") {
            None | Some(Value::Null) => true,
            Some(v) => v.truthy(),
        }
    }
    /// `getSkillPaths()` (:747): `settings.skills ?? []` (string entries).
    pub fn skill_paths(&self) -> Vec<String> {
        strings(self.merged.get("skills"))
    }
    /// `getDefaultProjectTrust()` (:664): from the global settings only.
    pub fn default_project_trust(&self) -> &str {
        match self.global.get_str("defaultProjectTrust") {
            Some(v @ ("always" | "never")) => v,
            _ => "ask",
        }
    }
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// The entries of `<cwd>/.pi` that make a project need trust (trust-manager.js:8–16).
const TRUST_REQUIRING_PROJECT_CONFIG_RESOURCES: [&str; 7] = [
    "settings.json",
    "extensions",
    "skills",
    "prompts",
    "themes",
    "SYSTEM.md",
    "APPEND_SYSTEM.md",
];

fn exists(fs: &VirtualFs, p: &str) -> bool {
    fs.is_file(p) || fs.is_dir(p)
}

/// `hasTrustRequiringProjectResources(cwd)` (trust-manager.js:150–169): a trust-requiring entry
/// under `<cwd>/.pi`, or a `.agents/skills` in cwd or an ancestor other than `$HOME/.agents/skills`.
pub fn has_trust_requiring_project_resources(fs: &VirtualFs, home: &str, cwd: &str) -> bool {
    let user_agents_skills = join_path(&normalize_path(home), ".agents/skills");
    let mut dir = normalize_path(cwd);
    let config_dir = join_path(&dir, ".pi");
    if TRUST_REQUIRING_PROJECT_CONFIG_RESOURCES
        .iter()
        .any(|e| exists(fs, &join_path(&config_dir, e)))
    {
        return true;
    }
    loop {
        let agents_skills = join_path(&dir, ".agents/skills");
        if agents_skills != user_agents_skills && exists(fs, &agents_skills) {
            return true;
        }
        let parent = dirname(&dir);
        if parent == dir {
            return false;
        }
        dir = parent;
    }
}

/// `ProjectTrustStore.get(cwd)` (trust-manager.js:171–180): the nearest entry of
/// `<agentDir>/trust.json` for cwd or an ancestor that is `true` or `false`.
fn trust_store_get(
    fs: &VirtualFs,
    agent_dir: &str,
    cwd: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<bool> {
    let path = join_path(agent_dir, "trust.json");
    let text = fs.read_to_string(&path)?;
    let parsed = match js::parse_with_position(text.strip_prefix('\u{FEFF}').unwrap_or(&text)) {
        Ok(Value::Object(o)) => o,
        Ok(_) => {
            diags.push(Diagnostic::error(
                &path,
                Some(1),
                format!("Invalid trust store {path}: expected an object"),
            ));
            return None;
        }
        Err((e, line, _)) => {
            diags.push(Diagnostic::error(
                &path,
                Some(line as u32),
                format!("Failed to read trust store {path}: {}", e.message),
            ));
            return None;
        }
    };
    let mut dir = normalize_path(cwd);
    loop {
        if let Some(Value::Bool(b)) = parsed.get(&dir) {
            return Some(*b);
        }
        let parent = dirname(&dir);
        if parent == dir {
            return None;
        }
        dir = parent;
    }
}

/// `deepMergeObjects(base, overrides)` (settings-manager.js:12–27).
pub fn deep_merge(base: &Object, overrides: &Object) -> Object {
    let mut result = base.clone();
    for (key, value) in overrides.iter() {
        let merged = match (base.get(key), value) {
            (Some(Value::Object(b)), Value::Object(o)) => Value::Object(deep_merge(b, o)),
            _ => value.clone(),
        };
        result.insert(key.clone(), merged);
    }
    result
}

/// `SettingsManager.migrateSettings(settings)` (settings-manager.js:212–258).
pub fn migrate_settings(settings: &mut Object) {
    if settings.contains_key("queueMode") && !settings.contains_key("steeringMode") {
        if let Some(v) = settings.remove("queueMode") {
            settings.insert("steeringMode", v);
        }
    }
    if !settings.contains_key("transport") {
        if let Some(Value::Bool(ws)) = settings.get("websockets").cloned() {
            settings.insert(
                "transport",
                Value::str(if ws { "websocket" } else { "sse" }),
            );
            settings.remove("websockets");
        }
    }
    if let Some(Value::Object(skills)) = settings.get("skills").cloned() {
        if let Some(esc) = skills.get("enableSkillCommands") {
            if settings.get("enableSkillCommands").is_none() {
                settings.insert("enableSkillCommands", esc.clone());
            }
        }
        match skills.get("customDirectories") {
            Some(Value::Array(dirs)) if !dirs.is_empty() => {
                settings.insert("skills", Value::Array(dirs.clone()))
            }
            _ => {
                settings.remove("skills");
            }
        }
    }
    if let Some(Value::Object(retry)) = settings.get_mut("retry") {
        let provider = retry.get("provider").and_then(Value::as_object).cloned();
        if let Some(Value::Number(max)) = retry.get("maxDelayMs").cloned() {
            if provider
                .as_ref()
                .and_then(|p| p.get("maxRetryDelayMs"))
                .is_none_or(Value::is_null)
            {
                let mut p = provider.unwrap_or_default();
                p.insert("maxRetryDelayMs", Value::Number(max));
                retry.insert("provider", Value::Object(p));
            }
        }
        retry.remove("maxDelayMs");
    }
}

/// `SettingsManager.loadFromStorage(storage, scope)` (settings-manager.js:188–202) for one file:
/// missing or empty → `{}`; BOM stripped; a parse error is reported and gives `{}` (pi records it
/// and goes on with `{}`, :203–210).
fn load_file(fs: &VirtualFs, path: &str, diags: &mut Vec<Diagnostic>) -> Object {
    let Some(text) = fs.read_to_string(path) else {
        return Object::new();
    };
    if text.is_empty() {
        return Object::new();
    }
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(&text);
    match js::parse_with_position(text) {
        Ok(Value::Object(mut o)) => {
            migrate_settings(&mut o);
            o
        }
        Ok(other) => {
            diags.push(
                Diagnostic::error(
                    path,
                    Some(1),
                    format!("settings must be a JSON object, not {other:?}"),
                )
                .skipping("the whole file"),
            );
            Object::new()
        }
        Err((e, line, _col)) => {
            diags.push(
                Diagnostic::error(path, Some(line as u32), format!("invalid JSON: {e:?}"))
                    .skipping("the whole file"),
            );
            Object::new()
        }
    }
}

/// Loads and merges the settings files, after deciding project trust as pi's `main()` does for
/// the runtime settings manager (main.js:573–581 and `resolveProjectTrusted`,
/// project-trust.js:17–58): `--approve`/`--no-approve` decide; a project with no trust-requiring
/// resources is trusted; otherwise the trust store (`<agentDir>/trust.json`), then the global
/// `defaultProjectTrust` (`always`/`never`); `ask` has no UI in print mode, so: untrusted.
pub fn load(
    fs: &VirtualFs,
    home: &str,
    agent_dir: &str,
    cwd: &str,
    args: &PiArgs,
    diags: &mut Vec<Diagnostic>,
) -> Settings {
    let global_path = join_path(agent_dir, "settings.json");
    let project_path = join_path(&join_path(cwd, ".pi"), "settings.json");
    let global = load_file(fs, &global_path, diags);
    let global_only = Settings {
        global: global.clone(),
        ..Default::default()
    };
    let (trusted, reason) = if let Some(o) = args.approve {
        (
            o,
            if o {
                "--approve".to_string()
            } else {
                "--no-approve".to_string()
            },
        )
    } else if !has_trust_requiring_project_resources(fs, home, cwd) {
        (true, "no trust-requiring project resources".to_string())
    } else if let Some(d) = trust_store_get(fs, agent_dir, cwd, diags) {
        (
            d,
            format!("trust store {}", join_path(agent_dir, "trust.json")),
        )
    } else {
        match global_only.default_project_trust() {
            "always" => (true, "defaultProjectTrust: always".to_string()),
            "never" => (false, "defaultProjectTrust: never".to_string()),
            _ => (
                false,
                "no trust decision (print mode cannot ask)".to_string(),
            ),
        }
    };
    let project = if trusted {
        load_file(fs, &project_path, diags)
    } else {
        if fs.is_file(&project_path) {
            diags.push(
                Diagnostic::info(
                    &project_path,
                    None,
                    format!("project not trusted ({reason}): pi ignores it"),
                )
                .skipping("project settings"),
            );
        }
        Object::new()
    };
    Settings {
        merged: deep_merge(&global, &project),
        global,
        project,
        project_trusted: trusted,
        trust_reason: reason,
    }
}

#[cfg(test)]
#[path = "settings_tests.rs"]
mod tests;
