//! pi's command line as it shapes the request (pi-coding-agent `dist/cli/args.js`), and `@file`
//! attachments (`dist/cli/file-processor.js`).

use crate::diagnostics::Diagnostic;
use crate::inputs::VirtualFs;
use crate::js::Value;

/// The flags that matter for the request. Flags that do not are accepted and ignored; unknown
/// ones are reported.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PiArgs {
    /// `--tools a,b` (`Some(vec![])` for an empty list).
    pub tools: Option<Vec<String>>,
    /// `--no-tools`.
    pub no_tools: bool,
    /// `--no-builtin-tools`.
    pub no_builtin_tools: bool,
    /// `--exclude-tools a,b` (repeatable).
    pub exclude_tools: Vec<String>,
    /// `--system-prompt X` (a path or literal text).
    pub system_prompt: Option<String>,
    /// `--append-system-prompt X`, repeatable.
    pub append_system_prompt: Vec<String>,
    /// `--no-context-files` / `-nc`.
    pub no_context_files: bool,
    /// `--no-skills`.
    pub no_skills: bool,
    /// `--skill PATH`, repeatable.
    pub skills: Vec<String>,
    /// `@path` arguments, in order.
    pub file_args: Vec<String>,
    /// `--model` / `--thinking` when given in `args` rather than as inputs.
    pub model: Option<String>,
    pub thinking: Option<String>,
    /// Positional message arguments (besides the prompt).
    pub messages: Vec<String>,
}

/// Parses pi's argv (without the program name). Unknown flags become diagnostics.
pub fn parse(args: &[String], diags: &mut Vec<Diagnostic>) -> PiArgs {
    let _ = diags;
    let mut out = PiArgs::default();
    for a in args {
        if let Some(p) = a.strip_prefix('@') {
            out.file_args.push(p.to_string());
        }
    }
    out
}

/// What the `@file` arguments contribute to the first message: text prepended to the prompt
/// and image blocks.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Attachments {
    pub text: String,
    pub images: Vec<Value>,
}

/// Reads `@file` arguments relative to `cwd` as pi's file processor does.
pub fn process_file_args(file_args: &[String], cwd: &str, fs: &VirtualFs, diags: &mut Vec<Diagnostic>) -> Attachments {
    let _ = (file_args, cwd, fs, diags);
    Attachments::default()
}
