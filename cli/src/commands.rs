//! The commands: read what pi reads (a session on this machine, or a corpus case), assemble,
//! print. [`run`] is the whole command line over a [`Host`].

use ctxlens::install::{self, FileKind, Limits, Machine};
use ctxlens::js::path::resolve_path;
use ctxlens::pi::Pi;
use ctxlens::AssemblyStats;
use ctxlens::{Assembly, Diagnostic, Inputs, SourceText};

use crate::host::Host;
use crate::opts::{self, Opts};
use crate::sessions::human_size;

pub const HELP: &str = "\
ctxlens — rebuild, byte for byte, the HTTP request pi (0.85.1, 0.86.1–0.87.1, 1.3.0–1.6.0) sends to an LLM

USAGE:
    ctxlens                              List the recent sessions under the agent dir
    ctxlens usage [DIR|SESSION.jsonl…] [--by PERIOD] [--since DATE] [--until DATE]
                                         Every call of every session, grouped
    ctxlens [COMMAND] SESSION.jsonl [OPTIONS] [PI FLAGS]
    ctxlens [COMMAND] --prompt TEXT [OPTIONS] [PI FLAGS]
                                         A new session's first request, in this folder
    ctxlens COMMAND --case CASE_DIR [--env ENV_JSON] [--call K] [--pi VERSION] [--now MS]
                    [--api API]

    With a session, ctxlens reads what pi reads on this machine: the agent dir
    ($PI_CODING_AGENT_DIR or ~/.pi/agent: settings.json, models.json, auth.json, AGENTS.md or
    CLAUDE.md, SYSTEM.md, APPEND_SYSTEM.md, skills), the project's .pi/ files and skills, the
    context files from the session's cwd up to /, skill paths, @FILEs, and the installed pi (the
    `pi` on PATH, or --pi-dir) for its version and docs paths. It never reads other sessions.
    Without a session, --prompt TEXT gives the first request of a new session started in the
    current folder (what your setup costs before anything is said).
    Keys are used, never printed. `ctxlens files SESSION` lists what was read and why.

