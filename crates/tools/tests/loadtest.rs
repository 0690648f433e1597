//! `siguo-tools loadtest` against a real server (port 0, SQLite and Postgres): a short run with
//! two games must play moves with nothing lost or duplicated, no error, and every game's move list
//! equal to the server's record. (No timing is asserted; figures go to docs/performance.md.)
#![allow(clippy::unwrap_used)] // a test that unwraps an error fails, as it should
#[path = "../../../tests/support/cluster.rs"]
mod cluster;
mod support;

use cluster::{Haproxy, Node};
use serde_json::Value;
use support::Backend;

/// Run `siguo-tools loadtest --json --progress 0 --target <target> <args>`: (exit status, the
/// JSON report, stderr).
async fn run_loadtest(target: &str, args: &[&str]) -> (i32, Value, String) {
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_siguo-tools"))
        .args(["loadtest", "--json", "--progress", "0", "--target", target])
        .args(args)
        .output()
        .await
        .expect("run siguo-tools loadtest");
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let report: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("report is not JSON ({e}):\n{stdout}\n{stderr}"));
    (out.status.code().unwrap_or(-1), report, stderr)
}

/// Two tables at 4 moves per game per second, a 4 s window after a 1 s ramp-up.
const TWO_GAMES: [&str; 8] =
    ["--games", "2", "--move-rate", "4", "--duration", "4", "--ramp-up", "1"];

async fn two_games_nothing_lost(backend: Backend) {
    let app = support::spawn_app(backend).await;
    let target = app.addr.to_string();
    let (code, r, stderr) = run_loadtest(&target, &TWO_GAMES).await;
    let ctx = format!("{r:#}\n{stderr}");
    assert_eq!(r["mode"], "games", "{ctx}");
    assert_eq!(r["errors"], 0, "{ctx}");
    assert_eq!(r["lost"], 0, "{ctx}");
    assert_eq!(r["duplicated"], 0, "{ctx}");
    assert_eq!(r["setups_failed"], 0, "{ctx}");
    assert_eq!(
        r["games_started"].as_u64().unwrap(),
        2 + r["games_finished"].as_u64().unwrap(),
        "{ctx}"
    );
    let completed = r["moves_completed"].as_u64().unwrap();
    assert!(completed > 0, "no move was played\n{ctx}");
    assert_eq!(r["moves_sent"], r["moves_acked"], "{ctx}");
    assert_eq!(r["moves_sent"].as_u64().unwrap(), completed, "{ctx}");
    // the per-second timeline accounts for every move of the 4 s window
    let timeline = r["timeline"].as_array().expect("timeline");
    assert!(!timeline.is_empty() && timeline.len() <= 4, "{ctx}");
    let per_second: u64 = timeline.iter().map(|s| s["count"].as_u64().unwrap()).sum();
    assert_eq!(per_second, r["latency_all_seats"]["count"].as_u64().unwrap(), "{ctx}");
    // the clients' move lists equal the server's records, game by game
    let check = &r["record_check"];
    assert!(check["games_checked"].as_u64().unwrap() >= 2, "{ctx}");
    assert_eq!(check["games_checked"], check["games_matching"], "{ctx}");
    // the server process (this test) was found by its port and measured
    assert_eq!(r["server_pid"].as_u64(), Some(std::process::id() as u64), "{ctx}");
    assert_eq!(code, 0, "{ctx}");
}

async fn idle_sockets_are_held(backend: Backend) {
    let app = support::spawn_app(backend).await;
    let target = app.addr.to_string();
    let (code, r, stderr) =
        run_loadtest(&target, &["--idle", "20", "--duration", "2", "--ramp-up", "1"]).await;
    let ctx = format!("{r:#}\n{stderr}");
    assert_eq!(r["mode"], "idle", "{ctx}");
    assert_eq!(r["errors"], 0, "{ctx}");
    assert_eq!(r["hello_received"], 20, "{ctx}");
    assert_eq!(r["sockets_held"], 20, "{ctx}");
    assert_eq!(r["sockets_at_end"], 20, "{ctx}");
    assert!(r["server_kib_per_socket"].is_number(), "{ctx}");
    assert_eq!(code, 0, "{ctx}");
}

/// `--login-burst`: password logins at the given rate during the second half of the window,
/// reported with the game latency before and during the burst.
async fn login_burst_is_measured(backend: Backend) {
    let app = support::spawn_app(backend).await;
    let target = app.addr.to_string();
    let args = [&TWO_GAMES[..], &["--login-burst", "2"]].concat();
    let (code, r, stderr) = run_loadtest(&target, &args).await;
    let ctx = format!("{r:#}\n{stderr}");
    assert_eq!(r["errors"], 0, "{ctx}");
    assert_eq!(r["lost"], 0, "{ctx}");
    assert_eq!(r["duplicated"], 0, "{ctx}");
    let b = &r["login_burst"];
    // 2 logins/s over the last 2 s of the window: ticks at 0, 0.5, 1 and 1.5 s
    let ok = b["logins_ok"].as_u64().expect("logins_ok");
    assert!((3..=4).contains(&ok), "{ok} logins\n{ctx}");
    assert_eq!(b["login_latency"]["count"].as_u64(), Some(ok), "{ctx}");
    assert!(b["game_latency_before"]["count"].as_u64().unwrap() > 0, "{ctx}");
    assert!(b["game_latency_during"]["count"].as_u64().unwrap() > 0, "{ctx}");
    assert!(b["p99_ratio"].as_f64().unwrap() > 0.0, "{ctx}");
    assert!(b["server_during"].is_object(), "{ctx}");
    assert_eq!(code, 0, "{ctx}");
}

