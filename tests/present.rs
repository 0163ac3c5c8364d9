//! The pure presentation layer on traces of real scripts: the SVG export and the page's
//! flattened steps. (`present/` may not import the evaluator, so these live here.)

use stridescope::core::tensor::StorageId;
use stridescope::core::trace::Step;
use stridescope::engines::CpuEngine;
use stridescope::interp::{trace_script, Evaluator, Limits};
use stridescope::present::cells::flatten_substeps;
use stridescope::present::export::{
    diagram_svg, diagram_svg_with, DiagramOptions, Raster, RasterOf, STORAGE_EDGE,
};
use stridescope::present::i18n::Lang;

fn last_step(script: &str) -> Step {
    let trace = Evaluator::new(Box::new(CpuEngine::new()), Limits::default()).run(script);
    trace.steps.last().cloned().expect("a step")
}

#[test]
fn draws_storage_cells_views_and_the_highlight() {
    let step =
        last_step("import torch\na = torch.arange(6).reshape(2, 3)\nb = a.t()\nb[0, 1] = 40\n");
    let svg = diagram_svg(
        &step,
        &DiagramOptions {
            highlight: Some((StorageId(0), 3)),
            dark: false,
            heading: "Step 4 of 4 · line 4".into(),
            lang: Lang::En,
        },
    );
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(svg.ends_with("</svg>"));
    for offset in 0..6 {
        assert!(svg.contains(&format!(
            "<g class=\"storage-cell\" data-storage=\"s0\" data-offset=\"{offset}\""
        )));
    }
    // b[0, 1] is a[1, 0]: storage element 3 holds 40, drawn as text.
    assert!(svg.contains(">40</text>"));
    assert!(svg.contains("shape (3, 2)  ·  stride (1, 3)"));
    // The highlighted element: its storage cell and one cell in each of a and b.
    assert_eq!(svg.matches("stroke-width=\"3\"").count(), 3);
    // Balanced groups: every opened <g> is closed.
    assert_eq!(svg.matches("<g ").count(), svg.matches("</g>").count());
}

#[test]
fn text_is_escaped() {
    let step = last_step("import torch\nx = torch.zeros(2)\ny = '<b>&'\n");
    let svg = diagram_svg(
        &step,
        &DiagramOptions {
            heading: "<script>".into(),
            ..Default::default()
        },
    );
    assert!(!svg.contains("<script>"));
    assert!(!svg.contains("<b>"));
    assert!(svg.contains("&lt;b&gt;&amp;"));
}

#[test]
fn large_views_are_rasters() {
    let step = last_step("import torch\na = torch.zeros(80, 80)\nb = a.t()\n");
    let svg = diagram_svg(&step, &DiagramOptions::default());
    // The SVG says so, and draws their edges as cells.
    assert_eq!(svg.matches("the page draws this as a raster").count(), 3);
    assert!(svg.contains("class=\"view-cell\""));
    let png = |of| Raster {
        of,
        href: "data:image/png;base64,iVBORw0KGgo=".into(),
        width: 600.0,
        height: 300.0,
    };
    let rasters = [
        png(RasterOf::View("a".into())),
        png(RasterOf::Storage(StorageId(0))),
        Raster {
            href: "javascript:alert(1)".into(),
            ..png(RasterOf::View("b".into()))
        },
    ];
    let svg = diagram_svg_with(&step, &DiagramOptions::default(), &rasters);
    // a and the storage as their pictures; b's bad address is not drawn.
    assert_eq!(svg.matches("<image ").count(), 2);
    assert!(!svg.contains("javascript"));
    assert_eq!(
        svg.matches("drawn as a raster (the picture on the page)")
            .count(),
        2
    );
    assert!(svg.contains("data-view=\"b\""));
    assert!(!svg.contains("data-view=\"a\""));
}

#[test]
fn large_storages_are_summarized() {
    let step = last_step("import torch\nx = torch.zeros(1000)\n");
    let svg = diagram_svg(&step, &DiagramOptions::default());
    assert_eq!(
        svg.matches("class=\"storage-cell\"").count(),
        2 * STORAGE_EDGE
    );
    assert!(svg.contains("data-offset=\"999\""));
}

#[test]
fn a_loop_is_walked_statement_by_statement() {
    let trace = trace_script("a = torch.zeros(2)\nfor i in range(2):\n    a[i] = i + 1\nb = a");
    assert_eq!(trace.steps.len(), 3);
    let flat = flatten_substeps(trace);
    let lines: Vec<usize> = flat.steps.iter().map(|s| s.line).collect();
    assert_eq!(lines, vec![1, 3, 3, 2, 4]);
    assert_eq!(
        flat.steps[1].writes.len(),
        1,
        "each iteration's write is its own step"
    );
    let imported = flatten_substeps(trace_script("import torch\na = torch.zeros(2)"));
    assert_eq!(
        imported.steps.len(),
        1,
        "a working import is no step of the page"
    );
}

#[test]
fn the_diagram_speaks_the_chosen_language() {
    let step = last_step("import torch\na = torch.arange(6).reshape(2, 3)\nb = a.t()\n");
    let chinese = diagram_svg(
        &step,
        &DiagramOptions {
            lang: Lang::ZhCn,
            ..Default::default()
        },
    );
    for words in [
        "存储",
        "视图",
        "形状 (3, 2)",
        "步长 (1, 3)",
        "s0 的视图",
        "拥有 s0",
        "6 个元素",
    ] {
        assert!(chinese.contains(words), "{words} in {chinese}");
    }
    assert!(!chinese.contains("Storages"));
    let english = diagram_svg(&step, &DiagramOptions::default());
    for words in ["Storages", "Views", "view of s0", "owns s0", "6 elements"] {
        assert!(english.contains(words), "{words}");
    }
}
