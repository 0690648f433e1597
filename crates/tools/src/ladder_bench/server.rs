//! The server under measurement when `--server` names its binary: `siguo serve` started as a
//! child on the bench database and a free port of 127.0.0.1, stopped when dropped.
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// How long the server may take to migrate the database and bind.
const START_TIMEOUT: Duration = Duration::from_secs(120);

/// What `siguo serve` prints on stdout once it listens (src/main.rs).
const LISTENING: &str = "siguo listening on ";

pub struct ServerProcess {
    child: Child,
    /// `http://127.0.0.1:port`
    pub base: String,
}

impl ServerProcess {
    /// Start `bin serve` with `database.url` = `db_url` and `server.listen` = 127.0.0.1:0 (the
    /// other `SIGUO_*` settings of this environment apply; the log level is `warn` unless one is
    /// given), and wait until it says where it listens: by then it has migrated the database.
    pub fn start(bin: &Path, db_url: &str) -> Result<ServerProcess, String> {
        let mut cmd = Command::new(bin);
        cmd.arg("serve")
            .env("SIGUO_DATABASE_URL", db_url)
            .env("SIGUO_SERVER_LISTEN", "127.0.0.1:0")
            .stdin(Stdio::null())
            .stdout(Stdio::piped());
        if std::env::var_os("SIGUO_LOG_LEVEL").is_none() {
            cmd.env("SIGUO_LOG_LEVEL", "warn");
        }
        let mut child = cmd.spawn().map_err(|e| format!("cannot start {}: {e}", bin.display()))?;
        let stdout = child.stdout.take().expect("piped stdout");
        let mut server = ServerProcess { child, base: String::new() };
        let (tx, rx) = mpsc::channel();
        // Reads the server's stdout to its end (so that the pipe never fills), passing it on to
        // ours after the address has been found.
        std::thread::spawn(move || {
            let mut tx = Some(tx);
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                match line.strip_prefix(LISTENING) {
                    Some(base) if tx.is_some() => {
                        let _ = tx.take().expect("checked").send(base.trim().to_string());
                    }
                    _ => println!("[server] {line}"),
                }
            }
        });
        match rx.recv_timeout(START_TIMEOUT) {
            Ok(base) => {
                server.base = base;
                Ok(server)
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                let status = server.child.wait().map_err(|e| e.to_string())?;
                Err(format!("{} serve exited ({status}) before listening", bin.display()))
            }
            Err(mpsc::RecvTimeoutError::Timeout) => Err(format!(
                "{} serve did not listen within {} s",
                bin.display(),
                START_TIMEOUT.as_secs()
            )),
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
