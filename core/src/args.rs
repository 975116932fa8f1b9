//! pi's command line as it shapes the request (pi-coding-agent `dist/cli/args.js`), and `@file`
//! attachments (`dist/cli/file-processor.js`, `dist/utils/mime.js`).

// Text from the user: no string is sliced by byte range (a cut inside a character panics).
#![deny(clippy::string_slice)]

use crate::diagnostics::Diagnostic;
use crate::inputs::VirtualFs;
use crate::js::{Object, Value};
use crate::paths::{resolve_pi_path, PathOptions};
use crate::pi::Pi;

/// Where argv diagnostics point.
const ARGS: &str = "args";

/// The flags that matter for the request. Flags that do not are accepted and ignored; unknown
/// ones are reported.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PiArgs {
    /// `--tools a,b` / `-t` (`Some(vec![])` for an empty list). The last one wins.
    pub tools: Option<Vec<String>>,
    /// `--no-tools` / `-nt`.
    pub no_tools: bool,
    /// `--no-builtin-tools` / `-nbt`.
    pub no_builtin_tools: bool,
    /// `--exclude-tools a,b` / `-xt`. The last one wins (pi assigns, it does not accumulate).
    pub exclude_tools: Option<Vec<String>>,
    /// `--system-prompt X` (a path or literal text). The last one wins.
    pub system_prompt: Option<String>,
    /// `--append-system-prompt X`, repeatable (`None` when never given).
    pub append_system_prompt: Option<Vec<String>>,
    /// `--no-context-files` / `-nc`.
    pub no_context_files: bool,
    /// `--no-skills` / `-ns`.
    pub no_skills: bool,
    /// `--skill PATH`, repeatable.
    pub skills: Vec<String>,
    /// `--no-prompt-templates` / `-np`.
    pub no_prompt_templates: bool,
    /// `--prompt-template PATH`, repeatable.
    pub prompt_templates: Vec<String>,
    /// `@path` arguments, in order.
    pub file_args: Vec<String>,
    /// `--model` / `--thinking` when given in `args` rather than as inputs.
    pub model: Option<String>,
    pub thinking: Option<String>,
    /// `--provider`.
    pub provider: Option<String>,
    /// `--api-key KEY`: a runtime key for the chosen model's provider (CA/main.js:642).
    pub api_key: Option<String>,
    /// `--models a,b`: the model scope patterns (trimmed, empty ones dropped).
    pub models: Option<Vec<String>>,
    /// `--approve` / `-a` (`Some(true)`) and `--no-approve` / `-na` (`Some(false)`): the
    /// project-trust override.
    pub approve: Option<bool>,
    /// `--no-extensions` / `-ne`.
    pub no_extensions: bool,
    /// `--extension SOURCE` / `-e`, repeatable, as given: a path, `npm:`, a git source or
    /// `builtin:NAME` (pi resolves local paths from the cwd it started in, `resolveCliPaths`).
    pub extensions: Vec<String>,
    /// `--offline`: no network at startup, as `PI_OFFLINE=1`.
    pub offline: bool,
    /// `--print` / `-p`.
    pub print: bool,
    /// Unknown `--name[=value]` flags (pi hands them to extensions, then rejects the ones no
    /// extension registered).
    pub unknown_flags: Vec<(String, Option<String>)>,
    /// Positional message arguments. The first one, after the `@file` text, is the first prompt
    /// (`buildInitialMessage`, CA/cli/initial-message.js:5).
    pub messages: Vec<String>,
}

/// The thinking levels `--thinking` accepts (CA/cli/args.js:6).
fn is_valid_thinking_level(pi: &Pi, level: &str) -> bool {
    pi.data
        .defaults
        .get("thinkingLevels")
        .and_then(Value::as_array)
        .is_some_and(|a| a.iter().any(|v| v.as_str() == Some(level)))
}

