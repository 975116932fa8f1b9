//! The command line: `ctxlens [COMMAND] SESSION.jsonl [options] [pi's own flags]`, or
//! `ctxlens COMMAND --case DIR` for the corpus. A usage error is one line saying what is wrong.

use ctxlens::{Api, PiVersion};

/// The commands, in the order `--help` lists them.
pub const COMMANDS: [&str; 16] = [
    "summary",
    "assemble",
    "request",
    "stats",
    "report",
    "trace",
    "diagnostics",
    "findings",
    "compare",
    "whatif",
    "files",
    "sessions",
    "usage",
    "export",
    "open",
    "help",
];

/// pi's flags that take a value, passed through as pi's args.
const PI_VALUE_FLAGS: [&str; 14] = [
    "--tools",
    "-t",
    "--exclude-tools",
    "-xt",
    "--system-prompt",
    "--append-system-prompt",
    "--skill",
    "--prompt-template",
    "--provider",
    "--api-key",
    "--models",
    "--session-dir",
    "--extension",
    "-e",
];

/// pi's flags without a value, passed through as pi's args.
const PI_SWITCHES: [&str; 17] = [
    "--no-tools",
    "-nt",
    "--no-builtin-tools",
    "-nbt",
    "--no-context-files",
    "-nc",
    "--no-skills",
    "-ns",
    "--no-prompt-templates",
    "-np",
    "--approve",
    "-a",
    "--no-approve",
    "-na",
    "--no-extensions",
    "-ne",
    "--offline",
];

/// What the command line asks for.
#[derive(Clone, Debug, Default)]
pub struct Opts {
    /// The command; `None`: `summary` with a session, the session list without.
    pub command: Option<String>,
    pub session: Option<String>,
    pub case: Option<String>,
    pub env: Option<String>,
    pub prompt: Option<String>,
    pub call: Option<ctxlens::calls::CallRef>,
    pub model: Option<String>,
    pub thinking: Option<String>,
    /// `--running-pi`: `--model` and `--thinking` are what a running pi uses now.
    pub running_pi: bool,
    pub tool_set: Option<String>,
    pub pi: Option<PiVersion>,
    pub pi_dir: Option<String>,
    pub now: Option<f64>,
    /// `--system-now MS`: when pi created this run's system message (1.6.0).
    pub system_now: Option<f64>,
    pub api: Option<Api>,
    /// `--api all` (assemble, stats): every protocol from one read of the inputs.
    pub api_all: bool,
    pub with: Option<Api>,
    /// `compare --pi-with VERSION`: the release to compare `--pi`'s with.
    pub pi_with: Option<PiVersion>,
    pub json: bool,
    /// `export -o FILE`.
    pub output: Option<String>,
    /// `export --redact`.
    pub redact: bool,
    /// `export --sent FILE`: the body pi sent, kept in the case as its expected body.
    pub sent: Option<String>,
    /// `open --port N`.
    pub port: Option<u16>,
    /// `open --app DIR`: the built visualizer.
    pub app: Option<String>,
    /// `--no-tokens`: characters only (no vocabulary loaded, no call rebuilt).
    pub no_tokens: bool,
    /// `--rebuild-calls N|all`: `None` is the default (16), `all` is `usize::MAX`.
    pub rebuild_calls: Option<usize>,
    /// `--tokenizer-json FILE`: a HF tokenizer.json for a vocabulary not built in (Gemma's).
    pub tokenizer_json: Option<String>,
    /// `--without SPEC` and `--set KEY=VALUE`, in order: the what-if changes.
    pub changes: Vec<ctxlens::analysis::whatif::Change>,
    /// pi's own flags and `@file` arguments, in order.
    pub pi_args: Vec<String>,
    /// `usage`: the folders and session files to read.
    pub paths: Vec<String>,
    /// `usage --by day|week|month|session|project|model|release`.
    pub by: Option<ctxlens::analysis::ledger::GroupBy>,
    /// `usage --since DATE`, `--until DATE` (`YYYY-MM-DD` or `YYYYMMDD`, UTC days).
    pub since: Option<String>,
    pub until: Option<String>,
    /// `usage --no-rebuild`: the recorded usage alone, no call rebuilt.
    pub no_rebuild: bool,
    /// `usage --parquet DIR`: the calls as Parquet tables in DIR.
    pub parquet: Option<String>,
}

/// A protocol named on the command line.
fn parse_api(flag: &str, value: &str) -> Result<Api, String> {
    value.parse().map_err(|_| {
        format!(
            "unknown {flag} {value:?}; one of: {}",
            Api::ALL.map(Api::as_str).join(", ")
        )
    })
}

