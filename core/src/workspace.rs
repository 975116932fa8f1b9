//! The retained engine: a [`Workspace`] keeps what each stage of an assembly made, keyed by what
//! that stage depends on, so the next assembly re-runs only the stages downstream of what
//! changed (ruff's `Workspace` is the model: the host holds one per open document).
//!
//! The stages kept, and what each depends on:
//!
//! | stage | made by | depends on |
//! |---|---|---|
//! | the session's lines parsed as JSON | [`session::read_lines`] | the session text |
//! | the release detection | [`choice::detect_in`] | the session text (its lines) |
//! | the session file under a release: header, migration, entries | [`session::parse_lines`] | the text and the release |
//! | the session context: the branch of the call rebuilt, as agent messages, and the session's calls | `session::build_context` | that session file, the call asked for, whether a prompt is given |
//! | the assembly with its statistics | [`assemble`] | every input ([`Inputs`]' equality) |
//!
//! So switching the protocol, the model, the thinking level, a tool, a skill or a context file
//! reads the session once; a what-if that edits the session reads the edited text once (and the
//! original stays kept); asking again for inputs already assembled (a protocol switched back, a
//! what-if's base, every past call a whole-session what-if rebuilds) gives the kept assembly.
//! What runs between the session context and the adapter is not kept per stage: it depends on
//! nearly every input and costs a small share of an assembly (the profile in `ARCHITECTURE.md`).
//!
//! A workspace holds [`SESSIONS_KEPT`] session texts and assemblies up to a byte budget
//! ([`Workspace::with_budget`]), oldest let go first. It is single-threaded (interior
//! mutability), as the wasm bindings and the CLI use it.
use std::cell::{Cell, OnceCell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use crate::assemble::Assembly;
use crate::calls::CallRef;
use crate::inputs::{Inputs, SourceText};
use crate::js::{Object, Value};
use crate::pi::choice::{self, Choice, Detection};
use crate::pi::{Pi, PiVersion};
use crate::session::{self, Lines, SessionFile};

/// How many session texts a workspace keeps read: the session as it is, an edited copy (a
/// what-if), and one more.
pub const SESSIONS_KEPT: usize = 3;

/// The default byte budget for kept assemblies: the nine protocols of a 4 MB session.
pub const DEFAULT_BUDGET: usize = 96 << 20;

/// One session text read: its lines, its detection, its file under each release asked for.
struct Read {
    source: SourceText,
    lines: Lines,
    detection: OnceCell<Option<Detection>>,
    /// The lines of its system messages (each run's start, from 0.86).
    system_lines: OnceCell<Vec<u32>>,
    /// The line of each entry id (its first), for a past call named by its answer's id.
    id_lines: OnceCell<HashMap<String, u32>>,
    /// The detections of the session as it stood at a line (a past call's run).
    detections_upto: RefCell<Vec<(u32, Option<Detection>)>>,
    /// The lines of the active branch's calls, as each release reads the file (a past call's
    /// place, for its release).
    call_lines: RefCell<Vec<(PiVersion, Rc<Vec<u32>>)>>,
    files: RefCell<Vec<(PiVersion, Arc<SessionFile>)>>,
}

struct Kept {
    inputs: Inputs,
    assembly: Rc<Assembly>,
    bytes: usize,
}

/// What the session context of an assembly depends on (`Run::context_for_call`): the session file
/// read under a release (by identity: the workspace keeps one per text and release), the call
/// rebuilt, and whether a prompt is given.
pub(crate) struct ContextKey {
    pub file: Arc<SessionFile>,
    pub version: PiVersion,
    pub call: Option<crate::calls::CallRef>,
    pub prompt: bool,
}

impl PartialEq for ContextKey {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.file, &other.file)
            && self.version == other.version
            && self.call == other.call
            && self.prompt == other.prompt
    }
}

/// The session context stage's result and what it said.
pub(crate) struct KeptContext {
    pub context: session::SessionContext,
    pub calls: Arc<Vec<crate::calls::Call>>,
    pub call: Option<crate::calls::RebuiltCall>,
    /// It refused the call (no request is built).
    pub failed: bool,
    pub events: Vec<crate::trace::Event>,
    pub diagnostics: Vec<crate::diagnostics::Diagnostic>,
}

