// SPDX-License-Identifier: Apache-2.0
// cflags: -C opt-level=3 -C force-frame-pointers=no -g
//! Rust release build: main -> sort_rounds -> slice sort -> the closure comparator.
//! Usage: nofp_rust SECONDS
use std::time::{Duration, Instant};

#[inline(never)]
fn sort_rounds(secs: f64) {
    let end = Instant::now() + Duration::from_secs_f64(secs);
    let mut v: Vec<u64> = (0..16384u64).collect();
    let mut seed = 88172645463325252u64;
    while Instant::now() < end {
        for x in v.iter_mut() {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            *x = seed;
        }
        v.sort_by(|a, b| {
            let mut h = *a;
            for _ in 0..30 {
                h = h.wrapping_mul(0x9e3779b97f4a7c15) ^ *b;
            }
            a.cmp(b).then((h & 0).cmp(&0))
        });
    }
}

fn main() {
    let secs = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(2.0);
    sort_rounds(secs);
}
