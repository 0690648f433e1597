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
    /// Unknown fields are refused. (Not range-checked: see [`Options::validate`].)
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
            for (k, v) in given {
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
}
