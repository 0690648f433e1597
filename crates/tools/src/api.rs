//! The HTTP client of Siguo's API (reqwest) that the tools share (`loadtest`, `ladder-bench`):
//! one connection pool for the whole run, kept-alive connections reused across requests.
//! Sessions are used through the access token they return (a bearer token); no cookie jar is
//! kept, so every request is anonymous unless it says otherwise.
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::net::SocketAddr;
use std::time::Duration;

const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

#[derive(Clone)]
pub struct Api {
    client: reqwest::Client,
    base: String,
}

#[derive(Serialize)]
struct Credentials<'a> {
    username: &'a str,
    password: &'a str,
}

#[derive(Deserialize)]
struct Session {
    access_token: String,
}

#[derive(Deserialize, Default)]
struct ErrorBody {
    error: ErrorCode,
}

#[derive(Deserialize, Default)]
struct ErrorCode {
    code: String,
}

/// `GET /api/games/{id}`: the finished game's `record`, or the `public` part of one in play.
#[derive(Deserialize)]
struct GameBody {
    record: Option<ActionList>,
    public: Option<ActionList>,
}

#[derive(Deserialize)]
struct ActionList {
    actions: Vec<RecordedAction>,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum RecordedAction {
    Move {
        from: String,
        to: String,
    },
    #[serde(other)]
    Other,
}

/// A move as (from, to) stations.
pub type Move = (String, String);

impl Api {
    pub fn new(addr: SocketAddr) -> Result<Api, String> {
        Api::at(&format!("http://{addr}"))
    }

    /// A client of the server at `base` (`http://host:port`, no trailing slash).
    pub fn at(base: &str) -> Result<Api, String> {
        let client = reqwest::Client::builder()
            .timeout(REQUEST_TIMEOUT)
            .tcp_nodelay(true)
            .build()
            .map_err(|e| format!("http client: {e}"))?;
        Ok(Api { client, base: base.trim_end_matches('/').to_string() })
    }

    /// `POST /api/auth/guest`: a guest's access token.
    pub async fn guest_token(&self) -> Result<String, String> {
        let req = self.client.post(self.url("/api/auth/guest"));
        let session: Session = self.expect_json("guest", req).await?;
        Ok(session.access_token)
    }

    /// `POST /api/auth/register`: the new account's access token.
    pub async fn register(&self, username: &str, password: &str) -> Result<String, String> {
        let req = self
            .client
            .post(self.url("/api/auth/register"))
            .json(&Credentials { username, password });
        let session: Session = self.expect_json("register", req).await?;
        Ok(session.access_token)
    }

    /// `POST /api/auth/login`: the access token of the new session.
    pub async fn login(&self, username: &str, password: &str) -> Result<String, String> {
        let req =
            self.client.post(self.url("/api/auth/login")).json(&Credentials { username, password });
        let session: Session = self.expect_json("login", req).await?;
        Ok(session.access_token)
    }

    /// `GET {path}`, as the holder of `token` if one is given: the status and the whole body
    /// (read here, so that timing the call times the complete answer).
    pub async fn get_raw(&self, path: &str, token: Option<&str>) -> Result<(u16, Vec<u8>), String> {
        let mut req = self.client.get(self.url(path));
        if let Some(token) = token {
            req = req.bearer_auth(token);
        }
        let what = || format!("GET {path}");
        let resp = req.send().await.map_err(|e| format!("{}: {}", what(), describe(&e)))?;
        let status = resp.status().as_u16();
        let body = resp.bytes().await.map_err(|e| format!("{}: {}", what(), describe(&e)))?;
        Ok((status, body.to_vec()))
    }

    /// `GET {path}` with a 2xx status and a JSON body, as the holder of `token` if one is given.
    pub async fn get_json<T: DeserializeOwned>(
        &self,
        path: &str,
        token: Option<&str>,
    ) -> Result<T, String> {
        let (status, body) = self.get_raw(path, token).await?;
        parse_answer(&format!("GET {path}"), status, &body)
    }

