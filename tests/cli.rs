//! The command line: script errors are data, unreadable files are exit 2.

use std::process::Command;

fn stridescope() -> Command {
    Command::new(env!("CARGO_BIN_EXE_stridescope"))
}

#[test]
fn trace_prints_json_and_exits_zero_even_when_the_script_fails() {
    let dir = std::env::temp_dir().join(format!("stridescope-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("script.py");
    std::fs::write(
        &path,
        "a = torch.arange(6).reshape(2, 3)\nb = a.t().view(6)\na.stride()\n",
    )
    .unwrap();
    let out = stridescope().arg("trace").arg(&path).output().unwrap();
    assert!(out.status.success());
    let trace: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let steps = trace["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 3);
    assert!(steps[1]["error"]
        .as_str()
        .unwrap()
        .starts_with("RuntimeError: view size is not compatible"));
    assert_eq!(steps[2]["output"], "(3, 1)");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn an_unreadable_file_is_exit_two_with_a_message() {
    let out = stridescope()
        .args(["trace", "/nonexistent/stridescope/script.py"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("cannot read /nonexistent/stridescope/script.py"));
}

#[test]
fn bad_usage_is_exit_two() {
    assert_eq!(stridescope().output().unwrap().status.code(), Some(2));
    assert_eq!(
        stridescope()
            .args(["trace", "--memory-limit", "lots", "x.py"])
            .output()
            .unwrap()
            .status
            .code(),
        Some(2)
    );
}
