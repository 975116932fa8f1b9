//! What pi read of the files it was given, and what it ignored and why: for every file of the
//! [`Inputs`]' virtual file system, whether the assembly used it (a context file and its place in
//! the prompt, a skill, a prompt template, settings, models.json, SYSTEM.md / APPEND_SYSTEM.md,
//! an `@file` attachment), lost to another copy (a context file shadowed in its folder, a skill
//! whose name another skill took, a prompt template of the project over the agent dir's,
//! SYSTEM.md taken from the project), or was not read (a CLAUDE.md below the
//! cwd, a skill folder without SKILL.md, an untrusted project's files, a file pi never reads).
//! Pure: from the inputs and the assembly's loaded context files, skills and settings.

use crate::assemble::Assembly;
use crate::inputs::Inputs;
use crate::js::path::{basename, dirname, join_path, normalize_path};
use crate::js::Value;

/// What pi did with one file.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// pi read it for this request; `what` says as what.
    Read { what: String },
    /// Another copy won: `by` is the path pi used instead.
    Shadowed { by: String, why: String },
    /// pi does not use it for this request.
    Unused { why: String },
}

/// One file and its verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct PlacedFile {
    /// The absolute path, as pi sees it.
    pub path: String,
    pub verdict: Verdict,
}

/// Every file of the inputs with its verdict, in path order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Placement {
    pub files: Vec<PlacedFile>,
    /// The provider a placeholder key stood in for ([`Inputs::placeholder_key`]).
    pub placeholder_key: Option<String>,
}

fn under(path: &str, dir: &str) -> bool {
    dir == "/" || path.starts_with(&format!("{dir}/"))
}

/// `dir` is `cwd` or one of its ancestors.
fn is_ancestor_or_self(dir: &str, cwd: &str) -> bool {
    dir == cwd || under(cwd, dir)
}

/// The placement of every file of `inputs` in the assembly `a` made from them.
pub fn placement(inputs: &Inputs, a: &Assembly) -> Placement {
    let parts = &a.parts;
    let places = Places::new(inputs, a);

    let mut files = Vec::new();
    for (path, _) in inputs.files.iter() {
        let p = normalize_path(path);
        let verdict = places.verdict(&p);
        files.push(PlacedFile { path: p, verdict });
    }
    Placement {
        files,
        placeholder_key: parts.placeholder_key.clone(),
    }
}

/// The folders, names and attachments every file's verdict is read against.
struct Places<'a> {
    inputs: &'a Inputs,
    a: &'a Assembly,
    agent_dir: String,
    cwd: String,
    candidates: Vec<String>,
    project_pi: String,
    skill_roots: [String; 3],
    prompt_roots: [String; 2],
    attachments: Vec<String>,
}

