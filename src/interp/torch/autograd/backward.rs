//! The engine: gradients flow from the roots back through the recorded nodes and add up in
//! the leaves' `.grad` (`backward()`) or come back to the caller (`torch.autograd.grad`).
//! As PyTorch's engine, it runs a node once every gradient for it has arrived, the newest
//! ready node first (a leaf's `AccumulateGrad` as soon as it is ready); a tensor's hooks run
//! on its gradient before its node does, then a retained gradient is kept. Each node runs
//! its formula ([`crate::interp::torch::autograd::formulas`]) with grad mode off, or on with
//! `create_graph=True` (the formulas then read the saved tensors themselves, so their
//! results have a `grad_fn`); a node without a formula raises a clear error when a gradient
//! reaches it, and a saved tensor modified in place since raises PyTorch's error.

use std::collections::{BinaryHeap, HashMap};
use std::rc::Rc;

use crate::core::tensor::{DType, Scalar, ScriptError};
use crate::interp::torch::autograd::custom_function::{output_nr, output_objects};
use crate::interp::torch::autograd::formulas::Backward;
use crate::interp::torch::autograd::objects::FREED;
use crate::interp::torch::autograd::piece_group::{group_of, PieceGroups};
use crate::interp::torch::autograd::{GradNode, Saved, SavedObject, SavedTensor};
use crate::interp::value::{TensorRef, Value};
use crate::interp::{Evaluator, R};
use crate::lang::ast::BinOp;

/// Where a gradient goes: a node still to run, or a leaf's `.grad`.
#[derive(Clone)]
pub(super) enum Target {
    Node(Rc<GradNode>),
    Leaf(TensorRef),
}

/// Where the gradient of `t` goes (none for a tensor outside every graph).
pub(super) fn target_of(t: &TensorRef) -> Option<Target> {
    let object = t.try_borrow().ok()?;
    match &object.grad_fn {
        Some(node) => Some(Target::Node(Rc::clone(node))),
        None if object.requires_grad => Some(Target::Leaf(Rc::clone(t))),
        None => None,
    }
}

fn key(target: &Target) -> usize {
    match target {
        Target::Node(node) => Rc::as_ptr(node) as *const () as usize,
        Target::Leaf(t) => Rc::as_ptr(t) as *const () as usize,
    }
}

/// One node or leaf of the graph being run.
struct Item {
    target: Target,
    /// The tensor whose gradient this is (its hooks run on it), held weakly: a running
    /// backward keeps no intermediate tensor alive (its node keeps what it saved).
    tensor: std::rc::Weak<std::cell::RefCell<crate::interp::value::TensorObject>>,
    /// Gradients still to arrive.
    deps: usize,
    /// The items its gradients flow to, one per edge.
    children: Vec<usize>,
    /// Whether a gradient asked for lies at or below it.
    needed: bool,
}

/// How a run of the engine ends: in the leaves' `.grad` (`backward()`), or back to the
/// caller for `inputs` (`torch.autograd.grad`).
pub(crate) struct Run<'a> {
    pub retain_graph: bool,
    pub create_graph: bool,
    pub inputs: Option<&'a [TensorRef]>,
}

impl Evaluator {
    /// The gradient a root starts with: the one given (checked against the root's shape), or
    /// ones for a one-element root.
    pub(crate) fn seed_gradient(
        &mut self,
        root: &TensorRef,
        gradient: Option<Value>,
        index: usize,
    ) -> R<Value> {
        if !crate::interp::torch::autograd::tracks_grad(&root.borrow()) {
            return Err(ScriptError::Runtime(format!(
                "element {index} of tensors does not require grad and does not have a grad_fn"
            )));
        }
        let root_tensor = root.borrow().tensor.clone();
        match gradient {
            Some(Value::Tensor(g)) => {
                let g_shape = g.borrow().tensor.shape().to_vec();
                if g_shape != root_tensor.shape() {
                    return Err(ScriptError::Runtime(format!(
                        "Mismatch in shape: grad_output[{index}] has a shape of {} and output[{index}] has a shape of {}.",
                        crate::interp::python::repr::size_repr(&g_shape),
                        crate::interp::python::repr::size_repr(root_tensor.shape())
                    )));
                }
                Ok(Value::Tensor(g))
            }
            Some(Value::None) | None => {
                if root_tensor.numel() != 1 {
                    return Err(ScriptError::Runtime(
                        "grad can be implicitly created only for scalar outputs".into(),
                    ));
                }
                let one = root_tensor.dtype.round(Scalar::Float(1.0));
                let ones = self.full(root_tensor.shape(), one, root_tensor.dtype, "backward")?;
                Ok(Value::tensor(ones, "backward", None))
            }
            Some(other) => Err(ScriptError::Type(format!(
                "backward(): argument 'gradient' must be Tensor, not {}",
                other.type_name()
            ))),
        }
    }