/// How many session contexts a workspace keeps: the request and the past calls a whole-session
/// what-if rebuilds (the analysis's calibration), and a few more.
const CONTEXTS_KEPT: usize = 24;

/// The active branch of a session file (read under a release) as pi's `buildSessionContext`
/// gives it, with its calls and what the walk said: what every call rebuilt from that file
/// starts from, to find the call ([`Workspace::active_branch`]).
pub(crate) struct ActiveBranch {
    pub context: session::SessionContext,
    pub calls: Arc<Vec<crate::calls::Call>>,
    pub events: Vec<crate::trace::Event>,
    pub diagnostics: Vec<crate::diagnostics::Diagnostic>,
}

/// How many session files' active branches a workspace keeps.
const BRANCHES_KEPT: usize = 4;

/// What an active branch depends on: the session file read under a release (by identity).
type BranchKey = (Arc<SessionFile>, PiVersion);

/// The settings and the models pi reads for a request, and what reading them said
/// ([`Workspace::setup`]).
pub(crate) struct KeptSetup {
    pub settings: crate::settings::Settings,
    pub registry: crate::model::Registry,
    pub diagnostics: Vec<crate::diagnostics::Diagnostic>,
    /// The context files, skills, prompts, templates and packages the settings lead to, and
    /// what loading them said: made by the first request that needs them.
    pub resources: OnceCell<(
        crate::resources::Resources,
        Vec<crate::diagnostics::Diagnostic>,
    )>,
}

/// What the settings and the models depend on: the release, the files, the folders (and the
/// process's, and npm's global root, which the resources depend on too), the command line's
/// flags and the environment — not the session's messages, nor the call.
struct SetupKey {
    version: PiVersion,
    files: crate::inputs::VirtualFs,
    home: String,
    agent_dir: String,
    cwd: String,
    process_cwd: String,
    npm_global_root: Option<String>,
    args: crate::args::PiArgs,
    env: std::collections::BTreeMap<String, String>,
}

impl SetupKey {
    fn is(
        &self,
        version: PiVersion,
        inputs: &Inputs,
        cwd: &str,
        args: &crate::args::PiArgs,
    ) -> bool {
        self.version == version
            && self.cwd == cwd
            && self.process_cwd == inputs.cwd
            && self.npm_global_root == inputs.npm_global_root
            && self.home == inputs.home
            && self.agent_dir == inputs.agent_dir
            && self.args == *args
            && self.env == inputs.env
            && self.files == inputs.files
    }
}

/// How many setups a workspace keeps.
const SETUPS_KEPT: usize = 4;

/// What a workspace did, for tests and benchmarks: how often each stage ran and how often a
/// kept result was used instead.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Session texts parsed into lines.
    pub reads: usize,
    /// Release detections made.
    pub detections: usize,
    /// Session files made under a release.
    pub session_files: usize,
    /// Assemblies made ([`Workspace::assemble`] and [`Workspace::assemble_fresh`]).
    pub assemblies: usize,
    /// Assemblies given from the kept ones.
    pub reused: usize,
    /// Session contexts made (the active branch or a past call's branch, as messages).
    pub contexts: usize,
    /// Active branches walked to find a call ([`Workspace::active_branch`]).
    pub branches: usize,
    /// Settings and models read ([`Workspace::setup`]).
    pub setups: usize,
}

/// The value of `list` whose key `is` picks, else the one `make` gives, kept with its key (the
/// oldest let go past `cap`); and whether it was made now. `make` runs with `list` let go.
fn kept_or_made<K, V>(
    list: &RefCell<Vec<(K, Rc<V>)>>,
    cap: usize,
    is: impl Fn(&K) -> bool,
    make: impl FnOnce() -> (K, V),
) -> (Rc<V>, bool) {
    let found = list
        .borrow()
        .iter()
        .find(|(k, _)| is(k))
        .map(|(_, v)| v.clone());
    if let Some(v) = found {
        return (v, false);
    }
    let (key, value) = make();
    let v = Rc::new(value);
    let mut list = list.borrow_mut();
    if list.len() == cap {
        list.remove(0);
    }
    list.push((key, v.clone()));
    (v, true)
}

