//! The table of ops, in the manner of PyTorch's `native_functions.yaml` and
//! `derivatives.yaml`: each op is a name (and its aliases), its schemas, the forms it is
//! called in (`torch.name(...)`, `tensor.name(...)`, `torch.nn.functional.name(...)`), a
//! rule, and what it does for autograd, for complex tensors and with varargs. Argument
//! binding and its errors come from one place ([`crate::interp::torch::signature`]), so a
//! rule only reads typed arguments.
//!
//! Where a new op goes: its rule in the family file of `src/interp/torch/ops/` (or
//! `src/interp/torch/nn/`) that fits, and one [`OpDef`] in that file's `OPS` table. An op
//! with a gradient also gets its backward [`crate::interp::torch::autograd::Formula`] (a
//! `static` beside its rule, or one of `autograd/formulas.rs`) named by the entry's `grad`.

use std::collections::HashMap;
use std::rc::Rc;
use std::sync::OnceLock;

use crate::core::tensor::{DType, MemoryFormat, Scalar, ScriptError, Tensor};
use crate::interp::torch::autograd::{value_tracks_grad, Grad, GradNode, GradOp};
use crate::interp::torch::ops::wrapped_number_dtype;
use crate::interp::torch::signature::{bind, Bound, CallArgs, ParamType, Schema};
use crate::interp::value::{TensorRef, Value};
use crate::interp::{Evaluator, R};

/// How an op is reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Forms {
    /// `torch.name(input, ...)` and `input.name(...)`; the schema starts with `Tensor self`.
    Both,
    /// `tensor.name(...)` only; the schema starts with `Tensor self`.
    Method,
    /// `torch.name(...)` only (factories, `cat`, ...).
    Function,
    /// `torch.nn.functional.name(...)`: a Python function; its schema is a Python
    /// signature (`"input, dim=None, *, approximate='none'"`), bound with Python's messages.
    Functional,
}

/// How a function takes `*tensors` (PyTorch's Python wrappers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Varargs {
    /// No varargs.
    No,
    /// `meshgrid(*tensors)`: the tensors one by one, or one list of them.
    Tensors,
    /// `broadcast_tensors(*tensors)`: the tensors one by one only.
    TensorsOnly,
}

/// A rule: computes the op's value from bound arguments.
pub(crate) type Rule = fn(&mut Evaluator, &OpCall) -> R<Value>;

/// One op of the table.
pub(crate) struct OpDef {
    /// The names it is called by (the first is PyTorch's; the rest are aliases).
    pub names: &'static [&'static str],
    /// One schema per overload, in the order PyTorch tries them.
    pub schemas: &'static [&'static str],
    /// How it is reached.
    pub forms: Forms,
    /// What computes it.
    pub rule: Rule,
    /// What autograd records for it: its node's name and backward formula.
    pub grad: Grad,
    /// Whether complex tensors reach the rule; otherwise the table refuses them before it
    /// runs (the other ops compute on element values, which know no complex elements).
    pub complex: bool,
    /// Whether its `Tensor[]` parameter is also given as `*tensors`.
    pub varargs: Varargs,
}

impl OpDef {
    /// The defaults of an entry: a node named after the op with no backward formula,
    /// complex tensors refused, no varargs (`OpDef { names, schemas, forms, rule,
    /// ..OpDef::PLAIN }`).
    pub(crate) const PLAIN: OpDef = OpDef {
        names: &[],
        schemas: &[],
        forms: Forms::Both,
        rule: no_rule,
        grad: Grad::NONE,
        complex: false,
        varargs: Varargs::No,
    };
}

/// The rule of [`OpDef::PLAIN`], which is never in the table (it has no names).
fn no_rule(_: &mut Evaluator, call: &OpCall) -> R<Value> {
    Err(ScriptError::NotImplemented(format!(
        "{} has no rule in Stridescope's op table",
        call.name
    )))
}

/// A call being run: the name it was called by, the receiver, and the bound arguments.
pub(crate) struct OpCall {
    pub name: String,
    /// `self`: the receiver of a method call, or the function form's `input`.
    pub this: Option<TensorRef>,
    pub args: Bound,
}

impl OpCall {
    /// A copy of the call whose arguments can be replaced (autocast's casts).
    pub(crate) fn clone_call(&self) -> OpCall {
        OpCall {
            name: self.name.clone(),
            this: self.this.clone(),
            args: Bound {
                overload: self.args.overload,
                names: self.args.names.clone(),
                values: self.args.values.clone(),
            },
        }
    }

