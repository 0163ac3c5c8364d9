//! The native command line: `stridescope trace [--engine cpu|gpu] [--op-log] [--memory-limit
//! BYTES] FILE`, `stridescope bench [--json]`, and for instructors `stridescope link` (share
//! links and embed snippets), `stridescope svg` (a step's diagram) and `stridescope lesson`
//! (checking, linking and indexing lessons: [`lesson`]), and `stridescope summary` (a model's
//! memory by layer: [`summary`]).

pub mod images;
pub mod lesson;
pub mod summary;

use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;

use crate::core::tensor::{DType, Scalar, StorageId, Tensor};
use crate::engines::gpu::GpuEngine;
use crate::engines::{
    BinaryOp, CpuEngine, Engine, EngineError, Operand, ReduceOp, Summation, UnaryOp,
};
use crate::interp::{Evaluator, Limits};

const USAGE: &str =
    "usage: stridescope trace [--engine cpu|gpu] [--op-log] [--memory-limit BYTES] [--cuda] FILE\n\
       stridescope bench [--json] [--only KERNEL]\n\
       stridescope render-bench [--json]\n\
       stridescope link [--url EMBED_URL] [--iframe] [OPTIONS] FILE\n\
       stridescope svg [--step N] [--dark] [--lang en|zh-CN] FILE\n\
       stridescope lesson check PATH... | link [--url BASE] FILE | index DIR\n\
       stridescope summary [--json] [--cuda] FILE\n\
\n\
trace: runs FILE (a PyTorch notebook script) and prints its trace as JSON on stdout.\n\
Errors in the script are part of the trace (exit 0); an unreadable file is exit 2.\n\
read_image(\"NAME\") reads NAME beside FILE, else in www/samples/.\n\
--engine gpu runs every op on the GPU engine (wgpu); --op-log then prints, on stderr, one\n\
JSON line per op saying which engine ran it and why.\n\
--cuda runs FILE as on a CUDA device (simulated: the CPU computes the values): `cuda` is a\n\
device, torch.cuda.is_available() is True and torch.cuda.memory_allocated() and\n\
max_memory_allocated() count CUDA tensors by the caching allocator's rule (each block rounded\n\
up to 512 bytes); the allocator's rule, not a measurement on a GPU.\n\
bench: times the layout-conversion kernels on the GPU against copy_buffer_to_buffer and the\n\
CPU engine (--json: one JSON object; --only: the cases whose kernel or dtype contains KERNEL).\n\
render-bench: draws views of 150k, 1M and 16.7M f32 cells (contiguous and transposed) with the\n\
GPU renderer offscreen at 1920x1080; prints the median frame time of each, without and with a\n\
read-back of its pixels, verified against the CPU reference colouring (--json: one JSON object,\n\
adapter and results with cells, width, height, frame_ms, frame_wall_ms, readback_ms and\n\
verified); exit 1 when a frame is not verified.\n\
link: prints the share-link hash (v1....) of FILE's script; with --url, the whole link; with\n\
--iframe, the embed snippet. OPTIONS are the embed options of EMBEDDING.md, as in a query\n\
string: --step N (1-based) --readonly --panels a,b --hide a,b --theme auto|light|dark\n\
--height PX --title TEXT.\n\
svg: prints the diagram of step N (1-based; default the last) of FILE as SVG.\n\
lesson: the lesson tools (stridescope lesson help; LESSONS.md).\n\
summary: runs FILE and prints its model's memory by layer (parameters, output, saved for\n\
backward, peak) with the totals for parameters, gradients, optimizer state, activations and\n\
the peak; --json prints it as JSON (stridescope summary --help).";

/// Runs the CLI with `args` (without the program name); returns the exit code.
pub fn run(args: &[String]) -> i32 {
    match args.first().map(String::as_str) {
        Some("trace") => trace(&args[1..]),
        Some("bench") => bench(&args[1..]),
        Some("render-bench") => render_bench(&args[1..]),
        Some("link") => link(&args[1..]),
        Some("svg") => svg(&args[1..]),
        Some("lesson") => lesson::run(&args[1..]),
        Some("summary") => summary::run(&args[1..]),
        Some("-h" | "--help" | "help") => {
            println!("{USAGE}");
            0
        }
        _ => {
            eprintln!("{USAGE}");
            2
        }
    }
}

