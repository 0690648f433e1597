//! Room options (rules.md §10).
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InfoMode {
    /// 四暗: each player sees only its own ranks.
    #[default]
    FourDark,
    /// 双明: allies see each other's ranks.
    DoubleOpen,
    /// 全明: everyone sees everything.
    AllOpen,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlagCapture {
    #[default]
    Any,
    NotCommander,
    EngineerOnly,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MineRule {
    #[default]
    Invincible,
    Mutual,
}

/// Room options. Missing fields take their defaults; unknown fields are refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    pub info_mode: InfoMode,
    pub move_seconds: u32,
    pub deploy_seconds: u32,
    pub reconnect_seconds: u32,
    pub max_steps: u32,
    pub max_skips: u32,
    pub bombs_front_row: bool,
    pub flag_capture: FlagCapture,
    pub mines: MineRule,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            info_mode: InfoMode::FourDark,
            move_seconds: 30,
            deploy_seconds: 90,
            reconnect_seconds: 60,
            max_steps: 300,
            max_skips: 5,
            bombs_front_row: false,
            flag_capture: FlagCapture::Any,
            mines: MineRule::Invincible,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("option {field} must be between {min} and {max}, got {value}")]
pub struct OptionsError {
    pub field: &'static str,
    pub min: u32,
    pub max: u32,
    pub value: u32,
}

impl Options {
    /// The defaults of a game: rules.md §10; Hidden Front differs in `mines = mutual` (seed 000).
    pub fn for_variant(variant: crate::board::Variant) -> Options {
        match variant {
            crate::board::Variant::FourPlayer => Options::default(),
            crate::board::Variant::HiddenFront => {
                Options { mines: MineRule::Mutual, ..Options::default() }
            }
        }
    }
    /// Options from JSON: `given`'s fields over the defaults of `variant` ([`Options::for_variant`]),
    /// read as [`OptionChanges`] and applied ([`OptionChanges::apply`]). (Not range-checked: see
    /// [`Options::validate`].)
    pub fn from_json_for(
        variant: crate::board::Variant,
        given: Option<serde_json::Value>,
    ) -> Result<Options, String> {
        let changes = match given {
            None | Some(serde_json::Value::Null) => OptionChanges::default(),
            Some(v @ serde_json::Value::Object(_)) => {
                serde_json::from_value(v).map_err(|e| e.to_string())?
            }
            Some(_) => return Err("options must be an object".into()),
        };
        changes.apply(variant)
    }

    /// Check every numeric option is in its range (rules.md §10).
    pub fn validate(&self) -> Result<(), OptionsError> {
        let checks: [(&'static str, u32, u32, u32); 5] = [
            ("move_seconds", 10, 120, self.move_seconds),
            ("deploy_seconds", 30, 300, self.deploy_seconds),
            ("reconnect_seconds", 15, 300, self.reconnect_seconds),
            ("max_steps", 50, 2000, self.max_steps),
            ("max_skips", 1, 20, self.max_skips),
        ];
        for (field, min, max, value) in checks {
            if value < min || value > max {
                return Err(OptionsError { field, min, max, value });
            }
        }
        Ok(())
    }

    /// The options as `variant` shows them (views, rooms, records, positions): the four-player
    /// game all of them; Hidden Front only those that apply to it, with its fixed limits.
    pub fn shown(&self, variant: crate::board::Variant) -> ShownOptions {
        ShownOptions { variant, options: *self }
    }
}

/// Room options as a client gives them: each field it names, over the defaults of the game
/// ([`OptionChanges::apply`]). Unknown fields are refused when read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OptionChanges {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub info_mode: Option<InfoMode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub move_seconds: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deploy_seconds: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reconnect_seconds: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_steps: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_skips: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bombs_front_row: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flag_capture: Option<FlagCapture>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mines: Option<MineRule>,
    /// Hidden Front's fixed limit, as [`Options::shown`] writes it (only its own value)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_timeouts: Option<u32>,
    /// Hidden Front's fixed limit, as [`Options::shown`] writes it (only its own value)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_quiet_steps: Option<u32>,
}

impl OptionChanges {
    /// These changes over the defaults of `variant`. In Hidden Front, the four-player options
    /// that do not apply to it (`info_mode`, `max_steps`, `max_skips`, `bombs_front_row`) are
    /// refused, and its fixed limits may be named with their own values only; the four-player
    /// game has no such limits. (Not range-checked: see [`Options::validate`].)
    pub fn apply(&self, variant: crate::board::Variant) -> Result<Options, String> {
        let c = self;
        let fixed = [
            ("max_timeouts", c.max_timeouts, crate::game::HF_TIMEOUT_LIMIT),
            ("max_quiet_steps", c.max_quiet_steps, crate::game::HF_QUIET_LIMIT),
        ];
        if variant.is_four_player() {
            if let Some((name, ..)) = fixed.iter().find(|(_, v, _)| v.is_some()) {
                return Err(format!("unknown option {name:?}"));
            }
        } else {
            for (name, given, value) in fixed {
                if given.is_some_and(|g| g != value) {
                    return Err(format!("{name} is {value} in Hidden Front"));
                }
            }
            let four_player_only = [
                ("info_mode", c.info_mode.is_some()),
                ("max_steps", c.max_steps.is_some()),
                ("max_skips", c.max_skips.is_some()),
                ("bombs_front_row", c.bombs_front_row.is_some()),
            ];
            if let Some((name, _)) = four_player_only.iter().find(|(_, given)| *given) {
                return Err(format!("option {name:?} does not apply to Hidden Front"));
            }
        }
        let d = Options::for_variant(variant);
        Ok(Options {
            info_mode: c.info_mode.unwrap_or(d.info_mode),
            move_seconds: c.move_seconds.unwrap_or(d.move_seconds),
            deploy_seconds: c.deploy_seconds.unwrap_or(d.deploy_seconds),
            reconnect_seconds: c.reconnect_seconds.unwrap_or(d.reconnect_seconds),
            max_steps: c.max_steps.unwrap_or(d.max_steps),
            max_skips: c.max_skips.unwrap_or(d.max_skips),
            bombs_front_row: c.bombs_front_row.unwrap_or(d.bombs_front_row),
            flag_capture: c.flag_capture.unwrap_or(d.flag_capture),
            mines: c.mines.unwrap_or(d.mines),
        })
    }
}

/// [`Options`] as one game shows them ([`Options::shown`]). Read back, an object with
/// `max_timeouts` is Hidden Front's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ShownOptions {
    pub variant: crate::board::Variant,
    pub options: Options,
}

