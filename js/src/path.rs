//! Node's `path` module on POSIX (`path.posix`): `normalize`, `resolve`, `join`, `dirname`,
//! `basename`, for the absolute paths of pi's files.

/// POSIX `path.normalize` for absolute paths (and a best effort for relative ones).
pub fn normalize_path(path: &str) -> String {
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|p| *p != "..") {
                    parts.pop();
                } else if !absolute {
                    parts.push("..");
                }
            }
            s => parts.push(s),
        }
    }
    let joined = parts.join("/");
    if absolute {
        format!("/{joined}")
    } else if joined.is_empty() {
        ".".into()
    } else {
        joined
    }
}

/// POSIX `path.resolve(base, p)`.
pub fn resolve_path(base: &str, p: &str) -> String {
    if p.starts_with('/') {
        normalize_path(p)
    } else {
        normalize_path(&format!("{base}/{p}"))
    }
}

/// POSIX `path.join(a, b)`.
pub fn join_path(a: &str, b: &str) -> String {
    normalize_path(&format!("{a}/{b}"))
}

/// POSIX `path.dirname`.
pub fn dirname(p: &str) -> String {
    if p.starts_with('/') && p.trim_end_matches('/').is_empty() {
        return "/".into();
    }
    match p.trim_end_matches('/').rfind('/') {
        Some(0) => "/".into(),
        Some(i) => p[..i].to_string(),
        None => ".".into(),
    }
}

/// POSIX `path.basename`.
pub fn basename(p: &str) -> &str {
    p.trim_end_matches('/').rsplit('/').next().unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_behave_like_node_posix_path() {
        assert_eq!(normalize_path("/a//b/./c/../d/"), "/a/b/d");
        assert_eq!(resolve_path("/a/b", "../c"), "/a/c");
        assert_eq!(resolve_path("/a/b", "/x"), "/x");
        assert_eq!(dirname("/a/b/SKILL.md"), "/a/b");
        assert_eq!(dirname("/a"), "/");
        assert_eq!(dirname("/"), "/");
        assert_eq!(basename("/a/b/"), "b");
    }
}
