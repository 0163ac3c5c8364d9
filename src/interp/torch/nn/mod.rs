//! `torch.nn`: the functional API and the layers built on it.

pub(crate) mod functional;