impl<'de> Deserialize<'de> for ShownOptions {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let changes = OptionChanges::deserialize(d)?;
        let variant = match changes.max_timeouts {
            Some(_) => crate::board::Variant::HiddenFront,
            None => crate::board::Variant::FourPlayer,
        };
        let options = changes.apply(variant).map_err(serde::de::Error::custom)?;
        Ok(ShownOptions { variant, options })
    }
}

/// Every option the game shows, as changes over nothing: the four-player game all of them;
/// Hidden Front only those that apply to it, with its fixed limits.
impl From<ShownOptions> for OptionChanges {
    fn from(shown: ShownOptions) -> OptionChanges {
        let o = shown.options;
        let common = OptionChanges {
            move_seconds: Some(o.move_seconds),
            deploy_seconds: Some(o.deploy_seconds),
            reconnect_seconds: Some(o.reconnect_seconds),
            flag_capture: Some(o.flag_capture),
            mines: Some(o.mines),
            ..OptionChanges::default()
        };
        if shown.variant.is_four_player() {
            OptionChanges {
                info_mode: Some(o.info_mode),
                max_steps: Some(o.max_steps),
                max_skips: Some(o.max_skips),
                bombs_front_row: Some(o.bombs_front_row),
                ..common
            }
        } else {
            OptionChanges {
                max_timeouts: Some(crate::game::HF_TIMEOUT_LIMIT),
                max_quiet_steps: Some(crate::game::HF_QUIET_LIMIT),
                ..common
            }
        }
    }
}

impl Serialize for ShownOptions {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        OptionChanges::from(*self).serialize(s)
    }
}

/// What a view and a position are both read back with: the options as the game shows them (over
/// its defaults), and the per-seat counters (the four-player `skips`, Hidden Front `timeouts`).
pub(crate) fn read_shown(
    variant: crate::board::Variant,
    options: Option<OptionChanges>,
    skips: std::collections::BTreeMap<crate::board::Seat, u32>,
    timeouts: std::collections::BTreeMap<crate::board::Seat, u32>,
) -> Result<(Options, std::collections::BTreeMap<crate::board::Seat, u32>), String> {
    let options = options.unwrap_or_default().apply(variant)?;
    let mut counters = skips;
    counters.extend(timeouts);
    Ok((options, counters))
}

/// The per-seat counters as the game writes them: (`skips`, `timeouts`).
pub(crate) fn counters_shown<T>(
    variant: crate::board::Variant,
    counters: T,
) -> (Option<T>, Option<T>) {
    match variant.is_four_player() {
        true => (Some(counters), None),
        false => (None, Some(counters)),
    }
}
