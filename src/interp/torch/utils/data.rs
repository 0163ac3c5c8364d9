//! `torch.utils.data`'s map-style datasets as `torch/utils/data/dataset.py` defines them:
//! `Dataset` (the base class of a script's datasets), `TensorDataset`, `Subset`, and
//! `random_split`; and `default_collate` (`_utils/collate.py`), which a `DataLoader` runs
//! on each batch: tensors are stacked, numbers become a tensor, tuples and lists are
//! collated field by field (into a list), dicts key by key.

use std::rc::Rc;

use crate::core::tensor::random::{self, Distribution};
use crate::core::tensor::{DType, Scalar, ScriptError};
use crate::interp::torch::nn::module::{arg, bind_python, ModuleDef};
use crate::interp::torch::optim::{attr, set_attr};
use crate::interp::value::{Instance, Value};
use crate::interp::{Evaluator, R};

/// PyTorch's message for a batch `default_collate` cannot collate.
const COLLATE_ERROR: &str =
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found";

/// `Dataset`, `TensorDataset` and `Subset`.
pub(crate) static CLASSES: &[ModuleDef] = &[
    ModuleDef {
        name: "Dataset",
        path: "torch.utils.data.dataset",
        base: None,
        init: None,
        forward: None,
        extra_repr: None,
        methods: &[("__getitem__", |_, _, _, _| {
            Err(ScriptError::NotImplemented(
                "Subclasses of Dataset should implement __getitem__.".into(),
            ))
        })],
        class_methods: &[],
    },
    ModuleDef {
        name: "TensorDataset",
        path: "torch.utils.data.dataset",
        base: Some("Dataset"),
        init: Some(tensor_dataset_init),
        forward: None,
        extra_repr: None,
        methods: &[
            ("__getitem__", |ev, o, pos, kw| {
                let args = bind_python("index", "TensorDataset.__getitem__", &pos, &kw)?;
                let index = arg(&args, "index");
                let Value::Tuple(tensors) = attr(o, "tensors") else {
                    return Ok(Value::Tuple(vec![]));
                };
                let items = tensors
                    .into_iter()
                    .map(|t| ev.get_item(t, &index))
                    .collect::<R<Vec<_>>>()?;
                Ok(Value::Tuple(items))
            }),
            ("__len__", |ev, o, pos, kw| {
                bind_python("", "TensorDataset.__len__", &pos, &kw)?;
                match attr(o, "tensors") {
                    Value::Tuple(tensors) if !tensors.is_empty() => first_dim(ev, &tensors[0]),
                    _ => Err(ScriptError::Index("tuple index out of range".into())),
                }
            }),
        ],
        class_methods: &[],
    },
    ModuleDef {
        name: "Subset",
        path: "torch.utils.data.dataset",
        base: Some("Dataset"),
        init: Some(|_, o, pos, kw| {
            let args = bind_python("dataset, indices", "Subset.__init__", &pos, &kw)?;
            set_attr(o, "dataset", arg(&args, "dataset"));
            set_attr(o, "indices", arg(&args, "indices"));
            Ok(())
        }),
        forward: None,
        extra_repr: None,
        methods: &[
            ("__getitem__", |ev, o, pos, kw| {
                let args = bind_python("idx", "Subset.__getitem__", &pos, &kw)?;
                let idx = arg(&args, "idx");
                let indices = attr(o, "indices");
                let inner = match &idx {
                    Value::List(items) => Value::List(
                        items
                            .iter()
                            .map(|i| ev.get_item(indices.clone(), i))
                            .collect::<R<Vec<_>>>()?,
                    ),
                    _ => ev.get_item(indices, &idx)?,
                };
                ev.dataset_item(attr(o, "dataset"), &inner)
            }),
            ("__len__", |ev, o, pos, kw| {
                bind_python("", "Subset.__len__", &pos, &kw)?;
                ev.call_builtin("len", vec![attr(o, "indices")], vec![])
            }),
        ],
        class_methods: &[],
    },
];

/// `TensorDataset(*tensors)`: every tensor has the same first dimension.
fn tensor_dataset_init(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    if let Some((k, _)) = kw.first() {
        return Err(ScriptError::Type(format!(
            "TensorDataset.__init__() got an unexpected keyword argument '{k}'"
        )));
    }
    let mut sizes = Vec::with_capacity(pos.len());
    for t in &pos {
        sizes.push(first_dim(ev, t)?);
    }
    if sizes.iter().any(|s| !same(s, &sizes[0])) {
        return Err(ScriptError::Other {
            class: "AssertionError".into(),
            message: "Size mismatch between tensors".into(),
        });
    }
    set_attr(o, "tensors", Value::Tuple(pos));
    Ok(())
}

