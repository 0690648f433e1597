//! Configuration: the embedded `config/default.toml`, then an optional TOML file named by
//! `SIGUO_CONFIG`, then `SIGUO_*` environment variables (`SIGUO_DATABASE_URL` sets `database.url`;
//! `SIGUO_AUTH__JWT_SECRET` with a double underscore works too). Unknown keys and invalid values
//! are errors: the server refuses to start and says which setting is wrong.
use figment::providers::{Env, Format, Toml};
use figment::Figment;
use serde::{Deserialize, Serialize};
use std::net::SocketAddr;

/// The embedded defaults.
pub const DEFAULT_TOML: &str = include_str!("../config/default.toml");

/// Section names, used to map `SIGUO_SECTION_KEY` to `section.key`.
const SECTIONS: [&str; 8] =
    ["server", "database", "auth", "limits", "log", "ladder", "live", "cluster"];

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub server: ServerConfig,
    pub database: DatabaseConfig,
    pub auth: AuthConfig,
    pub limits: LimitsConfig,
    pub log: LogConfig,
    /// ranked queues (optional section; defaults in `crate::ladder::LadderConfig`)
    #[serde(default)]
    pub ladder: crate::ladder::LadderConfig,
    /// live play (rooms, games, sockets)
    #[serde(default)]
    pub live: crate::live::LiveConfig,
    /// several nodes on one PostgreSQL (optional section; off by default)
    #[serde(default)]
    pub cluster: crate::cluster::ClusterConfig,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerConfig {
    pub listen: SocketAddr,
    /// 0 = one per core
    pub workers: usize,
    pub static_dir: String,
    pub shutdown_timeout_secs: u64,
    /// reverse proxies whose `X-Forwarded-*` headers are believed (addresses or CIDRs; empty:
    /// nobody), see `crate::http::client`
    pub trusted_proxies: crate::http::client::TrustedProxies,
    /// extra Origins allowed for WebSocket upgrades
    pub allowed_origins: Vec<String>,
    pub json_limit_bytes: usize,
    pub metrics: bool,
    /// client addresses (exact, no CIDRs) allowed to read `/metrics`
    pub metrics_allow: Vec<std::net::IpAddr>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DatabaseConfig {
    pub url: String,
    pub pool_size: u32,
    pub connect_timeout_secs: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthConfig {
    pub jwt_secret: String,
    pub issuer: String,
    pub audience: String,
    pub access_ttl_secs: u64,
    pub refresh_ttl_days: u64,
    pub cookie_secure: bool,
    /// password-hashing threads (nice 10); 0 = one per two CPU cores (at least one)
    pub hash_threads: usize,
    /// hashes that may wait for a hashing thread; beyond that 503 `server_busy` (at least 1)
    pub hash_queue: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsConfig {
    /// failed logins per (account, client IP) per window
    pub login_per_account: u32,
    /// failed logins per account from all IPs together per window (a looser ceiling)
    pub login_per_account_total: u32,
    pub login_per_ip: u32,
    pub login_window_secs: u64,
    pub register_per_ip: u32,
    pub guest_per_ip: u32,
    pub register_window_secs: u64,
    /// WebSocket tickets per account per `ticket_window_secs`
    pub ticket_per_account: u32,
    /// WebSocket tickets per client IP per `ticket_window_secs`
    pub ticket_per_ip: u32,
    pub ticket_window_secs: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogConfig {
    pub level: String,
    pub format: LogFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    Text,
    Json,
}

impl Config {
    /// Defaults < file in `SIGUO_CONFIG` < `SIGUO_*` environment.
    pub fn load() -> Result<Config, String> {
        let mut figment = Figment::from(Toml::string(DEFAULT_TOML));
        if let Ok(path) = std::env::var("SIGUO_CONFIG") {
            if !std::path::Path::new(&path).is_file() {
                return Err(format!("configuration file {path:?} (SIGUO_CONFIG) does not exist"));
            }
            figment = figment.merge(Toml::file(path));
        }
        figment = figment.merge(env_provider());
        Self::extract(figment)
    }

    /// Only the embedded defaults (no file, no environment): the base for tests.
    pub fn embedded() -> Config {
        Self::extract(Figment::from(Toml::string(DEFAULT_TOML)))
            .expect("embedded config/default.toml is valid")
    }

    /// Defaults overlaid with a TOML string (for tests and tools).
    pub fn from_toml(overlay: &str) -> Result<Config, String> {
        Self::extract(Figment::from(Toml::string(DEFAULT_TOML)).merge(Toml::string(overlay)))
    }

    fn extract(figment: Figment) -> Result<Config, String> {
        if figment.find_value("server.trust_proxy").is_ok() {
            return Err(REMOVED_TRUST_PROXY.into());
        }
        let config: Config = figment.extract().map_err(|e| {
            let mut msg = String::from("invalid configuration:");
            for err in e {
                msg.push_str("\n  ");
                msg.push_str(&err.to_string());
            }
            msg
        })?;
        config.validate()?;
        Ok(config)
    }

    /// Checks beyond types.
    pub fn validate(&self) -> Result<(), String> {
        let a = &self.auth;
        if !(1..=900).contains(&a.access_ttl_secs) {
            return Err(
                "invalid configuration: auth.access_ttl_secs must be between 1 and 900".into()
            );
        }
        if a.refresh_ttl_days == 0 || a.refresh_ttl_days > 365 {
            return Err(
                "invalid configuration: auth.refresh_ttl_days must be between 1 and 365".into()
            );
        }
        if !a.jwt_secret.is_empty() && a.jwt_secret.len() < 32 {
            return Err("invalid configuration: auth.jwt_secret must be empty (generated) or at least 32 bytes".into());
        }
        if a.issuer.is_empty() || a.audience.is_empty() {
            return Err(
                "invalid configuration: auth.issuer and auth.audience must not be empty".into()
            );
        }
        if a.hash_queue == 0 {
            return Err("invalid configuration: auth.hash_queue must be at least 1".into());
        }
        if self.database.url.trim().is_empty() {
            return Err("invalid configuration: database.url must not be empty".into());
        }
        crate::db::Backend::of_url(&self.database.url)?;
        self.cluster.validate(&self.database.url)?;
        if self.database.pool_size == 0 {
            return Err("invalid configuration: database.pool_size must be at least 1".into());
        }
        let l = &self.limits;
        if l.login_per_account == 0
            || l.login_per_account_total == 0
            || l.login_per_ip == 0
            || l.register_per_ip == 0
            || l.guest_per_ip == 0
            || l.ticket_per_account == 0
            || l.ticket_per_ip == 0
        {
            return Err("invalid configuration: limits.* counts must be at least 1".into());
        }
        if l.login_window_secs == 0 || l.register_window_secs == 0 || l.ticket_window_secs == 0 {
            return Err("invalid configuration: limits.*_window_secs must be at least 1".into());
        }
        if self.server.json_limit_bytes < 256 {
            return Err(
                "invalid configuration: server.json_limit_bytes must be at least 256".into()
            );
        }
        tracing_subscriber::EnvFilter::try_new(&self.log.level)
            .map_err(|e| format!("invalid configuration: log.level {:?}: {e}", self.log.level))?;
        Ok(())
    }
}

/// The answer to a configuration that still sets the removed `server.trust_proxy`.
const REMOVED_TRUST_PROXY: &str = "invalid configuration: server.trust_proxy was removed (it \
     believed X-Forwarded-For from anyone); list your reverse proxies' addresses or CIDRs in \
     server.trusted_proxies instead, e.g. trusted_proxies = [\"127.0.0.1\"] \
     (docs/deployment.md, \"Behind a reverse proxy\")";

/// `SIGUO_*` variables; `SIGUO_CONFIG` and `SIGUO_TEST_*` are not settings.
fn env_provider() -> Env {
    Env::prefixed("SIGUO_")
        .filter(|k| {
            let k = k.as_str().to_ascii_lowercase();
            k != "config" && !k.starts_with("test_")
        })
        .map(|k| {
            let k = k.as_str().to_ascii_lowercase();
            if k.contains("__") {
                return k.replace("__", ".").into();
            }
            for s in SECTIONS {
                if let Some(rest) = k.strip_prefix(s).and_then(|r| r.strip_prefix('_')) {
                    return format!("{s}.{rest}").into();
                }
            }
            k.into()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_defaults_are_valid() {
        let c = Config::embedded();
        assert_eq!(c.server.listen.to_string(), "127.0.0.1:8080");
        assert_eq!(c.database.url, "sqlite://data/siguo.db");
        assert!(c.auth.access_ttl_secs <= 900);
    }

    #[test]
    fn overlays_and_errors() {
        let c = Config::from_toml("[database]\nurl = \"postgres://u@h/db\"\n").unwrap();
        assert_eq!(c.database.url, "postgres://u@h/db");
        let e = Config::from_toml("[server]\nbogus = 1\n").unwrap_err();
        assert!(e.contains("bogus"), "{e}");
        let e = Config::from_toml("[auth]\naccess_ttl_secs = 901\n").unwrap_err();
        assert!(e.contains("access_ttl_secs"), "{e}");
        let e = Config::from_toml("[auth]\njwt_secret = \"short\"\n").unwrap_err();
        assert!(e.contains("jwt_secret"), "{e}");
        let e = Config::from_toml("[auth]\nhash_queue = 0\n").unwrap_err();
        assert!(e.contains("hash_queue"), "{e}");
        let e = Config::from_toml("[auth]\nhash_slice_us = 250\n").unwrap_err();
        assert!(e.contains("hash_slice_us"), "removed keys are refused: {e}");
        let e = Config::from_toml("[log]\nformat = \"xml\"\n").unwrap_err();
        assert!(e.contains("xml") || e.contains("format"), "{e}");
        let e = Config::from_toml("[database]\nurl = \"mysql://x\"\n").unwrap_err();
        assert!(e.contains("database.url"), "{e}");
        assert!(Config::from_toml("top_level = 1\n").is_err());
    }

    #[test]
    fn trusted_proxies_and_the_removed_trust_proxy() {
        assert!(Config::embedded().server.trusted_proxies.is_empty(), "nobody by default");
        let c = Config::from_toml("[server]\ntrusted_proxies = [\"127.0.0.1\", \"10.0.0.0/8\"]\n")
            .unwrap();
        let t = &c.server.trusted_proxies;
        assert!(
            t.contains("127.0.0.1".parse().unwrap()) && t.contains("10.9.8.7".parse().unwrap())
        );
        assert!(!t.contains("127.0.0.2".parse().unwrap()));
        let e = Config::from_toml("[server]\ntrusted_proxies = [\"proxy.local\"]\n").unwrap_err();
        assert!(e.contains("proxy.local") && e.contains("trusted_proxies"), "{e}");
        for old in ["true", "false"] {
            let e = Config::from_toml(&format!("[server]\ntrust_proxy = {old}\n")).unwrap_err();
            assert!(e.contains("trust_proxy was removed") && e.contains("trusted_proxies"), "{e}");
        }
    }
}
