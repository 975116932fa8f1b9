//! The default command: the human summary of an assembly (`ctxlens::report::summary`, shared
//! with the npm package's bin), or with `--json` the whole report for machines.

use std::io::{self, Write};

use ctxlens::Assembly;

/// Writes the summary (`json`: the report JSON) to `out`.
pub fn write(out: &mut impl Write, a: &Assembly, json: bool) -> io::Result<()> {
    if json {
        writeln!(
            out,
            "{}",
            ctxlens::report::assembly_json(a).to_json_pretty(2)
        )
    } else {
        out.write_all(ctxlens::report::summary::text(a).as_bytes())
    }
}
