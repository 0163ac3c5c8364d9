//! The pure core: the tensor model and its layout arithmetic, dtypes, PyTorch's random
//! generator, images, printouts and the trace. No engine, no parser, no UI.

pub mod image;
pub mod packing;
pub mod print;
pub mod tensor;
pub mod trace;
