//! Benchmarks for `dory-wire`: deterministic corpora, the Rust
//! workloads against hand-written baselines and the `memchr` floor, and the
//! one table every language's results are printed in. Run with `make bench`;
//! the method is in `docs/bench.md`. Nothing here is timed in a test.

pub mod baseline;
pub mod corpus;
pub mod measure;
pub mod preview;
pub mod quality;
pub mod report;
pub mod run;
