//! Python's semantics as a notebook needs them: statements, assignment, expressions,
//! operators, iteration and truthiness, calls, the builtins, `str`/`list`/`dict` methods,
//! exceptions, functions and classes a script defines, complex numbers and `repr`.

pub(crate) mod assign;
pub(crate) mod builtins;
pub(crate) mod calls;
pub(crate) mod classes;
pub(crate) mod complex;
pub(crate) mod dict;
pub(crate) mod dict_views;
pub(crate) mod exceptions;
pub(crate) mod expressions;
pub(crate) mod functions;
pub(crate) mod instance_protocols;
pub(crate) mod iteration;
pub(crate) mod operators;
pub(crate) mod repr;
pub(crate) mod repr_buffers;
pub(crate) mod statements;
pub(crate) mod stdlib;
pub(crate) mod str_list;
