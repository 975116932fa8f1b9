use super::*;
use crate::inputs::VirtualFs;

fn fs_with(files: &[(&str, &str)]) -> VirtualFs {
    let mut fs = VirtualFs::new();
    for (p, c) in files {
        fs.insert(p, c.as_bytes().to_vec());
    }
    fs
}

fn settings(project: &str, global: &str) -> Settings {
    let obj = |t: &str| crate::js::parse(t).unwrap().as_object().unwrap().clone();
    Settings {
        project: obj(project),
        global: obj(global),
        project_trusted: true,
        ..Default::default()
    }
}

fn resolved(fs: &VirtualFs, s: &Settings, pi: &Pi) -> (PackageResources, Vec<Diagnostic>) {
    let mut d = Vec::new();
    let r = Resolver {
        pi,
        fs,
        home: "/h",
        agent_dir: "/h/.pi/agent",
        cwd: "/p",
        process_cwd: "/p",
        offline: true,
        npm_global_root: None,
    }
    .resolve(s, &[], &mut d);
    (r, d)
}

fn enabled(list: &[PackagePath]) -> Vec<&str> {
    list.iter()
        .filter(|p| p.enabled)
        .map(|p| p.path.as_str())
        .collect()
}

const KIT: &str = "/h/.pi/agent/npm/node_modules/@acme/kit";

fn kit(files: &[(&str, &str)]) -> VirtualFs {
    let mut all = vec![
        (
            "/h/.pi/agent/npm/node_modules/@acme/kit/package.json",
            "{\"version\": \"1.2.0\"}",
        ),
        (
            "/h/.pi/agent/npm/node_modules/@acme/kit/skills/a/SKILL.md",
            "a",
        ),
        (
            "/h/.pi/agent/npm/node_modules/@acme/kit/skills/b/SKILL.md",
            "b",
        ),
        ("/h/.pi/agent/npm/node_modules/@acme/kit/prompts/x.md", "x"),
        (
            "/h/.pi/agent/npm/node_modules/@acme/kit/prompts/sub/y.md",
            "y",
        ),
    ];
    all.extend_from_slice(files);
    fs_with(&all)
}

#[test]
fn sources_parse_as_pi_parses_them() {
    let npm = |n: &str, v: Option<&str>| Source::Npm {
        name: n.into(),
        version: v.map(String::from),
    };
    assert_eq!(parse_source("npm:@a/b@1.2.3"), npm("@a/b", Some("1.2.3")));
    assert_eq!(parse_source("npm:pkg"), npm("pkg", None));
    let git = |h: &str, p: &str| Source::Git {
        host: h.into(),
        path: p.into(),
        reference: None,
    };
    let at = |h: &str, p: &str, r: &str| Source::Git {
        host: h.into(),
        path: p.into(),
        reference: Some(r.into()),
    };
    assert_eq!(
        parse_source("git:github.com/u/r@v1"),
        at("github.com", "u/r", "v1")
    );
    assert_eq!(
        parse_source("git:git@github.com:u/r@v2"),
        at("github.com", "u/r", "v2")
    );
    assert_eq!(
        parse_source("git:git@github.com:u/r.git"),
        git("github.com", "u/r")
    );
    assert_eq!(
        parse_source("https://gitlab.com/u/r@abc"),
        at("gitlab.com", "u/r", "abc")
    );
    assert_eq!(
        parse_source("ssh://git@github.com/u/r"),
        git("github.com", "u/r")
    );
    // Without `git:`, a bare host path is a local path.
    assert_eq!(
        parse_source("github.com/u/r"),
        Source::Local {
            path: "github.com/u/r".into()
        }
    );
}

