//! The small readers of user text: pi's command line, a prompt template's arguments and their
//! substitution, models.json's comments and config values, dates.
#![no_main]
use std::collections::BTreeMap;

use ctxlens::model as config;
use ctxlens::pi::PromptTemplateArgs;
use ctxlens::{args, js, prompt_templates, Pi};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let pi = Pi::new(ctxlens_fuzz::release(data.len())).expect("compiled-in release data");
    let words: Vec<String> = text.split('\n').map(String::from).collect();
    let mut diags = Vec::new();
    let _ = args::parse(&pi, &words, &mut diags);
    for mode in [
        PromptTemplateArgs::QuoteAnywhere,
        PromptTemplateArgs::QuoteAnywhereKeepEmpty,
        PromptTemplateArgs::QuoteOpensToken,
    ] {
        let a = prompt_templates::parse_command_args(mode, &text);
        let _ = prompt_templates::substitute_args(&text, &a);
    }
    let _ = config::strip_json_comments(&text);
    let _ = config::config_value_env_var_names(&text);
    let env = BTreeMap::from([("HOME".to_string(), "/home/user".to_string())]);
    let _ = config::resolve_config_value(&text, &env);
    let _ = js::date::date_parse(&text);
});
