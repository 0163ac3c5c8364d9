//! Runtime values of the script language: Python objects as far as a torch notebook needs them.

use std::borrow::Cow;
use std::cell::RefCell;
use std::rc::Rc;

use crate::core::tensor::{DType, MemoryFormat, StorageId, Tensor};

/// A tensor object. Python names bound to the same object share it, so in-place metadata
/// changes (`t_()`, `unsqueeze_()`) are seen through every name, as in Python.
pub type TensorRef = Rc<RefCell<TensorObject>>;

/// A tensor plus where it came from (for the trace: view or copy, and of what).
#[derive(Clone, Debug)]
pub struct TensorObject {
    pub tensor: Tensor,
    /// The op that made this tensor: `transpose`, `clone`, `arange`, ...
    pub made_by: String,
    /// For copies, the storage copied from.
    pub copied_from: Option<StorageId>,
    /// `requires_grad=True`: a leaf that autograd tracks (Stridescope records the flag and
    /// PyTorch's refusals; it computes no gradients).
    pub requires_grad: bool,
    /// The autograd node that made this tensor (`MulBackward0`): set on the output of an op
    /// that read a tensor requiring grad (`eval/autograd/`). A leaf has none.
    pub grad_fn: Option<Rc<crate::interp::torch::autograd::GradNode>>,
    /// The gradient `backward()` accumulated into this leaf (`x.grad`).
    pub grad: Option<TensorRef>,
    /// An `nn.Parameter` (`Parameter containing:` in its repr; what `nn.Module` registers).
    pub is_parameter: bool,
    /// For a view (made by a view op or basic indexing): the tensor at the root of its chain
    /// of views and how it was made, which decide what an in-place write through it does to
    /// autograd (see `torch::autograd::views`).
    pub view_of: Option<crate::interp::torch::autograd::views::ViewOf>,
}

impl TensorObject {
    /// A new shared tensor object, registered with memory accounting (which counts its
    /// storage alive while anything holds the object).
    pub fn new_ref(object: TensorObject) -> TensorRef {
        let object = Rc::new(RefCell::new(object));
        crate::interp::runtime::accounting::register_object(&object);
        object
    }
}

