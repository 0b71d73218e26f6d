//! The Kubernetes minor versions podsim models, and what changes between them.

use std::fmt;

/// A supported Kubernetes minor release.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Version {
    V1_34,
    V1_35,
    V1_36,
    V1_37,
}

impl Version {
    pub const NEWEST: Version = Version::V1_37;
    pub const ALL: [Version; 4] = [Version::V1_34, Version::V1_35, Version::V1_36, Version::V1_37];
    /// The version a profile that names none models.
    pub const DEFAULT: Version = Version::NEWEST;

    /// `Kubernetes 1.34, 1.35, 1.36, 1.37 (default 1.37)`: what `podsim --version` says it models.
    pub fn modelled() -> String {
        let all: Vec<String> = Version::ALL.iter().map(Version::to_string).collect();
        format!("Kubernetes {} (default {})", all.join(", "), Version::DEFAULT)
    }

    /// Accepts `1.37`, `v1.37`, `1.37.2`.
    pub fn parse(text: &str) -> Result<Version, String> {
        let t = text.trim().trim_start_matches('v');
        let mut parts = t.split('.');
        let (major, minor) = (parts.next(), parts.next());
        let patch_ok = parts.next().is_none_or(|p| p.chars().all(|c| c.is_ascii_digit()) && !p.is_empty());
        let found = match (major, minor) {
            (Some("1"), Some(m)) if patch_ok && parts.next().is_none() => match m {
                "34" => Some(Version::V1_34),
                "35" => Some(Version::V1_35),
                "36" => Some(Version::V1_36),
                "37" => Some(Version::V1_37),
                _ => None,
            },
            _ => None,
        };
        found.ok_or_else(|| format!("{text:?}: podsim models Kubernetes 1.34, 1.35, 1.36 and 1.37"))
    }

    pub fn minor(self) -> u32 {
        match self {
            Version::V1_34 => 34,
            Version::V1_35 => 35,
            Version::V1_36 => 36,
            Version::V1_37 => 37,
        }
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "1.{}", self.minor())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_release_spellings() {
        assert_eq!(Version::parse("1.37"), Ok(Version::V1_37));
        assert_eq!(Version::parse("v1.34"), Ok(Version::V1_34));
        assert_eq!(Version::parse("1.35.2"), Ok(Version::V1_35));
        assert!(Version::parse("1.33").is_err());
        assert!(Version::parse("2.0").is_err());
        assert!(Version::parse("1.37.x").is_err());
    }

    #[test]
    fn the_modelled_line_names_every_version_and_the_default() {
        assert_eq!(Version::modelled(), "Kubernetes 1.34, 1.35, 1.36, 1.37 (default 1.37)");
        assert_eq!(crate::cluster::Cluster::default().version, Version::DEFAULT);
    }
}
