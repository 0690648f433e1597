//! `siguo-tools ladder-bench` at a small size against a real server on PostgreSQL: the server
//! started by the tool (`--server`) or already running (`--url`), the ladder filled, every
//! sample checked by the tool (page ranks, the bench account on its own page), the reuse of a
//! filled database, and the refusals (an unknown ladder, a server on another database).
#![allow(clippy::unwrap_used)] // a test that unwraps an error fails, as it should
mod support;

use std::process::Output;
use support::Backend;

async fn ladder_bench(args: &[&str]) -> Output {
    tokio::process::Command::new(env!("CARGO_BIN_EXE_siguo-tools"))
        .arg("ladder-bench")
        .args(args)
        .output()
        .await
        .expect("run siguo-tools ladder-bench")
}

fn text(out: &Output) -> (String, String) {
    (String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

/// The report line of `what`: its sample count.
fn samples_of(stdout: &str, what: &str) -> usize {
    let line = stdout.lines().find(|l| l.starts_with(what)).unwrap_or_else(|| panic!("{what}"));
    let n = line.split_whitespace().find_map(|w| w.strip_prefix("n=")).expect("n=");
    n.parse().unwrap()
}

async fn leaderboard_total(base: &str, ladder: &str) -> i64 {
    let url = format!("{base}/api/leaderboard/{ladder}");
    let page: serde_json::Value = reqwest::get(url).await.unwrap().json().await.unwrap();
    page["total"].as_i64().expect("total")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn starts_the_server_fills_and_reuses() {
    let (db_url, _db) = tokio::task::spawn_blocking(support::create_postgres_db).await.unwrap();
    let bin = support::siguo_binary();
    let bin = bin.to_str().unwrap();
    let args = ["--server", bin, "--database-url", &db_url, "--players", "300", "--samples", "20"];
    let args = [&args[..], &["--per-page", "7", "--naive"]].concat();
    let out = ladder_bench(&args).await;
    let (stdout, stderr) = text(&out);
    let ctx = format!("{stdout}\n{stderr}");
    assert_eq!(out.status.code(), Some(0), "{ctx}");
    assert!(stdout.contains("filling 300 players on ranked (had 0)"), "{ctx}");
    assert!(stdout.contains("players: 301 (300 synthetic + ladderbench)"), "{ctx}");
    for what in ["GET page (random page)", "GET page (first page)", "GET /me (rank + its page)"] {
        assert_eq!(samples_of(&stdout, what), 20, "{what}\n{ctx}");
    }
    assert_eq!(samples_of(&stdout, "naive SQL: OFFSET page"), 20, "{ctx}");
    assert_eq!(samples_of(&stdout, "naive SQL: COUNT(*) rank"), 20, "{ctx}");

    // A second run reuses the players, logs the bench account in and keeps it counted once.
    let out = ladder_bench(&args[..8]).await;
    let (stdout, stderr) = text(&out);
    let ctx = format!("{stdout}\n{stderr}");
    assert_eq!(out.status.code(), Some(0), "{ctx}");
    assert!(stdout.contains("reusing 300 players on ranked"), "{ctx}");
    assert!(stdout.contains("players: 301 "), "{ctx}");
    assert!(!stdout.contains("naive"), "{ctx}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn measures_a_running_server_on_the_ladder_asked() {
    let app = support::spawn_app(Backend::Postgres).await;
    let base = format!("http://{}", app.addr);
    let db_url = app.db_url.as_str();
    let common = ["--url", &base, "--database-url", db_url, "--players", "120", "--samples", "5"];

    // an unknown ladder: refused before the database is touched
    let out = ladder_bench(&[&common[..], &["--ladder", "nope"]].concat()).await;
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stderr.contains("unknown_ladder"), "{stderr}");
    assert!(!stdout.contains("filling"), "{stdout}");

    let out = ladder_bench(&[&common[..], &["--ladder", "ranked_dual"]].concat()).await;
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert_eq!(samples_of(&stdout, "GET /me (rank + its page)"), 5, "{stdout}");
    // only the ladder asked for was filled
    assert_eq!(leaderboard_total(&base, "ranked_dual").await, 121);
    assert_eq!(leaderboard_total(&base, "ranked").await, 0);

    // a server that does not read --database-url is found out
    let other = support::spawn_app(Backend::Postgres).await;
    let other_base = format!("http://{}", other.addr);
    let args = ["--url", &other_base, "--database-url", db_url, "--players", "120"];
    let out = ladder_bench(&[&args[..], &["--ladder", "ranked_dual"]].concat()).await;
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stderr.contains("does the server at"), "{stderr}");
}