/// See the module docs.
pub struct Workspace {
    reads: RefCell<Vec<Rc<Read>>>,
    contexts: RefCell<Vec<(ContextKey, Rc<KeptContext>)>>,
    branches: RefCell<Vec<(BranchKey, Rc<ActiveBranch>)>>,
    setups: RefCell<Vec<(SetupKey, Rc<KeptSetup>)>>,
    /// The LLM messages the last assembly marked, each beside the message it was marked from.
    marked: RefCell<Vec<Option<(Object, Value)>>>,
    kept: RefCell<Vec<Kept>>,
    budget: usize,
    counts: Cell<Counts>,
}

impl Default for Workspace {
    fn default() -> Self {
        Self::with_budget(DEFAULT_BUDGET)
    }
}

impl Workspace {
    pub fn new() -> Self {
        Self::default()
    }

    /// A workspace that keeps assemblies up to `bytes` (each counted by its body, the session
    /// text it holds and its agent messages' share of it); 0 keeps none.
    pub fn with_budget(bytes: usize) -> Self {
        Workspace {
            reads: RefCell::new(Vec::new()),
            contexts: RefCell::new(Vec::new()),
            branches: RefCell::new(Vec::new()),
            setups: RefCell::new(Vec::new()),
            marked: RefCell::new(Vec::new()),
            kept: RefCell::new(Vec::new()),
            budget: bytes,
            counts: Cell::new(Counts::default()),
        }
    }

    pub fn counts(&self) -> Counts {
        self.counts.get()
    }

    fn count(&self, f: impl FnOnce(&mut Counts)) {
        let mut c = self.counts.get();
        f(&mut c);
        self.counts.set(c);
    }

    /// `src` read: the kept read of the same text (and name), else parsed now and kept.
    fn read(&self, src: &SourceText) -> Rc<Read> {
        let mut reads = self.reads.borrow_mut();
        if let Some(i) = reads.iter().position(|r| r.source == *src) {
            let r = reads.remove(i);
            reads.push(r.clone());
            return r;
        }
        self.count(|c| c.reads += 1);
        let r = Rc::new(Read {
            source: src.clone(),
            lines: session::read_lines(src),
            detection: OnceCell::new(),
            system_lines: OnceCell::new(),
            id_lines: OnceCell::new(),
            detections_upto: RefCell::new(Vec::new()),
            call_lines: RefCell::new(Vec::new()),
            files: RefCell::new(Vec::new()),
        });
        if reads.len() == SESSIONS_KEPT {
            reads.remove(0);
        }
        reads.push(r.clone());
        r
    }

    /// [`choice::choose`], with the session's detection kept; for a past call of a session a
    /// later release continued, the release that made that call ([`choice::choose_for_call`]).
    pub fn choose(&self, inputs: &Inputs) -> Choice {
        let detection = inputs.session.as_ref().and_then(|s| {
            let r = self.read(s);
            r.detection
                .get_or_init(|| {
                    self.count(|c| c.detections += 1);
                    choice::detect_in(s, &r.lines)
                })
                .clone()
        });
        let chosen = choice::choose_detected(inputs, detection);
        match (&inputs.session, &inputs.call) {
            (Some(s), Some(call @ (CallRef::Index(_) | CallRef::Entry(_)))) => {
                self.choose_for_call(chosen, s, call)
            }
            _ => chosen,
        }
    }

    /// The first release whose data the request of `inputs` needs and that is not available
    /// ([`crate::pi::data::is_available`]), then the first of `also` (a release compared with,
    /// a what-if's): the one a host fetches, or is handed, before it asks again. `None`: all
    /// are ready. A past call of a session a later pi continued needs the session's release
    /// first, to find the call, then its own: the host asks again once each is installed.
    pub fn missing_release(
        &self,
        inputs: &Inputs,
        also: impl IntoIterator<Item = PiVersion>,
    ) -> Option<PiVersion> {
        std::iter::once(self.choose(inputs).version)
            .chain(also)
            .find(|v| !crate::pi::data::is_available(*v))
    }