/// `stridescope link`: a share link (or embed snippet) for a script file.
fn link(args: &[String]) -> i32 {
    let mut query = Vec::new();
    let mut url = None;
    let mut iframe = false;
    let mut file = None;
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        match arg {
            "--url" => {
                let Some(v) = args.get(i + 1) else {
                    eprintln!("stridescope: --url needs the address of embed.html");
                    return 2;
                };
                url = Some(v.clone());
                i += 2;
            }
            "--iframe" => {
                iframe = true;
                i += 1;
            }
            "--readonly" => {
                query.push("readonly".to_string());
                i += 1;
            }
            "--step" | "--panels" | "--hide" | "--theme" | "--height" | "--title" => {
                let Some(v) = args.get(i + 1) else {
                    eprintln!("stridescope: {arg} needs a value");
                    return 2;
                };
                query.push(format!("{}={}", &arg[2..], query_escape(v)));
                i += 2;
            }
            path if !path.starts_with("--") && file.is_none() => {
                file = Some(path.to_string());
                i += 1;
            }
            _ => {
                eprintln!("{USAGE}");
                return 2;
            }
        }
    }
    let (file, script) = match read_script(file) {
        Ok(read) => read,
        Err(code) => return code,
    };
    if script.len() > crate::present::share::MAX_SCRIPT_BYTES {
        eprintln!(
            "stridescope: {file} is {} bytes; links carry scripts up to {} bytes",
            script.len(),
            crate::present::share::MAX_SCRIPT_BYTES
        );
        return 2;
    }
    let mut state = crate::present::share::SharedState::new(script);
    if let Some(problem) = crate::present::share::apply_query(&mut state, &query.join("&"))
        .into_iter()
        .next()
    {
        eprintln!("stridescope: {problem}");
        return 2;
    }
    let hash = crate::present::share::encode(&state);
    if iframe {
        let options = crate::present::share::EmbedOptions {
            embed_url: url.unwrap_or_else(|| "embed.html".to_string()),
            auto_height: true,
        };
        println!("{}", crate::present::share::embed_snippet(&state, &options));
    } else if let Some(url) = url {
        println!("{url}#{hash}");
    } else {
        println!("{hash}");
    }
    0
}

/// The script file named on the command line: its name and text, or the exit code after
/// saying why not.
fn read_script(file: Option<String>) -> Result<(String, String), i32> {
    let Some(file) = file else {
        eprintln!("{USAGE}");
        return Err(2);
    };
    match std::fs::read_to_string(&file) {
        Ok(script) => Ok((file, script)),
        Err(e) => {
            eprintln!("stridescope: cannot read {file}: {e}");
            Err(2)
        }
    }
}

/// Escapes a command-line value for `share::apply_query`.
fn query_escape(v: &str) -> String {
    v.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b',' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// `stridescope svg`: the diagram of one step of a script.
fn svg(args: &[String]) -> i32 {
    let mut step = None;
    let mut dark = false;
    let mut lang = crate::present::i18n::Lang::En;
    let mut file = None;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--step" => {
                let Some(n) = args.get(i + 1).and_then(|v| v.parse::<usize>().ok()) else {
                    eprintln!("stridescope: --step needs a step number (1, 2, ...)");
                    return 2;
                };
                step = Some(n);
                i += 2;
            }
            "--dark" => {
                dark = true;
                i += 1;
            }
            "--lang" => {
                let Some(chosen) = args
                    .get(i + 1)
                    .and_then(|v| crate::present::i18n::Lang::from_tag(v))
                else {
                    eprintln!("stridescope: --lang needs a language the app speaks: en or zh-CN");
                    return 2;
                };
                lang = chosen;
                i += 2;
            }
            path if !path.starts_with("--") && file.is_none() => {
                file = Some(path.to_string());
                i += 1;
            }
            _ => {
                eprintln!("{USAGE}");
                return 2;
            }
        }
    }
    let (file, script) = match read_script(file) {
        Ok(read) => read,
        Err(code) => return code,
    };
    let mut evaluator = Evaluator::new(Box::new(CpuEngine::new()), Limits::default());
    evaluator.set_images(Box::new(images::FolderImages::for_script(file.as_ref())));
    let trace = crate::present::cells::flatten_substeps(evaluator.run(&script));
    let n = trace.steps.len();
    if n == 0 {
        eprintln!("stridescope: {file} has no statements");
        return 2;
    }
    let k = step.unwrap_or(n);
    let Some(chosen) = k.checked_sub(1).and_then(|i| trace.steps.get(i)) else {
        eprintln!("stridescope: --step {k} is not one of the script's {n} steps");
        return 2;
    };
    let options = crate::present::export::DiagramOptions {
        highlight: None,
        dark,
        heading: crate::present::cells::step_label(k - 1, n, chosen.line),
        lang,
    };
    println!("{}", crate::present::export::diagram_svg(chosen, &options));
    0
}

