//! PyTorch's semantics: the op table and its binder, the ops by family, autograd,
//! `torch.nn`, the storages as PyTorch shows them, `finfo`/`iinfo` and the environment probes.

pub(crate) mod autocast;
pub(crate) mod autograd;
pub(crate) mod cuda_ops;
pub(crate) mod device;
pub(crate) mod env;
pub(crate) mod grad_scaler;
pub(crate) mod modules;
pub(crate) mod nn;
pub(crate) mod ops;
pub(crate) mod optim;
pub(crate) mod registry;
pub(crate) mod serialization;
pub(crate) mod signature;
pub(crate) mod state;
pub(crate) mod storage;
pub(crate) mod storage_set;
pub(crate) mod storage_write;
pub(crate) mod typeinfo;
pub(crate) mod utils;
