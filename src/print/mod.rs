//! Printing values exactly as Python and PyTorch print them.

pub mod format_spec;
pub mod numpy_str;
pub mod pyfmt;
pub mod tensor_str;

pub use tensor_str::{format_tensor, format_tensor_suffixed, format_tensor_with, py_float_repr};
