//! The server process seen from /proc: its pid (by the listening port), RSS and CPU time, sampled
//! twice a second together with the load generator's own CPU time.
use serde::Serialize;
use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Linux USER_HZ (the unit of /proc/<pid>/stat times) is 100 on every supported architecture.
const TICKS_PER_SEC: f64 = 100.0;
const SAMPLE_EVERY: Duration = Duration::from_millis(500);

/// The pid of the process listening on `port` (same user; from /proc/net/tcp{,6} and /proc/*/fd).
pub fn pid_listening_on(port: u16) -> Option<u32> {
    let inodes = listening_socket_inodes(port);
    if inodes.is_empty() {
        return None;
    }
    let me = std::process::id();
    let pids = std::fs::read_dir("/proc")
        .ok()?
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse().ok());
    pids.filter(|&pid| pid != me).find(|&pid| holds_any(pid, &inodes))
}

/// `socket:[inode]` of the sockets listening on `port`.
fn listening_socket_inodes(port: u16) -> HashSet<String> {
    let mut inodes = HashSet::new();
    for f in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = std::fs::read_to_string(f) else { continue };
        for line in text.lines().skip(1) {
            let cols: Vec<&str> = line.split_whitespace().collect();
            if cols.len() < 10 || cols[3] != "0A" {
                continue; // not LISTEN
            }
            let local_port =
                cols[1].rsplit(':').next().and_then(|p| u16::from_str_radix(p, 16).ok());
            if local_port == Some(port) {
                inodes.insert(format!("socket:[{}]", cols[9]));
            }
        }
    }
    inodes
}

/// Whether process `pid` has one of these sockets open.
fn holds_any(pid: u32, inodes: &HashSet<String>) -> bool {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else { return false };
    fds.flatten()
        .filter_map(|fd| std::fs::read_link(fd.path()).ok())
        .any(|link| inodes.contains(link.to_string_lossy().as_ref()))
}

/// (RSS in KiB, CPU time in clock ticks) of a process (`self` for this one).
fn proc_sample(pid: &str) -> Option<(u64, u64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let rss_line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let rss = rss_line.split_whitespace().nth(1)?.parse().ok()?;
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // fields 14 and 15 of stat (utime, stime) are 12 and 13 after "pid (comm) "
    let ticks = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some((rss, ticks))
}

#[derive(Clone, Copy, Debug)]
pub struct Sample {
    t: Instant,
    pub rss_kib: u64,
    ticks: u64,
    self_ticks: u64,
}

impl Sample {
    fn take(pid: u32) -> Option<Sample> {
        let (rss_kib, ticks) = proc_sample(&pid.to_string())?;
        let self_ticks = proc_sample("self").map_or(0, |x| x.1);
        Some(Sample { t: Instant::now(), rss_kib, ticks, self_ticks })
    }

    pub fn rss_mib(&self) -> f64 {
        mib(self.rss_kib)
    }
}

/// Server memory and CPU over part of the run.
#[derive(Serialize, Debug, Clone, Copy)]
pub struct ServerUsage {
    pub server_rss_peak_mib: f64,
    pub server_rss_end_mib: f64,
    pub server_cpu_percent: f64,
    pub loadgen_cpu_percent: f64,
}

pub struct Monitor {
    pid: Option<u32>,
    samples: Arc<Mutex<Vec<Sample>>>,
}

impl Monitor {
    /// Start sampling `pid` in the background (nothing when there is no pid).
    pub fn start(pid: Option<u32>) -> Monitor {
        let samples: Arc<Mutex<Vec<Sample>>> = Arc::default();
        if let Some(pid) = pid {
            tokio::spawn(sample_until_gone(pid, samples.clone()));
        }
        Monitor { pid, samples }
    }

    /// A sample taken now.
    pub fn now(&self) -> Option<Sample> {
        Sample::take(self.pid?)
    }

    /// Peak RSS, and CPU % of the server and of this process, between two instants.
    pub fn window(&self, from: Instant, to: Instant) -> Option<ServerUsage> {
        let samples = self.samples.lock().unwrap_or_else(|e| e.into_inner());
        let inside: Vec<&Sample> = samples.iter().filter(|x| x.t >= from && x.t <= to).collect();
        let (first, last) = (inside.first()?, inside.last()?);
        let seconds = last.t.duration_since(first.t).as_secs_f64().max(0.001);
        let percent = |ticks: u64| (ticks as f64 / TICKS_PER_SEC / seconds * 1000.0).round() / 10.0;
        Some(ServerUsage {
            server_rss_peak_mib: mib(inside.iter().map(|x| x.rss_kib).max().unwrap_or(0)),
            server_rss_end_mib: mib(last.rss_kib),
            server_cpu_percent: percent(last.ticks - first.ticks),
            loadgen_cpu_percent: percent(last.self_ticks.saturating_sub(first.self_ticks)),
        })
    }
}

async fn sample_until_gone(pid: u32, samples: Arc<Mutex<Vec<Sample>>>) {
    let mut tick = tokio::time::interval(SAMPLE_EVERY);
    loop {
        tick.tick().await;
        let Some(sample) = Sample::take(pid) else { break };
        samples.lock().unwrap_or_else(|e| e.into_inner()).push(sample);
    }
}

/// KiB → MiB, one decimal.
pub fn mib(kib: u64) -> f64 {
    (kib as f64 / 1024.0 * 10.0).round() / 10.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_this_process() {
        let s = Sample::take(std::process::id()).expect("/proc of this process");
        assert!(s.rss_kib > 0);
        assert_eq!(mib(1536), 1.5);
    }

    #[test]
    fn finds_the_process_listening_on_a_port() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        // this process is skipped: a load generator never measures itself
        assert_eq!(pid_listening_on(port), None);
        assert!(!listening_socket_inodes(port).is_empty());
    }
}