    /// The moves the server recorded for game `id`, in order, as read by the holder of `token`
    /// (a player: a private game is shown to its players only).
    pub async fn game_moves(&self, id: i64, token: &str) -> Result<Vec<Move>, String> {
        let path = format!("/api/games/{id}");
        let req = self.client.get(self.url(&path)).bearer_auth(token);
        let body: GameBody = self.expect_json(&format!("GET {path}"), req).await?;
        let actions = body.record.or(body.public).map(|l| l.actions).unwrap_or_default();
        let moves = actions.into_iter().filter_map(|a| match a {
            RecordedAction::Move { from, to } => Some((from, to)),
            RecordedAction::Other => None,
        });
        Ok(moves.collect())
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Send, require a 2xx status and parse the JSON body.
    async fn expect_json<T: DeserializeOwned>(
        &self,
        what: &str,
        req: reqwest::RequestBuilder,
    ) -> Result<T, String> {
        let resp = req.send().await.map_err(|e| format!("{what}: {}", describe(&e)))?;
        let status = resp.status().as_u16();
        if !resp.status().is_success() {
            let body: ErrorBody = resp.json().await.unwrap_or_default();
            return Err(http_error(what, status, &body.error.code));
        }
        resp.json().await.map_err(|e| format!("{what}: HTTP {status}, bad body: {e}"))
    }
}

/// A JSON body of a 2xx answer, or the error the server answered.
pub fn parse_answer<T: DeserializeOwned>(
    what: &str,
    status: u16,
    body: &[u8],
) -> Result<T, String> {
    if !(200..300).contains(&status) {
        let body: ErrorBody = serde_json::from_slice(body).unwrap_or_default();
        return Err(http_error(what, status, &body.error.code));
    }
    serde_json::from_slice(body).map_err(|e| format!("{what}: HTTP {status}, bad body: {e}"))
}

/// An error with its causes ("error sending request" alone does not say "connection refused").
fn describe(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text = format!("{text}: {c}");
        cause = c.source();
    }
    text
}

/// An error status, with the configuration knob to raise when it is a rate limit.
fn http_error(what: &str, status: u16, code: &str) -> String {
    let hint = match (status, what) {
        (429, "guest") => " (raise limits.guest_per_ip for the test: SIGUO_LIMITS_GUEST_PER_IP)",
        (429, "register") => {
            " (raise limits.register_per_ip for the test: SIGUO_LIMITS_REGISTER_PER_IP)"
        }
        (429, _) => {
            " (raise limits.login_per_ip / login_per_account: SIGUO_LIMITS_LOGIN_PER_IP, \
             SIGUO_LIMITS_LOGIN_PER_ACCOUNT)"
        }
        _ => "",
    };
    let code = if code.is_empty() { "?" } else { code };
    format!("{what}: HTTP {status} {code}{hint}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_limits_name_their_knob() {
        assert_eq!(http_error("login", 401, "bad_credentials"), "login: HTTP 401 bad_credentials");
        assert!(http_error("guest", 429, "").contains("SIGUO_LIMITS_GUEST_PER_IP"));
        assert!(http_error("login", 429, "x").contains("SIGUO_LIMITS_LOGIN_PER_ACCOUNT"));
    }

    #[test]
    fn reads_moves_of_a_record() {
        let body: GameBody = serde_json::from_str(
            r#"{"id":1,"record":null,"public":{"v":3,"actions":[
                {"type":"move","from":"Nc4","to":"Nc3"},{"type":"timeout"},
                {"type":"move","from":"Ea1","to":"Cc1"}]}}"#,
        )
        .unwrap();
        let actions = body.record.or(body.public).unwrap().actions;
        assert_eq!(actions.len(), 3);
        assert!(matches!(&actions[2], RecordedAction::Move { from, .. } if from == "Ea1"));
    }
}
