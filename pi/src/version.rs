//! The pi releases ctxlens rebuilds: a closed set, ordered by release.

use std::fmt;
use std::str::FromStr;

/// A release of the pi coding agent (`@earendil-works/pi-coding-agent` on npm) whose requests
/// ctxlens rebuilds. Each has its data folder (`pi/data/pi-<version>/`) and its [`Rules`].
///
/// Code never compares versions: it asks the version's rules (`pi.rules.x`), which
/// [`PiVersion::rules`] derives in one place.
///
/// [`Rules`]: super::Rules
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PiVersion {
    /// 2026-09-06.
    V0_85_1,
    /// 2026-09-21.
    V0_86_1,
    /// 2026-09-21.
    V0_87_0,
    /// 2026-09-22.
    V0_87_1,
    /// 2026-10-15.
    V1_3_0,
    /// 2026-10-21.
    V1_4_0,
    /// 2026-11-02.
    V1_5_0,
    /// 2026-11-10.
    V1_5_2,
    /// 2026-11-20. The default: the newest.
    #[default]
    V1_6_0,
}

impl PiVersion {
    /// Every supported release, oldest first.
    pub const ALL: [PiVersion; 9] = [
        PiVersion::V0_85_1,
        PiVersion::V0_86_1,
        PiVersion::V0_87_0,
        PiVersion::V0_87_1,
        PiVersion::V1_3_0,
        PiVersion::V1_4_0,
        PiVersion::V1_5_0,
        PiVersion::V1_5_2,
        PiVersion::V1_6_0,
    ];
    /// The newest supported release.
    pub const LATEST: PiVersion = PiVersion::V1_6_0;

    /// The npm version string (`"0.85.1"`).
    pub const fn as_str(self) -> &'static str {
        match self {
            PiVersion::V0_85_1 => "0.85.1",
            PiVersion::V0_86_1 => "0.86.1",
            PiVersion::V0_87_0 => "0.87.0",
            PiVersion::V0_87_1 => "0.87.1",
            PiVersion::V1_3_0 => "1.3.0",
            PiVersion::V1_4_0 => "1.4.0",
            PiVersion::V1_5_0 => "1.5.0",
            PiVersion::V1_5_2 => "1.5.2",
            PiVersion::V1_6_0 => "1.6.0",
        }
    }

    /// The date the release was published on npm (`YYYY-MM-DD`, UTC).
    pub const fn released(self) -> &'static str {
        match self {
            PiVersion::V0_85_1 => "2026-09-06",
            PiVersion::V0_86_1 => "2026-09-21",
            PiVersion::V0_87_0 => "2026-09-21",
            PiVersion::V0_87_1 => "2026-09-22",
            PiVersion::V1_3_0 => "2026-10-15",
            PiVersion::V1_4_0 => "2026-10-21",
            PiVersion::V1_5_0 => "2026-11-02",
            PiVersion::V1_5_2 => "2026-11-10",
            PiVersion::V1_6_0 => "2026-11-20",
        }
    }
}

impl fmt::Display for PiVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A version string ctxlens does not rebuild.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownVersion(pub String);

impl fmt::Display for UnknownVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "pi {} is not a release ctxlens rebuilds (supported: {})",
            self.0,
            PiVersion::ALL.map(PiVersion::as_str).join(", ")
        )
    }
}

impl std::error::Error for UnknownVersion {}

impl FromStr for PiVersion {
    type Err = UnknownVersion;

    /// `"1.6.0"`, also with a leading `v` or `pi@`/`pi `.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        let t = t
            .strip_prefix("pi@")
            .or_else(|| t.strip_prefix("pi "))
            .unwrap_or(t);
        let t = t.strip_prefix('v').unwrap_or(t);
        PiVersion::ALL
            .into_iter()
            .find(|v| v.as_str() == t)
            .ok_or_else(|| UnknownVersion(s.trim().to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_print_and_order_by_release() {
        for v in PiVersion::ALL {
            assert_eq!(v.as_str().parse::<PiVersion>(), Ok(v));
            assert_eq!(format!("v{v}").parse::<PiVersion>(), Ok(v));
        }
        assert_eq!("pi@1.6.0".parse::<PiVersion>(), Ok(PiVersion::V1_6_0));
        assert!(PiVersion::ALL.windows(2).all(|w| w[0] < w[1]));
        // Two releases can share a day (0.86.1 and 0.87.0: 2026-09-21).
        assert!(PiVersion::ALL
            .windows(2)
            .all(|w| w[0].released() <= w[1].released()));
        assert_eq!(PiVersion::LATEST, *PiVersion::ALL.last().unwrap());
        // 0.99.1 and 1.0.3 were published but cannot be installed (they depend on
        // `@earendil-works/chord@^0.99.1` / `^1.0.3`, never published: npm answers ETARGET), so
        // no user runs them and ctxlens does not rebuild them.
        assert!("0.99.1".parse::<PiVersion>().is_err());
        let e = "1.0.3".parse::<PiVersion>().unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.starts_with("pi 1.0.3 is not a release ctxlens rebuilds (supported: 0.85.1, "),
            "{msg}"
        );
        assert!(
            PiVersion::ALL.iter().all(|v| msg.contains(v.as_str())),
            "{msg}"
        );
    }
}
