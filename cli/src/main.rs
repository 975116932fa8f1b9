//! `ctxlens`: rebuilds the request a pi release (0.85.1, 1.6.0) would send, from a case folder.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use ctxlens::Api;
use ctxlens_cli::{case, report};

const HELP: &str = "\
ctxlens — rebuild, byte for byte, the HTTP request pi (0.85.1 or 1.6.0) sends to an LLM

USAGE:
    ctxlens <COMMAND> --case CASE_DIR [--env ENV_JSON] [--call K] [--pi VERSION] [--now MS]
                      [--api API]

COMMANDS:
    assemble      Print exactly the request body pi would send (no trailing newline)
    stats         Print the character accounting as JSON (system prompt, tools, history;
                  lengths in UTF-16 code units, as JS .length)
    report        Print the whole assembly as JSON: request, model, stages, stats, system
                  prompt sections, tools, context files, skills, session tree, diagnostics,
                  findings, usage and cache facts, provenance of every body path
    trace         Print the pipeline stages and what each did (--json for JSON)
    request       Print the method, URL and headers, then the body
    diagnostics   Print the problems found in the inputs, one per line (--json for JSON)
    findings      Print the numbered findings: the seed article's checks on this request
                  (tool schemas vs prompt, largest tools, shadowed context files, thinking
                  clamps, dropped or converted thinking, renamed ids, ...; --json for JSON)
    compare       Compare the body under --api (default: the model's own) with the body
                  under --with API: where each block lives, sizes, what one drops or adds
                  (JSON)

OPTIONS:
    --case DIR    A case folder in the oracle's layout: case.json, models.json, and optionally
                  session.jsonl, tools.json, agent/ (laid at the env's agentDir) and fs/ (laid
                  at the env's root)
    --env FILE    The capture's env.json (root, home, agentDir, cwd, piPackageDir, sessionId,
                  model, thinking, prompt, args, piVersion; default: CASE_DIR/expected/env.json)
    --call K      Rebuild the request of a past model call as pi sent it: K is its number on
                  the session's active branch (1, 2, ...; `report` lists them as `calls`, with
                  the usage the provider reported), or the entry id of an assistant message on
                  any branch, or `next` (the next request: without a prompt pi's continue,
                  which pi refuses after an assistant message). The call's model and thinking
                  level are the ones in force then, unless the env gives them. In a capture,
                  the call is read from session.after.jsonl: request N of the run is call
                  `calls before the run + N`. Without --call and without a prompt in env.json,
                  a session that ends with an assistant message gives its last call
    --pi VERSION  The pi release to rebuild: 0.85.1 or 1.6.0. Default: the release that made
                  the capture (env.json piVersion), else the one the session proves (system
                  messages, entry types, section texts, dates), else the newest (1.6.0). The
                  release and why are printed to stderr first; a session written by a newer pi
                  than the one rebuilt is said there too
    --now MS      Date.now() when the prompt is sent (default: the prompt's timestamp in
                  session.after.jsonl beside ENV_JSON, else 0)
    --api API     Switch the model's protocol (the same model with its api replaced)
    --with API    The second protocol of `compare`
    --json        Machine-readable output (trace, diagnostics, findings)
    -h, --help    Print this help

EXIT STATUS:
    0 on success; 1 when no request could be built (see diagnostics); 2 on usage errors.
";

struct Opts {
    command: String,
    case: Option<PathBuf>,
    env: Option<PathBuf>,
    now: Option<f64>,
    api: Option<Api>,
    with: Option<Api>,
    pi: Option<ctxlens::PiVersion>,
    call: Option<ctxlens::calls::CallRef>,
    json: bool,
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

fn parse_args() -> Result<Opts, String> {
    let mut args = std::env::args().skip(1);
    let mut o = Opts {
        command: String::new(),
        case: None,
        env: None,
        now: None,
        api: None,
        with: None,
        pi: None,
        call: None,
        json: false,
    };
    while let Some(a) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
        match a.as_str() {
            "-h" | "--help" | "help" => {
                o.command = "help".into();
                return Ok(o);
            }
            "--case" => o.case = Some(PathBuf::from(value("--case")?)),
            "--env" => o.env = Some(PathBuf::from(value("--env")?)),
            "--now" => {
                o.now = Some(
                    value("--now")?
                        .parse()
                        .map_err(|_| "--now takes milliseconds".to_string())?,
                )
            }
            "--api" => o.api = Some(parse_api("--api", &value("--api")?)?),
            "--with" => o.with = Some(parse_api("--with", &value("--with")?)?),
            "--pi" => {
                o.pi = Some(
                    value("--pi")?
                        .parse()
                        .map_err(|e: ctxlens::pi::UnknownVersion| format!("--pi: {e}"))?,
                )
            }
            "--call" => o.call = Some(ctxlens::calls::CallRef::parse(&value("--call")?)),
            "--json" => o.json = true,
            s if s.starts_with('-') => return Err(format!("unknown option {s}")),
            s if o.command.is_empty() => o.command = s.to_string(),
            s => return Err(format!("unexpected argument {s}")),
        }
    }
    Ok(o)
}

