//! Embeds the WGSL shaders without their comments and indentation.
//!
//! Each shader lives beside the Rust that dispatches it: the compute kernels in
//! `src/engines/gpu/`, the render path's in `src/painters/`. They are documented at length;
//! the web app carries them in its wasm, where the comments cost about 8 KB gzipped. This
//! writes each `NAME.wgsl` of those folders to `$OUT_DIR/shaders/NAME.wgsl` with comments,
//! indentation and blank lines removed, and the code embeds those (`wgsl!` in
//! `src/engines/gpu/mod.rs`). Names are unique across the folders. WGSL has no string
//! literals, so `//` and `/* */` always start comments.

use std::{env, fs, path::PathBuf};

/// The folders whose `.wgsl` files are shaders.
const SHADER_DIRS: [&str; 2] = ["src/engines/gpu", "src/painters"];

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("shaders");
    fs::create_dir_all(&out).expect("OUT_DIR is writable");
    for dir in SHADER_DIRS {
        println!("cargo:rerun-if-changed={dir}");
        let entries = fs::read_dir(dir).expect("the shader folders are in the crate");
        for entry in entries {
            let path = entry.expect("a shader folder is readable").path();
            if path.extension().is_some_and(|e| e == "wgsl") {
                println!("cargo:rerun-if-changed={}", path.display());
                let text = fs::read_to_string(&path).expect("shaders are UTF-8 text");
                let name = path.file_name().expect("a file has a name");
                fs::write(out.join(name), minify(&text)).expect("OUT_DIR is writable");
            }
        }
    }
}

/// The shader without comments (nested block comments included, as WGSL nests them),
/// leading and trailing spaces, and blank lines. Line breaks inside code stay.
fn minify(text: &str) -> String {
    let mut code = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut depth = 0usize;
    while let Some(c) = chars.next() {
        if depth > 0 {
            match (c, chars.peek()) {
                ('*', Some('/')) => {
                    chars.next();
                    depth -= 1;
                    code.push(' ');
                }
                ('/', Some('*')) => {
                    chars.next();
                    depth += 1;
                }
                ('\n', _) => code.push('\n'),
                _ => {}
            }
            continue;
        }
        match (c, chars.peek()) {
            ('/', Some('/')) => {
                while chars.peek().is_some_and(|&n| n != '\n') {
                    chars.next();
                }
            }
            ('/', Some('*')) => {
                chars.next();
                depth = 1;
            }
            _ => code.push(c),
        }
    }
    let lines: Vec<&str> = code
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    lines.join("\n") + "\n"
}
