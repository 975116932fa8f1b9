//! The AWS SDK for JavaScript as bedrock-converse-stream uses it
//! (`@aws-sdk/client-bedrock-runtime`): its `x-amz-user-agent` and `user-agent`.

use crate::pi::Pi;
use crate::trace::{Event, EventKind, Events};

/// The npm package whose version the AWS SDK's user agents name.
const BEDROCK_CLIENT: &str = "@aws-sdk/client-bedrock-runtime";

/// The version the SDK's user agents name: the `version` its `dist-cjs` build carries
/// (defaults.json `awsSdkUserAgentVersion`: 3.1126.0 in 1.6.0, whose package.json says
/// 3.1127.0); 0.85.1's `dist-cjs` read its package.json (sdks.json).
fn version(pi: &Pi) -> &str {
    pi.data
        .defaults
        .get_str("awsSdkUserAgentVersion")
        .unwrap_or_else(|| pi.data.sdk_version(BEDROCK_CLIENT))
}

/// `aws-sdk-js/<version>`: the SDK's `x-amz-user-agent`.
pub(crate) fn sdk_js(pi: &Pi) -> String {
    format!("aws-sdk-js/{}", version(pi))
}

/// The SDK's `user-agent` (@aws-sdk/middleware-user-agent, util-user-agent-node):
/// `aws-sdk-js/<v> ua/2.1 os/<platform>#<release> lang/js md/nodejs#<node> api/bedrock-runtime#<v>
/// m/<features>`, with the features `N` (endpoint override, when the endpoint is explicit) and
/// `E` (standard retries). The OS comes from the user agent the inputs give: pi 0.85's own
/// `pi (<platform> <release>; <arch>)`, or an AWS SDK user agent as captured (its `os/` part).
/// pi-ai's client identity (`pi/1.6.0 (<platform>; node/…; <arch>)`) names no OS release: the
/// platform alone is shown then, and the trace says so.
pub(crate) fn user_agent(
    pi: &Pi,
    user_agent: &str,
    explicit_endpoint: bool,
    events: &mut Events,
) -> String {
    let from_pi = user_agent
        .strip_prefix("pi (")
        .and_then(|rest| rest.split(';').next())
        .and_then(|platform_release| platform_release.split_once(' '))
        .map(|(platform, release)| format!("{platform}#{release}"));
    let from_aws = user_agent
        .split(' ')
        .find_map(|part| part.strip_prefix("os/"))
        .map(String::from);
    let from_identity = || {
        let platform = user_agent
            .strip_prefix("pi/")?
            .split_once(" (")?
            .1
            .split(';')
            .next()?;
        events.push(
            Event::new(
                EventKind::Note,
                format!(
                "the AWS SDK's user-agent names the OS release (os/{platform}#<os.release()>), which pi's User-Agent does not carry: os/{platform} is shown without it"
                ),
            )
            .at("1.6.0/AI/api/bedrock-converse-stream.js:56"),
        );
        Some(platform.to_string())
    };
    let os = from_pi
        .or(from_aws)
        .or_else(from_identity)
        .unwrap_or_else(|| "other".to_string());
    let node = pi.data.node_version().trim_start_matches('v');
    let features = if explicit_endpoint { "N,E" } else { "E" };
    format!(
        "{} ua/2.1 os/{os} lang/js md/nodejs#{node} api/bedrock-runtime#{} m/{features}",
        sdk_js(pi),
        version(pi)
    )
}
