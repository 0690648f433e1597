//! What a node runs in cluster mode: it registers at start, takes back the games it still owns
//! from a previous run and claims orphans, then a heartbeat task renews its row and its leases
//! every `cluster.heartbeat_ms` and claims (and restores) the games of nodes whose leases ran out.
use super::{ClusterConfig, Lease};
use crate::live::Live;
use std::time::Duration;

/// This node's lease: its id (configured, or generated now) and the lease length.
pub fn lease(config: &ClusterConfig) -> Lease {
    Lease { node: config.node_id_or_generated(), grace_ms: config.grace_ms }
}

/// Register this node (`lease.node`, the node of `live`'s directory), restore the games it may
/// play, start the heartbeat. Returns the node id. Call before the server accepts sockets.
pub async fn start(
    live: &Live,
    lease: Lease,
    config: &ClusterConfig,
    listen: &str,
) -> Result<String, String> {
    let node = lease.node.clone();
    let advertise = match config.advertise.as_str() {
        "" => listen.to_string(),
        a => a.to_string(),
    };
    let (n, a) = (node.clone(), advertise.clone());
    live.db()
        .run(move |c| super::register(c, &n, &a))
        .await
        .map_err(|e| format!("cannot register cluster node {node}: {e}"))?;
    super::rooms::start(live, &lease, config).await?;
    // what an earlier run of this node (or a dead node) left held
    let (n, grace) = (node.clone(), lease.grace_ms as i64);
    live.db()
        .run(move |c| crate::db::limits::forget_node(c, &n, grace))
        .await
        .map_err(|e| format!("cannot forget old places: {e}"))?;
    let kept =
        take_back_own(live, &lease).await.map_err(|e| format!("cannot restore games: {e}"))?;
    let claimed = claim_orphans(live, &lease).await;
    tracing::info!(node = %node, %advertise, kept, claimed, "cluster node started");
    let live2 = live.clone();
    let every = Duration::from_millis(config.heartbeat_ms.max(1));
    live.spawn(heartbeat_loop(live2, lease, every));
    Ok(node)
}

/// This node's unfinished games from a previous run that nobody has claimed yet: renewed and
/// restored.
async fn take_back_own(live: &Live, lease: &Lease) -> crate::error::AppResult<usize> {
    let node = lease.node.clone();
    let mine = live.db().run(move |c| super::owned_by(c, &node)).await?;
    let mut n = 0;
    for game in mine {
        let l = lease.clone();
        if live.db().run(move |c| super::keep(c, game, &l.node, l.grace_ms)).await? {
            n += usize::from(restore(live, game).await);
        }
    }
    Ok(n)
}

/// Claim every orphaned game (one conditional `UPDATE` each) and restore those won.
async fn claim_orphans(live: &Live, lease: &Lease) -> usize {
    let orphans = match live.db().run(super::orphans).await {
        Ok(v) => v,
        Err(e) => {
            tracing::warn!(error = %e, "cluster: cannot list orphaned games");
            return 0;
        }
    };
    let mut n = 0;
    for game in orphans {
        let l = lease.clone();
        match live.db().run(move |c| super::claim(c, game, &l.node, l.grace_ms)).await {
            Ok(true) => {
                tracing::info!(game, node = %lease.node, "cluster: claimed an orphaned game");
                n += usize::from(restore(live, game).await);
            }
            Ok(false) => {}
            Err(e) => tracing::warn!(game, error = %e, "cluster: claim failed"),
        }
    }
    n
}

/// Restore one game this node now owns (clocks re-armed with `live.restore_grace_seconds`).
async fn restore(live: &Live, game: i64) -> bool {
    match live.restore_game(game).await {
        Ok(restored) => restored,
        Err(e) => {
            tracing::error!(game, error = %e, "cluster: could not restore game");
            false
        }
    }
}

/// Every tick: renew this node's row and leases, then claim orphans. Ends with the server.
async fn heartbeat_loop(live: Live, lease: Lease, every: Duration) {
    let mut stop = live.shutdown_signal();
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = stop.changed() => return,
            _ = tick.tick() => {}
        }
        let l = lease.clone();
        if let Err(e) = live.db().run(move |c| super::heartbeat(c, &l.node, l.grace_ms)).await {
            tracing::warn!(error = %e, "cluster: heartbeat failed");
            continue;
        }
        claim_orphans(&live, &lease).await;
    }
}
