//! The running server: shared state, the actix `App`, start and graceful stop.
use crate::auth::Auth;
use crate::config::{Config, LogFormat};
use crate::db::Db;
use crate::http;
use crate::metrics::Metrics;
use actix_web::{dev::ServerHandle, middleware, web, App, HttpServer};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

/// Shared by every request handler as `web::Data<AppState>`.
#[derive(Clone)]
pub struct AppState {
    pub config: Arc<Config>,
    pub db: Db,
    pub auth: Arc<Auth>,
    pub metrics: Arc<Metrics>,
    pub ladder: crate::ladder::Ladder,
    /// live play: rooms, games in progress, sockets
    pub live: crate::live::Live,
}

/// A started server. Stop it with [`RunningApp::stop`] (graceful: in-flight requests finish).
pub struct RunningApp {
    /// the bound address (the real port when the configured port was 0)
    pub addr: SocketAddr,
    pub handle: ServerHandle,
    pub state: AppState,
    server: tokio::task::JoinHandle<std::io::Result<()>>,
    housekeeping: tokio::task::JoinHandle<()>,
}

impl RunningApp {
    /// Stop accepting, let in-flight requests finish (up to `server.shutdown_timeout_secs`), stop.
    pub async fn stop(self) {
        self.state.live.shutdown();
        self.handle.stop(true).await;
        let _ = self.server.await;
        let limit = Duration::from_secs(self.state.config.server.shutdown_timeout_secs.max(1));
        self.state.live.stopped(limit).await;
        self.housekeeping.abort();
        self.state.ladder.shutdown();
    }

    /// Wait until the server stops (e.g. after a signal).
    pub async fn wait(self) -> std::io::Result<()> {
        let r = self.server.await.map_err(std::io::Error::other)?;
        self.housekeeping.abort();
        r
    }
}

/// Open the database, run migrations, build the state, bind and start serving.
/// Must be called inside a tokio runtime.
pub async fn start(config: Config) -> Result<RunningApp, String> {
    config.validate()?;
    // the address first: a start that cannot listen must not restore (and so play) any game —
    // the rooms of a failed start would go on writing beside the next one's
    let listener = std::net::TcpListener::bind(config.server.listen)
        .map_err(|e| format!("cannot listen on {}: {e}", config.server.listen))?;
    let db = Db::connect(
        &config.database.url,
        config.database.pool_size,
        Duration::from_secs(config.database.connect_timeout_secs.max(1)),
    )?;
    {
        let db = db.clone();
        let ran = tokio::task::spawn_blocking(move || db.migrate())
            .await
            .map_err(|e| e.to_string())??;
        if ran > 0 {
            tracing::info!(migrations = ran, "database migrated");
        }
    }
    match db.run(crate::db::accounts::backfill_username_keys).await {
        Ok(n) if n > 0 => tracing::info!(accounts = n, "username keys made canonical"),
        Ok(_) => {}
        Err(e) => return Err(format!("cannot compute username keys: {e:?}")),
    }
    let secret = crate::auth::load_or_create_secret(&config, &db).await?;
    let mut auth = Auth::new(&config, &secret)?;
    if config.cluster.enabled {
        // every node counts the same limits (src/db/limits.rs)
        auth.limits.share(&db);
    }
    let auth = Arc::new(auth);
    let mut live_config = config.live.clone();
    live_config.allowed_origins = config.server.allowed_origins.clone();
    let metrics = Arc::new(Metrics::new());
    let gauges = crate::live::LiveGauges {
        open_sockets: metrics.open_sockets.clone(),
        live_games: metrics.live_games.clone(),
        bots_thinking: metrics.bots_thinking.clone(),
        bots_thinking_peak: metrics.bots_thinking_peak.clone(),
    };
    // where rooms and games live: this node alone, or the cluster's shared tables
    let lease = config.cluster.enabled.then(|| crate::cluster::runtime::lease(&config.cluster));
    let directory: Arc<dyn crate::live::directory::Directory> = match &lease {
        Some(l) => {
            Arc::new(crate::cluster::directory::ClusterDirectory::new(l.clone(), db.clone()))
        }
        None => Arc::new(crate::live::directory::SingleNode),
    };
    let live = crate::live::Live::new(db.clone(), live_config, directory, gauges);
    if let Some(lease) = lease {
        // only the games this node may play: its own and orphans (src/cluster/runtime.rs)
        let listen = config.server.listen.to_string();
        crate::cluster::runtime::start(&live, lease, &config.cluster, &listen).await?;
    } else {
        let restored = live.restore().await.map_err(|e| format!("cannot restore games: {e}"))?;
        if restored > 0 {
            tracing::info!(games = restored, "unfinished games restored");
        }
    }
    let ladder = crate::ladder::Ladder::new(config.ladder.clone(), db.clone());
    ladder.set_starter(Arc::new(live.clone()));
    if config.cluster.enabled {
        // one queue for every node, and notices to sockets on any node (src/ladder/shared.rs)
        // and logouts on any node end the account's older sessions here (src/cluster/sessions.rs)
        let listen_url = match config.cluster.listen_url.as_str() {
            "" => config.database.url.as_str(),
            url => url,
        };
        let sessions = crate::cluster::sessions::SessionEnds::new(auth.clone(), live.clone());
        crate::cluster::notify::start(&live, listen_url, sessions);
        let presence_ms = config.cluster.grace_ms.max(3 * config.ladder.tick_ms);
        let node = live.node_id().to_string();
        let shared = crate::ladder::shared::SharedQueues::new(
            config.ladder.clone(),
            db.clone(),
            node,
            presence_ms,
        );
        ladder.share(shared);
    }
    ladder.spawn_ticker();
    let state = AppState { config: Arc::new(config), db, auth, metrics, ladder, live };
    serve(state, listener).await
}

