//! Share links and the sample course page: every widget of `www/examples/course.html` carries
//! a link that decodes to its scenario file and runs without an error, and the CLI's `link`
//! and `svg` commands agree with the library.

use std::path::Path;
use std::process::Command;

use stridescope::engines::CpuEngine;
use stridescope::interp::{Evaluator, Limits};
use stridescope::present::share::{self, PanelKind};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The link hashes of the course page's iframes, in page order.
fn course_hashes() -> Vec<String> {
    let html =
        std::fs::read_to_string(root().join("www/examples/course.html")).expect("course.html");
    html.split("src=\"../embed.html#")
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn the_course_page_embeds_its_three_scenarios() {
    let hashes = course_hashes();
    assert_eq!(hashes.len(), 3, "three widgets");
    let files = ["aliasing.py", "slicing.py", "channels_last.py"];
    for (hash, file) in hashes.iter().zip(files) {
        let state = share::decode(hash)
            .unwrap_or_else(|e| panic!("{file}: {e}"))
            .expect("a state");
        let script = std::fs::read_to_string(root().join("www/examples").join(file)).expect(file);
        assert_eq!(
            state.script, script,
            "{file} changed: regenerate its link with `stridescope link` (see EMBEDDING.md)"
        );
        let trace =
            Evaluator::new(Box::new(CpuEngine::new()), Limits::default()).run(&state.script);
        assert!(
            state.step < trace.steps.len(),
            "{file}: the starting step exists"
        );
        for step in &trace.steps {
            assert_eq!(step.error, None, "{file} line {}", step.line);
        }
        assert!(!state.shows(PanelKind::Memory), "{file}: compact widgets");
    }
}

fn stridescope(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_stridescope"))
        .args(args)
        .output()
        .expect("run stridescope");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn cli_link_encodes_the_options() {
    let file = root().join("www/examples/slicing.py");
    let file = file.to_str().expect("utf-8 path");
    let (code, out, err) = stridescope(&[
        "link",
        "--step",
        "3",
        "--readonly",
        "--panels",
        "storage,views",
        "--theme",
        "dark",
        "--title",
        "Offsets & slices",
        file,
    ]);
    assert_eq!(code, 0, "{err}");
    let state = share::decode(out.trim()).expect("valid").expect("a state");
    assert_eq!(state.step, 2);
    assert!(state.read_only);
    assert_eq!(state.theme, share::Theme::Dark);
    assert_eq!(state.title.as_deref(), Some("Offsets & slices"));
    assert!(state.shows(PanelKind::Views) && !state.shows(PanelKind::Editor));

    let (code, out, _) = stridescope(&[
        "link",
        "--iframe",
        "--url",
        "https://x.org/s/embed.html",
        file,
    ]);
    assert_eq!(code, 0);
    assert!(
        out.starts_with("<iframe src=\"https://x.org/s/embed.html#v1."),
        "{out}"
    );
    assert!(
        out.contains("title=\"Stridescope: Slicing with offsets"),
        "{out}"
    );

    let (code, _, err) = stridescope(&["link", "--theme", "purple", file]);
    assert_eq!(code, 2);
    assert!(err.contains("not auto, light or dark"), "{err}");
}

#[test]
fn cli_svg_draws_a_step() {
    let file = root().join("www/examples/aliasing.py");
    let file = file.to_str().expect("utf-8 path");
    let (code, out, err) = stridescope(&["svg", "--step", "7", file]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    // b[0, 1] = 100 wrote storage element 3 (a[1, 0]).
    assert!(out.contains("data-storage=\"s0\" data-offset=\"3\""));
    assert!(out.contains(">100</text>"));
    let (code, _, err) = stridescope(&["svg", "--step", "99", file]);
    assert_eq!(code, 2);
    assert!(err.contains("not one of the script's"), "{err}");
}
