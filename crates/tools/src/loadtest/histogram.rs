//! Latency histogram: log-linear buckets (32 per power of two above 64 µs, exact below), relative
//! error under 3.2 %, cheap to record into and to merge.
use serde::Serialize;

#[derive(Clone)]
pub struct Histogram {
    counts: Vec<u64>,
    n: u64,
    max: u64,
    sum: u64,
}

/// A histogram as reported: count, p50, p99, max and mean in milliseconds (0.01 ms resolution).
#[derive(Serialize, Debug, Clone, Copy, PartialEq)]
pub struct Latency {
    pub count: u64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
    pub mean_ms: f64,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram { counts: vec![0; 64 + 58 * 32], n: 0, max: 0, sum: 0 }
    }
}

impl Histogram {
    fn index(v: u64) -> usize {
        if v < 64 {
            return v as usize;
        }
        let msb = 63 - v.leading_zeros() as usize; // >= 6
        let shift = msb - 5;
        let sub = (v >> shift) as usize; // 32..64
        64 + (shift - 1) * 32 + (sub - 32)
    }

    /// Largest value in bucket `i`.
    fn upper(i: usize) -> u64 {
        if i < 64 {
            return i as u64;
        }
        let shift = (i - 64) / 32 + 1;
        let sub = ((i - 64) % 32 + 32) as u64;
        ((sub + 1) << shift) - 1
    }

    pub fn record(&mut self, micros: u64) {
        let i = Self::index(micros).min(self.counts.len() - 1);
        self.counts[i] += 1;
        self.n += 1;
        self.max = self.max.max(micros);
        self.sum += micros;
    }

    /// The value at quantile `q` (0..=1), in µs (an upper bound within the bucket's precision).
    pub fn quantile(&self, q: f64) -> u64 {
        if self.n == 0 {
            return 0;
        }
        let rank = ((q * self.n as f64).ceil() as u64).clamp(1, self.n);
        let mut seen = 0;
        for (i, c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Self::upper(i).min(self.max);
            }
        }
        self.max
    }

    pub fn summary(&self) -> Latency {
        let ms = |us: u64| (us as f64 / 10.0).round() / 100.0;
        Latency {
            count: self.n,
            p50_ms: ms(self.quantile(0.5)),
            p99_ms: ms(self.quantile(0.99)),
            max_ms: ms(self.max),
            mean_ms: self.sum.checked_div(self.n).map_or(0.0, ms),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_are_close() {
        let mut h = Histogram::default();
        for v in 1..=100_000u64 {
            h.record(v);
        }
        for (q, want) in [(0.5, 50_000.0), (0.99, 99_000.0), (1.0, 100_000.0)] {
            let got = h.quantile(q) as f64;
            assert!((got - want).abs() / want < 0.035, "q{q}: {got} vs {want}");
        }
        assert_eq!(h.quantile(0.0001), 10);
        for v in [0u64, 1, 63, 64, 65, 127, 128, 1 << 20, (1 << 20) + 12345, u32::MAX as u64] {
            let i = Histogram::index(v);
            assert!(Histogram::upper(i) >= v, "{v}");
            assert!(i == 0 || Histogram::upper(i - 1) < v, "{v}");
        }
    }

    #[test]
    fn summary_in_milliseconds() {
        let mut h = Histogram::default();
        assert_eq!(h.summary().mean_ms, 0.0);
        h.record(1_000);
        h.record(3_000);
        let s = h.summary();
        assert_eq!((s.count, s.max_ms, s.mean_ms), (2, 3.0, 2.0));
    }
}
