use super::*;

/// A host filesystem made of a [`VirtualFs`] plus symbolic links, for tests.
#[derive(Default)]
pub(crate) struct MemFs {
    pub files: VirtualFs,
    pub links: Vec<(String, String)>,
}

impl MemFs {
    fn resolve(&self, p: &str) -> String {
        let mut p = normalize_path(p);
        for _ in 0..8 {
            let Some((from, to)) = self
                .links
                .iter()
                .find(|(f, _)| p == *f || p.starts_with(&format!("{f}/")))
            else {
                break;
            };
            p = format!("{to}{}", &p[from.len()..]);
        }
        p
    }
}

impl HostFs for MemFs {
    fn stat(&self, path: &str) -> Option<FileKind> {
        let p = self.resolve(path);
        if let Some(b) = self.files.get(&p) {
            Some(FileKind::File {
                size: b.len() as u64,
            })
        } else if self.files.is_dir(&p) {
            Some(FileKind::Dir)
        } else {
            None
        }
    }
    fn read(&self, path: &str) -> Result<Vec<u8>, String> {
        self.files
            .get(&self.resolve(path))
            .map(<[u8]>::to_vec)
            .ok_or_else(|| "not found".into())
    }
    fn read_dir(&self, path: &str) -> Result<Vec<String>, String> {
        Ok(self
            .files
            .read_dir(&self.resolve(path))
            .into_iter()
            .map(|(n, _)| n)
            .collect())
    }
    fn realpath(&self, path: &str) -> Option<String> {
        let p = self.resolve(path);
        self.stat(&p).map(|_| p)
    }
}

fn machine(fs: &MemFs) -> Machine<'_> {
    Machine {
        fs,
        env: [("HOME".to_string(), "/home/u".to_string())].into(),
        process_cwd: "/work/proj/sub".into(),
    }
}

fn pi() -> Pi {
    Pi::new(crate::pi::PiVersion::V0_85_1).unwrap()
}

fn session(cwd: &str) -> SourceText {
    SourceText {
        name: "/s.jsonl".into(),
        text: format!("{{\"type\":\"session\",\"version\":3,\"id\":\"x\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"{cwd}\"}}\n").into(),
    }
}

#[test]
fn reads_what_pi_reads_and_nothing_else() {
    let mut fs = MemFs::default();
    for (p, t) in [
        ("/home/u/.pi/agent/AGENTS.md", "agent"),
        (
            "/home/u/.pi/agent/settings.json",
            "{\"skills\":[\"/opt/extra\"]}",
        ),
        ("/home/u/.pi/agent/models.json", "{}"),
        ("/home/u/.pi/agent/auth.json", "{}"),
        ("/home/u/.pi/agent/sessions/--work-proj--/a.jsonl", "{}"),
        (
            "/home/u/.pi/agent/skills/s1/SKILL.md",
            "---\nname: s1\ndescription: d\n---\n",
        ),
        ("/home/u/.pi/agent/skills/s1/script.py", "print()"),
        ("/home/u/.pi/agent/skills/node_modules/x.md", "no"),
        ("/opt/extra/e/SKILL.md", "---\ndescription: d\n---\n"),
        ("/work/proj/AGENTS.md", "proj"),
        ("/work/proj/CLAUDE.md", "shadowed"),
        ("/work/proj/sub/deeper/AGENTS.md", "below cwd: not read"),
        ("/work/proj/.pi/settings.json", "{}"),
        ("/work/proj/src/main.rs", "fn main() {}"),
        ("/work/AGENTS.md", "parent"),
        ("/work/proj/sub/notes.txt", "attached"),
    ] {
        fs.files.insert(p, t);
    }
    let m = machine(&fs);
    let got = read_machine(
        &pi(),
        &m,
        Some(session("/work/proj")),
        &["@notes.txt".into()],
        "/pkg",
        Limits::default(),
    );
    let paths: Vec<&str> = got.read.iter().map(|f| f.path.as_str()).collect();
    for want in [
        "/home/u/.pi/agent/AGENTS.md",
        "/home/u/.pi/agent/settings.json",
        "/home/u/.pi/agent/models.json",
        "/home/u/.pi/agent/auth.json",
        "/home/u/.pi/agent/skills/s1/SKILL.md",
        "/opt/extra/e/SKILL.md",
        "/work/proj/AGENTS.md",
        "/work/proj/CLAUDE.md",
        "/work/proj/.pi/settings.json",
        "/work/AGENTS.md",
        "/work/proj/sub/notes.txt",
    ] {
        assert!(paths.contains(&want), "{want} not read: {paths:?}");
    }
    for never in [
        "/home/u/.pi/agent/sessions/--work-proj--/a.jsonl",
        "/home/u/.pi/agent/skills/s1/script.py",
        "/home/u/.pi/agent/skills/node_modules/x.md",
        "/work/proj/sub/deeper/AGENTS.md",
        "/work/proj/src/main.rs",
    ] {
        assert!(!paths.contains(&never), "{never} read");
    }
    assert_eq!(got.cwd, "/work/proj");
    assert_eq!(got.inputs.cwd, "/work/proj/sub");
    assert_eq!(got.inputs.agent_dir, "/home/u/.pi/agent");
    assert!(got.diagnostics.is_empty(), "{:?}", got.diagnostics);
}