/// Whether two `size(0)` results are equal.
fn same(a: &Value, b: &Value) -> bool {
    matches!((a, b), (Value::Int(x), Value::Int(y)) if x == y)
}

/// `tensor.size(0)` (PyTorch's errors for a 0-d tensor or a non-tensor).
fn first_dim(ev: &mut Evaluator, t: &Value) -> R<Value> {
    let size = ev.attribute(t.clone(), "size")?;
    ev.call(size, vec![Value::Int(0)], vec![])
}

impl Evaluator {
    /// `dataset[index]`: a `range` (as `random_split(range(10), ...)` splits one) gives its
    /// item; anything else its `__getitem__`.
    pub(crate) fn dataset_item(&mut self, dataset: Value, index: &Value) -> R<Value> {
        if let (Value::Range(start, stop, step), Value::Int(i)) = (&dataset, index) {
            let len = crate::interp::python::iteration::range_len(*start, *stop, *step);
            let at = if *i < 0 { i + len } else { *i };
            if at < 0 || at >= len {
                return Err(ScriptError::Index("range object index out of range".into()));
            }
            return Ok(Value::Int(start + at * step));
        }
        self.get_item(dataset, index)
    }

    /// `random_split(dataset, lengths, generator=default_generator)`: lengths (or fractions
    /// of the length) of non-overlapping `Subset`s, from one `randperm` of the global
    /// generator.
    pub(crate) fn random_split(&mut self, pos: Vec<Value>, kw: Vec<(String, Value)>) -> R<Value> {
        let args = bind_python(
            "dataset, lengths, generator=None",
            "random_split",
            &pos,
            &kw,
        )?;
        let dataset = arg(&args, "dataset");
        let given = self.iterate(&arg(&args, "lengths"))?;
        match arg(&args, "generator") {
            Value::None | Value::Generator => {}
            other => {
                return Err(ScriptError::Type(format!(
                "randperm() received an invalid combination of arguments - got (int, generator={})",
                other.type_name()
            )))
            }
        }
        let len = match self.call_builtin("len", vec![dataset.clone()], vec![])? {
            Value::Int(n) => n,
            _ => 0,
        };
        let numbers: Vec<f64> = given
            .iter()
            .map(|v| match v {
                Value::Int(i) => Ok(*i as f64),
                Value::Float(f) => Ok(*f),
                Value::Bool(b) => Ok(f64::from(u8::from(*b))),
                other => Err(ScriptError::Type(format!(
                    "unsupported operand type(s) for +: 'int' and '{}'",
                    other.type_name()
                ))),
            })
            .collect::<R<_>>()?;
        let total: f64 = numbers.iter().sum();
        let mut lengths: Vec<i64>;
        if (total - 1.0).abs() <= 1e-9 * total.abs().max(1.0) && total <= 1.0 {
            lengths = Vec::with_capacity(numbers.len());
            for (i, frac) in numbers.iter().enumerate() {
                if !(0.0..=1.0).contains(frac) {
                    return Err(ScriptError::Value(format!(
                        "Fraction at index {i} is not between 0 and 1"
                    )));
                }
                lengths.push((len as f64 * frac).floor() as i64);
            }
            let remainder = len - lengths.iter().sum::<i64>();
            let n = lengths.len().max(1);
            for i in 0..remainder.max(0) as usize {
                if let Some(l) = lengths.get_mut(i % n) {
                    *l += 1;
                }
            }
            for (i, l) in lengths.iter().enumerate() {
                if *l == 0 {
                    self.recorder.warn(format!(
                        "UserWarning: Length of split at index {i} is 0. This might result in an empty dataset."
                    ));
                }
            }
        } else {
            lengths = given
                .iter()
                .map(|v| match v {
                    Value::Int(i) => Ok(*i),
                    Value::Bool(b) => Ok(i64::from(*b)),
                    _ => Err(ScriptError::Value(
                        "Sum of input lengths does not equal the length of the input dataset!"
                            .into(),
                    )),
                })
                .collect::<R<_>>()?;
        }
        if lengths.iter().sum::<i64>() != len {
            return Err(ScriptError::Value(
                "Sum of input lengths does not equal the length of the input dataset!".into(),
            ));
        }
        self.check_work(len, "randperm")?;
        let indices = random::randperm(&mut self.torch.generator, len)?;
        // `randperm(n).tolist()`: the int64 permutation (and its 0-d bound), freed once listed.
        self.note_kernel_events(&[8 * len, 8, -8, -8 * len]);
        let class = self
            .nn_class("Subset")
            .ok_or_else(|| ScriptError::Runtime("Subset is missing".into()))?;
        let mut subsets = Vec::with_capacity(lengths.len());
        let mut offset = 0usize;
        for l in lengths {
            let end = offset + l.max(0) as usize;
            let part: Vec<Value> = indices[offset.min(indices.len())..end.min(indices.len())]
                .iter()
                .map(|&i| Value::Int(i))
                .collect();
            offset = end;
            subsets.push(self.instantiate(
                &class,
                vec![dataset.clone(), Value::List(part)],
                vec![],
            )?);
        }
        Ok(Value::List(subsets))
    }