#[test]
fn an_npm_package_brings_its_conventional_folders() {
    let fs = kit(&[]);
    let s = settings("{}", r#"{"packages": ["npm:@acme/kit"]}"#);
    let (r, d) = resolved(&fs, &s, &crate::testcase::pi());
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(
        enabled(&r.skills),
        [
            format!("{KIT}/skills/a/SKILL.md"),
            format!("{KIT}/skills/b/SKILL.md")
        ]
    );
    assert_eq!(
        enabled(&r.prompts),
        [
            format!("{KIT}/prompts/sub/y.md"),
            format!("{KIT}/prompts/x.md")
        ]
    );
    assert_eq!(
        r.package_of(&format!("{KIT}/prompts/x.md")),
        Some("npm:@acme/kit")
    );
    assert_eq!(r.packages[0].root.as_deref(), Some(KIT));
}

#[test]
fn filters_narrow_a_package() {
    let fs = kit(&[]);
    let s = settings(
        "{}",
        r#"{"packages": [{"source": "npm:@acme/kit", "skills": ["!b"], "prompts": []}]}"#,
    );
    let (r, _) = resolved(&fs, &s, &crate::testcase::pi());
    assert_eq!(enabled(&r.skills), [format!("{KIT}/skills/a/SKILL.md")]);
    assert!(enabled(&r.prompts).is_empty());
    // Disabled paths still hold their places.
    assert_eq!(r.prompts.len(), 2);
    let s = settings(
        "{}",
        r#"{"packages": [{"source": "npm:@acme/kit", "skills": ["skills/*", "-skills/a"], "prompts": ["prompts/x.md"]}]}"#,
    );
    let (r, _) = resolved(&fs, &s, &crate::testcase::pi());
    assert_eq!(enabled(&r.skills), [format!("{KIT}/skills/b/SKILL.md")]);
    assert_eq!(enabled(&r.prompts), [format!("{KIT}/prompts/x.md")]);
}

#[test]
fn autoload_off_loads_only_what_its_patterns_name() {
    let fs = kit(&[]);
    let s = settings(
        "{}",
        r#"{"packages": [{"source": "npm:@acme/kit", "autoload": false, "skills": ["+skills/b"]}]}"#,
    );
    let (r, _) = resolved(&fs, &s, &crate::testcase::pi());
    assert_eq!(enabled(&r.skills), [format!("{KIT}/skills/b/SKILL.md")]);
    assert!(r.prompts.is_empty());
}

#[test]
fn the_project_entry_wins_and_a_local_path_is_relative_to_its_settings_file() {
    let fs = fs_with(&[
        ("/p/vendor/kit/skills/c/SKILL.md", "c"),
        ("/h/.pi/agent/vendor/kit/skills/d/SKILL.md", "d"),
    ]);
    let s = settings(
        r#"{"packages": ["../vendor/kit"]}"#,
        r#"{"packages": ["vendor/kit", "/p/vendor/kit"]}"#,
    );
    let (r, _) = resolved(&fs, &s, &crate::testcase::pi());
    // The project's `../vendor/kit` is `/p/vendor/kit`: the user's same path is dropped.
    assert_eq!(r.packages.len(), 2);
    assert_eq!(r.packages[0].scope, Scope::Project);
    assert_eq!(
        enabled(&r.skills),
        [
            "/p/vendor/kit/skills/c/SKILL.md",
            "/h/.pi/agent/vendor/kit/skills/d/SKILL.md"
        ]
    );
}

#[test]
fn a_manifest_without_resource_fields_counts_only_before_1_5() {
    let fs = kit(&[(
        "/h/.pi/agent/npm/node_modules/@acme/kit/package.json",
        r#"{"version": "1.2.0", "pi": {"video": "v.mp4"}}"#,
    )]);
    let s = settings("{}", r#"{"packages": ["npm:@acme/kit"]}"#);
    let old = crate::Pi::new(crate::PiVersion::V0_85_1).unwrap();
    assert!(resolved(&fs, &s, &old).0.skills.is_empty());
    let new = crate::Pi::new(crate::PiVersion::V1_6_0).unwrap();
    assert_eq!(resolved(&fs, &s, &new).0.skills.len(), 2);
}

#[test]
fn a_manifest_names_paths_and_globs() {
    let fs = kit(&[(
        "/h/.pi/agent/npm/node_modules/@acme/kit/package.json",
        r#"{"version": "1.2.0", "pi": {"skills": ["skills/*", "!skills/a"], "prompts": ["prompts/x.md"]}}"#,
    )]);
    let s = settings("{}", r#"{"packages": ["npm:@acme/kit@^1.0.0"]}"#);
    let (r, _) = resolved(&fs, &s, &crate::testcase::pi());
    assert_eq!(enabled(&r.skills), [format!("{KIT}/skills/b/SKILL.md")]);
    assert_eq!(enabled(&r.prompts), [format!("{KIT}/prompts/x.md")]);
}

#[test]
fn a_version_that_does_not_satisfy_the_spec_is_not_installed() {
    let fs = kit(&[]);
    let s = settings("{}", "{\"packages\": [\"npm:@acme/kit@2.0.0\"]}");
    let (r, d) = resolved(&fs, &s, &crate::testcase::pi());
    assert!(r.skills.is_empty());
    assert!(
        d[0].message
            .contains("as 1.2.0, which does not satisfy 2.0.0"),
        "{d:?}"
    );
    assert!(crate::semver::satisfies("1.2.0", "^1.0.0"));
    assert!(!crate::semver::satisfies("2.0.0", "^1.0.0"));
    assert!(crate::semver::satisfies("1.2.9", "~1.2.0"));
    assert!(crate::semver::satisfies("0.0.1", "latest"));
}

#[test]
fn minimatch_keeps_dot_segments_out_of_wildcards() {
    assert!(minimatch("skills/a/SKILL.md", "skills/**"));
    assert!(!minimatch("skills/.hidden/SKILL.md", "skills/*/SKILL.md"));
    assert!(minimatch(
        "skills/.hidden/SKILL.md",
        "skills/.hidden/SKILL.md"
    ));
    assert!(minimatch("x.md", "{x,y}.md"));
    assert!(!minimatch("z.md", "{x,y}.md"));
}

#[test]
fn a_package_extensions_tools_are_assumed_from_the_session_unless_given() {
    // pkg-ext-resume: pi ran the package's extension, which registers the tool the session
    // declares; ctxlens takes the session's declaration and says so.
    let dir = ctxlens_corpus::workspace().join("tests/conformance/pi-1.6.0/pkg-ext-resume");
    let files = ctxlens_corpus::read_folder(&dir).unwrap();
    let mut inputs = crate::case::inputs_from_case(&files, None).unwrap();
    let want = String::from_utf8(files["expected/request-1.json"].clone()).unwrap();
    let a = crate::assemble(&inputs);
    assert_eq!(a.body(), Some(want.as_str()));
    assert!(a.diagnostics.iter().any(|d| d.message.starts_with(
        "assumed: the extension tools are the ones the session last declared (jira_lookup)"
    )));
    // A tool set given says otherwise: no tool, so pi's removal of jira_lookup.
    inputs.extension_tools = Some(crate::inputs::SourceText {
        name: "tools.json".into(),
        text: "[]".into(),
    });
    let b = crate::assemble(&inputs);
    assert_ne!(b.body(), Some(want.as_str()));
    assert!(!b.body().unwrap_or("").contains("\"jira_lookup\""));
}

#[test]
fn ctxlens_own_package_is_said_and_changes_nothing() {
    // pkg-npm with ctxlens's own pi package installed beside the others: its extension adds
    // commands and reads the requests, so the body is pi's as captured and nothing warns of it.
    let dir = ctxlens_corpus::workspace().join("tests/conformance/pi-1.6.0/pkg-npm");
    let files = ctxlens_corpus::read_folder(&dir).unwrap();
    let mut inputs = crate::case::inputs_from_case(&files, None).unwrap();
    let want = String::from_utf8(files["expected/request-1.json"].clone()).unwrap();
    let settings = format!("{}/settings.json", inputs.agent_dir);
    let text = inputs.files.read_to_string(&settings).unwrap();
    inputs.files.insert(
        &settings,
        text.replace(
            "\"npm:ghost-kit\"",
            "\"npm:ghost-kit\",\n    \"npm:ctxlens\"",
        )
        .into_bytes(),
    );
    let root = format!("{}/npm/node_modules/ctxlens", inputs.agent_dir);
    inputs.files.insert(
        &format!("{root}/package.json"),
        br#"{"name":"ctxlens","version":"0.1.0","pi":{"extensions":["./pi/extension.js"]}}"#
            .to_vec(),
    );
    inputs.files.insert(
        &format!("{root}/pi/extension.js"),
        b"export default function () {}\n".to_vec(),
    );
    let a = crate::assemble(&inputs);
    assert_eq!(a.body(), Some(want.as_str()));
    let said: Vec<&str> = a.diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert!(
        said.iter()
            .any(|m| m.starts_with("package npm:ctxlens: ctxlens's own extension")),
        "{said:?}"
    );
    assert!(
        !said
            .iter()
            .any(|m| m.starts_with("package npm:ctxlens: its extensions")),
        "{said:?}"
    );
    // Another extension of the same package is code ctxlens does not run.
    inputs.files.insert(
        &format!("{root}/package.json"),
        br#"{"name":"ctxlens","version":"0.1.0","pi":{"extensions":["./pi/extension.js","./other.js"]}}"#.to_vec(),
    );
    inputs.files.insert(
        &format!("{root}/other.js"),
        b"export default function () {}\n".to_vec(),
    );
    let b = crate::assemble(&inputs);
    let said: Vec<&str> = b.diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert!(
        said.iter()
            .any(|m| m.starts_with("package npm:ctxlens: its extensions")),
        "{said:?}"
    );
}