/// A Python value.
#[derive(Clone, Debug)]
pub enum Value {
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    /// A Python `complex`: real and imaginary parts.
    Complex(f64, f64),
    Str(String),
    Ellipsis,
    Slice(Option<i64>, Option<i64>, Option<i64>),
    Tuple(Vec<Value>),
    List(Vec<Value>),
    /// `torch.Size([..])`.
    Size(Vec<i64>),
    DType(DType),
    MemoryFormat(MemoryFormat),
    Tensor(TensorRef),
    /// `torch.device('cpu')`: the device type.
    Device(String),
    /// `t.untyped_storage()` (dtype `None`) or `t.storage()` (a `TypedStorage` of the dtype).
    Storage(StorageId, Option<DType>),
    /// The `torch` module.
    Torch,
    /// Another module a notebook imports: `numpy`, `math`, `torch.nn`, `torch.nn.functional`,
    /// `torchvision.io` (its dotted name).
    Module(String),
    /// The default random generator (what `torch.manual_seed` returns).
    Generator,
    /// `range(start, stop, step)`, iterated lazily.
    Range(i64, i64, i64),
    /// A bound method (`a.stride`) or a `torch.` function (`torch.arange`).
    Method(Box<Value>, String),
    /// What `print(...)` wrote: shown as is, without quotes.
    Printed(String),
    /// A NumPy `ndarray`: like a tensor, a view of a storage (`t.numpy()` and
    /// `torch.from_numpy(n)` share it).
    NdArray(TensorRef),
    /// A NumPy scalar (`np.int64(3)`, `np.float32(1.5)`, `np.True_`).
    NpScalar(DType, crate::core::tensor::Scalar),
    /// A NumPy dtype object (`dtype('float32')`).
    NpDType(DType),
    /// A member of torchvision's `ImageReadMode` enum (`ImageReadMode.RGB`).
    ReadMode(crate::core::image::modes::ReadMode),
    /// A named tuple of PyTorch's `torch.return_types` (`torch.return_types.max(values=...,
    /// indices=...)`): its type name and its fields in order.
    NamedTuple(String, Vec<(String, Value)>),
    /// `torch.finfo(dtype)` (a floating dtype) or `torch.iinfo(dtype)` (an integer one).
    TypeInfo(DType),
    /// A Python `dict`: its entries in insertion order.
    Dict(Vec<(Value, Value)>),
    /// A `collections.OrderedDict` (what `state_dict()` returns): a dict whose repr is
    /// `OrderedDict([('k', v), ...])`.
    OrderedDict(Vec<(Value, Value)>),
    /// A grad-mode context manager (`torch.no_grad()`: `false`, `torch.enable_grad()`:
    /// `true`), which a `with` block runs under.
    GradMode(bool),
    /// A function the script defined with `def`.
    Function(Rc<crate::interp::python::functions::ScriptFunction>),
    /// A built-in exception class (`RuntimeError`), as `except` and `raise` name it.
    ExceptionType(String),
    /// An exception object (`except RuntimeError as e`, `ValueError("...")`).
    Exception(crate::core::tensor::ScriptError),
    /// A class the script defined with `class` (`python/classes.rs`).
    Class(Rc<ClassObject>),
    /// An instance of a script class: its attributes may hold tensors.
    Instance(Rc<Instance>),
    /// A script function bound to its first argument: `obj.method` (an instance) or a
    /// `@classmethod` read from a class or instance (the class).
    BoundMethod(
        Box<Value>,
        Rc<crate::interp::python::functions::ScriptFunction>,
    ),
    /// `staticmethod(f)`, as a class body holds it.
    StaticMethod(Box<Value>),
    /// `classmethod(f)`, as a class body holds it.
    ClassMethod(Box<Value>),
    /// `super()`: the class whose bases the lookup starts after, and the instance (or class)
    /// the methods found are bound to.
    Super(Rc<ClassObject>, Box<Value>),
    /// An autograd node as a script sees it: `y.grad_fn` (`<MulBackward0 object at 0x...>`)
    /// or a leaf's `AccumulateGrad` in `next_functions`.
    GradFn(crate::interp::torch::autograd::objects::FnRef),
    /// The `RemovableHandle` `t.register_hook(fn)` returns: its hook's id.
    HookHandle(u64),
    /// A grad-mode context manager (`GradMode`, `InferenceMode`) used as a decorator: the
    /// function it wraps runs under the manager's mode.
    ModeWrapped(Box<Value>, Box<Value>),
    /// `torch.inference_mode(mode)`: a context manager (`true`: inference mode on).
    InferenceMode(bool),
    /// What `torch.set_grad_enabled(mode)` returns: the mode is set at the call, and a
    /// `with` block on it restores the mode before it.
    SetGradEnabled(bool),
    /// A `torch.autocast(...)` object: a context manager and a decorator.
    Autocast(Box<crate::interp::torch::autocast::AutocastMode>),
}

/// A class a script defined: its names, its base (`None`: `object`) and its attributes.
#[derive(Debug)]
pub struct ClassObject {
    /// `__name__`.
    pub name: String,
    /// `__qualname__` (`Outer.Inner` for a class defined in a class body).
    pub qualname: String,
    /// The base class; `None` when it is `object`.
    pub base: Option<Rc<ClassObject>>,
    /// Class attributes in definition order (methods, `count = 0`); `Cls.x = v` changes them.
    pub attrs: RefCell<Vec<(String, Value)>>,
    /// The built-in class this is (`nn.Linear`, `nn.Module`); `None` for a class a script
    /// defined. Built-in classes are the tail of a script class's MRO.
    pub native: Option<&'static crate::interp::torch::nn::module::ModuleDef>,
}

impl ClassObject {
    /// The class and its bases, nearest first (the method resolution order of single
    /// inheritance, `object` left out).
    pub fn mro(self: &Rc<Self>) -> Vec<Rc<ClassObject>> {
        let mut out = vec![Rc::clone(self)];
        while let Some(base) = out.last().and_then(|c| c.base.clone()) {
            out.push(base);
        }
        out
    }

    /// Whether `self` is `other` or derives from it.
    pub fn is_subclass_of(self: &Rc<Self>, other: &Rc<ClassObject>) -> bool {
        self.mro().iter().any(|c| Rc::ptr_eq(c, other))
    }
}

/// An instance of a script class.
#[derive(Debug)]
pub struct Instance {
    /// Its class (`type(obj)`).
    pub class: Rc<ClassObject>,
    /// Its attributes (`self.x = ...`) in assignment order.
    pub attrs: RefCell<Vec<(String, Value)>>,
    /// An `nn.Module`'s parameters, buffers and submodules, once `Module.__init__` ran.
    pub module: RefCell<Option<crate::interp::torch::nn::module::ModuleState>>,
}