both_backends!(two_games_nothing_lost, idle_sockets_are_held, login_burst_is_measured);

/// A burst rate below one login per burst makes one login and ends with the window (it used to
/// wait for its next tick, 100 s here, long after the window).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_slower_than_its_window_ends_with_it() {
    let app = support::spawn_app(Backend::Sqlite).await;
    let target = app.addr.to_string();
    let args = [
        "--games",
        "1",
        "--move-rate",
        "2",
        "--duration",
        "4",
        "--ramp-up",
        "1",
        "--login-burst",
        "0.01",
    ];
    let (code, r, stderr) =
        tokio::time::timeout(std::time::Duration::from_secs(60), run_loadtest(&target, &args))
            .await
            .expect("the load test ended with its window");
    let ctx = format!("{r:#}\n{stderr}");
    assert_eq!(r["login_burst"]["logins_ok"], 1, "{ctx}");
    assert_eq!(r["errors"], 0, "{ctx}");
    assert_eq!(code, 0, "{ctx}");
}

#[tokio::test]
async fn refuses_non_loopback_targets() {
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_siguo-tools"))
        .args(["loadtest", "--target", "10.1.2.3:8080", "--games", "1", "--duration", "1"])
        .output()
        .await
        .expect("run siguo-tools loadtest");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("loopback"));
}

/// Nothing listens on the target: every set-up fails, the report counts the errors and the exit
/// status is 1.
#[tokio::test]
async fn an_unreachable_server_fails_the_run() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let target = format!("127.0.0.1:{port}");
    let args = ["--games", "2", "--duration", "1", "--ramp-up", "0"];
    let (code, r, stderr) = run_loadtest(&target, &args).await;
    let ctx = format!("{r:#}\n{stderr}");
    assert_eq!(r["mode"], "games", "{ctx}");
    assert_eq!(r["setups_failed"], 2, "{ctx}");
    assert_eq!(r["errors"], 2, "{ctx}");
    assert_eq!(r["error_codes"]["connect"], 2, "{ctx}");
    assert_eq!(r["games_started"], 0, "{ctx}");
    assert_eq!(code, 1, "{ctx}");
}

/// Cluster mode: three nodes on one PostgreSQL behind HAProxy (deploy/haproxy.cfg); three tables
/// through the load balancer, one on each node's `/ws/n/{node}`: nothing lost or duplicated, the
/// records match, and each node's process is measured.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_three_nodes_behind_haproxy() {
    let app = support::spawn_app(Backend::Postgres).await; // creates and migrates the database
    let bin = support::siguo_binary();
    let env =
        [("SIGUO_LIMITS_GUEST_PER_IP", "100000"), ("SIGUO_LIVE_MAX_SOCKETS_PER_IP", "100000")];
    let mut nodes = ["n1", "n2", "n3"].map(|id| Node::start(&bin, id, &app.db_url, &env));
    for n in nodes.iter_mut() {
        n.ready().await;
    }
    let lb = Haproxy::start(&[&nodes[0], &nodes[1], &nodes[2]]).await;
    let list: Vec<String> = nodes.iter().map(|n| format!("{}={}", n.id, n.addr)).collect();
    let list = list.join(",");
    let mut args = vec!["--games", "3", "--move-rate", "4", "--duration", "4", "--ramp-up", "1"];
    args.extend(["--nodes", list.as_str()]);
    let (code, r, stderr) = run_loadtest(&lb.addr, &args).await;
    let ctx = format!("{r:#}\n{stderr}");
    for k in ["errors", "lost", "duplicated", "setups_failed"] {
        assert_eq!(r[k], 0, "{k}\n{ctx}");
    }
    let check = &r["record_check"];
    assert!(check["games_checked"].as_u64().unwrap() >= 3, "{ctx}");
    assert_eq!(check["games_checked"], check["games_matching"], "{ctx}");
    let reported = r["nodes"].as_array().expect("a report per node");
    assert_eq!(reported.len(), 3, "{ctx}");
    let mut total = 0;
    for (rep, node) in reported.iter().zip(&nodes) {
        assert_eq!(rep["node"], node.id, "{ctx}");
        assert_eq!(rep["tables"], 1, "{ctx}");
        // each node's own process was found by its port and measured
        assert_eq!(rep["pid"].as_u64(), Some(node.child.id() as u64), "{ctx}");
        assert!(rep["server"].is_object(), "{ctx}");
        let moves = rep["moves_in_window"].as_u64().unwrap();
        assert!(moves > 0, "node {} played no move\n{ctx}", node.id);
        total += moves;
    }
    assert_eq!(total, r["latency_all_seats"]["count"].as_u64().unwrap(), "{ctx}");
    assert_eq!(code, 0, "{ctx}");
}