/// `value.split(",").map(s => s.trim()).filter(name => name.length > 0)`.
pub fn split_list(value: &str) -> Vec<String> {
    value
        .split(',')
        .map(|s| crate::js::js_trim(s).to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// `parseArgs` (CA/cli/args.js:14–242), without the program name. Flags that take a value
/// consume it only when one follows (as pi's `i + 1 < args.length` checks do); otherwise the flag
/// falls through to the unknown-flag branch, as in pi. Diagnostics use pi's messages.
pub fn parse(pi: &Pi, args: &[String], diags: &mut Vec<Diagnostic>) -> PiArgs {
    let mut p = ArgParser {
        pi,
        args,
        i: 0,
        out: PiArgs::default(),
        diags,
    };
    while p.i < args.len() {
        let arg = args[p.i].as_str();
        match arg {
            "--" => {
                for a in &args[p.i + 1..] {
                    match a.strip_prefix('@') {
                        Some(f) => p.out.file_args.push(f.to_string()),
                        None => p.out.messages.push(a.clone()),
                    }
                }
                break;
            }
            _ => {
                if !p.startup_flag(arg) && !p.tool_flag(arg) && !p.mode_flag(arg) {
                    p.other_arg(arg);
                }
            }
        }
        p.i += 1;
    }
    p.out
}

/// `parseArgs`' loop state: the arguments, the index of the one being read (`i`), and what
/// has been found so far.
struct ArgParser<'a> {
    pi: &'a Pi,
    args: &'a [String],
    i: usize,
    out: PiArgs,
    diags: &'a mut Vec<Diagnostic>,
}

impl ArgParser<'_> {
    /// pi's `i + 1 < args.length`: a value follows the flag.
    fn has_next(&self) -> bool {
        self.i + 1 < self.args.len()
    }

    /// `parseArgs`' info, session, resource, model and system-prompt flags (`false`: not one).
    fn startup_flag(&mut self, arg: &str) -> bool {
        match arg {
            "--help" | "-h" | "--version" | "-v" => {
                self.diags.push(Diagnostic::warning(
                    ARGS,
                    None,
                    format!("{arg}: pi would print and exit without sending a request"),
                ));
            }
            "--continue" | "-c" | "--resume" | "-r" | "--no-session" | "--verbose"
            | "--no-themes" => {}
            "--offline" => self.out.offline = true,
            "--no-prompt-templates" | "-np" => self.out.no_prompt_templates = true,
            "--prompt-template" if self.has_next() => {
                self.i += 1;
                self.out.prompt_templates.push(self.args[self.i].clone());
            }
            "--mode" | "--session" | "--session-id" | "--fork" | "--session-dir" | "--export"
            | "--theme"
                if self.has_next() =>
            {
                self.i += 1;
            }
            "--extension" | "-e" if self.has_next() => {
                self.i += 1;
                self.out.extensions.push(self.args[self.i].clone());
            }
            "--api-key" if self.has_next() => {
                self.i += 1;
                self.out.api_key = Some(self.args[self.i].clone());
            }
            "--models" if self.has_next() => {
                self.i += 1;
                self.out.models = Some(split_list(&self.args[self.i]));
            }
            "--provider" if self.has_next() => {
                self.i += 1;
                self.out.provider = Some(self.args[self.i].clone());
            }
            "--model" if self.has_next() => {
                self.i += 1;
                self.out.model = Some(self.args[self.i].clone());
            }
            "--system-prompt" if self.has_next() => {
                self.i += 1;
                self.out.system_prompt = Some(self.args[self.i].clone());
            }
            "--append-system-prompt" if self.has_next() => {
                self.i += 1;
                self.out
                    .append_system_prompt
                    .get_or_insert_with(Vec::new)
                    .push(self.args[self.i].clone());
            }
            _ => return false,
        }
        true
    }

    /// `parseArgs`' `--name`, tool, thinking, print, extension and skill flags (`false`: not one).
    fn tool_flag(&mut self, arg: &str) -> bool {
        match arg {
            "--name" | "-n" => {
                if self.has_next() {
                    self.i += 1;
                } else {
                    self.diags
                        .push(Diagnostic::error(ARGS, None, "--name requires a value"));
                }
            }
            "--no-tools" | "-nt" => self.out.no_tools = true,
            "--no-builtin-tools" | "-nbt" => self.out.no_builtin_tools = true,
            "--tools" | "-t" if self.has_next() => {
                self.i += 1;
                self.out.tools = Some(split_list(&self.args[self.i]));
            }
            "--exclude-tools" | "-xt" if self.has_next() => {
                self.i += 1;
                self.out.exclude_tools = Some(split_list(&self.args[self.i]));
            }
            "--thinking" if self.has_next() => {
                self.i += 1;
                let level = &self.args[self.i];
                if is_valid_thinking_level(self.pi, level) {
                    self.out.thinking = Some(level.clone());
                } else {
                    self.diags.push(Diagnostic::warning(
                        ARGS,
                        None,
                        format!("Invalid thinking level \"{level}\". Valid values: off, minimal, low, medium, high, xhigh, max"),
                    ));
                }
            }
            "--print" | "-p" => {
                self.out.print = true;
                if let Some(next) = self.args.get(self.i + 1) {
                    if !next.starts_with('@') && (!next.starts_with('-') || next.starts_with("---"))
                    {
                        self.out.messages.push(next.clone());
                        self.i += 1;
                    }
                }
            }
            "--no-extensions" | "-ne" => self.out.no_extensions = true,
            "--skill" if self.has_next() => {
                self.i += 1;
                self.out.skills.push(self.args[self.i].clone());
            }
            _ => return false,
        }
        true
    }

    /// `parseArgs`' theme, no-skills/context, list-models, TUI and approval flags (`false`: none).
    fn mode_flag(&mut self, arg: &str) -> bool {
        match arg {
            "--use-theme" => match self.args.get(self.i + 1) {
                Some(t) if !t.starts_with('-') => self.i += 1,
                _ => self.diags.push(Diagnostic::error(
                    ARGS,
                    None,
                    "--use-theme requires a theme name",
                )),
            },
            "--no-skills" | "-ns" => self.out.no_skills = true,
            "--no-context-files" | "-nc" => self.out.no_context_files = true,
            "--list-models" => {
                self.diags.push(Diagnostic::warning(
                    ARGS,
                    None,
                    "--list-models: pi would list models and exit without sending a request",
                ));
                if self
                    .args
                    .get(self.i + 1)
                    .is_some_and(|n| !n.starts_with('-') && !n.starts_with('@'))
                {
                    self.i += 1;
                }
            }
            "--tui-mode" => match self.args.get(self.i + 1).map(String::as_str) {
                Some("regular" | "fullscreen") => self.i += 1,
                None => self.diags.push(Diagnostic::error(
                    ARGS,
                    None,
                    "--tui-mode requires regular or fullscreen",
                )),
                Some(m) if m.starts_with('-') => self.diags.push(Diagnostic::error(
                    ARGS,
                    None,
                    "--tui-mode requires regular or fullscreen",
                )),
                Some(m) => {
                    self.diags.push(Diagnostic::error(
                        ARGS,
                        None,
                        format!("Invalid TUI mode \"{m}\". Valid values: regular, fullscreen"),
                    ));
                    self.i += 1;
                }
            },
            "--approve" | "-a" => self.out.approve = Some(true),
            "--no-approve" | "-na" => self.out.approve = Some(false),
            _ => return false,
        }
        true
    }

    /// `parseArgs`' last branches: an `@file`, an unknown `--flag` or `-x`, else a message.
    fn other_arg(&mut self, arg: &str) {
        match arg {
            _ if arg.starts_with('@') => self
                .out
                .file_args
                .push(arg.get(1..).unwrap_or_default().to_string()),
            _ if arg.starts_with("--") => {
                let (name, value) = match arg.find('=') {
                    Some(eq) => (
                        arg.get(2..eq).unwrap_or_default().to_string(),
                        Some(arg.get(eq + 1..).unwrap_or_default().to_string()),
                    ),
                    None => match self.args.get(self.i + 1) {
                        Some(next) if !next.starts_with('-') && !next.starts_with('@') => {
                            self.i += 1;
                            (
                                arg.get(2..).unwrap_or_default().to_string(),
                                Some(next.clone()),
                            )
                        }
                        _ => (arg.get(2..).unwrap_or_default().to_string(), None),
                    },
                };
                // Unknown flags go to extensions (CA/core/agent-session-services.js:20–43); with
                // none registering them pi stops with "Unknown option".
                self.diags.push(
                    Diagnostic::error(
                        ARGS,
                        None,
                        format!("Unknown option: --{name} (no extension registers it)"),
                    )
                    .skipping(match &value {
                        Some(v) => format!("--{name} {v}"),
                        None => format!("--{name}"),
                    }),
                );
                match self.out.unknown_flags.iter_mut().find(|(n, _)| *n == name) {
                    Some(slot) => slot.1 = value,
                    None => self.out.unknown_flags.push((name, value)),
                }
            }
            _ if arg.starts_with('-') => {
                self.diags.push(
                    Diagnostic::error(ARGS, None, format!("Unknown option: {arg}"))
                        .skipping(arg.to_string()),
                );
            }
            _ => self.out.messages.push(arg.to_string()),
        }
    }
}

