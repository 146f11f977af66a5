//! `run`'s preview options against this server: by default the combined
//! preview keeps a failing line from the cut middle, with its line number
//! in the raw output, and renders a `\r` redraw as a terminal shows it; with
//! `Keep::none()` and `terminal(false)` it is the raw text, and the failing
//! line is not kept. A run that times out says so in its combined text's
//! last line. The same cases, against this server, are in
//! `tests/e2e/python/test_client_run_previews.py` and
//! `tests/e2e/node/client-run-previews.test.mjs`; here for the Rust client.

mod common;

use common::Server;
use dory_wire::preview::{Keep, NoticeKind};
use dory_wire_client::{Client, Computer, RunOptions};

/// A redrawn progress line (raw line 1), 100 passing tests, one failure (raw
/// line 102), 100 more passing tests: cut at 20 lines, the failure is in the
/// omitted middle.
const COMMAND: &str = concat!(
    "printf 'building 0%%\\rbuilding 100%%\\n'; ",
    r#"i=1; while [ $i -le 100 ]; do echo "test case_$i ... ok"; i=$((i+1)); done; "#,
    r#"echo "test case_x ... FAILED"; "#,
    r#"while [ $i -le 200 ]; do echo "test case_$i ... ok"; i=$((i+1)); done; exit 101"#,
);
const KEPT: &str = concat!(
    "[... kept 1 omitted line matching the keep patterns ...]\n",
    "101-test case_100 ... ok\n102:test case_x ... FAILED\n103-test case_101 ... ok\n",
);

fn computer(server: &Server) -> Computer {
    Client::builder()
        .base_url(format!("http://127.0.0.1:{}", server.port))
        .build()
        .expect("client")
        .computers()
        .get("e2e")
}

fn limits() -> RunOptions {
    RunOptions::new().max_lines(20).max_bytes(2000)
}

#[tokio::test]
async fn run_keeps_a_failing_line_with_its_raw_line_number_by_default() {
    let server = Server::start(&["--port", "0"]);
    let result = computer(&server).run(COMMAND, limits()).await.expect("run");
    let combined = &result.combined;
    assert_eq!(result.exit_code, Some(101));
    assert!(
        combined.truncated && combined.total_lines == 202,
        "{combined:?}"
    );
    assert!(combined.text.contains(KEPT), "{}", combined.text);
    // Rendered: the redraw's last state, and the terminal line says so; run's
    // tail split: the head is the first line, the tail the rest.
    assert!(
        combined.text.starts_with("building 100%\n[... "),
        "{}",
        combined.text
    );
    assert!(!combined.text.contains('\r') && combined.text.contains("[... terminal: "));
    // The last line says how the process ended; stdout's own view has none.
    assert!(
        combined.text.ends_with("\n[... exit code 101 ...]\n"),
        "{}",
        combined.text
    );
    let last = combined.notices.last().expect("notices");
    assert_eq!(
        (last.kind, combined.notice_text(last)),
        (NoticeKind::End, "[... exit code 101 ...]")
    );
    assert!(!result.stdout.text.contains("exit code"));
}

#[tokio::test]
async fn a_timed_out_runs_combined_text_says_it_timed_out() {
    let server = Server::start(&["--port", "0"]);
    let result = computer(&server)
        .run(
            "echo started; sleep 30",
            RunOptions::new().timeout_seconds(1.0),
        )
        .await
        .expect("run");
    assert_eq!((result.exit_code, result.timed_out), (None, true));
    assert_eq!(
        result.combined.text,
        "started\n[... timed out after 1 s: killed, no exit code ...]\n"
    );
    assert_eq!(result.stdout.text, "started\n");
}

#[tokio::test]
async fn run_with_keep_none_and_terminal_off_gives_the_raw_text() {
    let server = Server::start(&["--port", "0"]);
    let computer = computer(&server);
    let off = computer
        .run(COMMAND, limits().keep(Keep::none()).terminal(false))
        .await
        .expect("run");
    let text = &off.combined.text;
    assert!(!text.contains("FAILED") && !text.contains("kept"), "{text}");
    assert!(
        text.starts_with("building 0%\rbuilding 100%\ntest case_1 ... ok\n"),
        "{text}"
    );
    assert!(!text.contains("[... terminal: "), "{text}");
    // The explicit defaults are the defaults.
    let explicit = computer
        .run(COMMAND, limits().keep(Keep::defaults()).terminal(true))
        .await
        .expect("run");
    assert!(
        explicit.combined.text.contains(KEPT),
        "{}",
        explicit.combined.text
    );
}

/// A token budget (docs/preview.md, "Token limits"): every view's text
/// encodes to at most `max_tokens` tokens, counted again here with the same
/// tokenizer, and each preview reports that count; the failing line is still
/// kept. The same case is in the Python and Node end-to-end tests.
#[tokio::test]
async fn run_with_max_tokens_gives_previews_within_the_token_budget() {
    use dory_wire::tokens::Tokenizer;
    let server = Server::start(&["--port", "0"]);
    let options = RunOptions::new().max_tokens(300, Tokenizer::Approx);
    let result = computer(&server).run(COMMAND, options).await.expect("run");
    assert_eq!(result.exit_code, Some(101));
    for preview in [&result.stdout, &result.stderr, &result.combined] {
        let counted = Tokenizer::Approx.count(&preview.text) as u64;
        assert_eq!(preview.tokens, Some(counted), "{preview:?}");
        assert!(counted <= 300, "{counted} tokens: {}", preview.text);
    }
    let combined = &result.combined;
    // 16 KiB of text would be far more than 300 tokens: the budget bound it.
    assert!(combined.truncated, "{combined:?}");
    assert!(
        combined.text.contains("102:test case_x ... FAILED\n"),
        "{}",
        combined.text
    );
    assert!(
        combined.text.ends_with("[... exit code 101 ...]\n"),
        "{}",
        combined.text
    );
    // Below a run's least (80 tokens) the run is refused before it starts.
    let refused = computer(&server)
        .run(COMMAND, RunOptions::new().max_tokens(79, Tokenizer::Approx))
        .await
        .expect_err("refused");
    assert_eq!(refused.code(), "invalid_limits");
}