    /// Sets the argument `name` (when the overload has it).
    pub(crate) fn set_value(&mut self, name: &str, value: Value) {
        if let Some(i) = self.args.names.iter().position(|n| n == name) {
            self.args.values[i] = Some(value);
        }
    }
}

struct Entry {
    def: &'static OpDef,
    /// Schemas for the method form (without `self`).
    method: Vec<Schema>,
    /// Schemas for the function form (`self` is called `input`).
    function: Vec<Schema>,
}

fn families() -> impl Iterator<Item = &'static OpDef> {
    crate::interp::torch::ops::FAMILIES
        .iter()
        .flat_map(|family| family.iter())
}

/// `tensor.requires_grad_()`: the in-place op a leaf that requires grad may run, whose
/// `requires_grad` argument is not a factory's.
const REQUIRES_GRAD_: &str = "requires_grad_";

/// Which module a name is looked up in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Module {
    /// `torch.name` and `tensor.name`.
    Torch,
    /// `torch.nn.functional.name`.
    Functional,
}

fn module_of(def: &OpDef) -> Module {
    match def.forms {
        Forms::Functional => Module::Functional,
        _ => Module::Torch,
    }
}

/// An entry's schema, parsed.
fn parse_schema(def: &OpDef, text: &str) -> Result<Schema, String> {
    match def.forms {
        Forms::Functional => Schema::parse_python(text),
        _ => Schema::parse(text),
    }
}

/// The entries of `module`, by name.
fn table(module: Module) -> &'static HashMap<&'static str, Entry> {
    static TABLE: OnceLock<HashMap<Module, HashMap<&'static str, Entry>>> = OnceLock::new();
    static EMPTY: OnceLock<HashMap<&'static str, Entry>> = OnceLock::new();
    let tables = TABLE.get_or_init(|| {
        let mut map = HashMap::new();
        for def in families() {
            let parsed: Vec<Schema> = def
                .schemas
                .iter()
                .map(|s| parse_schema(def, s).unwrap_or_default())
                .collect();
            // `Tensor self` first: the receiver of the method form, `input` of the function
            // form (also for function-only ops such as `torch.rand_like(input)`).
            let has_self = parsed
                .first()
                .and_then(|s| s.params.first())
                .is_some_and(|p| p.name == "self");
            let method: Vec<Schema> = parsed
                .iter()
                .map(|s| Schema {
                    params: s
                        .params
                        .iter()
                        .skip(usize::from(has_self))
                        .cloned()
                        .collect(),
                    python: s.python,
                })
                .collect();
            let function: Vec<Schema> = parsed
                .iter()
                .map(|s| {
                    let mut s = s.clone();
                    if has_self {
                        if let Some(p) = s.params.first_mut() {
                            p.name = "input".into();
                        }
                    }
                    s
                })
                .collect();
            for name in def.names {
                map.entry(module_of(def))
                    .or_insert_with(HashMap::new)
                    .insert(
                        *name,
                        Entry {
                            def,
                            method: method.clone(),
                            function: function.clone(),
                        },
                    );
            }
        }
        map
    });
    tables
        .get(&module)
        .unwrap_or_else(|| EMPTY.get_or_init(HashMap::new))
}

/// The `torch`/tensor entry of `name`.
fn torch_entry(name: &str) -> Option<&'static Entry> {
    table(Module::Torch).get(name)
}

/// Whether `torch.name` is an op of the table.
pub(crate) fn is_function(name: &str) -> bool {
    torch_entry(name).is_some_and(|e| e.def.forms != Forms::Method)
}

/// Whether `tensor.name` is an op of the table.
pub(crate) fn is_method(name: &str) -> bool {
    torch_entry(name).is_some_and(|e| e.def.forms != Forms::Function)
}

/// The parameter names of `torch.nn.functional.name` (empty when it is not an op).
#[cfg(test)]
pub(crate) fn functional_params(name: &str) -> Vec<String> {
    table(Module::Functional)
        .get(name)
        .and_then(|e| e.function.first())
        .map_or(vec![], |s| {
            s.params.iter().map(|p| p.name.clone()).collect()
        })
}

