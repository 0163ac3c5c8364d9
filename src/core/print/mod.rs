//! Printing values exactly as Python and PyTorch print them.

pub mod format_spec;
pub mod numpy_str;
pub mod pyfmt;
pub mod tensor_str;

pub use tensor_str::{
    format_tensor, format_tensor_leading, format_tensor_suffixed, format_tensor_with, py_float_repr,
};

/// `1.5 KiB`, `37.3 GiB`.
pub fn human_bytes(n: u64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < units.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{value:.1} {}", units[unit])
    }
}