    /// `default_collate(batch)`: the samples of a batch, merged.
    pub(crate) fn default_collate(&mut self, batch: &Value) -> R<Value> {
        let samples = self.iterate(batch)?;
        let Some(first) = samples.first().cloned() else {
            return Err(ScriptError::Index("list index out of range".into()));
        };
        match &first {
            Value::Tensor(_) => self
                .call_table_function("stack", &[Value::List(samples), Value::Int(0)], &[])
                .unwrap_or_else(|| Err(ScriptError::Runtime("torch.stack is missing".into()))),
            Value::Float(_) => self.numbers_tensor(samples, Some(DType::Float64)),
            Value::Int(_) | Value::Bool(_) => self.numbers_tensor(samples, None),
            Value::Str(_) => Ok(Value::List(samples)),
            Value::Dict(entries) | Value::OrderedDict(entries) => {
                let mut out = Vec::with_capacity(entries.len());
                for (key, _) in entries {
                    let column = samples
                        .iter()
                        .map(|s| self.get_item(s.clone(), key))
                        .collect::<R<Vec<_>>>()?;
                    let value = self.default_collate(&Value::List(column))?;
                    out.push((key.clone(), value));
                }
                Ok(match first {
                    Value::OrderedDict(_) => Value::OrderedDict(out),
                    _ => Value::Dict(out),
                })
            }
            Value::Tuple(fields) | Value::List(fields) => {
                let width = fields.len();
                let mut rows = Vec::with_capacity(samples.len());
                for s in &samples {
                    let row = self.iterate(s)?;
                    if row.len() != width {
                        return Err(ScriptError::Runtime(
                            "each element in list of batch should be of equal size".into(),
                        ));
                    }
                    rows.push(row);
                }
                let mut out = Vec::with_capacity(width);
                for k in 0..width {
                    let column: Vec<Value> = rows.iter().map(|r| r[k].clone()).collect();
                    out.push(self.default_collate(&Value::List(column))?);
                }
                Ok(Value::List(out))
            }
            other => Err(ScriptError::Type(format!(
                "{COLLATE_ERROR} {}",
                type_repr(other)
            ))),
        }
    }

    /// `torch.tensor(batch)` (ints, bools) or `torch.tensor(batch, dtype=torch.float64)`.
    fn numbers_tensor(&mut self, samples: Vec<Value>, dtype: Option<DType>) -> R<Value> {
        let kw: Vec<(String, Value)> = dtype
            .map(|d| ("dtype".to_string(), Value::DType(d)))
            .into_iter()
            .collect();
        self.call_table_function("tensor", &[Value::List(samples)], &kw)
            .unwrap_or_else(|| Err(ScriptError::Runtime("torch.tensor is missing".into())))
    }

    /// The seed `torch.empty((), dtype=torch.int64).random_()` draws from the global
    /// generator (what a loader's iterator and a `RandomSampler` draw).
    pub(crate) fn draw_int64_seed(&mut self) -> R<u64> {
        let drawn = random::sample(
            &mut self.torch.generator,
            &Distribution::RandomDefault,
            DType::Int64,
            1,
            true,
        )?;
        Ok(match drawn.first() {
            Some(Scalar::Int(v)) => *v as u64,
            _ => 0,
        })
    }
}

/// `<class 'NoneType'>` for the collate error.
fn type_repr(v: &Value) -> String {
    match v {
        Value::Instance(o) => crate::interp::python::classes::class_repr(&o.class),
        other => format!("<class '{}'>", other.type_name()),
    }
}