    /// Runs the engine from `roots` (each with its gradient); returns the gradients of
    /// `run.inputs` (empty for `backward()`).
    pub(crate) fn run_engine(
        &mut self,
        roots: Vec<(TensorRef, Value)>,
        run: &Run,
    ) -> R<Vec<Option<Value>>> {
        let was_enabled = std::mem::replace(&mut self.torch.grad_enabled, run.create_graph);
        let result = self.run_graph(roots, run);
        self.torch.grad_enabled = was_enabled;
        result
    }

    fn run_graph(&mut self, roots: Vec<(TensorRef, Value)>, run: &Run) -> R<Vec<Option<Value>>> {
        if !run.retain_graph {
            self.note_graph_freed();
        }
        // The engine holds the roots' gradients (the seed `ones_like(loss)`) until it ends.
        let _seeds: Vec<Value> = roots.iter().map(|(_, g)| g.clone()).collect();
        let mut items: HashMap<usize, Item> = HashMap::new();
        // A gradient waiting for its item, by the item and which of its node's outputs it
        // is the gradient of (a custom function's node has several).
        let mut pending: HashMap<(usize, usize), Value> = HashMap::new();
        let mut stack = Vec::new();
        for (t, g) in roots {
            let Some(target) = target_of(&t) else {
                continue;
            };
            let k = key(&target);
            let slot = (k, output_nr(&t));
            let sum = match pending.remove(&slot) {
                Some(before) => self.binary(BinOp::Add, before, g)?,
                None => g,
            };
            pending.insert(slot, sum);
            if let std::collections::hash_map::Entry::Vacant(slot) = items.entry(k) {
                slot.insert(item(target.clone(), t));
                stack.push(target);
            }
        }
        let root_keys: Vec<usize> = items.keys().copied().collect();
        // Discover the graph and count each item's incoming gradients.
        while let Some(target) = stack.pop() {
            let Target::Node(node) = &target else {
                continue;
            };
            let mut children = Vec::new();
            for operand in &node.operands {
                let Some(t) = &operand.tracked else {
                    continue;
                };
                let Some(child) = target_of(t) else {
                    continue;
                };
                let k = key(&child);
                if let std::collections::hash_map::Entry::Vacant(slot) = items.entry(k) {
                    slot.insert(item(child.clone(), Rc::clone(t)));
                    stack.push(child);
                }
                if let Some(c) = items.get_mut(&k) {
                    c.deps += 1;
                }
                children.push(k);
            }
            if let Some(it) = items.get_mut(&key(&target)) {
                it.children = children;
            }
        }
        let input_keys: Option<Vec<Option<usize>>> = run.inputs.map(|inputs| {
            inputs
                .iter()
                .map(|t| target_of(t).map(|target| key(&target)))
                .collect()
        });
        if let Some(keys) = &input_keys {
            mark_needed(&mut items, keys);
        }
        let mut groups = PieceGroups::default();
        for (k, it) in &items {
            if let Target::Node(node) = &it.target {
                if let Some(g) = group_of(node) {
                    groups.expect(g, *k, it.deps);
                }
            }
        }
        let mut captured: Vec<Option<Value>> = vec![None; run.inputs.map_or(0, |i| i.len())];
        let mut ready: BinaryHeap<(u64, usize)> = BinaryHeap::new();
        for k in root_keys
            .iter()
            .filter(|k| items.get(k).is_some_and(|i| i.deps == 0))
        {
            push_ready(&mut ready, &mut groups, &items, *k, false);
        }
        let mut ran: Vec<Rc<GradNode>> = Vec::new();
        while let Some((_, k)) = ready.pop() {
            let Some(it) = items.get(&k) else {
                continue;
            };
            let (target, tensor, children, needed) = (
                it.target.clone(),
                it.tensor.clone(),
                it.children.clone(),
                it.needed,
            );
            let custom = matches!(&target, Target::Node(n) if n.custom.is_some());
            let group = match &target {
                Target::Node(node) => group_of(node),
                Target::Leaf(_) => None,
            };
            let release = !run.retain_graph;
            let mut arrived = false;
            let grad = match &target {
                Target::Node(node) if custom => self.custom_grads_in(node, k, &mut pending)?,
                _ => pending.remove(&(k, 0)),
            };
            if let (Some(grad), true) = (grad, needed || input_keys.is_none()) {
                // The tensor is held only while its hooks run (PyTorch's engine holds none).
                let grad = match tensor.upgrade() {
                    Some(tensor) if !custom => self.tensor_hooks(&tensor, grad)?,
                    _ => grad,
                };
                if let Some(keys) = &input_keys {
                    let asked = run.inputs.unwrap_or_default();
                    for ((slot, ik), t) in captured.iter_mut().zip(keys).zip(asked) {
                        if *ik == Some(k) {
                            *slot = Some(match &grad {
                                Value::Tuple(items) if custom => {
                                    items.get(output_nr(t)).cloned().unwrap_or(Value::None)
                                }
                                g => g.clone(),
                            });
                        }
                    }
                }
                match &target {
                    Target::Leaf(leaf) => {
                        if input_keys.is_none() {
                            self.accumulate(leaf, grad, run.create_graph)?;
                        }
                    }
                    Target::Node(node) => {
                        let below = input_keys.is_none()
                            || children
                                .iter()
                                .any(|c| items.get(c).is_some_and(|i| i.needed));
                        if below {
                            ran.push(Rc::clone(node));
                            if let Some(g) = group {
                                arrived = true;
                                let piece = Some((Rc::clone(node), grad));
                                if let Some(pieces) = groups.arrive(g, piece) {
                                    self.send_joined(pieces, &children, &mut pending, release)?;
                                }
                            } else {
                                self.send_grads(node, grad, &children, &mut pending, release)?;
                            }
                        }
                    }
                }
            }
            if let (Some(g), false) = (group, arrived) {
                if let Some(pieces) = groups.arrive(g, None) {
                    self.send_joined(pieces, &children, &mut pending, release)?;
                }
            }
            for c in children {
                if let Some(child) = items.get_mut(&c) {
                    child.deps = child.deps.saturating_sub(1);
                    if child.deps == 0 {
                        push_ready(&mut ready, &mut groups, &items, c, true);
                    }
                }
            }
        }
        if !run.retain_graph {
            for node in &ran {
                node.freed.set(true);
            }
        }
        Ok(captured)
    }

