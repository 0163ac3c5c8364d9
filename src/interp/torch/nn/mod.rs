//! `torch.nn`: the functional API (entries of the op table) and the layers built on it.

pub(crate) mod activation_backward;
pub(crate) mod attention;
pub(crate) mod baddbmm;
mod clip;
pub(crate) mod conv;
mod conv_backward;
mod conv_kernel;
mod conv_memory;
pub(crate) mod dense;
pub(crate) mod dense_backward;
mod dropout;
pub(crate) mod embedding_bag;
pub(crate) mod functional;
pub(crate) mod init;
pub(crate) mod layers;
pub(crate) mod losses;
pub(crate) mod module;
pub(crate) mod norm;
mod norm_backward;
pub(crate) mod norm_composed;
mod norm_kernel;
mod norm_rows;
mod orthogonal;
pub(crate) mod pool;
pub(crate) mod pool3d;
mod pool_adaptive;
mod pool_backward;
pub(crate) mod pool_composed;
mod pool_kernel;
mod rnn_utils;
pub(crate) mod upsample;
mod upsample_backward;
mod upsample_kernel;

pub(crate) use clip::NN_UTILS;
pub(crate) use rnn_utils::NN_UTILS_RNN;
