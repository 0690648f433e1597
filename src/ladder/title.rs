//! Titles (军衔): what a player's standing on a ladder is called, shown beside its name (ladder.md
//! "Titles"). Four-player ladders go by points, Hidden Front by rating; a provisional Hidden
//! Front rating has no title yet.
use super::glicko::Rating;
use super::LadderKind;
use serde::{Deserialize, Serialize};

/// A title, lowest first. On the wire as its snake_case name (`engineer` … `commander`); the
/// client shows the Chinese rank (工兵 … 司令).
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Title {
    /// 工兵
    Engineer,
    /// 排长
    PlatoonLeader,
    /// 连长
    CompanyCommander,
    /// 营长
    BattalionCommander,
    /// 团长
    RegimentCommander,
    /// 旅长
    BrigadeCommander,
    /// 师长
    DivisionCommander,
    /// 军长
    ArmyCommander,
    /// 司令
    Commander,
}

/// (title, four-player points ≥, Hidden Front rating ≥), lowest first.
const TABLE: [(Title, i32, f64); 9] = [
    (Title::Engineer, 0, f64::NEG_INFINITY),
    (Title::PlatoonLeader, 10, 1200.0),
    (Title::CompanyCommander, 30, 1350.0),
    (Title::BattalionCommander, 60, 1500.0),
    (Title::RegimentCommander, 100, 1650.0),
    (Title::BrigadeCommander, 160, 1800.0),
    (Title::DivisionCommander, 250, 1950.0),
    (Title::ArmyCommander, 400, 2100.0),
    (Title::Commander, 600, 2250.0),
];

impl Title {
    /// The Chinese name of the rank.
    pub fn chinese(self) -> &'static str {
        match self {
            Title::Engineer => "工兵",
            Title::PlatoonLeader => "排长",
            Title::CompanyCommander => "连长",
            Title::BattalionCommander => "营长",
            Title::RegimentCommander => "团长",
            Title::BrigadeCommander => "旅长",
            Title::DivisionCommander => "师长",
            Title::ArmyCommander => "军长",
            Title::Commander => "司令",
        }
    }

    /// A four-player ladder's title for `points` (below 0 points: still 工兵).
    pub fn for_points(points: i32) -> Title {
        TABLE.iter().rev().find(|t| points >= t.1).map_or(Title::Engineer, |t| t.0)
    }

    /// Hidden Front's title for a rating (`None` while provisional). Compared on the rating as
    /// shown (rounded), so that a player shown at 1500 is a 营长.
    pub fn for_rating(r: Rating) -> Option<Title> {
        if r.is_provisional() {
            return None;
        }
        let shown = r.rating.round();
        Some(TABLE.iter().rev().find(|t| shown >= t.2).map_or(Title::Engineer, |t| t.0))
    }

    /// The title on `ladder` for these stats.
    pub fn on(ladder: LadderKind, points: i32, rating: Rating) -> Option<Title> {
        match ladder.is_rated() {
            true => Title::for_rating(rating),
            false => Some(Title::for_points(points)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settled(rating: f64) -> Rating {
        Rating { rating, rd: 60.0, ..Rating::default() }
    }

    #[test]
    fn the_table_of_ladder_md() {
        let points = [(-2, "工兵"), (0, "工兵"), (9, "工兵"), (10, "排长"), (29, "排长")];
        let more = [(30, "连长"), (60, "营长"), (100, "团长"), (160, "旅长"), (250, "师长")];
        let top = [(399, "师长"), (400, "军长"), (599, "军长"), (600, "司令"), (5000, "司令")];
        for (p, name) in points.into_iter().chain(more).chain(top) {
            assert_eq!(Title::for_points(p).chinese(), name, "{p} points");
        }
        let ratings = [(800.0, "工兵"), (1199.4, "工兵"), (1199.5, "排长"), (1349.0, "排长")];
        let more = [(1350.0, "连长"), (1500.0, "营长"), (1650.0, "团长"), (1800.0, "旅长")];
        let top = [(1950.0, "师长"), (2100.0, "军长"), (2249.0, "军长"), (2250.0, "司令")];
        for (r, name) in ratings.into_iter().chain(more).chain(top) {
            assert_eq!(Title::for_rating(settled(r)).map(Title::chinese), Some(name), "{r}");
        }
    }

    #[test]
    fn a_provisional_rating_has_no_title() {
        assert_eq!(Title::for_rating(Rating::default()), None);
        let r = Rating { rating: 2400.0, rd: 110.5, ..Rating::default() };
        assert_eq!(Title::for_rating(r), None);
        assert_eq!(
            Title::on(LadderKind::HfRanked, 0, Rating { rd: 110.0, ..r }),
            Some(Title::Commander)
        );
        assert_eq!(Title::on(LadderKind::Ranked, 61, r), Some(Title::BattalionCommander));
    }
}
