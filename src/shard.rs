//! `--shard K/N`: which share of the work one of N jobs does, decided by a stable hash of the
//! work item's key (a skill's path relative to the audited folder; an evaluation cell's task,
//! condition and seed), so every job agrees without talking to the others.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Share K (1-based) of N.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Shard {
    /// Which share, 1..=count.
    pub index: u32,
    /// How many shares.
    pub count: u32,
}

impl Shard {
    /// Whether the work item with `key` (an audited skill's path relative to its folder,
    /// `/`-separated; an evaluation cell's `task/condition/seed`) is this shard's.
    pub fn owns(self, key: &str) -> bool {
        fnv1a(key.as_bytes()) % u64::from(self.count) == u64::from(self.index - 1)
    }
}

/// The 64-bit FNV-1a hash: stable across platforms, versions and runs.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || format!("{s:?} is not a shard: write K/N with 1 <= K <= N, e.g. 2/4");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let index: u32 = k.trim().parse().map_err(|_| bad())?;
        let count: u32 = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || count == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl Serialize for Shard {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Shard {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::Shard;

    #[test]
    fn parses_and_refuses() {
        assert_eq!("2/4".parse::<Shard>(), Ok(Shard { index: 2, count: 4 }));
        for bad in ["0/4", "5/4", "1/0", "x/2", "3"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }

    #[test]
    fn every_path_has_exactly_one_shard() {
        for i in 0..500 {
            let rel = format!("pack/skill-{i}");
            let owners = (1..=7)
                .filter(|&k| Shard { index: k, count: 7 }.owns(&rel))
                .count();
            assert_eq!(owners, 1, "{rel}");
        }
    }
}
