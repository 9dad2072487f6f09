//! Conditions (what the agent is shown) and placements (how it is shown).

use std::fmt;
use std::ops::Range;
use std::path::PathBuf;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// One experimental condition of a cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Condition {
    /// No skill.
    C0,
    /// No skill again, run independently of C0 (`--aa`): the A/A noise floor.
    C0b,
    /// The skill as written.
    C1,
    /// The skill's frontmatter with an irrelevant body matched in tokens and code share.
    C2,
    /// The skill with its code blocks removed.
    C3a,
    /// The skill's prohibitions only.
    C3b,
}

impl Condition {
    /// Every condition, in journal order.
    pub const ALL: [Condition; 5] = [Self::C0, Self::C1, Self::C2, Self::C3a, Self::C3b];

    /// The name used on the command line and in the journal.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::C0 => "C0",
            Self::C0b => "C0b",
            Self::C1 => "C1",
            Self::C2 => "C2",
            Self::C3a => "C3a",
            Self::C3b => "C3b",
        }
    }

    /// Parses a comma-separated list such as `C0,C1,C2`, keeping the given order, once each.
    pub fn parse_list(list: &str) -> Result<Vec<Condition>, String> {
        let mut out = Vec::new();
        for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let condition = name.parse()?;
            if !out.contains(&condition) {
                out.push(condition);
            }
        }
        if out.is_empty() {
            return Err("no condition given".into());
        }
        Ok(out)
    }
}

impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Condition {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .chain([Self::C0b])
            .find(|c| c.as_str().eq_ignore_ascii_case(s))
            .ok_or_else(|| {
                format!("unknown condition `{s}` (expected C0, C1, C2, C3a, C3b or C0b)")
            })
    }
}

/// Where the skill goes in a cell's workspace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Placement {
    /// The skill folder is copied where the agent looks for skills.
    #[default]
    Discover,
    /// The skill body is prepended to the instruction.
    Inject,
    /// The skill body is prepended to the instruction of attempts 2 on only, with the
    /// feedback of the failed attempt: the route a retry-only gain suggests.
    #[serde(rename = "inject-on-retry")]
    InjectOnRetry,
}

impl Placement {
    /// The name used on the command line and in `run.json`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Discover => "discover",
            Self::Inject => "inject",
            Self::InjectOnRetry => "inject-on-retry",
        }
    }
}

impl FromStr for Placement {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "discover" => Ok(Self::Discover),
            "inject" => Ok(Self::Inject),
            "inject-on-retry" => Ok(Self::InjectOnRetry),
            other => Err(format!(
                "unknown placement `{other}` (expected discover, inject or inject-on-retry)"
            )),
        }
    }
}

/// The parts of a parsed skill that the conditions need, filled by the skill model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillParts {
    /// The skill's name (its folder name under the agent's skills directory).
    pub name: String,
    /// The skill folder (holding `SKILL.md` and optional `scripts/`, `references/`, `assets/`).
    pub dir: PathBuf,
    /// The raw frontmatter, including its `---` lines.
    pub frontmatter: String,
    /// The markdown body after the frontmatter.
    pub body: String,
    /// Whole fenced code blocks, as byte ranges in `body`.
    pub code_blocks: Vec<Range<usize>>,
    /// Prohibition lines ("never…", "do not…"), as byte ranges in `body`.
    pub prohibitions: Vec<Range<usize>>,
}

impl SkillParts {
    /// The parts of a parsed skill that the conditions need.
    pub fn from_skill(skill: &crate::skill::Skill) -> SkillParts {
        let text = &skill.source.text;
        let body = skill.body.range.clone();
        let relative =
            |r: &Range<usize>| r.start.saturating_sub(body.start)..r.end.saturating_sub(body.start);
        SkillParts {
            name: skill
                .name()
                .or(skill.folder_name())
                .unwrap_or("skill")
                .to_owned(),
            dir: skill.root.clone(),
            frontmatter: text[skill.frontmatter.range.clone()].to_owned(),
            body: text[body.clone()].to_owned(),
            code_blocks: skill
                .body
                .code_blocks
                .iter()
                .map(|b| relative(&b.range))
                .collect(),
            prohibitions: skill.prohibition_lines().map(relative).collect(),
        }
    }

    /// The body with every code block cut out (the C3a ablation).
    pub fn body_without_code(&self) -> String {
        let mut out = String::with_capacity(self.body.len());
        let mut at = 0;
        for block in sorted(&self.code_blocks) {
            if let Some(text) = self.body.get(at..block.start) {
                out.push_str(text);
            }
            at = at.max(block.end);
        }
        out.push_str(self.body.get(at..).unwrap_or_default());
        out
    }

    /// The prohibition lines alone, one per line (the C3b ablation).
    pub fn prohibitions_only(&self) -> String {
        let lines: Vec<&str> = sorted(&self.prohibitions)
            .iter()
            .filter_map(|r| self.body.get(r.clone()))
            .map(str::trim_end)
            .collect();
        let mut out = lines.join("\n");
        if !out.is_empty() {
            out.push('\n');
        }
        out
    }

    /// The text of every code block, in order.
    pub fn code_texts(&self) -> impl Iterator<Item = &str> {
        self.code_blocks
            .iter()
            .filter_map(|r| self.body.get(r.clone()))
    }
}