async fn serve(state: AppState, listener: std::net::TcpListener) -> Result<RunningApp, String> {
    let config = state.config.clone();
    let data = web::Data::new(state.clone());
    let workers = match config.server.workers {
        0 => std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        n => n,
    };
    let factory_data = data.clone();
    let server = HttpServer::new(move || {
        let cfg = factory_data.config.clone();
        App::new()
            .app_data(factory_data.clone())
            .app_data(http::json_config(cfg.server.json_limit_bytes))
            .app_data(web::PayloadConfig::default().limit(cfg.server.json_limit_bytes))
            .app_data(http::path_config())
            .app_data(http::query_config())
            .wrap(middleware::from_fn(http::same_site_only))
            .wrap(middleware::from_fn(http::observe))
            .wrap(http::security_headers())
            .configure(http::health::configure)
            .configure(http::accounts::configure)
            .configure(http::openapi::configure)
            .configure(http::ladder::configure)
            .configure(http::profiles::configure)
            .configure(http::rooms::configure)
            .configure(http::games::configure)
            .configure(http::formations::configure)
            // feature modules add their `configure` here
            .configure(|c| http::fallback(c, &cfg.server.static_dir))
    })
    .workers(workers)
    // small frames (acks, moves) must not wait for the peer's delayed ACK (Nagle)
    .tcp_nodelay(true)
    .disable_signals()
    .shutdown_timeout(config.server.shutdown_timeout_secs)
    .listen(listener)
    .map_err(|e| format!("cannot listen on {}: {e}", config.server.listen))?;
    let addr = *server.addrs().first().ok_or("no listening address")?;
    let server = server.run();
    let handle = server.handle();
    let server = tokio::spawn(server);
    let hk_state = state.clone();
    let housekeeping = tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_secs(60));
        let mut minutes: u64 = 0;
        loop {
            tick.tick().await;
            hk_state.auth.limits.retain_recent();
            hk_state.auth.prune_generations();
            hk_state.live.prune_limits();
            // tickets are also pruned at every issue; this empties the table once issuing stops
            if let Err(e) = hk_state.db.run(crate::live::tickets::prune).await {
                tracing::warn!(error = ?e, "ticket prune failed");
            }
            if minutes.is_multiple_of(60) {
                match hk_state.db.run(crate::auth::refresh::purge_expired).await {
                    Ok(n) if n > 0 => tracing::info!(deleted = n, "expired refresh tokens purged"),
                    Ok(_) => {}
                    Err(e) => tracing::warn!(error = ?e, "refresh token purge failed"),
                }
                if hk_state.config.cluster.enabled {
                    // the longest window of a shared limit is well under a day
                    let purged = hk_state.db.run(|c| crate::db::limits::purge(c, 86_400)).await;
                    if let Err(e) = purged {
                        tracing::warn!(error = ?e, "shared limit events could not be purged");
                    }
                }
            }
            minutes += 1;
        }
    });
    tracing::info!(%addr, db = ?state.db.backend_name(), "siguo listening");
    Ok(RunningApp { addr, handle, state, server, housekeeping })
}

/// Install the global tracing subscriber (text or JSON). `RUST_LOG` overrides `log.level`.
pub fn init_logging(config: &Config) {
    let filter = std::env::var("RUST_LOG")
        .ok()
        .and_then(|v| tracing_subscriber::EnvFilter::try_new(v).ok())
        .unwrap_or_else(|| tracing_subscriber::EnvFilter::new(&config.log.level));
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr);
    let _ = match config.log.format {
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
        LogFormat::Text => builder.try_init(),
    };
}

/// Resolve on SIGINT or SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("SIGTERM handler");
        tokio::select! {
            _ = ctrl_c => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = ctrl_c.await;
    }
}