    /// The release of the past call `call` of session `s`, `chosen` being the session's.
    fn choose_for_call(&self, chosen: Choice, s: &SourceText, call: &CallRef) -> Choice {
        let r = self.read(s);
        let system_lines = r
            .system_lines
            .get_or_init(|| choice::system_message_lines(&r.lines));
        if system_lines.is_empty() || chosen.reason == choice::Reason::Given {
            return chosen;
        }
        // Where the call's answer lies: by its id, or by its place among the active branch's
        // calls as the session's release reads the file.
        let line = match call {
            CallRef::Entry(id) => r
                .id_lines
                .get_or_init(|| {
                    let mut ids = HashMap::new();
                    for (n, v) in r.lines.values() {
                        if let Some(id) = v.get_str("id") {
                            ids.entry(id.to_string()).or_insert(n);
                        }
                    }
                    ids
                })
                .get(id.as_str())
                .copied(),
            CallRef::Index(k) => Pi::new(chosen.version).ok().and_then(|pi| {
                let lines = self.call_lines(&r, &pi, s);
                lines.get(k.checked_sub(1)?).copied()
            }),
            CallRef::Next => None,
        };
        let Some(line) = line else { return chosen };
        choice::choose_for_call(chosen, system_lines, line, |upto| {
            let mut kept = r.detections_upto.borrow_mut();
            if let Some((_, d)) = kept.iter().find(|(l, _)| *l == upto) {
                return d.clone();
            }
            self.count(|c| c.detections += 1);
            let d = choice::detect_upto(s, &r.lines, upto);
            kept.push((upto, d.clone()));
            d
        })
    }

    /// The lines of the active branch's calls of `s` (read as `r`) under `pi`, kept.
    fn call_lines(&self, r: &Read, pi: &Pi, s: &SourceText) -> Rc<Vec<u32>> {
        if let Some((_, l)) = r.call_lines.borrow().iter().find(|(v, _)| *v == pi.version) {
            return l.clone();
        }
        let f = self.session_file(pi, s);
        let lines: Rc<Vec<u32>> = Rc::new(
            session::active_path(&f)
                .into_iter()
                .filter(|&i| crate::calls::is_call(&f, i))
                .map(|i| f.entries[i].line)
                .collect(),
        );
        r.call_lines.borrow_mut().push((pi.version, lines.clone()));
        lines
    }

    /// [`session::parse`] under `pi`, kept.
    pub fn session_file(&self, pi: &Pi, src: &SourceText) -> Arc<SessionFile> {
        let r = self.read(src);
        let mut files = r.files.borrow_mut();
        if let Some((_, f)) = files.iter().find(|(v, _)| *v == pi.version) {
            return f.clone();
        }
        self.count(|c| c.session_files += 1);
        let f = Arc::new(session::parse_lines(pi, src, &r.lines));
        files.push((pi.version, f.clone()));
        f
    }

