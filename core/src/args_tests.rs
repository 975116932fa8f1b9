use super::*;
use crate::testcase::pi;

fn a(v: &[&str]) -> (PiArgs, Vec<Diagnostic>) {
    let mut d = Vec::new();
    let args: Vec<String> = v.iter().map(|s| s.to_string()).collect();
    (parse(&pi(), &args, &mut d), d)
}

#[test]
fn flags_that_shape_the_request() {
    let (p, d) = a(&[
        "--tools",
        " read, ,bash ",
        "-xt",
        "edit",
        "--system-prompt",
        "S",
        "--append-system-prompt",
        "A",
        "--append-system-prompt",
        "B",
        "-nc",
        "-ns",
        "--skill",
        "x",
        "@f.md",
        "-a",
        "msg",
    ]);
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(p.tools, Some(vec!["read".into(), "bash".into()]));
    assert_eq!(p.exclude_tools, Some(vec!["edit".into()]));
    assert_eq!(p.system_prompt.as_deref(), Some("S"));
    assert_eq!(p.append_system_prompt, Some(vec!["A".into(), "B".into()]));
    assert!(p.no_context_files && p.no_skills);
    assert_eq!(p.skills, ["x"]);
    assert_eq!(p.file_args, ["f.md"]);
    assert_eq!(p.approve, Some(true));
    assert_eq!(p.messages, ["msg"]);
}

#[test]
fn value_flags_consume_their_value_and_unknown_flags_are_reported() {
    let (p, d) = a(&[
        "--session-dir",
        "/x",
        "-e",
        "ext.mjs",
        "--mode",
        "json",
        "--plan",
        "fast",
        "-q",
        "--offline",
        "-p",
        "hi",
    ]);
    assert_eq!(p.messages, ["hi"]);
    assert_eq!(
        p.unknown_flags,
        [("plan".to_string(), Some("fast".to_string()))]
    );
    assert_eq!(d.len(), 2);
    assert!(d[1].message.contains("Unknown option: -q"));
}

#[test]
fn invalid_thinking_level_warns_and_double_dash_ends_options() {
    let (p, d) = a(&["--thinking", "extreme", "--", "--tools", "@img.png"]);
    assert_eq!(p.thinking, None);
    assert!(d[0].message.contains("Invalid thinking level \"extreme\""));
    assert_eq!(p.messages, ["--tools"]);
    assert_eq!(p.file_args, ["img.png"]);
    // A value flag at the end takes no value and falls to the unknown-flag branch, as in pi.
    let (p, d) = a(&["--tools"]);
    assert_eq!(p.tools, None);
    assert_eq!(d.len(), 1);
}

#[test]
fn mime_sniffing_follows_pi() {
    let png = [
        0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, b'I', b'H', b'D', b'R', 0, 0,
        0, 1, 0, 0, 0, 1,
    ];
    assert_eq!(detect_supported_image_mime_type(&png), Some("image/png"));
    assert_eq!(detect_supported_image_mime_type(&png[..10]), None);
    assert_eq!(
        detect_supported_image_mime_type(&[0xff, 0xd8, 0xff, 0xe0]),
        Some("image/jpeg")
    );
    assert_eq!(
        detect_supported_image_mime_type(&[0xff, 0xd8, 0xff, 0xf7]),
        None
    );
    assert_eq!(
        detect_supported_image_mime_type(b"GIF89a"),
        Some("image/gif")
    );
    assert_eq!(
        detect_supported_image_mime_type(b"RIFF\0\0\0\0WEBPVP8 "),
        Some("image/webp")
    );
    assert_eq!(detect_supported_image_mime_type(b"BM"), None);
    assert_eq!(detect_supported_image_mime_type(b"hello"), None);
    assert_eq!(image_dimensions(&png, "image/png"), Some((1, 1)));
}

#[test]
fn base64_matches_node() {
    assert_eq!(base64(b""), "");
    assert_eq!(base64(b"f"), "Zg==");
    assert_eq!(base64(b"fo"), "Zm8=");
    assert_eq!(base64(b"foo"), "Zm9v");
    assert_eq!(base64(&[0xff, 0xfe, 0x00]), "//4A");
}

#[test]
fn file_args_inline_text_and_attach_images() {
    let mut fs = VirtualFs::new();
    fs.insert("/w/notes.md", "\u{FEFF}hello");
    fs.insert("/w/empty.txt", "");
    fs.insert("/w/shot.gif", b"GIF89a\x01\x00\x01\x00".to_vec());
    let mut d = Vec::new();
    let files: Vec<String> = ["notes.md", "empty.txt", "shot.gif", "missing.txt"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let att = process_file_args(&pi(), &files, "/w", "/h", true, &fs, &mut d);
    assert_eq!(
        att.text,
        "<file name=\"/w/notes.md\">\nhello\n</file>\n<file name=\"/w/shot.gif\"></file>\n"
    );
    assert_eq!(att.images.len(), 1);
    assert_eq!(
        att.images[0].to_json(),
        format!(
            r#"{{"type":"image","mimeType":"image/gif","data":"{}"}}"#,
            base64(b"GIF89a\x01\x00\x01\x00")
        )
    );
    assert!(d.iter().any(|x| x.message.contains("not found")));
}

#[test]
fn pi_paths_expand_tilde_and_screenshot_variants() {
    assert_eq!(
        resolve_pi_path("~/x", "/w", "/h", PathOptions::default()),
        "/h/x"
    );
    assert_eq!(
        resolve_pi_path(
            "  a/../b ",
            "/w",
            "/h",
            PathOptions {
                trim: true,
                ..Default::default()
            }
        ),
        "/w/b"
    );
    assert_eq!(
        resolve_pi_path("file:///a%20b", "/w", "/h", PathOptions::default()),
        "/a b"
    );
    let mut fs = VirtualFs::new();
    fs.insert("/w/Shot 1.02\u{202F}PM.png", "x");
    assert_eq!(
        resolve_read_path("Shot 1.02 PM.png", "/w", "/h", &fs),
        "/w/Shot 1.02\u{202F}PM.png"
    );
}
