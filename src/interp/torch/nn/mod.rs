//! `torch.nn`: the functional API (entries of the op table) and the layers built on it.

pub(crate) mod functional;
pub(crate) mod layers;
pub(crate) mod losses;
