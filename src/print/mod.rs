//! Printing values exactly as Python and PyTorch print them.

mod pyfmt;
pub mod tensor_str;

pub use tensor_str::{format_tensor, py_float_repr};
