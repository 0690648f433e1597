//! Cluster mode's game leases (src/cluster): claims race on PostgreSQL, heartbeats renew only the
//! node's own games, and ownership is what a commit checks.
use crate::support::{spawn_app, Backend};
use chrono::{TimeDelta, Utc};
use diesel::prelude::*;
use siguo::cluster;
use siguo::db::schema::games;
use siguo::db::Db;

/// A game in battle owned by `node`, whose lease ran out `ago_ms` ago (negative: still valid).
async fn game_owned_by(db: &Db, node: &'static str, ago_ms: i64) -> i64 {
    db.run(move |c| {
        let now = Utc::now().naive_utc();
        Ok(diesel::insert_into(games::table)
            .values((
                games::kind.eq("casual"),
                games::options.eq("{}"),
                games::state.eq("battle"),
                games::created_at.eq(now),
                games::node_id.eq(node),
                games::lease_until.eq(now - TimeDelta::milliseconds(ago_ms)),
            ))
            .returning(games::id)
            .get_result(c)?)
    })
    .await
    .unwrap()
}

async fn set_lease(db: &Db, game: i64, node: &'static str, ago_ms: i64) {
    db.run(move |c| {
        let at = Utc::now().naive_utc() - TimeDelta::milliseconds(ago_ms);
        diesel::update(games::table.find(game))
            .set((games::node_id.eq(node), games::lease_until.eq(at)))
            .execute(c)?;
        Ok(())
    })
    .await
    .unwrap();
}

async fn claim(db: &Db, game: i64, node: &'static str) -> bool {
    db.run(move |c| cluster::claim(c, game, node, 5000)).await.unwrap()
}

async fn owner(db: &Db, game: i64) -> Option<String> {
    db.run(move |c| cluster::owner_of(c, game)).await.unwrap()
}

/// Two nodes claim the same orphaned game at the same moment, 100 times: exactly one wins each
/// time, and the row names the winner.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn postgres_two_nodes_racing_for_one_orphan_exactly_one_wins() {
    let app = spawn_app(Backend::Postgres).await;
    let db = app.state().db.clone();
    let game = game_owned_by(&db, "dead", 60_000).await;
    let mut wins = [0u32; 2];
    for _ in 0..100 {
        set_lease(&db, game, "dead", 60_000).await;
        let barrier = std::sync::Arc::new(tokio::sync::Barrier::new(2));
        let racers = ["b", "c"].map(|node| {
            let (db, barrier) = (db.clone(), barrier.clone());
            tokio::spawn(async move {
                barrier.wait().await;
                claim(&db, game, node).await
            })
        });
        let [b, c] = racers;
        let (b, c) = (b.await.unwrap(), c.await.unwrap());
        assert!(b ^ c, "exactly one claim wins (b: {b}, c: {c})");
        let winner = if b { "b" } else { "c" };
        assert_eq!(owner(&db, game).await.as_deref(), Some(winner));
        wins[usize::from(c)] += 1;
    }
    assert_eq!(wins[0] + wins[1], 100);
}

/// A live lease cannot be claimed; an expired one can, once; the old owner then owns nothing,
/// and the new owner's heartbeat renews it (the old owner's does not).
async fn leases_hold_until_they_run_out(backend: Backend) {
    let app = spawn_app(backend).await;
    let db = app.state().db.clone();
    let game = game_owned_by(&db, "a", -60_000).await;
    assert!(!claim(&db, game, "b").await, "a valid lease is not claimable");
    assert!(db.run(move |c| cluster::owns(c, game, "a")).await.unwrap());
    assert!(db.run(cluster::orphans).await.unwrap().is_empty());

    set_lease(&db, game, "a", 1).await;
    assert_eq!(db.run(cluster::orphans).await.unwrap(), vec![game]);
    assert!(claim(&db, game, "b").await);
    assert!(!claim(&db, game, "c").await, "a fresh claim holds a fresh lease");
    assert!(!db.run(move |c| cluster::owns(c, game, "a")).await.unwrap());
    assert!(db.run(move |c| cluster::owns(c, game, "b")).await.unwrap());

    db.run(|c| cluster::register(c, "a", "127.0.0.1:1")).await.unwrap();
    db.run(|c| cluster::register(c, "b", "127.0.0.1:2")).await.unwrap();
    assert_eq!(db.run(|c| cluster::heartbeat(c, "a", 5000)).await.unwrap(), 0);
    assert_eq!(db.run(|c| cluster::heartbeat(c, "b", 5000)).await.unwrap(), 1);
    let live: Vec<String> =
        db.run(|c| cluster::live_nodes(c, 5000)).await.unwrap().into_iter().map(|n| n.id).collect();
    assert_eq!(live, ["a", "b"]);

    // a finished game has no owner to claim from
    db.run(move |c| {
        diesel::update(games::table.find(game)).set(games::state.eq("finished")).execute(c)?;
        Ok(())
    })
    .await
    .unwrap();
    set_lease(&db, game, "b", 60_000).await;
    assert!(!claim(&db, game, "c").await);
    assert!(db.run(cluster::orphans).await.unwrap().is_empty());
}

both_backends!(leases_hold_until_they_run_out);

/// The heartbeat never waits for a game row that a commit holds locked (it would deadlock with a
/// group commit that locks several rows in another order): it renews the node's other games and
/// skips the locked one, which the next heartbeat renews.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_the_heartbeat_skips_a_game_being_committed() {
    let app = spawn_app(Backend::Postgres).await;
    let db = app.state().db.clone();
    // leases that ran out a moment ago (nobody claimed them yet): a renewal moves them on
    let busy = game_owned_by(&db, "a", 1000).await;
    let other = game_owned_by(&db, "a", 1000).await;
    db.run(|c| cluster::register(c, "a", "127.0.0.1:1")).await.unwrap();
    // a commit in flight: a transaction that checked the lease of `busy` (its row locked)
    let (locked_tx, locked) = std::sync::mpsc::channel();
    let (release_tx, release) = std::sync::mpsc::channel::<()>();
    let url = app.db_url.clone();
    let holder = std::thread::spawn(move || {
        let mut c = siguo::db::DbConn::establish(&url).unwrap();
        c.transaction::<_, diesel::result::Error, _>(|c| {
            assert!(cluster::owns(c, busy, "a").unwrap());
            locked_tx.send(()).unwrap();
            release.recv().unwrap();
            Ok(())
        })
        .unwrap();
    });
    locked.recv().unwrap();
    let beat = tokio::time::timeout(
        std::time::Duration::from_secs(20),
        db.run(|c| cluster::heartbeat(c, "a", 5000)),
    )
    .await;
    release_tx.send(()).unwrap();
    holder.join().unwrap();
    let renewed = beat.expect("the heartbeat waited for the locked row").unwrap();
    assert_eq!(renewed, 1, "the other game renewed, the locked one skipped");
    let lease = |g: i64| {
        let db = db.clone();
        async move {
            db.run(move |c| Ok(games::table.find(g).select(games::lease_until).first(c)?))
                .await
                .unwrap()
        }
    };
    let (b, o): (Option<chrono::NaiveDateTime>, Option<chrono::NaiveDateTime>) =
        (lease(busy).await, lease(other).await);
    assert!(b < o, "only the unlocked game's lease moved on: {b:?} {o:?}");
    assert_eq!(db.run(|c| cluster::heartbeat(c, "a", 5000)).await.unwrap(), 2, "next beat: both");
}