    /// Runs `node`'s formula on `grad` and adds each input's gradient to what its item has.
    /// The incoming gradient is dropped as the node returns; with `release`, the node's
    /// saved tensors are freed too, as PyTorch's engine
    /// releases them once the node ran, before it adds the outputs into the next input
    /// buffers.
    fn send_grads(
        &mut self,
        node: &Rc<GradNode>,
        grad: Value,
        children: &[usize],
        pending: &mut HashMap<(usize, usize), Value>,
        release: bool,
    ) -> R<()> {
        let saves = node.formula.is_some_and(|f| !f.saves.is_empty());
        if saves && node.freed.get() {
            return Err(ScriptError::Runtime(FREED.into()));
        }
        let grads = match &node.custom {
            Some(_) => self.custom_node_grads(node, &grad)?,
            None => self.node_grads(node, &grad)?,
        };
        // The engine frees the node's incoming gradient as the node returns.
        drop(grad);
        if release {
            node.freed.set(true);
        }
        self.deliver(node, grads, children, pending)
    }

    /// Runs a split's pieces as its one node: their gradients joined into the input's, then
    /// freed, then added to what the input's item has.
    fn send_joined(
        &mut self,
        pieces: Vec<(Rc<GradNode>, Value)>,
        children: &[usize],
        pending: &mut HashMap<(usize, usize), Value>,
        release: bool,
    ) -> R<()> {
        if pieces.iter().any(|(node, _)| node.freed.get()) {
            return Err(ScriptError::Runtime(FREED.into()));
        }
        let joined = self.join_piece_grads(&pieces)?;
        let nodes: Vec<Rc<GradNode>> = pieces.into_iter().map(|(node, _)| node).collect();
        if release {
            for node in &nodes {
                node.freed.set(true);
            }
        }
        match nodes.last() {
            Some(last) => self.deliver(last, vec![joined], children, pending),
            None => Ok(()),
        }
    }