/// Whether `torch.nn.functional.name` is an op of the table.
pub(crate) fn is_functional(name: &str) -> bool {
    table(Module::Functional).contains_key(name)
}

impl Evaluator {
    /// Runs `torch.name(...)` from the table, or `None` when the table has no such function.
    pub(crate) fn call_table_function(
        &mut self,
        name: &str,
        pos: &[Value],
        kw: &[(String, Value)],
    ) -> Option<R<Value>> {
        let entry = torch_entry(name).filter(|e| e.def.forms != Forms::Method)?;
        Some(self.run_function_entry(entry, name, pos, kw))
    }

    /// Runs `torch.nn.functional.name(...)` from the table, or `None` when the table has
    /// no such function.
    pub(crate) fn call_table_functional(
        &mut self,
        name: &str,
        pos: &[Value],
        kw: &[(String, Value)],
    ) -> Option<R<Value>> {
        let entry = table(Module::Functional).get(name)?;
        Some(self.run_function_entry(entry, name, pos, kw))
    }

    /// Binds and runs the function form of `entry`.
    fn run_function_entry(
        &mut self,
        entry: &'static Entry,
        name: &str,
        pos: &[Value],
        kw: &[(String, Value)],
    ) -> R<Value> {
        let packed = pack_tensor_varargs(entry.def.varargs, &entry.function, pos);
        let pos = packed.as_deref().unwrap_or(pos);
        let call = CallArgs { name, pos, kw };
        bind(&entry.function, &call).and_then(|args| {
            let this = match args.values.first() {
                Some(Some(Value::Tensor(t)))
                    if args.names.first().is_some_and(|n| n == "input") =>
                {
                    Some(Rc::clone(t))
                }
                _ => None,
            };
            let op = OpCall {
                name: name.to_string(),
                this,
                args,
            };
            self.run_bound(entry, &op)
        })
    }

    /// Runs a bound table op (either form): complex dispatch, the inference-mode and
    /// in-place checks, the rule on its device, then its autograd node and what a view op or
    /// a write through a view does.
    fn run_bound(&mut self, entry: &'static Entry, op: &OpCall) -> R<Value> {
        // Under autocast, a listed op runs on its arguments' casts, and no op inside it casts.
        if let Some(cast) = self.autocast_prepare(op) {
            let call = cast?;
            return self.autocast_excluded(|ev| ev.run_bound_op(entry, &call));
        }
        self.run_bound_op(entry, op)
    }

    /// [`Self::run_bound`] once autocast had its say.
    fn run_bound_op(&mut self, entry: &'static Entry, op: &OpCall) -> R<Value> {
        if let Some(out) = (!entry.def.complex)
            .then(|| self.complex_table_op(op))
            .flatten()
        {
            return out;
        }
        let inputs: Vec<&Value> = op.args.values.iter().flatten().collect();
        self.check_inference(&op.name, entry.def.grad.formula, &inputs)?;
        let device = self.op_device(op)?;
        let from_script = std::mem::take(&mut self.torch.autograd.from_script);
        // `x.relu_()`, and `F.relu(x, inplace=True)`.
        let in_place =
            op.name.ends_with('_') || matches!(op.value("inplace"), Some(Value::Bool(true)));
        self.before_in_place(&op.name, in_place, &entry.def.grad, &inputs, from_script)?;
        let target = op.args.values.first().and_then(|v| v.as_ref());
        let node_before = in_place_node(in_place, target).filter(|_| from_script);
        let out = self
            .on_device(device, |ev| (entry.def.rule)(ev, op))
            .and_then(|out| {
                self.check_inference_inplace(&op.name, target)?;
                Ok(out)
            });
        if let Ok(out) = &out {
            self.record_table_grad(entry.def, op, out);
            self.after_table_op(&op.name, target, out, node_before, from_script);
        }
        self.torch.autograd.original_self = None;
        out
    }