    /// The kept session context of `key`, if any.
    pub(crate) fn kept_context(&self, key: &ContextKey) -> Option<Rc<KeptContext>> {
        self.contexts
            .borrow()
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, c)| c.clone())
    }

    /// The active branch of `file` read under `version`: kept, else made by `make` and kept
    /// (the oldest let go past [`BRANCHES_KEPT`]). Every past call of a session is found from
    /// it, so a host that rebuilds each call walks the branch once.
    pub(crate) fn active_branch(
        &self,
        file: &Arc<SessionFile>,
        version: PiVersion,
        make: impl FnOnce() -> ActiveBranch,
    ) -> Rc<ActiveBranch> {
        let (b, made) = kept_or_made(
            &self.branches,
            BRANCHES_KEPT,
            |(f, v)| Arc::ptr_eq(f, file) && *v == version,
            || ((file.clone(), version), make()),
        );
        if made {
            self.count(|c| c.branches += 1);
        }
        b
    }

    /// The settings and the models pi reads under `version` for `inputs` (`cwd`: the folder pi
    /// runs in, `args`: its command line): kept, else made by `make` and kept (the oldest let go
    /// past [`SETUPS_KEPT`]). They do not depend on the call, so a host that rebuilds each call
    /// of a session reads them once.
    pub(crate) fn setup(
        &self,
        version: PiVersion,
        inputs: &Inputs,
        cwd: &str,
        args: &crate::args::PiArgs,
        make: impl FnOnce() -> KeptSetup,
    ) -> Rc<KeptSetup> {
        let (s, made) = kept_or_made(
            &self.setups,
            SETUPS_KEPT,
            |k| k.is(version, inputs, cwd, args),
            || {
                let key = SetupKey {
                    version,
                    files: inputs.files.clone(),
                    home: inputs.home.clone(),
                    agent_dir: inputs.agent_dir.clone(),
                    cwd: cwd.to_string(),
                    process_cwd: inputs.cwd.clone(),
                    npm_global_root: inputs.npm_global_root.clone(),
                    args: args.clone(),
                    env: inputs.env.clone(),
                };
                (key, make())
            },
        );
        if made {
            self.count(|c| c.setups += 1);
        }
        s
    }

    /// `llm` marked with what each message and block is
    /// ([`crate::protocols::body::mark_llm_messages`]); a message the last assembly marked at
    /// the same place is taken as it was marked then. The calls of a session, and one call's
    /// protocols and what-ifs, send the same messages, and marking a message copies it.
    pub(crate) fn mark_llm_messages(&self, llm: &mut [Value]) {
        use crate::protocols::body::mark_llm_message;
        let mut marked = self.marked.borrow_mut();
        let mut now = Vec::with_capacity(llm.len());
        for (i, m) in llm.iter_mut().enumerate() {
            let Value::Object(source) = m else {
                mark_llm_message(i, m);
                now.push(None);
                continue;
            };
            let source = source.clone();
            match marked.get(i) {
                Some(Some((was, done))) if was.same(&source) => *m = done.clone(),
                _ => mark_llm_message(i, m),
            }
            now.push(Some((source, m.clone())));
        }
        *marked = now;
    }

    /// Keeps the session context of `key` (the oldest let go past [`CONTEXTS_KEPT`]).
    pub(crate) fn keep_context(&self, key: ContextKey, context: KeptContext) {
        self.count(|c| c.contexts += 1);
        let mut contexts = self.contexts.borrow_mut();
        if contexts.len() == CONTEXTS_KEPT {
            contexts.remove(0);
        }
        contexts.push((key, Rc::new(context)));
    }

    /// [`crate::assemble`] of `inputs`: the kept assembly of equal inputs, else made now from
    /// the kept stages (and kept, within the budget).
    pub fn assemble(&self, inputs: &Inputs) -> Rc<Assembly> {
        if let Some(a) = self.kept(inputs) {
            return a;
        }
        let a = Rc::new(self.assemble_unkept(inputs));
        self.keep(inputs, a.clone());
        a
    }

    /// [`crate::assemble`] of `inputs` from the kept stages, not itself kept (an assembly
    /// unlikely to be asked for again, such as each past call with a what-if's changes).
    /// The request's `params` tree (the body before serialization) is let go: every analysis
    /// reads the body as sent ([`Assembly::body_value`]) and the spans its writer recorded.
    pub fn assemble_unkept(&self, inputs: &Inputs) -> Assembly {
        let mut a = self.assemble_fresh(inputs);
        if let Some(r) = &mut a.request {
            r.params = crate::js::Value::Null;
        }
        a
    }

    /// The kept assembly of inputs equal to `inputs`, if any (with its statistics).
    pub fn kept(&self, inputs: &Inputs) -> Option<Rc<Assembly>> {
        let kept = self.kept.borrow();
        let a = kept
            .iter()
            .rev()
            .find(|k| k.inputs == *inputs)
            .map(|k| k.assembly.clone());
        if a.is_some() {
            self.count(|c| c.reused += 1);
        }
        a
    }

    /// Keeps `assembly` as the one of `inputs` (with its statistics), within the budget. Its
    /// size is taken as twice its body: the messages it holds share the session's values, kept
    /// once with the session's read.
    pub fn keep(&self, inputs: &Inputs, assembly: Rc<Assembly>) {
        let bytes = 2 * assembly.body().map_or(0, str::len) + 4096;
        if bytes > self.budget {
            return;
        }
        let mut kept = self.kept.borrow_mut();
        kept.retain(|k| k.inputs != *inputs);
        kept.push(Kept {
            inputs: inputs.clone(),
            assembly,
            bytes,
        });
        while kept.iter().map(|k| k.bytes).sum::<usize>() > self.budget {
            kept.remove(0);
        }
    }

    /// [`crate::assemble()`] from the kept stages (not itself kept; the request's `params` tree
    /// kept too, for a host that shows it).
    pub fn assemble_fresh(&self, inputs: &Inputs) -> Assembly {
        self.count(|c| c.assemblies += 1);
        crate::assemble::assemble_in(self, inputs)
    }

    /// Lets every kept assembly go (the session reads stay).
    pub fn clear_assemblies(&self) {
        self.kept.borrow_mut().clear();
    }
}

#[cfg(test)]
#[path = "workspace_tests.rs"]
mod tests;