    /// The gradients of all the outputs of a custom function's node (item `k`), as a tuple
    /// (`None` for one that none reached), each through its output's hooks; `None` when
    /// none arrived.
    fn custom_grads_in(
        &mut self,
        node: &Rc<GradNode>,
        k: usize,
        pending: &mut HashMap<(usize, usize), Value>,
    ) -> R<Option<Value>> {
        let mut any = false;
        let mut grads = Vec::new();
        for (i, object) in output_objects(node).iter().enumerate() {
            let Some(g) = pending.remove(&(k, i)) else {
                grads.push(Value::None);
                continue;
            };
            any = true;
            grads.push(match object {
                Some(t) => self.tensor_hooks(t, g)?,
                None => g,
            });
        }
        Ok(any.then_some(Value::Tuple(grads)))
    }

    /// Runs `t`'s hooks on its gradient (a hook's result, unless `None`, replaces it), then
    /// keeps the gradient in `t.grad` if `t.retain_grad()` was called.
    fn tensor_hooks(&mut self, t: &TensorRef, mut grad: Value) -> R<Value> {
        for hook in self.torch.autograd.hooks_of(t) {
            let out = self.call(hook, vec![grad.clone()], vec![])?;
            if !matches!(out, Value::None) {
                grad = out;
            }
        }
        let is_leaf = t.borrow().grad_fn.is_none();
        if !is_leaf && self.torch.autograd.retains_grad(t) {
            let existing = t.borrow().grad.clone();
            let kept = match existing {
                Some(g) => self.binary(BinOp::Add, Value::Tensor(g), grad.clone())?,
                None => self.method(grad.clone(), "clone", vec![])?,
            };
            if let Value::Tensor(g) = kept {
                t.borrow_mut().grad = Some(g);
            }
        }
        Ok(grad)
    }

    /// `recv.name(*pos)`.
    pub(crate) fn method(&mut self, recv: Value, name: &str, pos: Vec<Value>) -> R<Value> {
        self.call(Value::Method(Box::new(recv), name.into()), pos, vec![])
    }

    pub(crate) fn grad_in_dtype(&mut self, v: Value, dtype: DType) -> R<Value> {
        if v.as_tensor().is_some_and(|t| t.dtype == dtype) {
            return Ok(v);
        }
        self.method(v, "to", vec![Value::DType(dtype)])
    }

    /// A saved tensor, unpacked: checked against its storage's version, then the tensor
    /// itself (grad mode on: `create_graph`) or a detached tensor on the same storage.
    fn saved(&mut self, node: &GradNode, saved: &Saved) -> R<Value> {
        match saved {
            Saved::Tensor(s) => {
                if let Some(unpacked) = self.unpack_saved(None, s) {
                    return unpacked;
                }
                self.check_version(node, s)?;
                if self.torch.grad_enabled {
                    let object = match &s.object {
                        SavedObject::Input(t) => Some(Rc::clone(t)),
                        SavedObject::Output(w) => w.upgrade(),
                        SavedObject::Packed(p) => p.object(),
                    };
                    if let Some(t) = object {
                        return Ok(Value::Tensor(t));
                    }
                }
                Ok(Value::tensor(s.tensor.clone(), "backward", None))
            }
            Saved::Number(x) => Ok(Value::Float(*x)),
            Saved::Missing => Err(unsupported(node)),
        }
    }

