//! Fault injection: responses cut mid-body, and clients resuming from their
//! consumed offsets get a byte-identical transcript.

mod common;

use common::{Server, Transcript};
use serde_json::json;

#[test]
fn drop_after_bytes_cuts_the_body_without_a_terminator() {
    let server = Server::start(&["--drop-after-bytes", "30"]);
    let mut r = server.post_json(
        "/computers/c1/exec",
        &[("Accept", "application/x-ndjson")],
        &json!({"command": "printf hello"}),
    );
    assert_eq!(r.status, 200);
    let body = r.body();
    assert!(!body.complete, "the chunked body must not end properly");
    assert_eq!(body.bytes.len(), 30);
    assert!(
        !body.bytes.contains(&b'\n'),
        "cut in the middle of the first line"
    );
    assert!(body.bytes.starts_with(b"{\"type\":\"started\""));

    // JSON documents are never cut.
    let mut sync = server.post_json(
        "/computers/c1/exec",
        &[("Accept", "application/json")],
        &json!({"command": "printf hello"}),
    );
    assert_eq!(sync.json()["stdout"], "hello");
}

fn random_file(len: usize, seed: u64) -> (tempfile_path::Path, Vec<u8>) {
    let mut x = seed;
    let bytes: Vec<u8> = (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect();
    let path = tempfile_path::Path::new(&bytes);
    (path, bytes)
}

/// A throwaway file under the system temp directory, removed on drop.
mod tempfile_path {
    pub(crate) struct Path(pub(crate) std::path::PathBuf);
    impl Path {
        pub(crate) fn new(bytes: &[u8]) -> Self {
            static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
            let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let p =
                std::env::temp_dir().join(format!("dory-refserver-{}-{n}.bin", std::process::id()));
            std::fs::write(&p, bytes).expect("write temp file");
            Path(p)
        }
    }
    impl Drop for Path {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }
}

#[test]
fn seeded_drops_resume_to_a_byte_identical_transcript() {
    let server = Server::start(&[
        "--drop-seed",
        "42",
        "--drop-probability",
        "0.9",
        "--drop-max-bytes",
        "6000",
        "--max-chunk-bytes",
        "1000",
    ]);
    let (out_file, out_bytes) = random_file(60_000, 1);
    let (err_file, err_bytes) = random_file(40_000, 2);
    let id = server.start_process(&format!(
        "cat '{}'; cat '{}' >&2; printf tail",
        out_file.0.display(),
        err_file.0.display()
    ));
    let mut t = Transcript::default();
    let mut cuts = 0;
    for _attempt in 0..5000 {
        let (o, e) = t.offsets();
        let mut r = server.get(&format!(
            "/computers/c1/processes/{id}/output?stdout_offset={o}&stderr_offset={e}&follow=true"
        ));
        assert_eq!(r.status, 200);
        let body = r.body();
        if !body.complete {
            cuts += 1;
        }
        // Complete lines only; a partial last line is discarded.
        for f in common::parse_frames(&body.bytes) {
            t.apply(&f);
        }
        assert!(t.gap.is_none());
        if t.exit.is_some() {
            break;
        }
    }
    assert!(t.exit.is_some(), "never reached exit");
    assert!(cuts > 0, "fault injection never cut a response");
    let mut expected = out_bytes;
    expected.extend_from_slice(b"tail");
    assert!(t.stdout == expected, "stdout differs");
    assert!(t.stderr == err_bytes, "stderr differs");
}