/// Parses the arguments after the program name.
pub fn parse(argv: &[String]) -> Result<Opts, String> {
    let mut o = Opts::default();
    let mut i = 0;
    while i < argv.len() {
        let a = argv[i].as_str();
        // `--flag=value` is `--flag value`.
        let (flag, inline) = match a.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (a, None),
        };
        let mut value = |name: &str| -> Result<String, String> {
            if let Some(v) = &inline {
                return Ok(v.clone());
            }
            i += 1;
            argv.get(i)
                .cloned()
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match flag {
            "-h" | "--help" => {
                o.command = Some("help".into());
                return Ok(o);
            }
            "--case" => o.case = Some(value("--case")?),
            "--env" => o.env = Some(value("--env")?),
            "--prompt" => o.prompt = Some(value("--prompt")?),
            "--call" => o.call = Some(ctxlens::calls::CallRef::parse(&value("--call")?)),
            "--model" => o.model = Some(value("--model")?),
            "--thinking" => o.thinking = Some(value("--thinking")?),
            "--running-pi" => o.running_pi = true,
            "--tool-set" => o.tool_set = Some(value("--tool-set")?),
            "--pi" => {
                o.pi = Some(
                    value("--pi")?
                        .parse()
                        .map_err(|e: ctxlens::pi::UnknownVersion| format!("--pi: {e}"))?,
                )
            }
            "--pi-dir" => o.pi_dir = Some(value("--pi-dir")?),
            "--pi-with" => {
                o.pi_with = Some(
                    value("--pi-with")?
                        .parse()
                        .map_err(|e: ctxlens::pi::UnknownVersion| format!("--pi-with: {e}"))?,
                )
            }
            "--now" => {
                let v = value("--now")?;
                o.now = Some(
                    v.parse::<f64>()
                        .ok()
                        .filter(|n| n.is_finite())
                        .ok_or_else(|| format!("--now takes milliseconds, not {v:?}"))?,
                )
            }
            "--system-now" => {
                let v = value("--system-now")?;
                o.system_now = Some(
                    v.parse::<f64>()
                        .ok()
                        .filter(|n| n.is_finite())
                        .ok_or_else(|| format!("--system-now takes milliseconds, not {v:?}"))?,
                )
            }
            "--api" => match value("--api")?.as_str() {
                "all" => o.api_all = true,
                v => o.api = Some(parse_api("--api", v)?),
            },
            "--with" => o.with = Some(parse_api("--with", &value("--with")?)?),
            "--json" => o.json = true,
            "-o" | "--output" => o.output = Some(value("-o")?),
            "--redact" => o.redact = true,
            "--sent" => o.sent = Some(value("--sent")?),
            "--no-tokens" => o.no_tokens = true,
            "--rebuild-calls" => {
                let v = value("--rebuild-calls")?;
                o.rebuild_calls = Some(if v == "all" {
                    usize::MAX
                } else {
                    v.parse().ok().filter(|n| *n > 0).ok_or_else(|| {
                        format!("--rebuild-calls takes a number or all, not {v:?}")
                    })?
                });
            }
            "--without" => o
                .changes
                .push(ctxlens::analysis::whatif::Change::parse_without(&value(
                    "--without",
                )?)?),
            "--set" => o
                .changes
                .push(ctxlens::analysis::whatif::Change::parse_set(&value(
                    "--set",
                )?)?),
            "--tokenizer-json" => o.tokenizer_json = Some(value("--tokenizer-json")?),
            "--by" => {
                let v = value("--by")?;
                o.by = Some(ctxlens::analysis::ledger::GroupBy::parse(&v).ok_or_else(|| {
                    format!("--by takes day, week, month, session, project, model or release, not {v:?}")
                })?)
            }
            "--since" | "--until" => {
                let v = value(flag)?;
                if !ctxlens::analysis::ledger::valid_date(&v) {
                    return Err(format!(
                        "{flag} takes a date, YYYY-MM-DD or YYYYMMDD, not {v:?}"
                    ));
                }
                if flag == "--since" {
                    o.since = Some(v)
                } else {
                    o.until = Some(v)
                }
            }
            "--no-rebuild" => o.no_rebuild = true,
            "--parquet" => o.parquet = Some(value("--parquet")?),
            "--app" => o.app = Some(value("--app")?),
            "--port" => {
                let v = value("--port")?;
                o.port = Some(
                    v.parse()
                        .map_err(|_| format!("--port takes a port number, not {v:?}"))?,
                )
            }
            f if PI_VALUE_FLAGS.contains(&f) => {
                let v = value(f)?;
                o.pi_args.push(f.to_string());
                o.pi_args.push(v);
            }
            f if PI_SWITCHES.contains(&f) => o.pi_args.push(a.to_string()),
            s if s.starts_with('@') => o.pi_args.push(s.to_string()),
            s if s.starts_with('-') && s.len() > 1 => {
                return Err(format!("unknown option {s} (ctxlens --help lists them)"))
            }
            s if o.command.is_none() && o.session.is_none() && COMMANDS.contains(&s) => {
                o.command = Some(s.to_string())
            }
            s if o.command.as_deref() == Some("usage") => o.paths.push(s.to_string()),
            s if o.session.is_none() => o.session = Some(s.to_string()),
            s => {
                return Err(format!(
                    "unexpected argument {s:?}: one session at a time (the prompt goes in --prompt)"
                ))
            }
        }
        i += 1;
    }
    Ok(o)
}
