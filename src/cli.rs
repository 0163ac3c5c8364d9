//! The native command line: `stridescope trace [--memory-limit BYTES] FILE`.

use std::io::Write;

use crate::engine::CpuEngine;
use crate::eval::{Evaluator, Limits};

const USAGE: &str = "usage: stridescope trace [--engine cpu] [--memory-limit BYTES] FILE\n\
\n\
Runs FILE (a PyTorch notebook script) and prints its trace as JSON on stdout.\n\
Errors in the script are part of the trace (exit 0); an unreadable file is exit 2.";

/// Runs the CLI with `args` (without the program name); returns the exit code.
pub fn run(args: &[String]) -> i32 {
    match args.first().map(String::as_str) {
        Some("trace") => trace(&args[1..]),
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

fn trace(args: &[String]) -> i32 {
    let mut limits = Limits::default();
    let mut file = None;
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
                    Some("cpu") => {}
                    Some(other) => {
                        eprintln!("stridescope: unknown engine '{other}' (this build has: cpu)");
                        return 2;
                    }
                    None => {
                        eprintln!("stridescope: --engine needs a name");
                        return 2;
                    }
                }
                i += 2;
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
    let trace = Evaluator::new(Box::new(CpuEngine::new()), limits).run(&source);
    let json = trace.to_json();
    let mut out = std::io::stdout().lock();
    if writeln!(out, "{json}").is_err() {
        return 1;
    }
    0
}