impl<'a> Places<'a> {
    /// Resolves the folders pi reads and the prompt's attachments, once for all files.
    fn new(inputs: &'a Inputs, a: &'a Assembly) -> Self {
        let parts = &a.parts;
        let agent_dir = normalize_path(&inputs.agent_dir);
        let cwd = if parts.cwd.is_empty() {
            normalize_path(&inputs.cwd)
        } else {
            normalize_path(&parts.cwd)
        };
        let home = normalize_path(&inputs.home);
        let candidates: Vec<String> =
            a.pi.as_ref()
                .and_then(|pi| pi.data.prompt.get("contextFileCandidates"))
                .and_then(Value::as_array)
                .map(|c| {
                    c.iter()
                        .filter_map(|v| v.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default();
        let project_pi = join_path(&cwd, ".pi");
        let skill_roots = [
            join_path(&agent_dir, "skills"),
            join_path(&home, ".agents/skills"),
            join_path(&project_pi, "skills"),
        ];
        let prompt_roots = [
            join_path(&agent_dir, "prompts"),
            join_path(&project_pi, "prompts"),
        ];
        let attachments: Vec<String> = parts
            .args
            .file_args
            .iter()
            // `@file` paths resolve against process.cwd() (CA/cli/file-processor.js:18), as the
            // input stage resolves them, not against a resumed session's cwd.
            .map(|f| crate::args::resolve_read_path(f, &inputs.cwd, &home, &inputs.files))
            .collect();
        Places {
            inputs,
            a,
            agent_dir,
            cwd,
            candidates,
            project_pi,
            skill_roots,
            prompt_roots,
            attachments,
        }
    }

    /// Unused because the project is not trusted: pi ignores its `why`.
    fn untrusted(&self, why: &str) -> Verdict {
        Verdict::Unused {
            why: format!(
                "the project is not trusted ({}): pi ignores its {why}",
                self.a.parts.settings.trust_reason
            ),
        }
    }

    /// The message of the first diagnostic about file `p`.
    fn diag_for(&self, p: &str) -> Option<String> {
        self.a
            .diagnostics
            .iter()
            .find(|d| d.file == p)
            .map(|d| d.message.clone())
    }

    /// The verdict on file `p` (normalized): as a resource of the prompt, else as a config file.
    fn verdict(&self, p: &str) -> Verdict {
        let (a, inputs) = (self.a, self.inputs);
        let (cwd, agent_dir, project_pi) = (&self.cwd, &self.agent_dir, &self.project_pi);
        let candidates = &self.candidates;
        let res = &a.parts.resources;
        let settings = &a.parts.settings;
        let untrusted = |why: &str| self.untrusted(why);
        let diag_for = |p: &str| self.diag_for(p);
        let name = basename(p);
        let dir = dirname(p);
        if self.attachments.iter().any(|f| f == p) {
            Verdict::Read {
                what: "an @file attachment of the prompt".into(),
            }
        } else if candidates.iter().any(|c| *c == name) {
            context_verdict(p, &dir, cwd, agent_dir, candidates, a, inputs)
        } else if let Some(i) = res.skills.iter().position(|s| s.file_path == p) {
            Verdict::Read {
                what: format!(
                    "skill {} ({} of {}){}",
                    res.skills[i].name,
                    i + 1,
                    res.skills.len(),
                    from_package(res.skills[i].package.as_deref())
                ),
            }
        } else if let Some(s) = res.skills.iter().find(|s| under(p, &s.base_dir)) {
            Verdict::Unused {
                why: format!(
                    "part of skill {}: the model reads it when it uses the skill; not in the request",
                    s.name
                ),
            }
        } else if let Some(t) = res.prompt_templates.iter().find(|t| t.file_path == p) {
            Verdict::Read {
                what: format!(
                    "prompt template /{}{}: a prompt starting with /{} is this file's text with its arguments filled in",
                    t.name,
                    from_package(t.package.as_deref()),
                    t.name
                ),
            }
        } else if dirname(p) == join_path(project_pi, "prompts") && !settings.project_trusted {
            untrusted("prompt templates")
        } else if let Some(t) = res.prompt_templates.iter().find(|t| {
            self.prompt_roots.iter().any(|r| dirname(p) == *r)
                && p.ends_with(".md")
                && basename(p).strip_suffix(".md") == Some(t.name.as_str())
        }) {
            Verdict::Shadowed {
                by: t.file_path.clone(),
                why: format!(
                    "two prompt templates named /{}: the first pi finds wins (the project's before the agent dir's)",
                    t.name
                ),
            }
        } else if let Some(pkg) = res
            .packages
            .iter()
            .find(|k| k.root.as_deref().is_some_and(|r| p == r || under(p, r)))
        {
            package_verdict(p, pkg, &diag_for)
        } else if let Some(root) = self.skill_roots.iter().find(|r| under(p, r)) {
            skill_verdict(p, name, root, project_pi, a, &diag_for, &untrusted)
        } else if name == "SYSTEM.md" || name == "APPEND_SYSTEM.md" {
            prompt_file_verdict(p, name, &dir, agent_dir, project_pi, a, &untrusted)
        } else {
            self.config_verdict(p, name)
        }
    }

    /// The verdict on a file that is no resource of the prompt: settings, models.json, auth,
    /// trust, sessions, ignore rules, or a file pi never reads.
    fn config_verdict(&self, p: &str, name: &str) -> Verdict {
        let (agent_dir, project_pi) = (&self.agent_dir, &self.project_pi);
        let settings = &self.a.parts.settings;
        let untrusted = |why: &str| self.untrusted(why);
        if p == join_path(agent_dir, "settings.json") {
            Verdict::Read {
                what: "settings (the agent dir's)".into(),
            }
        } else if p == join_path(project_pi, "settings.json") {
            if settings.project_trusted {
                Verdict::Read {
                    what: "project settings (over the agent dir's)".into(),
                }
            } else {
                untrusted("settings")
            }
        } else if p == join_path(agent_dir, "models.json") {
            Verdict::Read {
                what: "models.json (custom providers and models)".into(),
            }
        } else if name == "models.json" || name == "settings.json" {
            Verdict::Unused {
                why: format!(
                    "pi reads {name} only from the agent dir ({agent_dir}){}",
                    if name == "settings.json" {
                        " and the project's .pi/ folder"
                    } else {
                        ""
                    }
                ),
            }
        } else if p == join_path(agent_dir, "auth.json") {
            Verdict::Read {
                what: "stored credentials (a stored key or login wins over models.json's and the environment's; keys are never shown)".into(),
            }
        } else if p == join_path(agent_dir, "trust.json") {
            Verdict::Read {
                what: "the project trust store".into(),
            }
        } else if under(p, &join_path(agent_dir, "sessions")) {
            Verdict::Unused {
                why: "a session in pi's sessions folder: only the session given is resumed".into(),
            }
        } else if matches!(name, ".gitignore" | ".ignore" | ".fdignore") {
            Verdict::Unused {
                why: "ignore rules: pi applies them only inside its skill folders".into(),
            }
        } else {
            Verdict::Unused {
                why: "pi does not read this file to build a request".into(),
            }
        }
    }
}

/// `, from package SOURCE` when a pi package brought the resource.
fn from_package(package: Option<&str>) -> String {
    package.map_or(String::new(), |k| format!(", from package {k}"))
}

/// A file of an installed pi package that is not one of the loaded skills or prompt templates.
fn package_verdict(
    p: &str,
    pkg: &crate::packages::Package,
    diag_for: &dyn Fn(&str) -> Option<String>,
) -> Verdict {
    let root = pkg.root.as_deref().unwrap_or("");
    if p == join_path(root, "package.json") {
        return Verdict::Read {
            what: format!(
                "the package.json of package {} (its version, and the pi key that says what it brings)",
                pkg.source
            ),
        };
    }
    if pkg.extensions.iter().any(|e| e == p) {
        return Verdict::Unused {
            why: format!(
                "an extension of package {}: code ctxlens does not run",
                pkg.source
            ),
        };
    }
    if let Some(d) = diag_for(p) {
        return Verdict::Unused { why: d };
    }
    Verdict::Unused {
        why: format!(
            "a file of package {} that its manifest and the settings' filters do not load into the request",
            pkg.source
        ),
    }
}

fn context_verdict(
    p: &str,
    dir: &str,
    cwd: &str,
    agent_dir: &str,
    candidates: &[String],
    a: &Assembly,
    inputs: &Inputs,
) -> Verdict {
    let list = &a.parts.resources.context_files;
    if let Some(i) = list.iter().position(|c| c.path == p) {
        let place = if dir == agent_dir {
            "the agent dir's, first".to_string()
        } else if dir == cwd {
            "the cwd's".to_string()
        } else {
            "a parent folder of the cwd".to_string()
        };
        return Verdict::Read {
            what: format!("context file {} of {} ({place})", i + 1, list.len()),
        };
    }
    if let Some(winner) = list.iter().find(|c| c.shadowed.iter().any(|s| s == p)) {
        return Verdict::Shadowed {
            by: winner.path.clone(),
            why: format!(
                "pi reads one context file per folder, the first of {}: {} wins",
                candidates.join(", "),
                basename(&winner.path)
            ),
        };
    }
    if a.parts.args.no_context_files {
        return Verdict::Unused {
            why: "--no-context-files: pi reads no context file".into(),
        };
    }
    if dir == agent_dir || is_ancestor_or_self(dir, cwd) {
        // In a folder pi reads, yet not used: a linked worktree's own file shadows the main
        // repository's, or the folder's file is a directory.
        if !inputs.files.is_file(p) {
            return Verdict::Unused {
                why: "not a regular file".into(),
            };
        }
        return Verdict::Unused {
            why: "the main repository's context file, shadowed by the linked worktree's own".into(),
        };
    }
    if under(p, cwd) {
        return Verdict::Unused {
            why: format!(
                "below the cwd ({cwd}): pi reads context files from the agent dir and from the cwd up to /, not from folders below the cwd"
            ),
        };
    }
    Verdict::Unused {
        why: format!(
            "not in the cwd ({cwd}) or one of its parent folders, nor in the agent dir: pi does not read it"
        ),
    }
}

fn skill_verdict(
    p: &str,
    name: &str,
    root: &str,
    project_pi: &str,
    a: &Assembly,
    diag_for: &dyn Fn(&str) -> Option<String>,
    untrusted: &dyn Fn(&str) -> Verdict,
) -> Verdict {
    if a.parts.args.no_skills {
        return Verdict::Unused {
            why: "--no-skills: pi loads no skill".into(),
        };
    }
    if under(p, project_pi) && !a.parts.settings.project_trusted {
        return untrusted("skills");
    }
    let is_skill_file = name == "SKILL.md" || (dirname(p) == root && name.ends_with(".md"));
    if is_skill_file {
        if let Some(winner) = a
            .diagnostics
            .iter()
            .find(|d| d.file == p && d.message.contains("collision"))
        {
            let by = winner
                .message
                .rsplit_once(": ")
                .map(|(_, w)| w.trim_end_matches(" wins").to_string())
                .unwrap_or_default();
            return Verdict::Shadowed {
                by,
                why: winner.message.clone(),
            };
        }
        return Verdict::Unused {
            why: match diag_for(p) {
                Some(m) => format!("not loaded: {m}"),
                None => "not loaded as a skill (see the diagnostics)".into(),
            },
        };
    }
    // A file in a skills folder: is there a SKILL.md above it (below the root)?
    let mut d = dirname(p);
    let mut has_skill_md = false;
    while d != root && under(&d, root) {
        if a.parts.resources.skills.iter().any(|s| s.base_dir == d) {
            has_skill_md = true;
            break;
        }
        d = dirname(&d);
    }
    let folder = p
        .strip_prefix(&format!("{root}/"))
        .and_then(|r| r.split('/').next())
        .unwrap_or("");
    Verdict::Unused {
        why: if has_skill_md {
            "part of a skill folder; not in the request".into()
        } else if dirname(p) == root {
            format!("not a skill: pi loads .md files and folders with a SKILL.md from {root}")
        } else {
            format!("{root}/{folder} has no SKILL.md: pi loads no skill from this folder")
        },
    }
}

fn prompt_file_verdict(
    p: &str,
    name: &str,
    dir: &str,
    agent_dir: &str,
    project_pi: &str,
    a: &Assembly,
    untrusted: &dyn Fn(&str) -> Verdict,
) -> Verdict {
    let res = &a.parts.resources;
    let append = name == "APPEND_SYSTEM.md";
    let used: Vec<&str> = if append {
        res.append_prompts
            .iter()
            .filter_map(|t| t.path.as_deref())
            .collect()
    } else {
        res.custom_prompt
            .iter()
            .filter_map(|t| t.path.as_deref())
            .collect()
    };
    if used.contains(&p) {
        return Verdict::Read {
            what: if append {
                "appended to the system prompt".into()
            } else {
                "the system prompt (replaces pi's own)".into()
            },
        };
    }
    let flag = if append {
        a.parts.args.append_system_prompt.is_some()
    } else {
        a.parts.args.system_prompt.is_some()
    };
    if flag {
        return Verdict::Unused {
            why: format!(
                "{} replaces it",
                if append {
                    "--append-system-prompt"
                } else {
                    "--system-prompt"
                }
            ),
        };
    }
    if dir != agent_dir && dir != project_pi {
        return Verdict::Unused {
            why: format!("pi reads {name} only from the agent dir and the project's .pi/ folder"),
        };
    }
    if dir == project_pi && !a.parts.settings.project_trusted {
        return untrusted(name);
    }
    match used.first() {
        Some(by) => Verdict::Shadowed {
            by: by.to_string(),
            why: format!("the project's .pi/{name} wins over the agent dir's"),
        },
        None => Verdict::Unused {
            why: "not read (see the diagnostics)".into(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(files: &[(&str, &str)], args: &[&str]) -> Placement {
        let mut inputs = Inputs {
            home: "/home/ann".into(),
            agent_dir: "/home/ann/.pi/agent".into(),
            cwd: "/home/ann/proj".into(),
            model: Some("anthropic/claude-sonnet-4-5".into()),
            prompt: Some("hi".into()),
            args: args.iter().map(|s| s.to_string()).collect(),
            pi: Some(crate::PiVersion::V0_85_1),
            placeholder_key: true,
            ..Default::default()
        };
        for (p, t) in files {
            inputs.files.insert(p, t.as_bytes().to_vec());
        }
        let a = crate::assemble(&inputs);
        placement(&inputs, &a)
    }

    fn verdict<'a>(p: &'a Placement, path: &str) -> &'a Verdict {
        &p.files
            .iter()
            .find(|f| f.path == path)
            .unwrap_or_else(|| panic!("{path} not placed: {p:?}"))
            .verdict
    }

    #[test]
    fn context_files_read_shadowed_and_below_the_cwd() {
        let p = run(
            &[
                ("/home/ann/.pi/agent/AGENTS.md", "agent rules"),
                ("/home/ann/proj/AGENTS.md", "project rules"),
                ("/home/ann/proj/CLAUDE.md", "claude rules"),
                ("/home/ann/proj/sub/CLAUDE.md", "sub rules"),
                ("/home/ann/proj/src/main.rs", "fn main() {}"),
            ],
            &[],
        );
        assert!(
            matches!(verdict(&p, "/home/ann/.pi/agent/AGENTS.md"), Verdict::Read { what } if what.starts_with("context file 1 of 2"))
        );
        assert!(
            matches!(verdict(&p, "/home/ann/proj/AGENTS.md"), Verdict::Read { what } if what.starts_with("context file 2 of 2"))
        );
        assert!(
            matches!(verdict(&p, "/home/ann/proj/CLAUDE.md"), Verdict::Shadowed { by, .. } if by == "/home/ann/proj/AGENTS.md")
        );
        assert!(
            matches!(verdict(&p, "/home/ann/proj/sub/CLAUDE.md"), Verdict::Unused { why } if why.starts_with("below the cwd"))
        );
        assert!(
            matches!(verdict(&p, "/home/ann/proj/src/main.rs"), Verdict::Unused { why } if why.contains("does not read"))
        );
        assert_eq!(p.placeholder_key.as_deref(), Some("anthropic"));
    }

    #[test]
    fn package_files_say_their_package() {
        let kit = "/home/ann/.pi/agent/npm/node_modules/kit";
        let f = |rel: &str| format!("{kit}/{rel}");
        let files = [
            (
                "/home/ann/.pi/agent/settings.json".to_string(),
                "{\"packages\": [{\"source\": \"npm:kit\", \"skills\": [\"!old\"]}]}",
            ),
            (f("package.json"), "{\"version\": \"1.0.0\"}"),
            (f("skills/new/SKILL.md"), "---\ndescription: new\n---\n"),
            (f("skills/old/SKILL.md"), "---\ndescription: old\n---\n"),
            (f("prompts/fix.md"), "fix $1"),
            (f("extensions/tool.ts"), "export default () => {}"),
        ];
        let refs: Vec<(&str, &str)> = files.iter().map(|(p, t)| (p.as_str(), *t)).collect();
        let p = run(&refs, &[]);
        let read = |rel: &str, want: &str| {
            assert!(
                matches!(verdict(&p, &f(rel)), Verdict::Read { what } if what.contains(want)),
                "{rel}: {:?}",
                verdict(&p, &f(rel))
            )
        };
        let unused = |rel: &str, want: &str| {
            assert!(
                matches!(verdict(&p, &f(rel)), Verdict::Unused { why } if why.contains(want)),
                "{rel}: {:?}",
                verdict(&p, &f(rel))
            )
        };
        read(
            "skills/new/SKILL.md",
            "skill new (1 of 1), from package npm:kit",
        );
        read(
            "prompts/fix.md",
            "prompt template /fix, from package npm:kit",
        );
        read("package.json", "the package.json of package npm:kit");
        unused("skills/old/SKILL.md", "do not load");
        unused("extensions/tool.ts", "code ctxlens does not run");
    }

    #[test]
    fn prompt_templates_read_shadowed_and_untrusted() {
        let files = [
            ("/home/ann/.pi/agent/prompts/fix.md", "agent $1"),
            ("/home/ann/.pi/agent/prompts/only.md", "only"),
            ("/home/ann/proj/.pi/prompts/fix.md", "project $1"),
        ];
        let p = run(&files, &["--approve"]);
        assert!(
            matches!(verdict(&p, "/home/ann/proj/.pi/prompts/fix.md"), Verdict::Read { what } if what.starts_with("prompt template /fix"))
        );
        assert!(
            matches!(verdict(&p, "/home/ann/.pi/agent/prompts/fix.md"), Verdict::Shadowed { by, .. } if by == "/home/ann/proj/.pi/prompts/fix.md")
        );
        let p = run(&files, &[]);
        assert!(
            matches!(verdict(&p, "/home/ann/.pi/agent/prompts/fix.md"), Verdict::Read { what } if what.starts_with("prompt template /fix"))
        );
        assert!(
            matches!(verdict(&p, "/home/ann/proj/.pi/prompts/fix.md"), Verdict::Unused { why } if why.contains("not trusted"))
        );
    }

    #[test]
    fn skills_settings_and_prompt_files() {
        let p = run(
            &[
                (
                    "/home/ann/.pi/agent/skills/lint/SKILL.md",
                    "---\nname: lint\ndescription: Lints.\n---\nbody",
                ),
                ("/home/ann/.pi/agent/skills/lint/run.sh", "echo"),
                ("/home/ann/.pi/agent/skills/empty/notes.md", "x"),
                ("/home/ann/.pi/agent/settings.json", "{}"),
                ("/home/ann/.pi/agent/SYSTEM.md", "be brief"),
                ("/home/ann/proj/models.json", "{}"),
            ],
            &["--no-context-files"],
        );
        assert!(
            matches!(verdict(&p, "/home/ann/.pi/agent/skills/lint/SKILL.md"), Verdict::Read { what } if what.starts_with("skill lint"))
        );
        assert!(
            matches!(verdict(&p, "/home/ann/.pi/agent/skills/lint/run.sh"), Verdict::Unused { why } if why.starts_with("part of skill lint"))
        );
        assert!(
            matches!(verdict(&p, "/home/ann/.pi/agent/skills/empty/notes.md"), Verdict::Unused { why } if why.contains("has no SKILL.md"))
        );
        assert!(matches!(
            verdict(&p, "/home/ann/.pi/agent/settings.json"),
            Verdict::Read { .. }
        ));
        assert!(
            matches!(verdict(&p, "/home/ann/.pi/agent/SYSTEM.md"), Verdict::Read { what } if what.contains("system prompt"))
        );
        assert!(
            matches!(verdict(&p, "/home/ann/proj/models.json"), Verdict::Unused { why } if why.contains("only from the agent dir"))
        );
    }

    /// A session on a catalog provider with no key: without the placeholder pi does not restore
    /// its model and sends nothing; with it, the request is built for the session's model and
    /// its key header is the placeholder's.
    #[test]
    fn a_placeholder_key_stands_in_for_the_session_s_provider() {
        let session = concat!(
            r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/home/ann/proj"}"#,
            "\n",
            r#"{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}"#,
            "\n",
            r#"{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"hello"}],"provider":"anthropic","model":"claude-sonnet-4-5","api":"anthropic-messages","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":2}}"#,
            "\n"
        );
        let base = Inputs {
            session: Some(crate::SourceText {
                name: "s.jsonl".into(),
                text: session.into(),
            }),
            home: "/home/ann".into(),
            agent_dir: "/home/ann/.pi/agent".into(),
            cwd: "/home/ann/proj".into(),
            prompt: Some("go on".into()),
            pi: Some(crate::PiVersion::V0_85_1),
            ..Default::default()
        };
        let without = crate::assemble(&base);
        assert!(without.request.is_none());
        assert_eq!(placement(&base, &without).placeholder_key, None);
        let with_key = Inputs {
            placeholder_key: true,
            ..base.clone()
        };
        let a = crate::assemble(&with_key);
        let r = a
            .request
            .as_ref()
            .expect("a request with the placeholder key");
        assert!(r.url.contains("anthropic"), "{}", r.url);
        assert_eq!(
            placement(&with_key, &a).placeholder_key.as_deref(),
            Some("anthropic")
        );
        // The key never changes the body: the same body as with a real-looking key.
        let mut real = base.clone();
        real.env
            .insert("ANTHROPIC_API_KEY".into(), "sk-ant-api03-real".into());
        assert_eq!(crate::assemble(&real).body(), a.body());
    }
}
