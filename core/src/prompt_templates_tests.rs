//! Expected values are what pi's own `substituteArgs` / `parseCommandArgs` return (0.85.1 and
//! 1.6.0, run with node on these inputs).

use super::*;
use crate::pi::PromptTemplateArgs::{QuoteAnywhere, QuoteOpensToken};

fn a(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn substitution_follows_pis_regex() {
    let args = a(&["one", "two", "three"]);
    let cases = [
        ("$1-$2-$3-$4.", "one-two-three-."),
        ("all: $@ / $ARGUMENTS", "all: one two three / one two three"),
        (
            "${@:2}|${@:2:1}|${@:0}|${@:9}|${@:1:0}",
            "two three|two|one two three||",
        ),
        (
            "${1:-x} ${4:-four} ${0:-zero} ${@:-none}",
            "one four zero one two three",
        ),
        (
            "$0 $ $$1 ${x} ${@:} ${@:2:} ${1:-a",
            " $ $one ${x} ${@:} ${@:2:} ${1:-a",
        ),
        (
            "$10 $99999999999999999999999 ${99999999999999999999:-d}",
            "  d",
        ),
        ("$ARGUMENTSX $@@", "one two threeX one two three@"),
    ];
    for (template, want) in cases {
        assert_eq!(substitute_args(template, &args), want, "{template}");
    }
    // Values are not substituted again; empty values take the default.
    assert_eq!(substitute_args("$1 ${2:-d}", &a(&["$2", ""])), "$2 d");
    assert_eq!(substitute_args("${@:-none}", &[]), "none");
}

#[test]
fn arguments_split_as_each_release_splits_them() {
    let s = r#"a "b c" d'e f' "" 'x \' y' un"closed"#;
    assert_eq!(
        parse_command_args(QuoteAnywhere, s),
        a(&["a", "b c", "de f", "x \\", "y un\"closed"])
    );
    assert_eq!(
        parse_command_args(QuoteOpensToken, s),
        a(&["a", "b c", "d'e", "f'", "", "x ' y", "un\"closed"])
    );
    // An unclosed quote at the start of an argument is text in 1.6.0.
    assert_eq!(
        parse_command_args(QuoteOpensToken, "'it is"),
        a(&["'it", "is"])
    );
    assert_eq!(parse_command_args(QuoteAnywhere, "'it is"), a(&["it is"]));
    assert_eq!(
        parse_command_args(QuoteOpensToken, "  "),
        Vec::<String>::new()
    );
}

#[test]
fn frontmatter_body_is_trimmed_only_after_frontmatter() {
    assert_eq!(frontmatter_body("\u{FEFF}  body\r\n"), "  body\n");
    assert_eq!(
        frontmatter_body("---\ndescription: d\n---\n\n body \n"),
        "body"
    );
    assert_eq!(frontmatter_body("---\nno end\n"), "---\nno end\n");
}