fn trace(args: &[String]) -> i32 {
    let mut limits = Limits::default();
    let mut file = None;
    let mut use_gpu = false;
    let mut op_log = false;
    let mut cuda = false;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--memory-limit" => {
                let Some(n) = args.get(i + 1).and_then(|v| v.parse::<usize>().ok()) else {
                    eprintln!("stridescope: --memory-limit needs a number of bytes");
                    return 2;
                };
                limits.memory_bytes = n;
                i += 2;
            }
            "--engine" => {
                match args.get(i + 1).map(String::as_str) {
                    Some("cpu") => use_gpu = false,
                    Some("gpu") => use_gpu = true,
                    Some(other) => {
                        eprintln!(
                            "stridescope: unknown engine '{other}' (this build has: cpu, gpu)"
                        );
                        return 2;
                    }
                    None => {
                        eprintln!("stridescope: --engine needs a name");
                        return 2;
                    }
                }
                i += 2;
            }
            "--op-log" => {
                op_log = true;
                i += 1;
            }
            "--cuda" => {
                cuda = true;
                i += 1;
            }
            path => {
                if file.is_some() {
                    eprintln!("{USAGE}");
                    return 2;
                }
                file = Some(path.to_string());
                i += 1;
            }
        }
    }
    let Some(path) = file else {
        eprintln!("{USAGE}");
        return 2;
    };
    let source = match std::fs::read(&path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => {
            eprintln!("stridescope: cannot read {path}: {e}");
            return 2;
        }
    };
    let (engine, gpu): (Box<dyn Engine>, Option<SharedGpu>) = if use_gpu {
        match GpuEngine::new_blocking() {
            Ok(gpu) => {
                let shared = SharedGpu(Rc::new(RefCell::new(gpu)));
                (Box::new(shared.clone()), Some(shared))
            }
            Err(e) => {
                eprintln!("stridescope: --engine gpu: {e}");
                return 2;
            }
        }
    } else {
        (Box::new(CpuEngine::new()), None)
    };
    let mut evaluator = Evaluator::new(engine, limits);
    evaluator.set_images(Box::new(images::FolderImages::for_script(path.as_ref())));
    evaluator.set_cuda_device(cuda);
    let trace = evaluator.run(&source);
    if let (true, Some(gpu)) = (op_log, gpu) {
        let mut err = std::io::stderr().lock();
        for record in gpu.0.borrow_mut().take_op_log() {
            let line = serde_json::to_string(&record).unwrap_or_default();
            let _ = writeln!(err, "{line}");
        }
    }
    let json = trace.to_json();
    let mut out = std::io::stdout().lock();
    if writeln!(out, "{json}").is_err() {
        return 1;
    }
    0
}

