//! The page's words for what the core says in the CLI's: a diagnostic, a stage's note or the
//! release's explanation that tells a CLI user to pass a flag (`--pi 0.85.1`, `--call`,
//! `--model`, `--prompt`, `--tool-set`) names the page's control instead. One place: every
//! view that shows the core's text runs it through [`for_the_page`]. pi's own words (what it
//! prints, its own flags such as `--system-prompt`) are kept as they are.

/// What to do on the page when pi has no model to use.
const PICK_MODEL: &str = "On this page: pick a model in the settings (Model), or drop your agent dir's models.json on the Agent dir target when the session's model is a custom one; no key is needed (a placeholder stands in).";

/// Where the page's release picker is.
const PI_MENU: &str = "the pi menu at the top";

/// `message` worded for the page: ctxlens's own CLI wording replaced by what to drop or pick
/// here; pi's own words (what it prints) kept, with what to do on the page after them.
pub fn for_the_page(message: &str) -> String {
    let whole = whole_message(message).unwrap_or_else(|| message.to_string());
    let text = pi_flags(&whole);
    let text = call_flags(&text);
    text.replace(
        "--prompt gives the next request",
        "a next prompt (the settings) gives the next request",
    )
    .replace(
        "give --tool-set to say otherwise",
        "drop a tool set (a tools.json) on the page to say otherwise",
    )
}

/// The messages said again as a whole for the page: no model, a call's model these files do
/// not define, pi's own refusals (kept, with what to do here after them).
fn whole_message(message: &str) -> Option<String> {
    if message.starts_with("no model: pass --model") {
        return Some(format!(
            "no model: the session names no model pi knows, and none is picked. {PICK_MODEL}"
        ));
    }
    if let Some(i) = message.find("pass --model ") {
        // A call's model that these files do not define (the core's advice is the CLI's flag).
        let model = message[i + "pass --model ".len()..]
            .split_whitespace()
            .next()
            .unwrap_or("");
        return Some(format!(
            "{}drop your agent dir's models.json that defines {model} on the Agent dir target, or pick the model in the settings (Model)",
            &message[..i]
        ));
    }
    if message.contains("No models available") || message.contains("No API key found") {
        return Some(format!("{message}\n{PICK_MODEL}"));
    }
    if message.contains("Cannot continue from message role: assistant")
        || message.contains("No messages to continue from")
    {
        // pi's words, without the CLI's flags.
        let pi_words = match message.find(" (no prompt: pi's continue;") {
            Some(i) => &message[..i],
            None => message,
        };
        return Some(format!(
            "{pi_words}\nOn this page: pi's continue needs a session that ends with tool results: type a next prompt in the settings (Next prompt), or pick a call of the session to see the request pi sent for it."
        ));
    }
    None
}

/// The releases named by `--pi A`, `--pi A or --pi B`, … at the start of `text`, and the length
/// of that run.
fn pi_run(text: &str) -> Option<(usize, Vec<&str>)> {
    let mut versions = Vec::new();
    let mut at = 0;
    loop {
        let rest = text[at..].strip_prefix("--pi ")?;
        let len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let v = rest[..len].trim_end_matches('.');
        if v.is_empty() {
            return None;
        }
        versions.push(v);
        at += "--pi ".len() + v.len();
        if !text[at..].starts_with(" or --pi ") {
            return Some((at, versions));
        }
        at += " or ".len();
    }
}