fn sorted(ranges: &[Range<usize>]) -> Vec<Range<usize>> {
    let mut v = ranges.to_vec();
    v.sort_by_key(|r| (r.start, r.end));
    v
}

/// The skill as one condition presents it to the agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PresentedSkill {
    /// Folder name under the agent's skills directory.
    pub name: String,
    /// The body shown (prepended to the instruction under `inject`).
    pub body: String,
    /// The full `SKILL.md` written under `discover`.
    pub skill_md: String,
    /// A folder whose other files (scripts, references, assets) come along under `discover`;
    /// `None` when only `SKILL.md` is shown.
    pub support_dir: Option<PathBuf>,
}

/// What `condition` shows of `skill`; `None` for C0. `control_body` is the matched C2 body.
pub fn present(
    condition: Condition,
    skill: &SkillParts,
    control_body: &str,
) -> Option<PresentedSkill> {
    let (body, support_dir) = match condition {
        Condition::C0 | Condition::C0b => return None,
        Condition::C1 => (skill.body.clone(), Some(skill.dir.clone())),
        Condition::C2 => (control_body.to_owned(), None),
        // Supporting files stay: the ablation is about the examples inside the body.
        Condition::C3a => (skill.body_without_code(), Some(skill.dir.clone())),
        Condition::C3b => (skill.prohibitions_only(), None),
    };
    let mut skill_md = skill.frontmatter.clone();
    if !skill_md.is_empty() && !skill_md.ends_with('\n') {
        skill_md.push('\n');
    }
    skill_md.push_str(&body);
    Some(PresentedSkill {
        name: skill.name.clone(),
        body,
        skill_md,
        support_dir,
    })
}

/// The instruction the agent receives at its first attempt: under `inject` the skill body
/// comes first.
pub fn instruction_for(
    instruction: &str,
    skill: Option<&PresentedSkill>,
    placement: Placement,
) -> String {
    instruction_at(instruction, skill, placement, 1)
}

/// The instruction the agent receives at `attempt` (from 1): under `inject`, and under
/// `inject-on-retry` from the second attempt, the skill body comes first.
pub fn instruction_at(
    instruction: &str,
    skill: Option<&PresentedSkill>,
    placement: Placement,
    attempt: u32,
) -> String {
    let injected = match placement {
        Placement::Discover => false,
        Placement::Inject => true,
        Placement::InjectOnRetry => attempt > 1,
    };
    match skill.filter(|_| injected) {
        Some(skill) => {
            format!("{}\n\n---\n\n{instruction}", skill.body.trim_end())
        }
        _ => instruction.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ranges of the first fenced block and of the line starting "Never".
    fn parts(body: &str) -> SkillParts {
        let open = body.find("```").unwrap();
        let close = body[open + 3..].find("```").unwrap() + open + 6;
        let never = body.find("Never").unwrap();
        let never_end = never + body[never..].find('\n').unwrap();
        SkillParts {
            name: "demo".into(),
            dir: PathBuf::from("/nonexistent"),
            frontmatter: "---\nname: demo\ndescription: d\n---\n".into(),
            body: body.into(),
            code_blocks: std::iter::once(open..close).collect(),
            prohibitions: std::iter::once(never..never_end).collect(),
        }
    }

    #[test]
    fn conditions_round_trip_and_parse_lists() {
        for c in Condition::ALL {
            assert_eq!(c.as_str().parse::<Condition>(), Ok(c));
            let json = serde_json::to_string(&c).unwrap();
            assert_eq!(json, format!("\"{c}\""));
        }
        assert_eq!(
            Condition::parse_list("C0, c1,C0,C3b"),
            Ok(vec![Condition::C0, Condition::C1, Condition::C3b])
        );
        assert!(Condition::parse_list("C9").is_err());
        assert!(Condition::parse_list("").is_err());
    }

    #[test]
    fn ablations_cut_what_they_promise() {
        let body = "Intro.\n```sh\necho hi\n```\nNever push to main.\nTail.\n";
        let p = parts(body);
        assert_eq!(
            p.body_without_code(),
            "Intro.\n\nNever push to main.\nTail.\n"
        );
        assert_eq!(p.prohibitions_only(), "Never push to main.\n");
        assert!(present(Condition::C0, &p, "x").is_none());
        let c2 = present(Condition::C2, &p, "control text\n").unwrap();
        assert_eq!(c2.skill_md, format!("{}control text\n", p.frontmatter));
        assert!(c2.support_dir.is_none());
        let c1 = present(Condition::C1, &p, "").unwrap();
        assert_eq!(c1.body, body);
        assert_eq!(
            instruction_for("Do X.", Some(&c1), Placement::Inject),
            format!("{}\n\n---\n\nDo X.", body.trim_end())
        );
        let on_retry = Placement::InjectOnRetry;
        assert_eq!(instruction_for("Do X.", Some(&c1), on_retry), "Do X.");
        assert_eq!(
            instruction_at("Do X.", Some(&c1), on_retry, 2),
            instruction_for("Do X.", Some(&c1), Placement::Inject)
        );
        assert_eq!("inject-on-retry".parse::<Placement>(), Ok(on_retry));
        assert_eq!(
            serde_json::to_string(&on_retry).unwrap(),
            "\"inject-on-retry\""
        );
        assert_eq!(
            instruction_for("Do X.", Some(&c1), Placement::Discover),
            "Do X."
        );
    }
}