    /// Records the autograd node of a table op on its output; a factory given
    /// `requires_grad=True` makes a leaf that requires grad.
    fn record_table_grad(&mut self, def: &OpDef, op: &OpCall, out: &Value) {
        // A Python function's `None` arguments count as not given.
        let python = def.forms == Forms::Functional;
        let args: Vec<(&str, &Value)> = op
            .args
            .names
            .iter()
            .zip(&op.args.values)
            .filter_map(|(n, v)| v.as_ref().map(|v| (n.as_str(), v)))
            .filter(|(_, v)| !(python && matches!(v, Value::None)))
            .collect();
        if let Value::Tensor(t) = out {
            let asked = args
                .iter()
                .any(|(n, v)| *n == "requires_grad" && matches!(v, Value::Bool(true)));
            if asked && op.name != REQUIRES_GRAD_ {
                t.borrow_mut().requires_grad = true;
            }
        }
        let inputs: Vec<&Value> = args.iter().map(|(_, v)| *v).collect();
        let grad_op = GradOp::Named {
            name: &op.name,
            grad: &def.grad,
            args: &args,
        };
        self.record_grad(grad_op, &inputs, out);
    }

    /// Runs `this.name(...)` from the table, or `None` when the table has no such method.
    pub(crate) fn call_table_method(
        &mut self,
        this: &TensorRef,
        name: &str,
        pos: &[Value],
        kw: &[(String, Value)],
    ) -> Option<R<Value>> {
        let entry = torch_entry(name).filter(|e| e.def.forms != Forms::Function)?;
        let call = CallArgs { name, pos, kw };
        Some(bind(&entry.method, &call).and_then(|mut args| {
            if name.ends_with('_')
                && name != REQUIRES_GRAD_
                && this.borrow().requires_grad
                && self.torch.grad_enabled
            {
                // PyTorch's argument parser has wrapped a number given for a `Tensor`
                // parameter (`w.add_(1)`) in a 0-d tensor before autograd refuses the call.
                let wrapped: usize = entry.method[args.overload]
                    .params
                    .iter()
                    .zip(&args.values)
                    .filter(|(p, _)| p.ty == ParamType::Tensor)
                    .map(|(_, v)| {
                        let number = match v {
                            Some(Value::Bool(b)) => Scalar::Bool(*b),
                            Some(Value::Int(i)) => Scalar::Int(*i),
                            Some(Value::Float(f)) => Scalar::Float(*f),
                            Some(Value::Complex(..)) => return DType::Complex128.item_size(),
                            _ => return 0,
                        };
                        wrapped_number_dtype(&number).item_size()
                    })
                    .sum();
                self.note_transient(wrapped as u64);
                return Err(ScriptError::Runtime(
                    "a leaf Variable that requires grad is being used in an in-place operation."
                        .into(),
                ));
            }
            // Methods see `self` as the first argument, as the function form does.
            args.names.insert(0, "self".into());
            args.values.insert(0, Some(Value::Tensor(Rc::clone(this))));
            let op = OpCall {
                name: name.to_string(),
                this: Some(Rc::clone(this)),
                args,
            };
            self.run_bound(entry, &op)
        }))
    }
}

/// `*tensors` functions (`torch.meshgrid(a, b)`): the tensors given one by one, packed into
/// the tuple their `Tensor[]` parameter takes; `None` when there is nothing to pack.
fn pack_tensor_varargs(varargs: Varargs, schemas: &[Schema], pos: &[Value]) -> Option<Vec<Value>> {
    if varargs == Varargs::No {
        return None;
    }
    let at = schemas.iter().find_map(|s| {
        s.params
            .iter()
            .position(|p| p.ty == crate::interp::torch::signature::ParamType::TensorList)
    })?;
    let single_overload = schemas.iter().any(|s| {
        s.params
            .get(at)
            .is_some_and(|p| p.ty == crate::interp::torch::signature::ParamType::Tensor)
    });
    let rest = pos.get(at..).unwrap_or(&[]);
    // `broadcast_tensors(*tensors)` always packs; the others take one list as their tensors.
    let packs = match rest.first() {
        None => true,
        Some(Value::Tensor(_)) => !(rest.len() == 1 && single_overload),
        Some(_) => varargs == Varargs::TensorsOnly,
    };
    if !packs || pos.len() < at {
        return None;
    }
    let mut packed = pos[..at].to_vec();
    packed.push(Value::Tuple(rest.to_vec()));
    Some(packed)
}

/// Typed access to bound arguments. Types were checked by binding; these convert.
impl OpCall {
    /// The receiver's tensor (`self`/`input`).
    pub(crate) fn self_tensor(&self) -> R<Tensor> {
        match &self.this {
            Some(t) => Ok(t.borrow().tensor.clone()),
            None => Err(ScriptError::Type(format!(
                "{}(): argument 'input' (position 1) must be Tensor, not NoneType",
                self.name
            ))),
        }
    }