    /// PyTorch's error for a saved tensor written in place since it was saved.
    pub(crate) fn check_version(&self, node: &GradNode, s: &SavedTensor) -> R<()> {
        let now = self.memory.version(s.tensor.storage);
        if now == s.version {
            return Ok(());
        }
        let maker = match &s.object {
            SavedObject::Input(t) => t.borrow().grad_fn.as_ref().map(|n| n.name.to_string()),
            SavedObject::Output(_) => Some(node.name.to_string()),
            SavedObject::Packed(_) => None,
        };
        let output = maker.map_or(String::new(), |name| {
            let op = name.trim_end_matches(|c: char| c.is_ascii_digit());
            let op = op.strip_suffix("Backward").unwrap_or(op);
            format!(", which is output 0 of {op},")
        });
        let shape = s
            .tensor
            .shape()
            .iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        Err(ScriptError::Runtime(format!(
            "one of the variables needed for gradient computation has been modified by an inplace operation: [torch.{} [{shape}]]{output} is at version {now}; expected version {} instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).",
            legacy_class(s.tensor.dtype),
            s.version
        )))
    }

    /// The tensor (or number) a node saved under a slot name of its formula: one of its
    /// inputs (`self`, `other`) or `result`.
    pub(crate) fn saved_input(&mut self, b: &Backward, slot: &str) -> R<Value> {
        if slot == "result" {
            return self.saved(b.node, &b.node.result);
        }
        let at = b
            .node
            .formula
            .and_then(|f| f.inputs.iter().position(|s| *s == slot));
        if let Some(op) = at.and_then(|i| b.node.operands.get(i)) {
            return self.saved(b.node, &op.saved);
        }
        // A tensor the op kept besides its operands (`indices` of `max(dim)`, `sort`).
        let extra = b
            .node
            .extras
            .get()
            .and_then(|e| e.iter().find(|(name, _)| *name == slot));
        match extra {
            Some((_, saved)) => self.saved(b.node, saved),
            None => Ok(Value::None),
        }
    }

    /// `grad` summed down to `shape` (undoing broadcasting).
    pub(crate) fn sum_to(&mut self, grad: Value, shape: &[i64]) -> R<Value> {
        let Some(g) = grad.as_tensor() else {
            return Ok(grad);
        };
        let g_shape = g.shape().to_vec();
        if g_shape == shape {
            return Ok(grad);
        }
        let lead = g_shape.len().saturating_sub(shape.len());
        let mut dims: Vec<Value> = (0..lead as i64).map(Value::Int).collect();
        for (i, &n) in shape.iter().enumerate() {
            if n == 1 && g_shape[lead + i] != 1 {
                dims.push(Value::Int((lead + i) as i64));
            }
        }
        let summed = if dims.is_empty() {
            grad
        } else {
            self.call(
                Value::Method(Box::new(grad), "sum".into()),
                vec![Value::Tuple(dims)],
                vec![("keepdim".into(), Value::Bool(true))],
            )?
        };
        self.method(summed, "reshape", vec![shape_value(shape)])
    }

    /// The gradient for each operand of `node` (None: the operand needs none), by its
    /// formula.
    fn node_grads(&mut self, node: &GradNode, grad: &Value) -> R<Vec<Option<Value>>> {
        let mut grads = match node.formula {
            Some(formula) => (formula.backward)(self, &Backward { node, grad })?,
            None => return Err(unsupported(node)),
        };
        // With `create_graph`, ATen computes these gradients with an op of their own, whose
        // node the gradient shows (`SigmoidBackwardBackward0`).
        let own = match &*node.name {
            "SigmoidBackward0" => "SigmoidBackwardBackward0",
            "TanhBackward0" => "TanhBackwardBackward0",
            "ReluBackward0" => "ThresholdBackwardBackward0",
            _ => "",
        };
        if self.torch.grad_enabled && !own.is_empty() {
            for g in grads.iter_mut().flatten() {
                if let Value::Tensor(t) = g {
                    let renamed = t.borrow().grad_fn.as_ref().map(|n| renamed(n, own));
                    if let Some(node) = renamed {
                        t.borrow_mut().grad_fn = Some(node);
                    }
                }
            }
        }
        Ok(grads)
    }