/// `--pi …` said as the pi menu: `, --pi A for another` → `; pick pi A in the pi menu … for
/// another`; `with --pi A` → `with pi A (pick it in the pi menu …)`; elsewhere `pi A (the pi
/// menu …)`.
fn pi_flags(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    let mut rest = text;
    while let Some(i) = rest.find("--pi ") {
        let Some((len, versions)) = pi_run(&rest[i..]) else {
            out.push_str(&rest[..i + "--pi ".len()]);
            rest = &rest[i + "--pi ".len()..];
            continue;
        };
        let named = format!("pi {}", versions.join(" or "));
        let before = &rest[..i];
        let after = &rest[i + len..];
        if let (Some(b), Some(a)) = (
            before.strip_suffix(", "),
            after.strip_prefix(" for another"),
        ) {
            out.push_str(b);
            out.push_str(&format!("; pick {named} in {PI_MENU} for another"));
            rest = a;
        } else if let Some(b) = before.strip_suffix("with ") {
            out.push_str(b);
            out.push_str(&format!("with {named} (pick it in {PI_MENU})"));
            rest = after;
        } else {
            out.push_str(before);
            out.push_str(&format!("{named} ({PI_MENU})"));
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// `(--call)`, `(--call ENTRY-ID)` (how a past call was asked for) → `(the call picked)`.
fn call_flags(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("(--call") {
        let Some(close) = rest[i..].find(')') else {
            break;
        };
        out.push_str(&rest[..i]);
        out.push_str("(the call picked)");
        rest = &rest[i + close + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::for_the_page;

    #[test]
    fn cli_wording_is_replaced_and_pi_s_words_are_kept() {
        let m = for_the_page(
            "no model: pass --model provider/id or a session whose model is configured",
        );
        assert!(!m.contains("--model"), "{m}");
        assert!(m.contains("pick a model in the settings"));
        let pi = "pi would fail here: it prints this and exits with status 1 before sending a request:\nNo models available. Use /login to log into a provider";
        let m = for_the_page(pi);
        assert!(m.starts_with(pi) && m.contains("models.json on the Agent dir target"));
        let m = for_the_page("pi would fail here: Error: Cannot continue from message role: assistant (no prompt: pi's continue; --prompt gives the next request, --call a past one)");
        assert!(
            m.starts_with(
                "pi would fail here: Error: Cannot continue from message role: assistant\n"
            ),
            "{m}"
        );
        assert!(!m.contains("--prompt") && !m.contains("--call"), "{m}");
        assert!(m.contains("type a next prompt") && m.contains("pick a call"));
        let m = for_the_page("call 1: the model that answered it, acme/acme-1, is not one pi can restore from these files (pi finds no model): pi may have made it from --model at the time; pass --model acme/acme-1 to rebuild the call with it");
        assert!(!m.contains("pass --model"), "{m}");
        assert!(m.ends_with("drop your agent dir's models.json that defines acme/acme-1 on the Agent dir target, or pick the model in the settings (Model)"), "{m}");
        assert_eq!(for_the_page("other"), "other");
    }

    /// The core's advice to pass `--pi` names the page's pi menu (the call's warning, the
    /// detection's ambiguity), whatever the sentence around it.
    #[test]
    fn the_release_flag_is_the_pi_menu() {
        let m = for_the_page("call 2: its branch holds no system message, which pi 1.6.0 stores before its first call: an older pi (0.85) made this call, so the request has no system prompt or tools here; rebuild it with --pi 0.85.1");
        assert!(
            m.ends_with("; rebuild it with pi 0.85.1 (pick it in the pi menu at the top)"),
            "{m}"
        );
        let m = for_the_page("pi 1.5.0, 1.5.2 write sessions alike: nothing in this one tells them apart; rebuilding pi 1.5.2 (the newest), --pi 1.5.0 for another");
        assert_eq!(m, "pi 1.5.0, 1.5.2 write sessions alike: nothing in this one tells them apart; rebuilding pi 1.5.2 (the newest); pick pi 1.5.0 in the pi menu at the top for another");
        let m =
            for_the_page("rebuilding pi 1.6.0 (the newest), --pi 1.4.0 or --pi 1.5.0 for another.");
        assert_eq!(m, "rebuilding pi 1.6.0 (the newest); pick pi 1.4.0 or 1.5.0 in the pi menu at the top for another.");
        assert_eq!(
            for_the_page("as --pi 0.87.1 does"),
            "as pi 0.87.1 (the pi menu at the top) does"
        );
        // Not a release: kept.
        assert_eq!(
            for_the_page("--pi-dir /x and --pi x"),
            "--pi-dir /x and --pi x"
        );
        for m in ["rebuild it with --pi 0.85.1", "--pi 1.4.0 or --pi 1.5.0"] {
            assert!(!for_the_page(m).contains("--pi"), "{m}");
        }
    }

    #[test]
    fn a_call_asked_for_is_the_call_picked_and_pi_s_flags_stay() {
        assert_eq!(
            for_the_page("call 3 of the active branch (--call)"),
            "call 3 of the active branch (the call picked)"
        );
        assert_eq!(
            for_the_page("call 2 of another branch (--call a1b2): its branch is the path from the root to it"),
            "call 2 of another branch (the call picked): its branch is the path from the root to it"
        );
        let m = for_the_page("its last call, call 4, is rebuilt (pi would refuse to continue from an assistant message; --prompt gives the next request)");
        assert!(!m.contains("--prompt"), "{m}");
        let m = for_the_page("their prompt snippets and guidelines are not stored (taken as none); give --tool-set to say otherwise");
        assert!(
            m.ends_with("drop a tool set (a tools.json) on the page to say otherwise"),
            "{m}"
        );
        // pi's own flags are pi's words.
        let pi =
            "--no-context-files: pi reads no context file; --append-system-prompt, --system-prompt";
        assert_eq!(for_the_page(pi), pi);
    }
}