    /// The receiver object (for in-place ops that return `self`).
    pub(crate) fn self_ref(&self) -> R<TensorRef> {
        self.this.clone().ok_or_else(|| {
            ScriptError::Type(format!(
                "{}(): argument 'input' (position 1) must be Tensor, not NoneType",
                self.name
            ))
        })
    }

    /// The argument `name`, if given and not `None`.
    pub(crate) fn value(&self, name: &str) -> Option<&Value> {
        self.args.get(name)
    }

    /// Which overload bound.
    pub(crate) fn overload(&self) -> usize {
        self.args.overload
    }

    /// A tensor argument.
    pub(crate) fn tensor(&self, name: &str) -> Option<Tensor> {
        self.value(name).and_then(Value::as_tensor)
    }

    /// A tensor-list argument (`Tensor[]`).
    pub(crate) fn tensors(&self, name: &str) -> Vec<TensorRef> {
        match self.value(name) {
            Some(Value::Tuple(items) | Value::List(items)) => items
                .iter()
                .filter_map(|v| match v {
                    Value::Tensor(t) => Some(Rc::clone(t)),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    /// A boolean argument, or `default`.
    pub(crate) fn flag(&self, name: &str, default: bool) -> bool {
        match self.value(name) {
            Some(Value::Bool(b)) => *b,
            Some(Value::Int(i)) => *i != 0,
            _ => default,
        }
    }

    /// A dtype argument.
    pub(crate) fn dtype(&self, name: &str) -> Option<DType> {
        match self.value(name) {
            Some(Value::DType(d)) => Some(*d),
            _ => None,
        }
    }

    /// A memory-format argument, or `default`.
    pub(crate) fn memory_format(&self, name: &str, default: MemoryFormat) -> MemoryFormat {
        match self.value(name) {
            Some(Value::MemoryFormat(f)) => *f,
            _ => default,
        }
    }
}

impl Evaluator {
    /// An `int` argument (a one-element integer tensor counts, via `__index__`), or `default`.
    pub(crate) fn arg_int(&mut self, call: &OpCall, name: &str, default: i64) -> R<i64> {
        match call.value(name) {
            None => Ok(default),
            Some(Value::Int(i)) => Ok(*i),
            Some(Value::Bool(b)) => Ok(i64::from(*b)),
            Some(v) => {
                let v = v.clone();
                self.index_int(&v)
            }
        }
    }

    /// An `int?` argument.
    pub(crate) fn arg_opt_int(&mut self, call: &OpCall, name: &str) -> R<Option<i64>> {
        match call.value(name) {
            None => Ok(None),
            Some(_) => self.arg_int(call, name, 0).map(Some),
        }
    }

    /// An `int[]` argument (one int is a list of one).
    pub(crate) fn arg_ints(&mut self, call: &OpCall, name: &str) -> R<Option<Vec<i64>>> {
        match call.value(name).cloned() {
            None => Ok(None),
            Some(v) => self.int_list(&v, &call.name, name).map(Some),
        }
    }

    /// A `float` argument, or `default`.
    pub(crate) fn arg_float(&mut self, call: &OpCall, name: &str, default: f64) -> R<f64> {
        Ok(self
            .arg_scalar(call, name)?
            .map(Scalar::to_f64)
            .unwrap_or(default))
    }

    /// A `Scalar` (Python number, or a one-element tensor) argument.
    pub(crate) fn arg_scalar(&mut self, call: &OpCall, name: &str) -> R<Option<Scalar>> {
        match call.value(name) {
            None => Ok(None),
            Some(Value::Tensor(t)) => {
                let t = t.borrow().tensor.clone();
                Ok(self.engine.values(&t).first().copied())
            }
            Some(v) => Ok(self.scalar_of(v)),
        }
    }
}

/// The node an in-place op's target has before the op runs (`None` for other ops), to tell
/// whether the op recorded a new one.
fn in_place_node(in_place: bool, target: Option<&Value>) -> Option<Option<Rc<GradNode>>> {
    match target {
        Some(Value::Tensor(t)) if in_place => {
            Some(t.try_borrow().ok().and_then(|o| o.grad_fn.clone()))
        }
        _ => None,
    }
}

impl Evaluator {
    /// Before a table op runs: an in-place write the script makes is checked against the
    /// views it writes through, and its target cloned where its node keeps the original.
    fn before_in_place(
        &mut self,
        name: &str,
        in_place: bool,
        grad: &Grad,
        inputs: &[&Value],
        from_script: bool,
    ) -> R<()> {
        if from_script && in_place && grad.tracked {
            let requires_grad = inputs.iter().any(|v| value_tracks_grad(v));
            if let Some(target) = inputs.first() {
                if let Err(e) = self.check_in_place_view(target, requires_grad, None) {
                    // The Python number was wrapped before the refusal.
                    if inputs
                        .iter()
                        .any(|v| matches!(v, Value::Int(_) | Value::Float(_)))
                    {
                        self.note_transient(8);
                    }
                    return Err(e);
                }
            }
        }
        self.clone_original_self(name, grad, inputs)
    }

    /// After a table op the script called recorded its node: a view op marks its outputs as
    /// views; an in-place op that recorded a node on a view rebases the view's base.
    fn after_table_op(
        &mut self,
        name: &str,
        target: Option<&Value>,
        out: &Value,
        node_before: Option<Option<Rc<GradNode>>>,
        from_script: bool,
    ) {
        if from_script && crate::interp::torch::autograd::view_base::is_view_op(name) {
            self.note_views(name, target, out);
        }
        if let (Some(before), Some(Value::Tensor(t))) = (node_before, target) {
            let now = t.try_borrow().ok().and_then(|o| o.grad_fn.clone());
            let recorded = match (&before, &now) {
                (Some(a), Some(b)) => !Rc::ptr_eq(a, b),
                (None, Some(_)) => true,
                _ => false,
            };
            if recorded {
                self.rebase_view(t);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_schema_parses_and_names_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for def in families() {
            for s in def.schemas {
                assert!(parse_schema(def, s).is_ok(), "{:?}: {s}", def.names);
            }
            for n in def.names {
                assert!(seen.insert((module_of(def), *n)), "{n} is defined twice");
            }
        }
    }

    /// Every op name a list outside the table mentions is an op of the table: a misspelled
    /// name fails here instead of silently doing nothing.
    #[test]
    fn every_name_a_list_mentions_is_an_op_of_the_table() {
        let mut names: Vec<(&str, &str)> = vec![("registry", REQUIRES_GRAD_)];
        for n in crate::interp::torch::signature::NUMBERS_AS_TENSORS {
            names.push(("signature::NUMBERS_AS_TENSORS", n));
        }
        for (list, name) in names {
            assert!(
                is_function(name) || is_method(name),
                "{list} names {name:?}, which is not an op of the table"
            );
        }
        for layer in crate::interp::torch::nn::layers::activation::LAYERS {
            if let Some(f) = layer.forward {
                assert!(
                    is_functional(f),
                    "layer {} forwards to torch.nn.functional.{f}, which is not an op",
                    layer.name
                );
            }
        }
    }

    /// What a formula saves and reads names its op's slots: `saves` are among its `inputs`
    /// (or `result`, or `indices`: the index output of an op returning values and indices),
    /// and its `args` are parameters of an op that uses it.
    #[test]
    fn formulas_name_their_ops_slots() {
        let mut params: HashMap<*const crate::interp::torch::autograd::Formula, Vec<String>> =
            HashMap::new();
        for def in families() {
            let Some(formula) = def.grad.formula else {
                continue;
            };
            let list = params.entry(formula as *const _).or_default();
            for s in def.schemas {
                let schema = parse_schema(def, s).unwrap_or_default();
                list.extend(schema.params.iter().map(|p| p.name.clone()));
            }
        }
        let builtin = crate::interp::torch::autograd::formulas::BUILTIN;
        for formula in families()
            .filter_map(|d| d.grad.formula)
            .chain(builtin.iter().copied())
        {
            for slot in formula.saves {
                assert!(
                    matches!(*slot, "result" | "indices") || formula.inputs.contains(slot),
                    "{formula:?} saves {slot:?}, which is not one of its inputs"
                );
            }
            // The builtin formulas of Python's operators read no arguments of an op.
            let Some(known) = params.get(&(formula as *const _)) else {
                continue;
            };
            for arg in formula.args {
                assert!(
                    known.iter().any(|p| p == arg),
                    "{formula:?} reads {arg:?}, which no op using it takes"
                );
            }
        }
    }
}