    pub(crate) fn neg_value(&mut self, v: &Value) -> R<Value> {
        match v {
            Value::Tensor(t) => {
                let t = t.borrow().tensor.clone();
                let out = self.neg(&t)?;
                self.record_grad(crate::interp::torch::autograd::GradOp::Neg, &[v], &out);
                Ok(out)
            }
            other => self.binary(BinOp::Mul, other.clone(), Value::Int(-1)),
        }
    }
}

/// The legacy tensor class of a dtype, as autograd's messages name it (`FloatTensor`).
fn legacy_class(dtype: DType) -> &'static str {
    match dtype {
        DType::Bool => "BoolTensor",
        DType::UInt8 => "ByteTensor",
        DType::Int8 => "CharTensor",
        DType::Int16 => "ShortTensor",
        DType::Int32 => "IntTensor",
        DType::Int64 => "LongTensor",
        DType::Float16 => "HalfTensor",
        DType::BFloat16 => "BFloat16Tensor",
        DType::Float32 => "FloatTensor",
        DType::Float64 => "DoubleTensor",
        DType::Complex64 => "ComplexFloatTensor",
        DType::Complex128 => "ComplexDoubleTensor",
    }
}

fn item(target: Target, tensor: TensorRef) -> Item {
    Item {
        target,
        tensor: Rc::downgrade(&tensor),
        deps: 0,
        children: Vec::new(),
        needed: false,
    }
}

/// The engine's order among ready items: a leaf's `AccumulateGrad` first, then the newest
/// node.
fn priority(target: &Target) -> u64 {
    match target {
        Target::Leaf(_) => u64::MAX,
        Target::Node(node) => node.seq,
    }
}

/// Queues item `k`, whose gradients are all in (`now`: its last just came). A split's piece
/// waits for its group's other pieces, then all go at the group's place in the order.
fn push_ready(
    ready: &mut BinaryHeap<(u64, usize)>,
    groups: &mut PieceGroups,
    items: &HashMap<usize, Item>,
    k: usize,
    now: bool,
) {
    let Some(it) = items.get(&k) else { return };
    let group = match &it.target {
        Target::Node(node) => group_of(node),
        Target::Leaf(_) => None,
    };
    match group {
        Some(g) => {
            for member in groups.ready(g, now).into_iter().flatten() {
                ready.push((g as u64, member));
            }
        }
        None => ready.push((priority(&it.target), k)),
    }
}

/// Marks the items at or above an asked-for input (`torch.autograd.grad` runs only those).
fn mark_needed(items: &mut HashMap<usize, Item>, inputs: &[Option<usize>]) {
    let mut changed = true;
    for k in inputs.iter().flatten() {
        if let Some(it) = items.get_mut(k) {
            it.needed = true;
        }
    }
    while changed {
        changed = false;
        let up: Vec<usize> = items
            .iter()
            .filter(|(_, it)| {
                !it.needed
                    && it
                        .children
                        .iter()
                        .any(|c| items.get(c).is_some_and(|c| c.needed))
            })
            .map(|(k, _)| *k)
            .collect();
        for k in up {
            if let Some(it) = items.get_mut(&k) {
                it.needed = true;
                changed = true;
            }
        }
    }
}

/// `node` under another name.
pub(super) fn renamed(node: &Rc<GradNode>, name: &str) -> Rc<GradNode> {
    let copy = node.with_name(name);
    copy.freed.set(false);
    GradNode::shared(copy)
}

/// A number as the formulas write it: an int when it is whole.
pub(crate) fn scalar(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        Value::Int(x as i64)
    } else {
        Value::Float(x)
    }
}

/// A shape as a tuple of ints.
pub(crate) fn shape_value(shape: &[i64]) -> Value {
    Value::Tuple(shape.iter().map(|&n| Value::Int(n)).collect())
}

/// The error of a gradient that reaches a node whose backward is not modelled.
pub(crate) fn unsupported(node: &GradNode) -> ScriptError {
    ScriptError::NotImplemented(format!(
        "backward through {} is not supported by Stridescope (its gradient is not modelled)",
        node.name
    ))
}
