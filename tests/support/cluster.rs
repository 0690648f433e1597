//! Real cluster processes for tests: `siguo serve` nodes on one PostgreSQL database, and HAProxy
//! in front of them with the shipped configuration (deploy/haproxy.cfg, its addresses replaced by
//! free ports). Plain std + tokio + reqwest, so that the tools' tests can mount it too
//! (`#[path = "../../../tests/support/cluster.rs"] mod cluster;`).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A free TCP port on 127.0.0.1 (bound and released: a tiny race, as with every port-0 helper).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A `siguo serve` node of a cluster on `db_url`.
pub struct Node {
    pub id: &'static str,
    pub addr: String,
    pub child: Child,
    bin: PathBuf,
    db_url: String,
    env: Vec<(String, String)>,
}

impl Node {
    /// Start node `id` of the binary `bin` on a free port, with fast heartbeats (200 ms, grace
    /// 1.5 s), bots that do not wait, and HAProxy's address (127.0.0.1) as its only trusted proxy;
    /// `env` adds or overrides `SIGUO_*` settings.
    pub fn start(bin: &Path, id: &'static str, db_url: &str, env: &[(&str, &str)]) -> Node {
        let addr = format!("127.0.0.1:{}", free_port());
        let env: Vec<(String, String)> =
            env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let child = spawn(bin, id, &addr, db_url, &env);
        Node { id, addr, child, bin: bin.to_path_buf(), db_url: db_url.to_string(), env }
    }