fn bench(args: &[String]) -> i32 {
    let mut json = false;
    let mut only: Option<String> = None;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--json" => json = true,
            "--only" => {
                let Some(filter) = args.get(i + 1) else {
                    eprintln!("stridescope bench: --only needs a kernel name (or part of one)");
                    return 2;
                };
                only = Some(filter.clone());
                i += 1;
            }
            _ => {
                eprintln!("{USAGE}");
                return 2;
            }
        }
        i += 1;
    }
    let mut gpu = match GpuEngine::new_blocking() {
        Ok(gpu) => gpu,
        Err(e) => {
            eprintln!("stridescope bench: {e}");
            return 2;
        }
    };
    let report = crate::shells::bench::gpu::run(&mut gpu, only.as_deref(), &mut |line| {
        if !json {
            eprintln!("{line}");
        }
    });
    let mut out = std::io::stdout().lock();
    let text = if json {
        serde_json::to_string(&report).unwrap_or_default()
    } else {
        report.table()
    };
    if writeln!(out, "{text}").is_err() {
        return 1;
    }
    if report.results.iter().all(|r| r.verified) {
        0
    } else {
        1
    }
}

/// `stridescope render-bench [--json]`: the GPU renderer's frames, timed and verified.
fn render_bench(args: &[String]) -> i32 {
    let json = match args {
        [] => false,
        [flag] if flag == "--json" => true,
        _ => {
            eprintln!("{USAGE}");
            return 2;
        }
    };
    let mut gpu = match GpuEngine::new_blocking() {
        Ok(gpu) => gpu,
        Err(e) => {
            eprintln!("stridescope render-bench: {e}");
            return 2;
        }
    };
    let report = crate::shells::bench::render::run(&mut gpu, &mut |line| {
        if !json {
            eprintln!("{line}");
        }
    });
    let text = if json {
        serde_json::to_string(&report).unwrap_or_default()
    } else {
        report.table()
    };
    if writeln!(std::io::stdout().lock(), "{text}").is_err() {
        return 1;
    }
    if !report.results.is_empty() && report.results.iter().all(|r| r.verified) {
        0
    } else {
        1
    }
}

/// The GPU engine shared between the evaluator and the CLI (which reads its op log).
#[derive(Clone)]
struct SharedGpu(Rc<RefCell<GpuEngine>>);

impl Engine for SharedGpu {
    fn name(&self) -> String {
        self.0.borrow().name()
    }
    fn allocate(&mut self, nbytes: usize) -> StorageId {
        self.0.borrow_mut().allocate(nbytes)
    }
    fn allocate_with(&mut self, bytes: Vec<u8>) -> StorageId {
        self.0.borrow_mut().allocate_with(bytes)
    }
    fn free(&mut self, id: StorageId) {
        self.0.borrow_mut().free(id)
    }
    fn nbytes(&self, id: StorageId) -> usize {
        self.0.borrow().nbytes(id)
    }
    fn read_storage(&mut self, id: StorageId) -> Vec<u8> {
        self.0.borrow_mut().read_storage(id)
    }
    fn copy(&mut self, dst: &Tensor, src: &Tensor) {
        self.0.borrow_mut().copy(dst, src)
    }
    fn fill(&mut self, dst: &Tensor, value: Scalar) {
        self.0.borrow_mut().fill(dst, value)
    }
    fn unary(&mut self, op: UnaryOp, dst: &Tensor, src: &Tensor, compute: DType) {
        self.0.borrow_mut().unary(op, dst, src, compute)
    }
    fn binary(
        &mut self,
        op: BinaryOp,
        dst: &Tensor,
        a: &Operand,
        b: &Operand,
        compute: DType,
    ) -> Result<(), EngineError> {
        self.0.borrow_mut().binary(op, dst, a, b, compute)
    }
    fn reduce(&mut self, op: ReduceOp, dst: &Tensor, src: &Tensor, dims: &[usize]) {
        self.0.borrow_mut().reduce(op, dst, src, dims)
    }
    fn matmul(&mut self, dst: &Tensor, a: &Tensor, b: &Tensor, sum: Summation) {
        self.0.borrow_mut().matmul(dst, a, b, sum)
    }
    fn values(&mut self, view: &Tensor) -> Vec<Scalar> {
        self.0.borrow_mut().values(view)
    }
}