fn main() -> ExitCode {
    let o = match parse_args() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("ctxlens: {e}\n\n{HELP}");
            return ExitCode::from(2);
        }
    };
    if o.command == "help" || o.command.is_empty() {
        print!("{HELP}");
        return if o.command.is_empty() {
            ExitCode::from(2)
        } else {
            ExitCode::SUCCESS
        };
    }
    if ![
        "assemble",
        "stats",
        "trace",
        "request",
        "diagnostics",
        "report",
        "findings",
        "compare",
    ]
    .contains(&o.command.as_str())
    {
        eprintln!("ctxlens: unknown command {:?}\n\n{HELP}", o.command);
        return ExitCode::from(2);
    }
    let Some(case_dir) = &o.case else {
        eprintln!("ctxlens: --case is required");
        return ExitCode::from(2);
    };
    let env = o
        .env
        .clone()
        .unwrap_or_else(|| case_dir.join("expected/env.json"));
    let mut loaded = match case::load_call(case_dir, &env, o.call.clone()) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("ctxlens: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(now) = o.now {
        loaded.inputs.now_ms = now;
    }
    if o.command == "compare" && o.with.is_none() {
        eprintln!("ctxlens: compare needs --with API");
        return ExitCode::from(2);
    }
    loaded.inputs.api = o.api;
    if o.pi.is_some() {
        loaded.inputs.pi = o.pi;
    }
    let assembly = ctxlens::assemble(&loaded.inputs);
    // Which release, and why; a session from a newer pi is said before anything else.
    let newer = assembly
        .choice
        .as_ref()
        .and_then(|c| c.newer_session_warning());
    if let Some(c) = &assembly.choice {
        eprintln!("ctxlens: rebuilding {}", c.explain());
    }
    if let Some(w) = &newer {
        eprintln!("ctxlens: warning: {w}");
    }
    let other = o.with.map(|w| {
        let mut inputs = loaded.inputs.clone();
        inputs.api = Some(w);
        ctxlens::assemble(&inputs)
    });
    let mut out = std::io::stdout().lock();
    let built = assembly.request.is_some();
    let result = match o.command.as_str() {
        "assemble" => match assembly.body() {
            Some(b) => out.write_all(b.as_bytes()),
            None => Ok(()),
        },
        "stats" => match &assembly.stats {
            Some(s) => writeln!(
                out,
                "{}",
                ctxlens::report::stats::to_json(s).to_json_pretty(2)
            ),
            None => Ok(()),
        },
        "request" => match &assembly.request {
            Some(r) => {
                let mut s = format!("{} {}\n", r.method, r.url);
                for (k, v) in &r.headers {
                    s.push_str(&format!("{k}: {v}\n"));
                }
                s.push('\n');
                s.push_str(&r.body);
                writeln!(out, "{s}")
            }
            None => Ok(()),
        },
        "report" => writeln!(
            out,
            "{}",
            ctxlens::report::assembly_json(&assembly).to_json_pretty(2)
        ),
        "findings" => {
            let list = ctxlens::analysis::findings::findings(&assembly);
            if o.json {
                writeln!(
                    out,
                    "{}",
                    ctxlens::report::findings::to_json(&list).to_json_pretty(2)
                )
            } else {
                let mut s = String::new();
                for f in &list {
                    s.push_str(&format!(
                        "{:2}. [{}] {} ({})\n    {}\n",
                        f.number,
                        f.severity.as_str(),
                        f.title,
                        f.id,
                        f.detail
                    ));
                    if let Some(st) = f.stage {
                        s.push_str(&format!("    stage: {}", st.key()));
                        if let Some(sub) = &f.subject {
                            s.push_str(&format!(", subject: {sub}"));
                        }
                        s.push('\n');
                    }
                }
                write!(out, "{s}")
            }
        }
        "compare" => match &other {
            Some(b) => writeln!(
                out,
                "{}",
                ctxlens::report::compare_json(&assembly, b).to_json_pretty(2)
            ),
            None => Ok(()),
        },
        "trace" if o.json => writeln!(out, "{}", report::trace_json(&assembly).to_json_pretty(2)),
        "trace" => {
            let pi = assembly.pi.as_ref();
            let mut s = String::new();
            if let Some(pi) = pi {
                let why = assembly
                    .choice
                    .as_ref()
                    .map_or_else(|| format!("pi {}", pi.version), |c| c.explain());
                s.push_str(&format!("{why}; source locations: "));
                let prefixes = ctxlens::report::source_prefixes_json(Some(pi));
                let legend: Vec<String> = prefixes
                    .as_object()
                    .map(|o| {
                        o.iter()
                            .map(|(k, v)| format!("{k}/ = {}/", v.as_str().unwrap_or("")))
                            .collect()
                    })
                    .unwrap_or_default();
                s.push_str(&legend.join(", "));
                s.push('\n');
            }
            for (i, st) in assembly.trace.stages.iter().enumerate() {
                s.push_str(&format!(
                    "{:2}. {} [{}]\n    {}\n",
                    i + 1,
                    st.id.title(),
                    ctxlens::report::pi_source(pi, st.pi_source),
                    st.summary
                ));
                for e in &st.events {
                    s.push_str(&format!(
                        "    - {}: {}{}\n",
                        e.kind.as_str(),
                        e.message,
                        e.pi_source
                            .map(|p| format!(" ({})", ctxlens::report::pi_source(pi, p)))
                            .unwrap_or_default()
                    ));
                }
            }
            write!(out, "{s}")
        }
        "diagnostics" if o.json => writeln!(
            out,
            "{}",
            report::diagnostics_json(&assembly).to_json_pretty(2)
        ),
        _ => {
            let mut s = String::new();
            for d in &assembly.diagnostics {
                s.push_str(&format!("{d}\n"));
            }
            write!(out, "{s}")
        }
    };
    if result.is_err() {
        return ExitCode::from(1);
    }
    if o.command != "diagnostics" {
        for d in assembly
            .diagnostics
            .iter()
            .filter(|d| Some(&d.message) != newer.as_ref())
        {
            eprintln!("{d}");
        }
    }
    let _ = out.flush();
    // Everything is written: exit without tearing down the assembly (for a large session,
    // freeing it takes longer than building the output).
    std::process::exit(if built { 0 } else { 1 })
}
