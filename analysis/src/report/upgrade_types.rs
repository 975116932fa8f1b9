//! The upgrade comparison's types (`compareWith: {piVersion}`, `ctxlens compare --pi-with`, the
//! Protocols view's release mode; see [`super::wire`]: `npm/report.d.ts` declares them). The
//! pieces a what-if shares with it (the first change, the URL, the headers, the blocks) are
//! these too. [`super::upgrade::report`] makes one from an
//! [`Upgrade`](crate::analysis::upgrade::Upgrade).

use super::wire::wire_struct;

wire_struct! {
    /// The first changed byte of the body: the bytes before it (`cachedPrefixBytes`) are the
    /// prefix a provider's cache still reuses; its JSON path, each side's value there and the
    /// block it is in.
    pub struct FirstChange {
        pub byte: usize = "byte",
        pub utf16: usize = "utf16",
        pub cached_prefix_bytes: usize = "cachedPrefixBytes",
        pub path: Option<String> = "path",
        pub from: Option<String> = "from",
        pub to: Option<String> = "to",
        pub block: Option<String> = "block",
    }
}

wire_struct! {
    /// A release that builds no request, and why.
    pub struct NotBuilt {
        pub pi: String = "pi" as "PiVersion",
        pub why: String = "why",
    }
}

wire_struct! {
    /// The URL under each side.
    pub struct UrlChange {
        pub from: String = "from",
        pub to: String = "to",
    }
}

wire_struct! {
    /// A header whose value differs, or that one side lacks (null).
    pub struct HeaderChange {
        pub name: String = "name",
        pub from: Option<String> = "from",
        pub to: Option<String> = "to",
    }
}

wire_struct! {
    /// One block under both sides.
    pub struct UpgradeBlock {
        /// `system prompt`, `tools`, `history`, `user text`, ..., `body`, `tool NAME`.
        pub name: String = "name",
        pub from_chars: usize = "fromChars",
        pub to_chars: usize = "toChars",
        pub chars_delta: f64 = "charsDelta",
        /// With tokens counted on both sides (the `tokens` option), else null.
        pub from_tokens: Option<usize> = "fromTokens",
        pub to_tokens: Option<usize> = "toTokens",
        pub tokens_delta: Option<f64> = "tokensDelta",
    }
}

wire_struct! {
    /// A changelog line citing an issue a rule's entry cites.
    pub struct ChangelogLine {
        pub pi: String = "pi",
        pub text: String = "text",
    }
}

wire_struct! {
    /// A switch of the version table that differs between the releases.
    pub struct RuleChange {
        pub rule: String = "rule",
        pub from: String = "from",
        pub to: String = "to",
        /// Whether it belongs to this request's protocol (or to every protocol).
        pub applies_to_this_protocol: bool = "appliesToThisProtocol",
        /// Its entry in the version table (the CLI's; null in the npm package).
        pub doc: Option<String> = "doc",
        pub changelog: Vec<ChangelogLine> = "changelog",
    }
}

wire_struct! {
    /// A section of a release's notes (`Added`, `Changed`, `Fixed`, ...).
    pub struct ReleaseNotesSection {
        pub title: String = "title",
        pub items: Vec<String> = "items",
    }
}

wire_struct! {
    /// pi's notes for one release.
    pub struct ReleaseNotes {
        pub pi: String = "pi",
        pub date: Option<String> = "date",
        pub sections: Vec<ReleaseNotesSection> = "sections",
    }
}

wire_struct! {
    /// What upgrading pi does to the request (`compareWith: {piVersion}`).
    pub struct Upgrade {
        /// The result's release.
        pub from: String = "from" as "PiVersion",
        /// The release compared with.
        pub to: String = "to" as "PiVersion",
        /// Body, URL and headers byte-identical.
        pub identical: bool = "identical",
        pub first_change: Option<FirstChange> = "firstChange",
        pub not_built: Vec<NotBuilt> = "notBuilt",
        pub url: Option<UrlChange> = "url",
        pub headers: Vec<HeaderChange> = "headers",
        pub blocks: Vec<UpgradeBlock> = "blocks",
        /// The version table's switches that differ, and whether each belongs to this
        /// request's protocol. Their entries and the changelog lines citing the same issues
        /// are the CLI's (`ctxlens compare --pi-with`): `doc` is null and `changelog` empty in
        /// the npm package.
        pub rules: Vec<RuleChange> = "rules",
        /// pi's release notes between the two; null in the npm package (the CLI has them).
        pub changelog: Option<Vec<ReleaseNotes>> = "changelog",
    }
}