COMMANDS:
    summary       (default) The release rebuilt and why, the model, the thinking level asked
                  and sent, the request; the seed article's table (system prompt, tools,
                  history: characters, tokens by pi's estimate, shares); the largest tools,
                  skills, context files in order with the ones they shadow, the findings one
                  line each, the diagnostics count. Plain text, 80 columns (--json: the report)
    assemble      Print exactly the request body pi would send (no trailing newline)
    request       Print the method, URL and headers (keys redacted), then the body
    stats         Print the character accounting of the body as sent, as JSON (system
                  prompt, tools, history, parameters, structure: they add up to the body;
                  lengths in UTF-16 code units, as JS .length), with `tokens` beside `chars`:
                  each text counted with the model's own vocabulary (`tokenizer`: its name,
                  `exact: false` for an estimate; `vocabulary` says which the model needs and
                  why). Every call of the session that recorded its usage is rebuilt and its
                  tokens set beside the provider's (`calibration`: the difference is the chat
                  template's framing). Without a public vocabulary (Claude), tokens are
                  estimated from characters per token measured on those calls, with the
                  estimate's error measured by leaving each call out
    report        Print the whole assembly as JSON: request, model, stages, stats, system
                  prompt sections, tools, context files, skills, session tree, diagnostics,
                  findings, usage and cache facts, provenance of every body path
    trace         Print the pipeline stages and what each did (--json for JSON)
    diagnostics   Print the problems found in the inputs, one per line (--json for JSON)
    findings      Print the numbered findings: the seed article's checks on this request
                  (tool schemas vs prompt, largest tools, shadowed context files, thinking
                  clamps, dropped or converted thinking, renamed ids, ...; --json for JSON)
    compare       Compare the body under --api (default: the model's own) with the body
                  under --with API: where each block lives, sizes, what one drops or adds
                  (JSON). With --pi-with VERSION instead: the same session and files under
                  the release --pi picks and under VERSION (what an upgrade does): whether
                  the bytes change, the first changed byte (the prefix a provider's cache
                  still reuses), its JSON path and block, the URL and headers, each block's
                  characters and tokens under both, and the version table's rules that
                  differ (JSON)
    whatif        What if something were off or changed (--without SPEC, --set KEY=VALUE,
                  several at once): the request rebuilt with the change made as pi would make
                  it, against the request as it is (JSON): each block's characters and tokens
                  under both, the share of the model's context window, the cost per call at
                  the catalog's prices (input, cache read, cache write), the cache consequence
                  (the first changed byte, the byte-stable prefix, what the next call reads
                  from the cache and costs), each change's take-home (the pi flags, file or
                  settings edit that make it for real, or that pi has no way), and, for a
                  session with usage, every call rebuilt with the change made at the start
                  and the totals saved (--rebuild-calls bounds it)
    files         Print every file pi read, what it read it as, and which copies lost or were
                  ignored, and why (--json for JSON)
    sessions      List the recent sessions (as with no arguments; --json for JSON)
    usage         Every call of every session below the folders (default: pi's sessions
                  folder): the usage and cost pi recorded on each answer (read as ccusage
                  reads it, so the totals agree; an answer found twice, as in a forked
                  session's file, counts once), grouped by --by; and each call rebuilt by the
                  release that made it, its prompt tokens and cost split over the request's
                  blocks by their share of it (in tokens of the model's vocabulary, where it
                  is public; else, Claude, in characters): system prompt and its sections,
                  each tool, the history by kind, tool results by tool. Bad files and lines
                  are said with their file and line (--json: the report, docs/usage.md).
                  The cache breaks: each call whose prompt (tools, system, history, in the
                  order the provider reads them) stops extending the call before it, why (a
                  model switch, the tools, the system prompt, the history) and what the tokens
                  sent again cost.
                  With --without/--set: every call rebuilt with the change made from its
                  session's start too, and the prompt tokens and cost it would have saved, by
                  group; without them, the tools sent but never called, the skills offered
                  but never used and the context files sent twice (another context file of
                  the request holds their whole text) are suggested. The costliest calls
                  are listed by file, line and entry (ctxlens FILE --call ENTRY opens one)
    export        Write the inputs as the app's case zip: export SESSION -o case.zip [--redact].
                  The app (or --case) opens it as the same case. Written even when no request
                  is built
    open          Serve the visualizer on 127.0.0.1 (only) with exactly these inputs loaded,
                  print its URL and serve until Ctrl-C; the page requests nothing elsewhere

OPTIONS:
    --prompt TEXT     The next user message: the request pi sends when you type TEXT next.
                      Without it: the session's last call when it ends with an answer (see
                      --call), else pi's continue after tool results
    --call K          Rebuild the request of a past model call as pi sent it: K is its number
                      on the session's active branch (1, 2, ...; `report` lists them as `calls`,
                      with the usage the provider reported), the entry id of an assistant
                      message on any branch, or `next`. The call's model and thinking level are
                      the ones in force then, unless given. Without --call and --prompt, a
                      session that ends with an answer gives its last call
    --model P/ID      The model (default: the session's, as pi resumes it)
    --thinking LEVEL  The thinking level (default: the session's)
    --running-pi      --model and --thinking are the ones a running pi uses now, not flags
                      typed at its start (/ctxlens inside pi passes them so)
    --tool-set FILE   Extension tools: a JSON tool list in pi's, OpenAI's, Anthropic's,
                      Google's or Bedrock's shape, or a captured request body. Extension tools
                      are code pi runs, so without this they are not included (a note says so)
    --pi VERSION      The pi release to rebuild: 0.85.1, 0.86.1, 0.87.0, 0.87.1, 1.3.0, 1.4.0,
                      1.5.0, 1.5.2, 1.6.0.
                      Default: the installed pi's release, else the capture's (--case), else
                      the one the session proves (the newest of those it cannot tell apart,
                      said), else the newest (1.6.0). The release and why are printed to
                      stderr first
    --pi-dir DIR      pi's package folder (@earendil-works/pi-coding-agent) instead of the `pi`
                      on PATH
    --now MS          Date.now() when the prompt is sent (default: now; with --case, the
                      prompt's timestamp in session.after.jsonl beside ENV_JSON, else 0)
    --system-now MS   1.6.0: Date.now() when pi created this run's system message, a few
                      milliseconds after the prompt's (default: --now)
    --api API         Switch the model's protocol (the same model with its api replaced).
                      assemble, stats: --api all prints every protocol's body (or stats) as
                      one JSON object by protocol, from one read of the inputs
    --without SPEC    whatif, assemble, stats, summary, usage: switch something off (repeatable):
                      tool:NAME (built-in or extension; pi's --exclude-tools), skill:NAME (its
                      folder removed), skill-invocation:NAME (its SKILL.md frontmatter gets
                      disable-model-invocation: true), package:NAME (a pi package's settings
                      entry removed: its skills and prompt templates go), context:PATH (an
                      AGENTS.md/CLAUDE.md by its path or a unique end of it, removed), append-prompt
                      (--append-system-prompt ''), entry:ID (the session entry removed, its
                      children reparented to its parent), turn:ID (the user message ID and
                      its exchange — answers, tool results — removed the same way, up to the
                      next user message), tool-result:ID[:N] (the stored
                      result cut to its first N lines, or emptied), thinking:old (the reasoning
                      of the answers before the request's last user message dropped),
                      image:all (settings images.blockImages) or image:ID (one entry's images).
                      A change that names nothing present is an error. assemble, stats and
                      summary then show the changed request; stderr says each change and how
                      to make it for real
    --set KEY=VALUE   whatif, assemble, stats, summary, usage: model=P/ID, thinking=LEVEL,
                      api=API, pi=VERSION (not for usage) (repeatable, with --without)
    --with API        The second protocol of `compare`
    --pi-with VERSION The second release of `compare` (the upgrade comparison)
    --json            Machine-readable output (summary, trace, diagnostics, findings, files,
                      sessions, usage)
    --no-tokens       stats, summary: characters only (no vocabulary, no call rebuilt);
                      usage: every call's prompt tokens split by characters
    --rebuild-calls N|all
                      stats, whatif: how many calls with usage are rebuilt against it (default
                      16, evenly spaced with the last; each is one more assembly of the session,
                      two for whatif)
    --by PERIOD       usage: day (default), week (from Monday), month, session, project,
                      model or release; dates are UTC days
    --since DATE, --until DATE
                      usage: only the calls of these UTC days (YYYY-MM-DD or YYYYMMDD)
    --no-rebuild      usage: the recorded usage alone, no call rebuilt
    --parquet DIR     usage: also write DIR/calls.parquet (a row per call) and
                      DIR/blocks.parquet (a row per call and block, tool, section, kind of
                      history, tool's results), for DuckDB, Polars, Spark or Trino
    --tokenizer-json FILE
                      stats: a HF tokenizer.json for a vocabulary not built in (Gemma 3's,
                      for Gemma and, as an estimate, Gemini)
    -o FILE           export: the zip to write
    --redact          export: replace the home path, user name, host names and key-like strings
                      (auth.json and models.json keys, key-named environment variables, sk-…,
                      AKIA…, ghp_…, AIza…, JWTs, bearer tokens, ...) in every file and path, the
                      same stand-in for the same original; prints kinds and counts, never values
    --sent FILE       export: the body pi sent for this request, kept in the case as the body
                      it should rebuild (expected/request-1.json, as a captured case has it);
                      with --redact, redacted with the case's own stand-ins
    --app DIR         open: the built visualizer (trunk build --release writes dist/). Default:
                      $CTXLENS_APP, else (npx ctxlens) the one in the npm package, else dist/ or
                      ctxlens-app/ beside the executable, else the repository's dist/
    --port N          open: the port on 127.0.0.1 (default: a free one)
    --case DIR        A case folder in the oracle's layout: case.json, models.json, and
                      optionally session.jsonl, tools.json, agent/ (laid at the env's agentDir)
                      and fs/ (laid at the env's root)
    --env FILE        The capture's env.json (default: CASE_DIR/expected/env.json)
    -h, --help        Print this help

PI FLAGS (passed to the rebuilt pi as on its command line):
    --tools LIST, --no-tools, --no-builtin-tools, --exclude-tools LIST, --system-prompt X,
    --append-system-prompt X, --no-context-files, --no-skills, --skill PATH,
    --prompt-template PATH, --no-prompt-templates, --provider P, --models LIST, --approve,
    --no-approve, --no-extensions, -e SOURCE (a package or extension for this run: a path,
    npm:NAME or a git source; its skills and prompt templates are read from where pi keeps
    it, its code is not run), --offline, --api-key KEY, @FILE
    A --prompt starting with / is expanded as pi does (/skill:NAME ARGS, /TEMPLATE ARGS).

EXIT STATUS:
    0 on success; 1 when no request could be built (the reason is on stderr); 2 on usage
    errors.
";

/// Sessions larger than this get a progress line (on a terminal).
const PROGRESS_BYTES: u64 = 4 << 20;
/// The largest session read.
const MAX_SESSION_BYTES: u64 = 4 << 30;

/// One line on stderr that the next one replaces (a terminal only).
pub(crate) struct Progress {
    on: bool,
    shown: bool,
}

impl Progress {
    /// Shown only when `on` (stderr is a terminal, and the work is long enough to say).
    pub(crate) fn new(on: bool) -> Progress {
        Progress { on, shown: false }
    }
    pub(crate) fn show(&mut self, host: &mut dyn Host, text: &str) {
        if self.on {
            host.stderr(&format!("\r\x1b[2Kctxlens: {text}"));
            self.shown = true;
        }
    }
    pub(crate) fn done(&mut self, host: &mut dyn Host) {
        if self.shown {
            host.stderr("\r\x1b[2K");
            self.shown = false;
        }
    }
}

fn usage(host: &mut dyn Host, msg: &str) -> i32 {
    host.stderr(&format!("ctxlens: {msg}\n"));
    2
}

/// The file a flag names (relative to the current folder), if it names one, or the line that
/// says why it cannot be read.
fn flag_file(host: &dyn Host, flag: &str, path: Option<&str>) -> Result<Option<Vec<u8>>, String> {
    let Some(path) = path else { return Ok(None) };
    let path = resolve_path(host.cwd(), path);
    host.fs()
        .read(&path)
        .map(Some)
        .map_err(|e| format!("ctxlens: {flag} {path}: {e}\n"))
}

/// Runs the command line `argv` (without the program name) on `host`; returns the exit status.
pub fn run(host: &mut dyn Host, argv: &[String]) -> i32 {
    let o = match opts::parse(argv) {
        Ok(o) => o,
        Err(e) => return usage(host, &e),
    };
    let command = o.command.clone().unwrap_or_else(|| {
        if o.session.is_some() || o.case.is_some() {
            "summary".into()
        } else {
            "sessions".into()
        }
    });
    if let Some(code) = run_without_inputs(host, &o, &command) {
        return code;
    }
    if let Err(e) = check_flags(host, &o, &command) {
        return usage(host, &e);
    }
    let inputs = match read_inputs(host, &o) {
        Ok(i) => i,
        Err(e) => return usage(host, &e),
    };
    if o.case.is_none() {
        // Said on stderr too: it changes what the request holds.
        if let Some(d) = inputs
            .host_diagnostics
            .iter()
            .find(|d| d.file == "--tool-set")
        {
            host.stderr(&format!("ctxlens: note: {}\n", d.message));
        }
    }
    if o.api_all {
        if !matches!(command.as_str(), "assemble" | "stats") {
            return usage(host, "--api all belongs to assemble and stats");
        }
        return every_api(host, &o, &command, &inputs);
    }
    run_with(host, &o, &command, inputs)
}

/// The commands that read no inputs (help, usage, sessions) run, or `None` for the others.
fn run_without_inputs(host: &mut dyn Host, o: &Opts, command: &str) -> Option<i32> {
    match command {
        "help" => Some(match host.stdout(HELP.as_bytes()) {
            Ok(()) => 0,
            Err(_) => 1,
        }),
        "usage" => Some(crate::usage::run(host, o)),
        _ if o.by.is_some() || o.since.is_some() || o.until.is_some() || o.no_rebuild => {
            Some(usage(
                host,
                "--by, --since, --until and --no-rebuild belong to usage",
            ))
        }
        "sessions" => Some(match &o.session {
            Some(s) => usage(host, &format!("sessions takes no session ({s})")),
            None => crate::sessions::list(host, o.json),
        }),
        _ => None,
    }
}

/// The usage error of flags that do not go together or with `command`, said before any input is
/// read (a missing app too, before a long assembly).
fn check_flags(host: &dyn Host, o: &Opts, command: &str) -> Result<(), String> {
    if o.case.is_some() && o.session.is_some() {
        return Err("give a session or --case, not both".into());
    }
    if command == "compare" && o.with.is_none() && o.pi_with.is_none() {
        return Err("compare needs --with API or --pi-with VERSION".into());
    }
    if command == "compare" && o.with.is_some() && o.pi_with.is_some() {
        return Err("compare takes --with API or --pi-with VERSION, not both".into());
    }
    if command != "compare" && o.pi_with.is_some() {
        return Err("--pi-with belongs to compare".into());
    }
    if command == "whatif" && o.changes.is_empty() {
        return Err("whatif needs --without SPEC or --set KEY=VALUE".into());
    }
    if !o.changes.is_empty() && !matches!(command, "whatif" | "assemble" | "stats" | "summary") {
        return Err("--without and --set belong to whatif, assemble, stats and summary".into());
    }
    if command == "export" && o.output.is_none() {
        return Err("export needs -o FILE.zip".into());
    }
    if command != "export" && (o.output.is_some() || o.redact || o.sent.is_some()) {
        return Err("-o, --redact and --sent belong to export".into());
    }
    if command != "open" && (o.app.is_some() || o.port.is_some()) {
        return Err("--app and --port belong to open".into());
    }
    // A missing app is said before a long assembly.
    if command == "open" {
        crate::open::find_app(host, o.app.as_deref())?;
    }
    if o.case.is_none() && o.session.is_none() && o.prompt.is_none() {
        return Err(format!("{command} needs a session file, or --prompt TEXT for a new session's first request in this folder (ctxlens with no arguments lists the sessions)"));
    }
    if o.case.is_none() && o.session.is_none() && o.call.is_some() {
        return Err("--call needs a session file: a new session has no calls yet".into());
    }
    Ok(())
}

/// The inputs `o` names: a corpus case (`--case`), else a session or a new one (`--prompt`).
fn read_inputs(host: &mut dyn Host, o: &Opts) -> Result<Inputs, String> {
    match &o.case {
        Some(dir) => case_inputs(host, o, dir),
        None => session_inputs(host, o),
    }
}

/// The inputs `o` names, read again as release `pi` reads them (its file names).
fn inputs_under(host: &mut dyn Host, o: &Opts, pi: ctxlens::PiVersion) -> Result<Inputs, String> {
    let mut ob = o.clone();
    ob.pi = Some(pi);
    read_inputs(host, &ob)
}

/// One command's shared inputs: its options and name, the engine, what it read and assembled.
#[derive(Clone, Copy)]
struct Job<'a> {
    o: &'a Opts,
    command: &'a str,
    ws: &'a ctxlens::Workspace,
    inputs: &'a Inputs,
    assembly: &'a Assembly,
}

/// Assembles `inputs` (and the other side of a comparison, or the what-if) and prints what
/// `command` asks for.
fn run_with(host: &mut dyn Host, o: &Opts, command: &str, inputs: Inputs) -> i32 {
    let mut progress = Progress {
        on: host.stderr_is_tty()
            && inputs
                .session
                .as_ref()
                .is_some_and(|s| s.text.len() as u64 > PROGRESS_BYTES),
        shown: false,
    };
    progress.show(host, "assembling…");
    // One engine for every assembly of this command: the session is read once (a comparison,
    // a what-if and each call it rebuilds reuse it).
    let ws = ctxlens::Workspace::new();
    let assembly = ws.assemble(&inputs);
    let mut other = o.with.map(|w| {
        let mut i = inputs.clone();
        i.api = Some(w);
        ws.assemble(&i)
    });
    // The same session and files under another release: read again as that release reads
    // them (its file names), then assembled.
    let mut other_inputs = None;
    if let Some(v) = o.pi_with {
        match inputs_under(host, o, v) {
            Ok(i) => {
                other = Some(ws.assemble(&i));
                other_inputs = Some(i);
            }
            Err(e) => return usage(host, &e),
        }
    }
    let job = Job {
        o,
        command,
        ws: &ws,
        inputs: &inputs,
        assembly: &assembly,
    };
    if !o.changes.is_empty() {
        return job.what_if(host, &mut progress);
    }
    progress.done(host);
    let code = if let (Some(b), Some(bi)) = (&other, &other_inputs) {
        upgrade_output(host, o, (&inputs, &assembly), (bi, b))
    } else {
        job.output(host, other.as_deref())
    };
    if host.exits_after_run() {
        // The process ends next: for a large session, freeing the assembly takes longer than
        // building the output, and the OS takes the memory back anyway.
        std::mem::forget((inputs, assembly, other));
    }
    code
}

impl Job<'_> {
    /// A what-if: the changes applied to the inputs (another release read again as it reads
    /// them), checked against what the assembly holds, then assembled and printed.
    fn what_if(&self, host: &mut dyn Host, progress: &mut Progress) -> i32 {
        let o = self.o;
        let pi = o.changes.iter().rev().find_map(|c| match c {
            ctxlens::analysis::whatif::Change::Pi(v) => Some(*v),
            _ => None,
        });
        let target = match pi {
            Some(v) => match inputs_under(host, o, v) {
                Ok(i) => i,
                Err(e) => return usage(host, &e),
            },
            None => self.inputs.clone(),
        };
        let (changed_inputs, applied) =
            match ctxlens::analysis::whatif::apply(&target, self.assembly, &o.changes) {
                Ok(x) => x,
                Err(e) => {
                    progress.done(host);
                    return usage(host, &e);
                }
            };
        let changed = self.ws.assemble(&changed_inputs);
        progress.done(host);
        if self.command == "whatif" {
            return whatif_output(
                host,
                self.ws,
                o,
                (self.inputs, self.assembly),
                (&changed_inputs, &changed),
                &target,
                applied,
            );
        }
        for a in &applied {
            host.stderr(&format!(
                "ctxlens: what if {}: {}; for real: {}\n",
                a.change.spec(),
                a.did,
                a.text
            ));
        }
        Job {
            inputs: &changed_inputs,
            assembly: &changed,
            ..*self
        }
        .output(host, None)
    }
}

/// A corpus case: the oracle's layout (`--case`, `--env`).
fn case_inputs(host: &mut dyn Host, o: &Opts, dir: &str) -> Result<Inputs, String> {
    if !o.pi_args.is_empty() || o.prompt.is_some() || o.tool_set.is_some() {
        return Err(
            "--case takes its prompt, args and tools from the case; give a session instead".into(),
        );
    }
    let dir = resolve_path(host.cwd(), dir);
    let env = o
        .env
        .as_ref()
        .map(|e| resolve_path(host.cwd(), e))
        .unwrap_or_else(|| format!("{dir}/expected/env.json"));
    let mut inputs = crate::case::load(host, &dir, &env, o.call.clone())?;
    if let Some(now) = o.now {
        inputs.now_ms = now;
    }
    if o.system_now.is_some() {
        inputs.system_now_ms = o.system_now;
    }
    inputs.api = o.api;
    if o.pi.is_some() {
        inputs.pi = o.pi;
    }
    if let Some(m) = &o.model {
        inputs.model = Some(m.clone());
    }
    if let Some(t) = &o.thinking {
        inputs.thinking = Some(t.clone());
    }
    inputs.running_pi = o.running_pi;
    Ok(inputs)
}

/// A session on this machine: what pi reads for it, as [`install::read_machine`] finds it.
/// The session file at `file` (relative to the current folder), read whole, within the size
/// ctxlens reads.
pub fn read_session(host: &mut dyn Host, file: &str) -> Result<SourceText, String> {
    let path = resolve_path(host.cwd(), file);
    let size = match host.fs().stat(&path) {
        Some(FileKind::File { size }) => size,
        Some(FileKind::Dir) => return Err(format!("{path} is a folder, not a session file")),
        None => return Err(format!("{path}: no such file")),
    };
    if size > MAX_SESSION_BYTES {
        return Err(format!(
            "{path}: {} is larger than ctxlens reads ({})",
            human_size(size),
            human_size(MAX_SESSION_BYTES)
        ));
    }
    let mut progress = Progress {
        on: host.stderr_is_tty() && size > PROGRESS_BYTES,
        shown: false,
    };
    progress.show(host, &format!("reading {path} ({})…", human_size(size)));
    let text = host
        .fs()
        .read_text(&path)
        .map_err(|e| format!("{path}: {e}"));
    progress.done(host);
    Ok(SourceText {
        name: path,
        text: text?,
    })
}

/// The inputs of a session on this machine (`o.session`), or of a new session's first request
/// in the current folder (no session, `--prompt`).
pub fn session_inputs(host: &mut dyn Host, o: &Opts) -> Result<Inputs, String> {
    let session = match o.session.as_deref() {
        Some(file) => Some(read_session(host, file)?),
        None => None,
    };
    inputs_with(host, o, session)
}

/// [`session_inputs`] of a session already read (`None`: a new session in the current folder).
pub fn inputs_with(
    host: &mut dyn Host,
    o: &Opts,
    session: Option<SourceText>,
) -> Result<Inputs, String> {
    inputs_in(host, o, session, &ctxlens::Workspace::with_budget(0))
}

/// [`inputs_with`], the release chosen in `ws`: a host that then assembles in `ws` reads the
/// session's lines once.
pub fn inputs_in(
    host: &mut dyn Host,
    o: &Opts,
    session: Option<SourceText>,
    ws: &ctxlens::Workspace,
) -> Result<Inputs, String> {
    let new_session = session.is_none();
    let mut notes: Vec<Diagnostic> = Vec::new();
    let (package_dir, installed_version) = installed_pi(host, o, &mut notes)?;
    let pi = chosen_pi(o, &session, &installed_version, ws)?;
    let mut pi_args = o.pi_args.clone();
    let tools = tool_set(host, o, &mut pi_args, &mut notes)?;
    let no_tool_set = o.tool_set.is_none()
        && !pi_args
            .iter()
            .any(|a| matches!(a.as_str(), "--no-extensions" | "-ne"));

    let machine = Machine {
        fs: host.fs(),
        env: host.env().clone(),
        process_cwd: host.cwd().to_string(),
    };
    let read = install::read_machine(
        &pi,
        &machine,
        session,
        &pi_args,
        &package_dir,
        Limits::default(),
    );
    notes.extend(read.diagnostics);
    if no_tool_set {
        notes.push(extensions_note(host, &read.inputs.agent_dir, &read.cwd));
    }
    let mut inputs = read.inputs;
    set_options(host, o, &mut inputs);
    inputs.installed_pi = installed_version;
    inputs.extension_tools = tools;
    if new_session {
        notes.push(stand_in_session(&mut inputs, &read.cwd));
    }
    inputs.host_diagnostics = notes;
    inputs.call = o.call.clone();
    Ok(inputs)
}

/// The installed pi's package dir (the prompt's docs paths) and release, else the assumed dir
/// with a note (an error with `--pi-dir`).
fn installed_pi(
    host: &dyn Host,
    o: &Opts,
    notes: &mut Vec<Diagnostic>,
) -> Result<(String, Option<String>), String> {
    let installed = install::find_installed_pi(host.fs(), host.env(), o.pi_dir.as_deref());
    match installed {
        Ok(p) => Ok((p.package_dir, p.version)),
        Err(e) => {
            if o.pi_dir.is_some() {
                return Err(e);
            }
            notes.push(Diagnostic::info(
                "pi",
                None,
                format!(
                    "{e}: the prompt's docs paths assume {} (--pi-dir DIR points at an install)",
                    install::ASSUMED_PACKAGE_DIR
                ),
            ));
            Ok((install::ASSUMED_PACKAGE_DIR.to_string(), None))
        }
    }
}

/// The release, chosen first since it decides the file names pi looks for (for a past call of a
/// session a later pi continued, the release that made that call).
fn chosen_pi(
    o: &Opts,
    session: &Option<SourceText>,
    installed_version: &Option<String>,
    ws: &ctxlens::Workspace,
) -> Result<Pi, String> {
    let probe = Inputs {
        session: session.clone(),
        pi: o.pi,
        installed_pi: installed_version.clone(),
        call: o.call.clone(),
        ..Inputs::default()
    };
    let choice = ws.choose(&probe);
    Pi::new(choice.version).map_err(|e| e.to_string())
}

/// `--tool-set FILE`: its tools, activated in `pi_args`, with its notes (`None` without it).
fn tool_set(
    host: &dyn Host,
    o: &Opts,
    pi_args: &mut Vec<String>,
    notes: &mut Vec<Diagnostic>,
) -> Result<Option<SourceText>, String> {
    let Some(file) = &o.tool_set else {
        return Ok(None);
    };
    let p = resolve_path(host.cwd(), file);
    let bytes = host
        .fs()
        .read(&p)
        .map_err(|e| format!("--tool-set {p}: {e}"))?;
    let mut tnotes = Vec::new();
    let set = ctxlens::recognize::tool_set_file(&p, &bytes, &mut tnotes)
        .map_err(|e| format!("--tool-set: {e}"))?;
    notes.extend(tnotes);
    set.activate(pi_args);
    Ok(Some(SourceText {
        name: p,
        text: set.json.into(),
    }))
}

/// The note that extension tools are left out, with where pi would load extensions from (the
/// tools they register are unknown here).
fn extensions_note(host: &dyn Host, agent_dir: &str, cwd: &str) -> Diagnostic {
    let found: Vec<String> = [
        ctxlens::js::path::join_path(agent_dir, "extensions"),
        ctxlens::js::path::join_path(cwd, ".pi/extensions"),
    ]
    .into_iter()
    .filter(|d| host.fs().is_dir(d))
    .collect();
    let mut note = "extension tools are not included: they are code pi runs; --tool-set FILE adds them (a tool list or a captured request body)".to_string();
    if !found.is_empty() {
        note.push_str(&format!("; extensions here: {}", found.join(", ")));
    }
    Diagnostic::info("--tool-set", None, note)
}

/// The options the machine does not say (model, thinking, prompt, time, api, release) set on
/// `inputs`.
fn set_options(host: &dyn Host, o: &Opts, inputs: &mut Inputs) {
    inputs.model = o.model.clone();
    inputs.thinking = o.thinking.clone();
    inputs.running_pi = o.running_pi;
    inputs.prompt = o.prompt.clone();
    inputs.now_ms = o.now.unwrap_or_else(|| host.now_ms());
    inputs.system_now_ms = o.system_now;
    inputs.api = o.api;
    inputs.pi = o.pi;
}

/// A new session's stand-in id set on `inputs`, with the note saying so: pi names a new session
/// with a random UUIDv7 when it starts; the request carries it where the protocol sends one (a
/// cache key, a thread, a header).
fn stand_in_session(inputs: &mut Inputs, cwd: &str) -> Diagnostic {
    let id = stand_in_session_id(inputs.now_ms);
    let note = Diagnostic::info(
        "session",
        None,
        format!("a new session in {cwd}: pi gives it a random id when it starts; {id} stands in for it, so where the request carries the session's id (a cache key, a thread, a header) its bytes differ there"),
    );
    inputs.session_id = Some(id);
    note
}

/// A UUIDv7 for the time `now_ms` with its random bits zero: the shape of pi's session ids.
fn stand_in_session_id(now_ms: f64) -> String {
    let ms = if now_ms.is_finite() && now_ms > 0.0 {
        now_ms as u64 & 0xffff_ffff_ffff
    } else {
        0
    };
    let hex = format!("{ms:012x}");
    format!("{}-{}-7000-8000-000000000000", &hex[..8], &hex[8..])
}

/// `compare --pi-with`: the upgrade comparison as JSON, with each side's tokens when the model's
/// vocabulary is at hand.
fn upgrade_output(
    host: &mut dyn Host,
    o: &Opts,
    (ia, a): (&Inputs, &Assembly),
    (ib, b): (&Inputs, &Assembly),
) -> i32 {
    let counted = |host: &mut dyn Host, i: &Inputs, x: &Assembly| {
        if o.no_tokens {
            return None;
        }
        crate::tokens::count(
            host,
            i,
            x,
            None,
            crate::tokens::Calls::ForEstimate,
            o.rebuild_calls,
        )
        .map(|c| c.stats)
    };
    let (sa, sb) = (counted(host, ia, a), counted(host, ib, b));
    let u = ctxlens::analysis::upgrade::upgrade(a, b, sa.as_ref(), sb.as_ref());
    for (v, why) in &u.not_built {
        host.stderr(&format!("ctxlens: pi {v} builds no request: {why}\n"));
    }
    let text = format!(
        "{}\n",
        ctxlens::report::upgrade::to_json(&u).to_json_pretty(2)
    );
    match host.stdout(text.as_bytes()) {
        Ok(()) => 0,
        Err(_) => 1,
    }
}

/// `--api all`: the inputs read once and assembled under every protocol (with the what-if
/// changes, if any), printed as one JSON object by protocol — `assemble`: each body as pi sends
/// it (its bytes verbatim), `stats`: each body's character accounting; `null` where no request
/// is built, with why on stderr.
fn every_api(host: &mut dyn Host, o: &Opts, command: &str, inputs: &Inputs) -> i32 {
    // One engine: the session read (parsed, its release detected, its file made) once for all.
    let ws = ctxlens::Workspace::new();
    let base = ws.assemble(inputs);
    let inputs = if o.changes.is_empty() {
        inputs.clone()
    } else {
        match ctxlens::analysis::whatif::apply(inputs, &base, &o.changes) {
            Ok((i, _)) => i,
            Err(e) => return usage(host, &e),
        }
    };
    let mut out = String::from("{");
    let mut built = 0;
    for (k, api) in ctxlens::Api::ALL.iter().enumerate() {
        let mut i = inputs.clone();
        i.api = Some(*api);
        let a = ws.assemble(&i);
        let value = match (&a.request, a.stats(), command) {
            (Some(r), _, "assemble") => r.body.clone(),
            (Some(_), Some(s), _) => ctxlens::report::stats::to_json(s).to_json(),
            _ => {
                host.stderr(&format!(
                    "ctxlens: {}: no request: {}\n",
                    api.as_str(),
                    why_not_built(&a)
                ));
                "null".to_string()
            }
        };
        if a.request.is_some() {
            built += 1;
        }
        if k > 0 {
            out.push(',');
        }
        out.push_str(&format!(
            "\n  {}: {value}",
            ctxlens::js::Value::str(api.as_str()).to_json()
        ));
    }
    out.push_str("\n}\n");
    match host.stdout(out.as_bytes()) {
        Ok(()) if built > 0 => 0,
        _ => 1,
    }
}

/// `whatif`: the change against the request as it is, as JSON — the block deltas, window
/// share, cost per call, the cache consequence and each change's take-home — and, for a
/// session with usage, every call rebuilt with the change made at the start.
fn whatif_output(
    host: &mut dyn Host,
    ws: &ctxlens::Workspace,
    o: &Opts,
    (ia, a): (&Inputs, &Assembly),
    (ib, b): (&Inputs, &Assembly),
    target: &Inputs,
    applied: Vec<ctxlens::analysis::whatif::Applied>,
) -> i32 {
    for (x, when) in [(a, "as it is"), (b, "with the change")] {
        if x.request.is_none() {
            host.stderr(&format!(
                "ctxlens: no request {when}: {}\n",
                why_not_built(x)
            ));
        }
    }
    let counted = |host: &mut dyn Host, i: &Inputs, x: &Assembly| {
        if o.no_tokens {
            return None;
        }
        crate::tokens::count(
            host,
            i,
            x,
            None,
            crate::tokens::Calls::ForEstimate,
            o.rebuild_calls,
        )
        .map(|c| c.stats)
    };
    let (sa, sb) = (counted(host, ia, a), counted(host, ib, b));
    let w = ctxlens::analysis::whatif::compare(applied, a, b, sa.as_ref(), sb.as_ref());
    // The whole session, had the change been made at the start: each call with usage rebuilt
    // both ways, counted with the model's vocabulary when this build has it.
    let session = (!a.calls.iter().all(|c| c.usage.is_none())).then(|| {
        let mut counter = match ctxlens::tokens::vocabulary_of(a) {
            Some(ctxlens::tokens::Vocabulary::Known { name, exact, .. }) if !o.no_tokens => {
                host.token_counter(&name, exact, None).ok()
            }
            _ => None,
        };
        let mut count = |_: &Inputs, x: &Assembly| -> Option<usize> {
            let c = counter.as_mut()?;
            ctxlens::analysis::stats::sums(x, Some(&mut **c))
                .ok()
                .flatten()
                .map(|s| s.total_tokens())
        };
        ctxlens::analysis::whatif::session(
            ws,
            ia,
            target,
            &o.changes,
            a,
            o.rebuild_calls,
            &mut count,
        )
    });
    let text = format!(
        "{}\n",
        ctxlens::report::whatif::to_json(&w, session.as_ref()).to_json_pretty(2)
    );
    match host.stdout(text.as_bytes()) {
        Ok(()) => {
            if b.request.is_some() {
                0
            } else {
                1
            }
        }
        Err(_) => 1,
    }
}

impl Job<'_> {
    /// Prints what the command asks for; the release and why, and the diagnostics, go to stderr.
    fn output(&self, host: &mut dyn Host, other: Option<&Assembly>) -> i32 {
        let assembly = self.assembly;
        let newer = assembly
            .choice
            .as_ref()
            .and_then(|c| c.newer_session_warning());
        if let Some(c) = &assembly.choice {
            host.stderr(&format!("ctxlens: rebuilding {}\n", c.explain()));
        }
        if let Some(w) = &newer {
            host.stderr(&format!("ctxlens: warning: {w}\n"));
        }
        if self.command == "open" {
            print_diagnostics(host, assembly, newer.as_ref());
            return crate::open::run(
                host,
                self.o.app.as_deref(),
                self.o.port.unwrap_or(0),
                self.inputs,
                assembly,
            );
        }
        let built = assembly.request.is_some();
        let text = match self.text(host, other) {
            Ok(t) => t,
            Err(code) => return code,
        };
        if host.stdout(&text).is_err() {
            return 1;
        }
        if self.command != "diagnostics" {
            print_diagnostics(host, assembly, newer.as_ref());
        }
        // An export is written even when no request is built (a case to report it with).
        if built || self.command == "export" {
            0
        } else {
            host.stderr(&format!(
                "ctxlens: no request: {}\n",
                why_not_built(assembly)
            ));
            1
        }
    }

    /// What the command prints on stdout (but `open`), or the exit status that stops it.
    fn text(&self, host: &mut dyn Host, other: Option<&Assembly>) -> Result<Vec<u8>, i32> {
        let (o, inputs, assembly) = (self.o, self.inputs, self.assembly);
        Ok(match self.command {
            "assemble" => assembly.body().unwrap_or("").as_bytes().to_vec(),
            "stats" => return self.stats(host),
            "request" => match &assembly.request {
                Some(r) => {
                    let mut s = format!("{} {}\n", r.method, r.url);
                    for (k, v) in &r.headers {
                        s.push_str(&format!("{k}: {v}\n"));
                    }
                    s.push('\n');
                    s.push_str(&r.body);
                    s.push('\n');
                    s.into_bytes()
                }
                None => Vec::new(),
            },
            "report" => format!(
                "{}\n",
                ctxlens::report::assembly_json(assembly).to_json_pretty(2)
            )
            .into_bytes(),
            "summary" => self.summary(host),
            "findings" => crate::report::findings(assembly, o.json).into_bytes(),
            "compare" => match other {
                Some(b) => format!(
                    "{}\n",
                    ctxlens::report::compare_json(assembly, b).to_json_pretty(2)
                )
                .into_bytes(),
                None => Vec::new(),
            },
            "trace" if o.json => format!(
                "{}\n",
                crate::report::trace_json(assembly).to_json_pretty(2)
            )
            .into_bytes(),
            "trace" => crate::report::trace_text(assembly).into_bytes(),
            "diagnostics" if o.json => format!(
                "{}\n",
                crate::report::diagnostics_json(assembly).to_json_pretty(2)
            )
            .into_bytes(),
            "diagnostics" => assembly
                .diagnostics
                .iter()
                .map(|d| format!("{d}\n"))
                .collect::<String>()
                .into_bytes(),
            "files" => crate::report::files(inputs, assembly, o.json).into_bytes(),
            "export" => return self.export(host),
            other => return Err(usage(host, &format!("unknown command {other:?}"))),
        })
    }

    /// `stats`: the character accounting as JSON, with each text's tokens unless `--no-tokens`.
    fn stats(&self, host: &mut dyn Host) -> Result<Vec<u8>, i32> {
        let (o, assembly) = (self.o, self.assembly);
        if o.no_tokens {
            return Ok(match assembly.stats() {
                Some(s) => {
                    let v = with_packages(assembly, ctxlens::report::stats::to_json(s));
                    format!("{}\n", v.to_json_pretty(2)).into_bytes()
                }
                None => Vec::new(),
            });
        }
        let file = match flag_file(host, "--tokenizer-json", o.tokenizer_json.as_deref()) {
            Ok(f) => f,
            Err(e) => {
                host.stderr(&e);
                return Err(2);
            }
        };
        Ok(
            match crate::tokens::count(
                host,
                self.inputs,
                assembly,
                file.as_deref(),
                crate::tokens::Calls::Always,
                o.rebuild_calls,
            ) {
                Some(c) => {
                    for n in &c.notes {
                        host.stderr(&format!("ctxlens: tokens: {n}\n"));
                    }
                    let v = with_packages(assembly, crate::tokens::stats_json(&c));
                    format!("{}\n", v.to_json_pretty(2)).into_bytes()
                }
                None => Vec::new(),
            },
        )
    }

    /// `summary`: the report as JSON (`--json`), else as text with the packages' table, with
    /// tokens unless `--no-tokens`.
    fn summary(&self, host: &mut dyn Host) -> Vec<u8> {
        let (o, assembly) = (self.o, self.assembly);
        if o.json {
            return crate::report::summary(assembly, true).into_bytes();
        }
        if o.no_tokens {
            let mut s = crate::report::summary(assembly, false);
            if let Some(st) = assembly.stats() {
                let v = ctxlens::report::stats::to_json(st);
                s.push_str(&ctxlens::report::packages::to_text(
                    &ctxlens::report::packages::of_stats(assembly, &v),
                ));
            }
            return s.into_bytes();
        }
        let counted = crate::tokens::count(
            host,
            self.inputs,
            assembly,
            None,
            crate::tokens::Calls::ForEstimate,
            o.rebuild_calls,
        );
        let tokens = counted.as_ref().map(|c| ctxlens::report::summary::Tokens {
            stats: &c.stats,
            legend: crate::tokens::legend(c),
        });
        let mut s = ctxlens::report::summary::text_with(assembly, tokens.as_ref());
        let stats = match (&counted, assembly.stats()) {
            (Some(c), _) => Some(crate::tokens::stats_json(c)),
            (None, Some(st)) => Some(ctxlens::report::stats::to_json(st)),
            (None, None) => None,
        };
        if let Some(v) = stats {
            s.push_str(&ctxlens::report::packages::to_text(
                &ctxlens::report::packages::of_stats(assembly, &v),
            ));
        }
        s.into_bytes()
    }

    /// `export`: the case zip written to `-o`, and what was written said (or the exit status of
    /// what stopped it).
    fn export(&self, host: &mut dyn Host) -> Result<Vec<u8>, i32> {
        let (o, inputs) = (self.o, self.inputs);
        let path = resolve_path(host.cwd(), o.output.as_deref().unwrap_or(""));
        let who = o.redact.then(|| crate::export::identity(host, inputs));
        let sent = match flag_file(host, "--sent", o.sent.as_deref()) {
            Ok(f) => f,
            Err(e) => {
                host.stderr(&e);
                return Err(1);
            }
        };
        match crate::export::export(host, inputs, self.assembly, &path, who.as_ref(), sent) {
            Ok(x) => Ok(crate::export::said(host, &path, &x).into_bytes()),
            Err(e) => {
                host.stderr(&format!("ctxlens: {e}\n"));
                Err(1)
            }
        }
    }
}

/// The diagnostics on stderr (but the newer-session warning, already said).
fn print_diagnostics(host: &mut dyn Host, assembly: &Assembly, newer: Option<&String>) {
    let mut s = String::new();
    for d in assembly
        .diagnostics
        .iter()
        .filter(|d| Some(&d.message) != newer)
    {
        s.push_str(&format!("{d}\n"));
    }
    host.stderr(&s);
}

/// Why no request was built: the first error, else the last warning.
fn why_not_built(a: &Assembly) -> String {
    a.diagnostics
        .iter()
        .find(|d| d.severity == ctxlens::Severity::Error)
        .or_else(|| a.diagnostics.last())
        .map_or_else(
            || "pi would send nothing here (see ctxlens trace)".into(),
            |d| {
                d.to_string()
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
            },
        )
}

/// `stats`' JSON with `packages` (what each pi package brings and costs) when the settings list
/// some.
fn with_packages(a: &Assembly, stats: ctxlens::js::Value) -> ctxlens::js::Value {
    if a.parts.resources.packages.is_empty() {
        return stats;
    }
    let packages = ctxlens::report::packages::to_json(a, &stats);
    match stats {
        ctxlens::js::Value::Object(mut o) => {
            o.insert("packages", packages);
            ctxlens::js::Value::Object(o)
        }
        v => v,
    }
}