    pub fn port(&self) -> u16 {
        self.addr.rsplit(':').next().unwrap().parse().unwrap()
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Wait until the node answers `/readyz`.
    pub async fn ready(&mut self) {
        let started = Instant::now();
        loop {
            if let Ok(r) = reqwest::get(self.url("/readyz")).await {
                if r.status() == 200 {
                    return;
                }
            }
            assert!(self.child.try_wait().unwrap().is_none(), "node {} exited", self.id);
            assert!(started.elapsed() < Duration::from_secs(60), "node {} never ready", self.id);
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// SIGKILL (std's `Child::kill`), and reap.
    pub fn kill9(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Start the node again on the same address (after `kill9`).
    pub fn restart(&mut self) {
        self.kill9();
        self.child = spawn(&self.bin, self.id, &self.addr, &self.db_url, &self.env);
    }

    /// The owner of a game, as this node tells it.
    pub async fn owner(&self, game: i64) -> Option<String> {
        owner_at(&self.url(&format!("/api/games/{game}/node")), None).await
    }

    /// The owner of a private game (a private room's, a practice game), as this node tells one
    /// of its players (access token `token`).
    pub async fn owner_as(&self, game: i64, token: &str) -> Option<String> {
        owner_at(&self.url(&format!("/api/games/{game}/node")), Some(token)).await
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        self.kill9();
    }
}

fn spawn(bin: &Path, id: &str, addr: &str, db_url: &str, env: &[(String, String)]) -> Child {
    let mut c = Command::new(bin);
    for (k, _) in std::env::vars() {
        if k.starts_with("SIGUO_") {
            c.env_remove(k);
        }
    }
    c.arg("serve")
        .env("SIGUO_LOG_LEVEL", "warn")
        .env("SIGUO_DATABASE_URL", db_url)
        .env("SIGUO_SERVER_LISTEN", addr)
        .env("SIGUO_SERVER_WORKERS", "1")
        .env("SIGUO_CLUSTER_ENABLED", "true")
        .env("SIGUO_CLUSTER_NODE_ID", id)
        .env("SIGUO_CLUSTER_HEARTBEAT_MS", "200")
        .env("SIGUO_CLUSTER_GRACE_MS", "1500")
        .env("SIGUO_LIVE_BOT_MOVE_DELAY_MS", "0")
        // as deploy/README.md prescribes: the nodes believe X-Forwarded-* only from HAProxy
        .env("SIGUO_SERVER__TRUSTED_PROXIES", "127.0.0.1")
        .env("SIGUO_SERVER_STATIC_DIR", workspace_root().join("static"));
    for (k, v) in env {
        c.env(k, v);
    }
    c.stdout(Stdio::null()).spawn().expect("start siguo serve")
}

/// The workspace root (this file is mounted by the server's tests and by the tools' tests).
fn workspace_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    if here.join("deploy").exists() {
        here.to_path_buf()
    } else {
        here.join("../..")
    }
}

/// `GET {url}` (with `token` as bearer) → its `node` field.
pub async fn owner_at(url: &str, token: Option<&str>) -> Option<String> {
    let mut req = reqwest::Client::new().get(url);
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    let r = req.send().await.ok()?;
    if !r.status().is_success() {
        return None;
    }
    let v: serde_json::Value = r.json().await.ok()?;
    v["node"].as_str().map(str::to_string)
}

/// HAProxy with deploy/haproxy.cfg in front of nodes `n1`, `n2`, `n3`.
pub struct Haproxy {
    pub addr: String,
    child: Child,
    cfg: PathBuf,
    /// its stderr (alerts), shown if it does not start
    log: PathBuf,
}

impl Haproxy {
    /// The HAProxy binary: on the PATH or /usr/sbin/haproxy (`.ci/run` installs it).
    pub fn binary() -> PathBuf {
        for dir in std::env::var("PATH").unwrap_or_default().split(':').chain(["/usr/sbin"]) {
            let p = Path::new(dir).join("haproxy");
            if p.is_file() {
                return p;
            }
        }
        panic!("HAProxy is not installed (apt install haproxy; .ci/run installs it)");
    }

    /// Start HAProxy with the shipped configuration, its frontend on a free port and its three
    /// servers at the given nodes (named n1, n2, n3 as the configuration's path rules say).
    pub async fn start(nodes: &[&Node]) -> Haproxy {
        let shipped = workspace_root().join("deploy/haproxy.cfg");
        let mut cfg = std::fs::read_to_string(&shipped).expect("deploy/haproxy.cfg");
        let addr = format!("127.0.0.1:{}", free_port());
        cfg = cfg.replace("127.0.0.1:8080", &addr);
        for (i, n) in nodes.iter().enumerate() {
            assert_eq!(n.id, ["n1", "n2", "n3"][i], "deploy/haproxy.cfg routes n1, n2, n3");
            cfg = cfg.replace(&format!("127.0.0.1:808{}", i + 1), &n.addr);
        }
        // no log lines on the test's stdout; a test needs few connections (and the machine's
        // descriptor limit may be lower than the shipped maxconn asks)
        cfg = cfg.replace("    log stdout format raw local0\n", "");
        cfg = cfg.replace("    maxconn 8000\n", "    maxconn 1000\n");
        let path = std::env::temp_dir().join(format!("siguo_haproxy_{:08x}.cfg", rand_u32()));
        std::fs::write(&path, cfg).unwrap();
        let log = path.with_extension("log");
        let child = Command::new(Self::binary())
            .args(["-db", "-f"])
            .arg(&path)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .expect("start haproxy");
        let mut h = Haproxy { addr, child, cfg: path, log };
        h.ready().await;
        h
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub fn ws_url(&self, path: &str) -> String {
        format!("ws://{}{path}", self.addr)
    }

    /// Wait until requests pass through to a ready node.
    async fn ready(&mut self) {
        let started = Instant::now();
        loop {
            if let Ok(r) = reqwest::get(self.url("/readyz")).await {
                if r.status() == 200 {
                    return;
                }
            }
            if self.child.try_wait().unwrap().is_some() {
                panic!(
                    "haproxy exited: {}",
                    std::fs::read_to_string(&self.log).unwrap_or_default()
                );
            }
            assert!(started.elapsed() < Duration::from_secs(30), "haproxy never ready");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Wait until HAProxy routes `/ws/n/{node}` again (its health checks see a restarted node
    /// after `rise` checks; until then the path answers 503).
    pub async fn wait_routed(&self, node: &str) {
        let started = Instant::now();
        loop {
            if let Ok(r) = reqwest::get(self.url(&format!("/ws/n/{node}"))).await {
                if r.status() != 503 {
                    return;
                }
            }
            assert!(started.elapsed() < Duration::from_secs(30), "HAProxy never routes to {node}");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// The owner of a game, asked through the load balancer.
    pub async fn owner(&self, game: i64) -> Option<String> {
        owner_at(&self.url(&format!("/api/games/{game}/node")), None).await
    }

    /// The owner of a private game, asked through the load balancer by one of its players.
    pub async fn owner_as(&self, game: i64, token: &str) -> Option<String> {
        owner_at(&self.url(&format!("/api/games/{game}/node")), Some(token)).await
    }
}

impl Drop for Haproxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.cfg);
        let _ = std::fs::remove_file(&self.log);
    }
}

fn rand_u32() -> u32 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos(),
    );
    h.finish() as u32
}