/// What the `@file` arguments contribute to the first message: text prepended to the prompt
/// and image blocks.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Attachments {
    pub text: String,
    pub images: Vec<Value>,
    /// The absolute path of each attachment, in order (for the trace).
    pub paths: Vec<String>,
}

/// `resolveReadPath(filePath, cwd)` (CA/core/tools/path-utils.js:45): the path as given, else
/// the macOS screenshot variants (narrow no-break space before AM/PM, curly apostrophe). The NFD
/// variant is not tried (file names in the virtual tree are taken as given).
pub fn resolve_read_path(file_path: &str, cwd: &str, home: &str, fs: &VirtualFs) -> String {
    let resolved = resolve_pi_path(
        file_path,
        cwd,
        home,
        PathOptions {
            normalize_unicode_spaces: true,
            strip_at_prefix: true,
            trim: false,
        },
    );
    let exists = |p: &str| fs.is_file(p) || fs.is_dir(p);
    if exists(&resolved) {
        return resolved;
    }
    let am_pm = replace_am_pm(&resolved);
    if am_pm != resolved && exists(&am_pm) {
        return am_pm;
    }
    let curly = resolved.replace('\'', "\u{2019}");
    if curly != resolved && exists(&curly) {
        return curly;
    }
    resolved
}

/// `filePath.replace(/ (AM|PM)\./gi, "\u202F$1.")`.
fn replace_am_pm(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == ' '
            && i + 3 < chars.len()
            && matches!(chars[i + 1], 'a' | 'A' | 'p' | 'P')
            && matches!(chars[i + 2], 'm' | 'M')
            && chars[i + 3] == '.'
        {
            out.push('\u{202F}');
            out.push(chars[i + 1]);
            out.push(chars[i + 2]);
            out.push('.');
            i += 4;
            continue;
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

/// Reads `@file` arguments relative to `cwd` (pi's `process.cwd()`) as `processFileArguments`
/// (CA/cli/file-processor.js:12–70) does: empty files are skipped; images (sniffed by
/// [`detect_supported_image_mime_type`]) become `{type:"image", mimeType, data}` blocks plus a
/// `<file name="...">` reference; text files are inlined as `<file name="...">\n...\n</file>\n`.
/// pi exits on a missing file; here that becomes an error diagnostic and the file is skipped.
pub fn process_file_args(
    pi: &Pi,
    file_args: &[String],
    cwd: &str,
    home: &str,
    auto_resize_images: bool,
    fs: &VirtualFs,
    diags: &mut Vec<Diagnostic>,
) -> Attachments {
    let s = |k: &str| pi.data.string("fileProcessor", k);
    let mut out = Attachments::default();
    for arg in file_args {
        let path = resolve_read_path(arg, cwd, home, fs);
        let Some(bytes) = fs.get(&path) else {
            let what = if fs.is_dir(&path) {
                "is a directory"
            } else {
                "not found"
            };
            diags.push(
                Diagnostic::error(
                    format!("@{arg}"),
                    None,
                    format!("Error: File {what}: {path} (pi would exit)"),
                )
                .skipping(format!("@{arg}")),
            );
            continue;
        };
        if bytes.is_empty() {
            diags.push(Diagnostic::info(&path, None, "empty file: pi skips it"));
            continue;
        }
        out.paths.push(path.clone());
        let sniff = &bytes[..bytes.len().min(IMAGE_TYPE_SNIFF_BYTES)];
        if let Some(mime) = detect_supported_image_mime_type(sniff) {
            let (mime_type, data) = process_image(bytes, mime, auto_resize_images, &path, diags);
            out.images.push(Value::Object(
                Object::new()
                    .with("type", "image")
                    .with("mimeType", mime_type)
                    .with("data", data),
            ));
            // No processing hints without a resize or conversion: `<file name="...">` + "" + `</file>\n`.
            out.text.push_str(&format!(
                "{}{}{}{}",
                s("nameOpen"),
                path,
                s("nameClose"),
                s("fileClose")
            ));
        } else {
            let text = String::from_utf8_lossy(bytes);
            let text = text.strip_prefix('\u{FEFF}').unwrap_or(&text);
            out.text.push_str(&format!(
                "{}{}{}{}{}{}{}",
                s("nameOpen"),
                path,
                s("nameClose"),
                s("textBodyPrefix"),
                text,
                s("textBodySuffix"),
                s("fileClose")
            ));
        }
    }
    out
}

/// `processImage` (CA/utils/image-process.js:41–82) for what can be reproduced offline: PNG,
/// JPEG, GIF and WebP pass through as base64 when they are within pi's resize limits (2000×2000
/// pixels, 4.5 MB of base64). Conversion (BMP) and resizing need pi's image library: those are
/// reported, and the original bytes are used.
fn process_image(
    bytes: &[u8],
    mime: &'static str,
    auto_resize: bool,
    path: &str,
    diags: &mut Vec<Diagnostic>,
) -> (&'static str, String) {
    if mime == "image/bmp" {
        diags.push(Diagnostic::warning(path, None, "pi converts BMP images to PNG with its image library; ctxlens cannot reproduce those bytes"));
        return ("image/png", base64(bytes));
    }
    if auto_resize {
        let base64_size = bytes.len().div_ceil(3) * 4;
        let too_big = base64_size as f64 >= 4.5 * 1024.0 * 1024.0;
        let dims = image_dimensions(bytes, mime);
        let too_wide = dims.is_some_and(|(w, h)| w > 2000 || h > 2000);
        if too_big || too_wide {
            diags.push(Diagnostic::warning(path, None, "pi resizes this image (over 2000 px or 4.5 MB) with its image library; ctxlens cannot reproduce those bytes and keeps the original"));
        }
        if dims.is_none() {
            diags.push(Diagnostic::info(
                path,
                None,
                "image dimensions unreadable; pi's image library may reject or resize it",
            ));
        }
    }
    (mime, base64(bytes))
}

/// Width and height from the image header, when it can be read.
fn image_dimensions(b: &[u8], mime: &str) -> Option<(u32, u32)> {
    let be32 = |o: usize| {
        b.get(o..o + 4)
            .map(|x| u32::from_be_bytes([x[0], x[1], x[2], x[3]]))
    };
    let le16 = |o: usize| {
        b.get(o..o + 2)
            .map(|x| u16::from_le_bytes([x[0], x[1]]) as u32)
    };
    match mime {
        "image/png" => Some((be32(16)?, be32(20)?)),
        "image/gif" => Some((le16(6)?, le16(8)?)),
        "image/webp" => match b.get(12..16)? {
            b"VP8 " => Some((le16(26)? & 0x3fff, le16(28)? & 0x3fff)),
            b"VP8L" => {
                let x = b.get(21..25)?;
                let v = u32::from_le_bytes([x[0], x[1], x[2], x[3]]);
                Some(((v & 0x3fff) + 1, ((v >> 14) & 0x3fff) + 1))
            }
            b"VP8X" => {
                let w = b.get(24..27)?;
                let h = b.get(27..30)?;
                Some((
                    u32::from_le_bytes([w[0], w[1], w[2], 0]) + 1,
                    u32::from_le_bytes([h[0], h[1], h[2], 0]) + 1,
                ))
            }
            _ => None,
        },
        "image/jpeg" => {
            let mut i = 2;
            while i + 9 < b.len() {
                if b[i] != 0xff {
                    return None;
                }
                let marker = b[i + 1];
                if marker == 0xff {
                    i += 1;
                    continue;
                }
                let len = u16::from_be_bytes([b[i + 2], b[i + 3]]) as usize;
                if matches!(marker, 0xc0..=0xc3 | 0xc5..=0xc7 | 0xc9..=0xcb | 0xcd..=0xcf) {
                    let h = u16::from_be_bytes([b[i + 5], b[i + 6]]) as u32;
                    let w = u16::from_be_bytes([b[i + 7], b[i + 8]]) as u32;
                    return Some((w, h));
                }
                i += 2 + len;
            }
            None
        }
        _ => None,
    }
}

/// `Buffer.from(bytes).toString("base64")`.
pub fn base64(bytes: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = (chunk[0] as u32) << 16
            | (*chunk.get(1).unwrap_or(&0) as u32) << 8
            | *chunk.get(2).unwrap_or(&0) as u32;
        out.push(T[(n >> 18) as usize & 63] as char);
        out.push(T[(n >> 12) as usize & 63] as char);
        out.push(if chunk.len() > 1 {
            T[(n >> 6) as usize & 63] as char
        } else {
            '='
        });
        out.push(if chunk.len() > 2 {
            T[n as usize & 63] as char
        } else {
            '='
        });
    }
    out
}

/// `IMAGE_TYPE_SNIFF_BYTES` (CA/utils/mime.js:2).
const IMAGE_TYPE_SNIFF_BYTES: usize = 4100;
const PNG_SIGNATURE: [u8; 8] = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/// `detectSupportedImageMimeType` (CA/utils/mime.js:4–21) over the first 4100 bytes.
pub fn detect_supported_image_mime_type(buf: &[u8]) -> Option<&'static str> {
    if buf.starts_with(&[0xff, 0xd8, 0xff]) {
        return if buf.get(3) == Some(&0xf7) {
            None
        } else {
            Some("image/jpeg")
        };
    }
    if buf.starts_with(&PNG_SIGNATURE) {
        return (is_png(buf) && !is_animated_png(buf)).then_some("image/png");
    }
    if starts_with_ascii(buf, 0, "GIF") {
        return Some("image/gif");
    }
    if starts_with_ascii(buf, 0, "RIFF") && starts_with_ascii(buf, 8, "WEBP") {
        return Some("image/webp");
    }
    if starts_with_ascii(buf, 0, "BM") && is_bmp(buf) {
        return Some("image/bmp");
    }
    None
}

