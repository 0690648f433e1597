//! Prometheus metrics, served at `/metrics`: HTTP requests and latencies (by route pattern),
//! open WebSockets, live games and bots thinking (gauges the live-play code moves).
use prometheus::{
    Encoder, HistogramOpts, HistogramVec, IntCounterVec, IntGauge, Opts, Registry, TextEncoder,
};

pub struct Metrics {
    pub registry: Registry,
    /// `siguo_http_requests_total{method, route, status}`
    pub http_requests: IntCounterVec,
    /// `siguo_http_request_duration_seconds{method, route}`
    pub http_latency: HistogramVec,
    /// `siguo_open_sockets`: WebSocket connections currently open (live play increments/decrements)
    pub open_sockets: IntGauge,
    /// `siguo_live_games`: games currently running in memory (live play sets it)
    pub live_games: IntGauge,
    /// `siguo_bots_thinking`: bots searching a move right now (at most `live.bot_threads`)
    pub bots_thinking: IntGauge,
    /// `siguo_bots_thinking_peak`: the most bots ever searching at once since the start
    pub bots_thinking_peak: IntGauge,
}

impl Metrics {
    pub fn new() -> Metrics {
        let registry = Registry::new_custom(Some("siguo".into()), None).expect("registry");
        let http_requests = IntCounterVec::new(
            Opts::new("http_requests_total", "HTTP requests handled"),
            &["method", "route", "status"],
        )
        .expect("metric");
        let http_latency = HistogramVec::new(
            HistogramOpts::new("http_request_duration_seconds", "HTTP request latency").buckets(
                vec![
                    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
                ],
            ),
            &["method", "route"],
        )
        .expect("metric");
        let open_sockets =
            IntGauge::new("open_sockets", "WebSocket connections open").expect("metric");
        let live_games = IntGauge::new("live_games", "games running").expect("metric");
        let bots_thinking =
            IntGauge::new("bots_thinking", "bots searching a move now").expect("metric");
        let bots_thinking_peak =
            IntGauge::new("bots_thinking_peak", "most bots searching at once").expect("metric");
        registry.register(Box::new(http_requests.clone())).expect("register");
        registry.register(Box::new(http_latency.clone())).expect("register");
        registry.register(Box::new(open_sockets.clone())).expect("register");
        registry.register(Box::new(live_games.clone())).expect("register");
        registry.register(Box::new(bots_thinking.clone())).expect("register");
        registry.register(Box::new(bots_thinking_peak.clone())).expect("register");
        Metrics {
            registry,
            http_requests,
            http_latency,
            open_sockets,
            live_games,
            bots_thinking,
            bots_thinking_peak,
        }
    }

    /// Record one finished request.
    pub fn observe(&self, method: &str, route: &str, status: u16, seconds: f64) {
        self.http_requests.with_label_values(&[method, route, &status.to_string()]).inc();
        self.http_latency.with_label_values(&[method, route]).observe(seconds);
    }

    /// The text exposition format.
    pub fn render(&self) -> String {
        let mut buf = Vec::new();
        TextEncoder::new().encode(&self.registry.gather(), &mut buf).expect("encode metrics");
        String::from_utf8(buf).unwrap_or_default()
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}
