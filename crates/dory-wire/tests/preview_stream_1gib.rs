//! Streams 1 GiB, generated on the fly, through the streaming bounder with
//! 2000 lines / 50 KiB limits, and checks that what it retains never exceeds a
//! small constant multiple of `max_bytes`, and that the preview is right.
//!
//! `DORY_PREVIEW_STREAM_MIB` overrides the size (in MiB) for quick local runs;
//! the default, and what CI runs, is the full 1024 MiB.

use dory_wire::preview::{Bounded, SpillOutcome, StreamingBounder};

const MAX_LINES: usize = 2000;
const MAX_BYTES: usize = 50 * 1024;
const BLOCK: usize = 1 << 20;

/// One MiB of varied output: log lines, CRLF, progress bars, emoji, CJK,
/// invalid UTF-8, and every few blocks a line longer than the whole budget.
fn block(seed: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(BLOCK);
    let mut i = 0usize;
    while out.len() < BLOCK {
        i += 1;
        match (i + seed) % 9 {
            0 => out
                .extend_from_slice(format!("[{seed}:{i}] progress\r 40%\r 80%\r100%\n").as_bytes()),
            1 => out.extend_from_slice("emoji 😀 and 漢字 in a line\r\n".as_bytes()),
            2 => out.extend_from_slice(b"bad bytes \xff\xfe and a cut \xe2\x82 sequence\n"),
            3 if i % 500 == 0 && seed % 3 == 0 => out.resize(out.len() + 3 * MAX_BYTES, b'G'),
            _ => out.extend_from_slice(
                format!("{seed:04} line {i}: compiling crate number {}\n", i * 7).as_bytes(),
            ),
        }
    }
    out.truncate(BLOCK);
    // End on a complete line, so that line counts add up across blocks.
    out[BLOCK - 1] = b'\n';
    out
}

fn mib() -> usize {
    std::env::var("DORY_PREVIEW_STREAM_MIB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1024)
}

#[test]
fn streaming_one_gib_keeps_memory_bounded() {
    let pool: Vec<Vec<u8>> = (0..8).map(block).collect();
    let newlines: Vec<u64> = pool
        .iter()
        .map(|b| b.iter().filter(|&&c| c == b'\n').count() as u64)
        .collect();
    let blocks = mib();
    let mut bounder = StreamingBounder::new(MAX_LINES, MAX_BYTES);
    let (mut expected_newlines, mut peak) = (0u64, 0usize);
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    for n in 0..blocks {
        let data = &pool[n % pool.len()];
        expected_newlines += newlines[n % pool.len()];
        // A few small pushes then one large one, at a varying split point.
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let split = (state % 70_000) as usize;
        for piece in [&data[..split / 4], &data[split / 4..split], &data[split..]] {
            bounder.push(piece);
            peak = peak.max(bounder.retained_bytes());
        }
    }
    println!("retained at most {peak} bytes for max_bytes = {MAX_BYTES}");
    assert!(peak <= 5 * MAX_BYTES, "retained {peak} bytes");
    assert_eq!(bounder.total_bytes(), (blocks * BLOCK) as u64);

    let last = &pool[(blocks - 1) % pool.len()];
    let Ok(Bounded::NeedsSpill(pending)) = bounder.finish() else {
        panic!("1 GiB cannot fit in a preview");
    };
    let preview = pending.render(
        SpillOutcome::Saved {
            path: "/tmp/spill/out.txt".into(),
        },
        None,
    );
    assert!(preview.text.len() <= MAX_BYTES);
    assert!(preview.text.lines().count() <= MAX_LINES);
    assert_eq!(preview.total_lines, expected_newlines);
    assert_eq!(preview.total_bytes, (blocks * BLOCK) as u64);
    let tail = &last[last.len() - preview.tail_bytes as usize..];
    assert!(preview.text.ends_with(&*String::from_utf8_lossy(tail)));
    let head = &pool[0][..preview.head_bytes as usize];
    assert!(preview.text.starts_with(&*String::from_utf8_lossy(head)));
    let (first, last) = preview.omitted_range.expect("a cut preview has a range");
    assert!(preview.text.contains(&format!(
        "; sed -n '{first},{last}p' /tmp/spill/out.txt ...]"
    )));
}
