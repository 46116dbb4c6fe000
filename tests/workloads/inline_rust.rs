// SPDX-License-Identifier: Apache-2.0
// cflags: -C opt-level=3 -C force-frame-pointers=no -g
//! Rust iterator chain inlined into one function: main -> sum_rounds (never inlined) ->
//! Iterator::map / filter / sum adapters and their closures (inlined) -> churn (never
//! inlined), the leaf. Usage: inline_rust SECONDS
use std::time::{Duration, Instant};

#[inline(never)]
fn churn(mut x: u64) -> u64 {
    for _ in 0..20000 {
        x ^= x >> 29;
        x = x.wrapping_mul(0xbf58476d1ce4e5b9);
        x = std::hint::black_box(x);
    }
    x
}

#[inline(never)]
fn sum_rounds(n: u64) -> u64 {
    (0..n)
        .map(|i| churn(i ^ 0x5555))
        .filter(|v| v & 1 == 0)
        .fold(0u64, |a, v| a.wrapping_add(v))
}

fn main() {
    let secs: f64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(2.0);
    let end = Instant::now() + Duration::from_secs_f64(secs);
    let mut acc = 0u64;
    while Instant::now() < end {
        acc = acc.wrapping_add(sum_rounds(std::hint::black_box(64)));
    }
    std::hint::black_box(acc);
}