#[test]
fn agent_dir_from_the_environment_and_bounds() {
    let mut fs = MemFs::default();
    fs.files.insert("/cfg/agent/AGENTS.md", "x".repeat(100));
    fs.files.insert("/cfg/agent/settings.json", "{}");
    let mut m = machine(&fs);
    m.env
        .insert("PI_CODING_AGENT_DIR".into(), "/cfg/agent".into());
    let got = read_machine(
        &pi(),
        &m,
        None,
        &[],
        "/pkg",
        Limits {
            max_file_bytes: 10,
            ..Limits::default()
        },
    );
    assert_eq!(got.inputs.agent_dir, "/cfg/agent");
    assert!(got.inputs.files.is_file("/cfg/agent/settings.json"));
    assert!(!got.inputs.files.is_file("/cfg/agent/AGENTS.md"));
    let d = &got.diagnostics[0];
    assert_eq!(d.file, "/cfg/agent/AGENTS.md");
    assert!(d.message.contains("larger than ctxlens reads"), "{d}");
}

#[test]
fn installed_pi_through_a_link_on_path() {
    let mut fs = MemFs::default();
    fs.files.insert(
        "/lib/node_modules/@earendil-works/pi-coding-agent/package.json",
        "{\"name\":\"@earendil-works/pi-coding-agent\",\"version\":\"1.6.0\"}",
    );
    fs.files.insert(
        "/lib/node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js",
        "",
    );
    fs.files.insert("/bin/pi", "");
    fs.links.push((
        "/bin/pi".into(),
        "/lib/node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js".into(),
    ));
    let env: BTreeMap<String, String> = [("PATH".to_string(), "/nothing:/bin".to_string())].into();
    let got = find_installed_pi(&fs, &env, None).unwrap();
    assert_eq!(
        got.package_dir,
        "/lib/node_modules/@earendil-works/pi-coding-agent"
    );
    assert_eq!(got.version.as_deref(), Some("1.6.0"));
    assert_eq!(got.bin.as_deref(), Some("/bin/pi"));
    let other: BTreeMap<String, String> = [("PATH".to_string(), "/usr/bin".to_string())].into();
    assert_eq!(
        find_installed_pi(&fs, &other, None),
        Err("no pi on PATH".into())
    );
    let by_dir = find_installed_pi(
        &fs,
        &other,
        Some("/lib/node_modules/@earendil-works/pi-coding-agent/dist"),
    )
    .unwrap();
    assert_eq!(by_dir.version.as_deref(), Some("1.6.0"));
}

