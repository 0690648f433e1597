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
    /// Options from JSON: `given`'s fields over the defaults of `variant` ([`Options::for_variant`]).
    /// Unknown fields are refused, and so are, in Hidden Front, the four-player options that do
    /// not apply to it (`info_mode`, `max_steps`, `max_skips`, `bombs_front_row`); its fixed
    /// limits (`max_timeouts`, `max_quiet_steps`) may be given with their own values, as
    /// [`Options::shown`] writes them. (Not range-checked: see [`Options::validate`].)
    pub fn from_json_for(
        variant: crate::board::Variant,
        given: Option<serde_json::Value>,
    ) -> Result<Options, String> {
        let mut options =
            serde_json::to_value(Options::for_variant(variant)).map_err(|e| e.to_string())?;
        if let Some(given) = given {
            let serde_json::Value::Object(given) = given else {
                return Err("options must be an object".into());
            };
            let known = options.as_object_mut().expect("options serialize as an object");
            let hidden_front = !variant.is_four_player();
            for (k, v) in given {
                if hidden_front {
                    if let Some(fixed) = hf_fixed(&k) {
                        if v.as_u64() != Some(u64::from(fixed)) {
                            return Err(format!("{k} is {fixed} in Hidden Front"));
                        }
                        continue;
                    }
                    if FOUR_PLAYER_ONLY.contains(&k.as_str()) {
                        return Err(format!("option {k:?} does not apply to Hidden Front"));
                    }
                }
                if !known.contains_key(&k) {
                    return Err(format!("unknown option {k:?}"));
                }
                known.insert(k, v);
            }
        }
        serde_json::from_value(options).map_err(|e| e.to_string())
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

/// Four-player options that have no meaning in Hidden Front (hidden-front.md §5–§8).
const FOUR_PLAYER_ONLY: [&str; 4] = ["info_mode", "max_steps", "max_skips", "bombs_front_row"];

/// Hidden Front's fixed limits, shown beside its options.
fn hf_fixed(key: &str) -> Option<u32> {
    match key {
        "max_timeouts" => Some(crate::game::HF_TIMEOUT_LIMIT),
        "max_quiet_steps" => Some(crate::game::HF_QUIET_LIMIT),
        _ => None,
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
        let v = serde_json::Value::deserialize(d)?;
        let variant = if v.get("max_timeouts").is_some() {
            crate::board::Variant::HiddenFront
        } else {
            crate::board::Variant::FourPlayer
        };
        let options = Options::from_json_for(variant, Some(v)).map_err(serde::de::Error::custom)?;
        Ok(ShownOptions { variant, options })
    }
}

/// Hidden Front's options on the wire.
#[derive(Serialize)]
struct HiddenFrontOptions {
    move_seconds: u32,
    deploy_seconds: u32,
    reconnect_seconds: u32,
    flag_capture: FlagCapture,
    mines: MineRule,
    max_timeouts: u32,
    max_quiet_steps: u32,
}

impl Serialize for ShownOptions {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let o = &self.options;
        if self.variant.is_four_player() {
            return o.serialize(s);
        }
        HiddenFrontOptions {
            move_seconds: o.move_seconds,
            deploy_seconds: o.deploy_seconds,
            reconnect_seconds: o.reconnect_seconds,
            flag_capture: o.flag_capture,
            mines: o.mines,
            max_timeouts: crate::game::HF_TIMEOUT_LIMIT,
            max_quiet_steps: crate::game::HF_QUIET_LIMIT,
        }
        .serialize(s)
    }
}
