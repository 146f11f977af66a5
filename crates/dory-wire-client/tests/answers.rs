//! What a document answer means is the core's rule (`dory_wire::identity_answer`,
//! `dory_wire::exec_answer`): the same wrong answer is the same error
//! (code, frame_type, reason) as in the Python and JS clients. An answer
//! without a document cannot come over HTTP (the reader refuses an empty or
//! non-JSON body first): that case is the core's unit test
//! (`an_exec_answered_by_no_document_is_unexpected`) and the bindings'.

mod common;

use common::{json, serve};
use dory_wire::Error;
use dory_wire_client::{Client, StartOptions};

const RESULT: &str = r#"{"proc_id":"p1","stdout":"hi","stderr":"","stdout_truncated":false,"stderr_truncated":false,"exit_code":0,"timed_out":false}"#;

fn unexpected(err: Error) -> (String, u64, String, String) {
    let code = err.code().to_owned();
    match err {
        Error::UnexpectedFrame {
            line,
            frame_type,
            reason,
        } => (code, line, frame_type, reason),
        other => panic!("not unexpected_frame: {other:?}"),
    }
}

#[tokio::test]
async fn a_start_answered_by_an_exec_result_is_the_cores_unexpected_frame() {
    let script = serve(vec![json(200, RESULT)]).await;
    let client = Client::new(Some(&script.url)).expect("client");
    let err = client
        .computers()
        .get("c1")
        .processes()
        .start("echo hi", StartOptions::new())
        .await
        .unwrap_err();
    assert_eq!(
        unexpected(err),
        (
            "unexpected_frame".to_owned(),
            0,
            "exec_result".to_owned(),
            "expected a process identity, got exec_result".to_owned()
        )
    );
}