fn byte(b: &[u8], i: usize) -> u32 {
    b.get(i).copied().unwrap_or(0) as u32
}

fn read_u32_be(b: &[u8], o: usize) -> u64 {
    byte(b, o) as u64 * 0x1000000
        + ((byte(b, o + 1) << 16) + (byte(b, o + 2) << 8) + byte(b, o + 3)) as u64
}

fn read_u32_le(b: &[u8], o: usize) -> u64 {
    (byte(b, o) + (byte(b, o + 1) << 8) + (byte(b, o + 2) << 16)) as u64
        + byte(b, o + 3) as u64 * 0x1000000
}

fn read_u16_le(b: &[u8], o: usize) -> u32 {
    byte(b, o) + (byte(b, o + 1) << 8)
}

fn starts_with_ascii(b: &[u8], offset: usize, text: &str) -> bool {
    b.len() >= offset + text.len() && &b[offset..offset + text.len()] == text.as_bytes()
}

/// `isPng` (CA/utils/mime.js:33).
fn is_png(b: &[u8]) -> bool {
    b.len() >= 16 && read_u32_be(b, 8) == 13 && starts_with_ascii(b, 12, "IHDR")
}

/// `isAnimatedPng` (CA/utils/mime.js:36–51).
fn is_animated_png(b: &[u8]) -> bool {
    let mut offset: u64 = PNG_SIGNATURE.len() as u64;
    while offset + 8 <= b.len() as u64 {
        let o = offset as usize;
        let chunk_length = read_u32_be(b, o);
        if starts_with_ascii(b, o + 4, "acTL") {
            return true;
        }
        if starts_with_ascii(b, o + 4, "IDAT") {
            return false;
        }
        let next = offset + 8 + chunk_length + 4;
        if next <= offset || next > b.len() as u64 {
            return false;
        }
        offset = next;
    }
    false
}

/// `isBmp` (CA/utils/mime.js:52–80).
fn is_bmp(b: &[u8]) -> bool {
    if b.len() < 26 {
        return false;
    }
    let declared = read_u32_le(b, 2);
    let pixel_offset = read_u32_le(b, 10);
    let dib = read_u32_le(b, 14);
    if declared != 0 && declared < 26 {
        return false;
    }
    if pixel_offset < 14 + dib {
        return false;
    }
    if declared != 0 && pixel_offset >= declared {
        return false;
    }
    let (planes, bpp) = if dib == 12 {
        (read_u16_le(b, 22), read_u16_le(b, 24))
    } else if (40..=124).contains(&dib) {
        if b.len() < 30 {
            return false;
        }
        (read_u16_le(b, 26), read_u16_le(b, 28))
    } else {
        return false;
    };
    planes == 1 && [1, 4, 8, 16, 24, 32].contains(&bpp)
}

#[cfg(test)]
#[path = "args_tests.rs"]
mod tests;