#[test]
fn sessions_listed_newest_first_from_their_heads() {
    let mut fs = MemFs::default();
    let s = |cwd: &str, prompt: &str| {
        format!("{{\"type\":\"session\",\"version\":3,\"id\":\"x\",\"timestamp\":\"t\",\"cwd\":\"{cwd}\"}}\n{{\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"timestamp\":\"t\",\"message\":{{\"role\":\"user\",\"content\":[{{\"type\":\"text\",\"text\":\"{prompt}\"}}]}}}}\n")
    };
    fs.files.insert(
        "/a/sessions/--w-p--/2026-01-01T00-00-00-000Z_1.jsonl",
        s("/w/p", "older"),
    );
    fs.files.insert(
        "/a/sessions/--w-q--/2026-02-01T00-00-00-000Z_2.jsonl",
        s("/w/q", "newer\\nline"),
    );
    let list = list_sessions(&fs, "/a/sessions", 10, 4096);
    assert_eq!(list.len(), 2);
    assert_eq!(list[0].cwd.as_deref(), Some("/w/q"));
    assert_eq!(list[0].first_prompt.as_deref(), Some("newer line"));
    assert_eq!(list[1].first_prompt.as_deref(), Some("older"));
    assert_eq!(session_dir_name("/w/p"), "--w-p--");
    // A first prompt past the first bytes read (a long system message before it) is found.
    let long = format!(
        "{{\"type\":\"session\",\"version\":3,\"id\":\"x\",\"timestamp\":\"t\",\"cwd\":\"/w/r\"}}\n{{\"type\":\"system\",\"text\":\"{}\"}}\n{}",
        "s".repeat(5000),
        s("/w/r", "late").lines().nth(1).unwrap()
    );
    fs.files
        .insert("/a/sessions/--w-r--/2026-03-01T00-00-00-000Z_3.jsonl", long);
    let list = list_sessions(&fs, "/a/sessions", 10, 1024);
    assert_eq!(list[0].first_prompt.as_deref(), Some("late"));
}

#[test]
fn a_session_cwd_that_is_not_there_is_said() {
    let fs = MemFs::default();
    let m = machine(&fs);
    let got = read_machine(
        &pi(),
        &m,
        Some(session("/gone/proj")),
        &[],
        "/pkg",
        Limits::default(),
    );
    assert_eq!(got.cwd, "/gone/proj");
    let d = &got.diagnostics[0];
    assert!(
        d.message
            .starts_with("Stored session working directory does not exist: /gone/proj"),
        "{d}"
    );
}

#[test]
fn a_skill_walk_stops_at_the_folder_limit_and_says_where() {
    let mut fs = MemFs::default();
    for i in 0..5 {
        fs.files.insert(
            &format!("/home/u/.pi/agent/skills/s{i}/SKILL.md"),
            "---\ndescription: d\n---\n",
        );
    }
    let m = machine(&fs);
    let got = read_machine(
        &pi(),
        &m,
        None,
        &[],
        "/pkg",
        Limits {
            max_dirs: 3,
            ..Limits::default()
        },
    );
    let skills = got.read.iter().filter(|f| f.role == "skill").count();
    assert_eq!(skills, 2, "{:?}", got.read);
    assert_eq!(got.diagnostics.len(), 1, "{:?}", got.diagnostics);
    assert!(got.diagnostics[0].message.contains("more than 3 folders"));
}

#[test]
fn an_agents_skills_folder_above_the_git_root_still_counts_for_trust() {
    let mut fs = MemFs::default();
    fs.files
        .insert("/w/.agents/skills/x/SKILL.md", "---\ndescription: d\n---\n");
    fs.files
        .insert("/w/repo/.git/HEAD", "ref: refs/heads/main\n");
    fs.files.insert("/w/repo/AGENTS.md", "repo");
    let m = machine(&fs);
    let got = read_machine(
        &pi(),
        &m,
        Some(session("/w/repo")),
        &[],
        "/pkg",
        Limits::default(),
    );
    // pi walks .agents/skills only up to the git root, so the skill is not read...
    assert!(!got.inputs.files.is_file("/w/.agents/skills/x/SKILL.md"));
    // ...but the folder's existence is kept: it makes the project need trust.
    assert!(got.inputs.files.is_dir("/w/.agents/skills"));
    assert!(crate::settings::has_trust_requiring_project_resources(
        &got.inputs.files,
        "/home/u",
        "/w/repo"
    ));
}

