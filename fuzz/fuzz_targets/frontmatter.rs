//! The YAML frontmatter of SKILL.md files and prompt templates: the YAML parser, the frontmatter
//! split, the skill's name as the app recognises it.
#![no_main]
use ctxlens::{prompt_templates, recognize, resources, yaml};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = yaml::parse(&text);
    let _ = resources::parse_frontmatter(&text);
    let _ = resources::strip_frontmatter(&text);
    let _ = prompt_templates::frontmatter_body(&text);
    let _ = recognize::frontmatter_name(&text);
});