impl Drop for Instance {
    /// Drops the instances this one alone holds from a list, not by recursion: a script's
    /// linked list of 10^5 nodes is freed without a deep native stack.
    fn drop(&mut self) {
        let mut pending: Vec<Value> = std::mem::take(self.attrs.get_mut())
            .into_iter()
            .map(|(_, v)| v)
            .collect();
        if let Some(state) = self.module.get_mut().take() {
            pending.extend(state.into_children());
        }
        while let Some(value) = pending.pop() {
            if let Value::Instance(object) = value {
                if let Ok(mut object) = Rc::try_unwrap(object) {
                    let attrs = std::mem::take(object.attrs.get_mut());
                    pending.extend(attrs.into_iter().map(|(_, v)| v));
                    if let Some(state) = object.module.get_mut().take() {
                        pending.extend(state.into_children());
                    }
                }
            }
        }
    }
}

impl Value {
    /// Wraps a new tensor object.
    pub fn tensor(tensor: Tensor, made_by: &str, copied_from: Option<StorageId>) -> Value {
        Value::Tensor(TensorObject::new_ref(TensorObject {
            tensor,
            made_by: made_by.to_string(),
            copied_from,
            requires_grad: false,
            grad_fn: None,
            grad: None,
            is_parameter: false,
            view_of: None,
        }))
    }

    /// Python's type name, as used in `TypeError` messages (a script class's instance is of
    /// its class's name).
    pub fn type_name(&self) -> Cow<'static, str> {
        match self {
            Value::Instance(object) => Cow::Owned(object.class.name.clone()),
            Value::GradFn(f) => Cow::Owned(f.class_name()),
            other => Cow::Borrowed(other.builtin_type_name()),
        }
    }

    /// The type name of a value whose type is not a script class.
    fn builtin_type_name(&self) -> &'static str {
        match self {
            Value::None => "NoneType",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Float(_) => "float",
            Value::Complex(..) => "complex",
            Value::Str(_) => "str",
            Value::Ellipsis => "ellipsis",
            Value::Slice(..) => "slice",
            Value::Tuple(_) => "tuple",
            Value::List(_) => "list",
            Value::Size(_) => "torch.Size",
            Value::DType(_) => "torch.dtype",
            Value::MemoryFormat(_) => "torch.memory_format",
            Value::Tensor(_) => "Tensor",
            Value::Device(_) => "torch.device",
            Value::Storage(_, None) => "UntypedStorage",
            Value::Storage(_, Some(_)) => "TypedStorage",
            Value::Torch | Value::Module(_) => "module",
            Value::Range(..) => "range",
            Value::Generator => "Generator",
            Value::Method(..) => "builtin_function_or_method",
            Value::Printed(_) => "NoneType",
            Value::NdArray(_) => "ndarray",
            Value::NpScalar(d, _) => crate::core::print::numpy_str::numpy_dtype_name(*d),
            Value::NpDType(_) => "numpy.dtype",
            Value::NamedTuple(..) => "tuple",
            Value::ReadMode(_) => "ImageReadMode",
            Value::TypeInfo(d) if d.is_floating() => "finfo",
            Value::TypeInfo(_) => "iinfo",
            Value::Function(_) => "function",
            Value::Dict(_) => "dict",
            Value::OrderedDict(_) => "collections.OrderedDict",
            Value::Autocast(_) => "autocast",
            Value::GradMode(false) => "no_grad",
            Value::GradMode(true) => "enable_grad",
            Value::ExceptionType(_) => "type",
            Value::Exception(e) => match crate::core::tensor::error::EXCEPTION_CLASSES
                .iter()
                .find(|(c, _)| *c == e.class_name())
            {
                Some((c, _)) => c,
                None => "Exception",
            },
            Value::Class(_) => "type",
            Value::Instance(_) => "object",
            Value::BoundMethod(..) => "method",
            Value::StaticMethod(_) => "staticmethod",
            Value::ClassMethod(_) => "classmethod",
            Value::Super(..) => "super",
            // `type_name` names the node's own class.
            Value::GradFn(_) => "Node",
            Value::HookHandle(_) => "RemovableHandle",
            Value::ModeWrapped(..) => "function",
            Value::InferenceMode(_) => "inference_mode",
            Value::SetGradEnabled(_) => "set_grad_enabled",
        }
    }

    /// The tensor, if this is one.
    pub fn as_tensor(&self) -> Option<Tensor> {
        match self {
            Value::Tensor(t) => Some(t.borrow().tensor.clone()),
            _ => None,
        }
    }
}
