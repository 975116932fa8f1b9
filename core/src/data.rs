//! pi's literal facts, generated from the npm package by `scripts/extract-pi-data.sh` into
//! `core/data/pi-0.85.1/` and embedded here. A future pi version is a new folder, not new code.

use std::sync::OnceLock;

use crate::js::{self, Value};

pub const PI_VERSION: &str = "0.85.1";

macro_rules! data_file {
    ($fn:ident, $file:literal) => {
        pub fn $fn() -> &'static Value {
            static CELL: OnceLock<Value> = OnceLock::new();
            CELL.get_or_init(|| {
                js::parse(include_str!(concat!("../data/pi-0.85.1/", $file)))
                    .unwrap_or_else(|e| panic!("data/pi-0.85.1/{} is not valid JSON: {e}", $file))
            })
        }
    };
}

data_file!(tools, "tools.json");
data_file!(prompt, "prompt.json");
data_file!(strings, "strings.json");
data_file!(catalog, "models.json");
data_file!(defaults, "defaults.json");

/// A string from `prompt.json`.
pub fn prompt_str(key: &str) -> &'static str {
    prompt()
        .get_str(key)
        .unwrap_or_else(|| panic!("prompt.json has no string {key:?}"))
}

/// A string from `strings.json`, by `group.key`.
pub fn string(group: &str, key: &str) -> &'static str {
    strings()
        .get(group)
        .and_then(|g| g.get_str(key))
        .unwrap_or_else(|| panic!("strings.json has no string {group}.{key}"))
}