#[test]
fn a_packages_files_are_read_where_pi_looks_for_them() {
    let mut fs = MemFs::default();
    let kit = "/home/u/.pi/agent/npm/node_modules/@a/kit";
    for (p, t) in [
        (
            "/home/u/.pi/agent/settings.json".to_string(),
            "{\"packages\": [\"npm:@a/kit\", \"../../vendor/local\", \"git:github.com/o/r\"]}",
        ),
        (format!("{kit}/package.json"), "{\"version\": \"1.0.0\"}"),
        (
            format!("{kit}/skills/s/SKILL.md"),
            "---\ndescription: d\n---\n",
        ),
        (format!("{kit}/skills/s/helper.py"), "print()"),
        (format!("{kit}/prompts/p.md"), "p"),
        (
            format!("{kit}/extensions/tool.ts"),
            "export default () => {}",
        ),
        (format!("{kit}/extensions/lib/util.ts"), "helper"),
        (format!("{kit}/node_modules/dep/README.md"), "a dependency"),
        (format!("{kit}/dist/bundle.js"), "code"),
        (
            "/home/u/vendor/local/skills/l/SKILL.md".to_string(),
            "---\ndescription: l\n---\n",
        ),
        (
            "/home/u/.pi/agent/git/github.com/o/r/prompts/g.md".to_string(),
            "g",
        ),
    ] {
        fs.files.insert(&p, t);
    }
    let m = machine(&fs);
    let got = read_machine(
        &pi(),
        &m,
        Some(session("/work/proj")),
        &[],
        "/pkg",
        Limits::default(),
    );
    let paths: Vec<&str> = got.read.iter().map(|f| f.path.as_str()).collect();
    for want in [
        format!("{kit}/package.json"),
        format!("{kit}/skills/s/SKILL.md"),
        format!("{kit}/prompts/p.md"),
        format!("{kit}/extensions/tool.ts"),
        "/home/u/vendor/local/skills/l/SKILL.md".into(),
        "/home/u/.pi/agent/git/github.com/o/r/prompts/g.md".into(),
    ] {
        assert!(paths.contains(&want.as_str()), "{want} not read: {paths:?}");
    }
    for never in [
        format!("{kit}/skills/s/helper.py"),
        format!("{kit}/extensions/lib/util.ts"),
        format!("{kit}/node_modules/dep/README.md"),
        format!("{kit}/dist/bundle.js"),
    ] {
        assert!(!paths.contains(&never.as_str()), "{never} read");
    }
}

/// A host that runs nothing but records what it is asked to run, answering from a table.
struct Runs {
    answers: Vec<(&'static str, &'static str)>,
    asked: std::cell::RefCell<Vec<String>>,
}

impl HostFs for Runs {
    fn stat(&self, _: &str) -> Option<FileKind> {
        None
    }
    fn read(&self, _: &str) -> Result<Vec<u8>, String> {
        Err("none".into())
    }
    fn read_dir(&self, _: &str) -> Result<Vec<String>, String> {
        Err("none".into())
    }
    fn realpath(&self, _: &str) -> Option<String> {
        None
    }
    fn run(&self, command: &[String]) -> Option<String> {
        let line = command.join(" ");
        self.asked.borrow_mut().push(line.clone());
        self.answers
            .iter()
            .find(|(c, _)| *c == line)
            .map(|(_, out)| out.to_string())
    }
}

#[test]
fn npms_global_root_is_asked_of_the_package_manager_pi_would_run() {
    let host = Runs {
        answers: vec![
            ("npm root -g", "/usr/lib/node_modules\n"),
            ("/opt/bun/bin/bun pm bin -g", "/home/u/.bun/bin\n"),
            (
                "mise exec -- pnpm root -g",
                "/home/u/.pnpm/global/5/node_modules\n",
            ),
            ("/x/bun.EXE pm bin -g", "C/bun/bin\n"),
        ],
        asked: Default::default(),
    };
    let c = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
    assert_eq!(
        global_root(&host, &c("npm")).as_deref(),
        Some("/usr/lib/node_modules")
    );
    assert_eq!(
        global_root(&host, &c("/opt/bun/bin/bun")).as_deref(),
        Some("/home/u/.bun/install/global/node_modules")
    );
    assert_eq!(
        global_root(&host, &c("mise exec -- pnpm")).as_deref(),
        Some("/home/u/.pnpm/global/5/node_modules")
    );
    assert_eq!(
        global_root(&host, &c("/x/bun.EXE")).as_deref(),
        Some("C/bun/install/global/node_modules")
    );
    // A command that fails gives no root.
    assert_eq!(global_root(&host, &c("yarn")), None);
    assert_eq!(
        host.asked.borrow().last().map(String::as_str),
        Some("yarn root -g")
    );
}
