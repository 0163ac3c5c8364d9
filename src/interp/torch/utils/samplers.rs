//! `torch.utils.data`'s samplers (`sampler.py`): `SequentialSampler`, `RandomSampler`
//! (`randperm` of a generator seeded from the global one, or with `replacement=True`
//! `randint` draws in chunks of 32), `SubsetRandomSampler` (`randperm` of the global
//! generator itself) and `BatchSampler`. Iterating one draws its indices at once, as the
//! first `next()` of PyTorch's generator does, and gives a `list_iterator` over them.

use std::rc::Rc;

use crate::core::tensor::random::{self, CpuGenerator, Distribution};
use crate::core::tensor::{DType, Scalar, ScriptError};
use crate::interp::torch::nn::module::{arg, bind_python, ModuleDef};
use crate::interp::torch::optim::{attr, set_attr};
use crate::interp::value::{Instance, Value};
use crate::interp::{Evaluator, R};

/// The sampler classes.
pub(crate) static CLASSES: &[ModuleDef] = &[
    ModuleDef {
        name: "Sampler",
        path: "torch.utils.data.sampler",
        base: None,
        init: None,
        forward: None,
        extra_repr: None,
        methods: &[],
        class_methods: &[],
    },
    ModuleDef {
        name: "SequentialSampler",
        path: "torch.utils.data.sampler",
        base: Some("Sampler"),
        init: Some(|_, o, pos, kw| {
            let args = bind_python("data_source", "SequentialSampler.__init__", &pos, &kw)?;
            set_attr(o, "data_source", arg(&args, "data_source"));
            Ok(())
        }),
        forward: None,
        extra_repr: None,
        methods: &[
            ("__iter__", |ev, o, _, _| {
                let n = ev.len_of(&attr(o, "data_source"))?;
                ev.check_work(n, "SequentialSampler")?;
                ev.list_iterator((0..n).map(Value::Int).collect())
            }),
            ("__len__", |ev, o, _, _| {
                ev.len_of(&attr(o, "data_source")).map(Value::Int)
            }),
        ],
        class_methods: &[],
    },
    ModuleDef {
        name: "RandomSampler",
        path: "torch.utils.data.sampler",
        base: Some("Sampler"),
        init: Some(random_sampler_init),
        forward: None,
        extra_repr: None,
        methods: &[
            ("__iter__", |ev, o, _, _| {
                let indices = ev.random_sampler_indices(o)?;
                ev.list_iterator(indices)
            }),
            ("__len__", |_, o, _, _| Ok(attr(o, "num_samples"))),
        ],
        class_methods: &[],
    },
    ModuleDef {
        name: "SubsetRandomSampler",
        path: "torch.utils.data.sampler",
        base: Some("Sampler"),
        init: Some(|_, o, pos, kw| {
            let args = bind_python(
                "indices, generator=None",
                "SubsetRandomSampler.__init__",
                &pos,
                &kw,
            )?;
            set_attr(o, "indices", arg(&args, "indices"));
            set_attr(o, "generator", arg(&args, "generator"));
            Ok(())
        }),
        forward: None,
        extra_repr: None,
        methods: &[
            ("__iter__", |ev, o, _, _| {
                let indices = attr(o, "indices");
                let n = ev.len_of(&indices)?;
                ev.check_work(n, "randperm")?;
                let order = random::randperm(&mut ev.torch.generator, n)?;
                let items = order
                    .into_iter()
                    .map(|i| ev.get_item(indices.clone(), &Value::Int(i)))
                    .collect::<R<Vec<_>>>()?;
                ev.list_iterator(items)
            }),
            ("__len__", |ev, o, _, _| {
                ev.len_of(&attr(o, "indices")).map(Value::Int)
            }),
        ],
        class_methods: &[],
    },
    ModuleDef {
        name: "BatchSampler",
        path: "torch.utils.data.sampler",
        base: Some("Sampler"),
        init: Some(|ev, o, pos, kw| {
            let args = bind_python(
                "sampler, batch_size, drop_last",
                "BatchSampler.__init__",
                &pos,
                &kw,
            )?;
            let batch_size = arg(&args, "batch_size");
            if !matches!(batch_size, Value::Int(b) if b > 0) {
                let text = ev.repr(&batch_size)?;
                return Err(ScriptError::Value(format!(
                    "batch_size should be a positive integer value, but got batch_size={text}"
                )));
            }
            let drop_last = arg(&args, "drop_last");
            if !matches!(drop_last, Value::Bool(_)) {
                let text = ev.repr(&drop_last)?;
                return Err(ScriptError::Value(format!(
                    "drop_last should be a boolean value, but got drop_last={text}"
                )));
            }
            for name in ["sampler", "batch_size", "drop_last"] {
                set_attr(o, name, arg(&args, name));
            }
            Ok(())
        }),
        forward: None,
        extra_repr: None,
        methods: &[
            ("__iter__", |ev, o, _, _| {
                let indices = ev.iterate(&attr(o, "sampler"))?;
                let Value::Int(b) = attr(o, "batch_size") else {
                    return ev.list_iterator(Vec::new());
                };
                let drop_last = matches!(attr(o, "drop_last"), Value::Bool(true));
                let batches = indices
                    .chunks(b.max(1) as usize)
                    .filter(|c| !drop_last || c.len() == b as usize)
                    .map(|c| Value::List(c.to_vec()))
                    .collect();
                ev.list_iterator(batches)
            }),
            ("__len__", |ev, o, _, _| {
                let n = ev.len_of(&attr(o, "sampler"))?;
                let Value::Int(b) = attr(o, "batch_size") else {
                    return Ok(Value::Int(0));
                };
                let b = b.max(1);
                Ok(Value::Int(
                    if matches!(attr(o, "drop_last"), Value::Bool(true)) {
                        n / b
                    } else {
                        (n + b - 1) / b
                    },
                ))
            }),
        ],
        class_methods: &[],
    },
];

/// `RandomSampler(data_source, replacement=False, num_samples=None, generator=None)`.
fn random_sampler_init(
    ev: &mut Evaluator,
    o: &Rc<Instance>,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<()> {
    let args = bind_python(
        "data_source, replacement=False, num_samples=None, generator=None",
        "RandomSampler.__init__",
        &pos,
        &kw,
    )?;
    let replacement = arg(&args, "replacement");
    if !matches!(replacement, Value::Bool(_)) {
        let text = ev.repr(&replacement)?;
        return Err(ScriptError::Type(format!(
            "replacement should be a boolean value, but got replacement={text}"
        )));
    }
    let data_source = arg(&args, "data_source");
    let num_samples = match arg(&args, "num_samples") {
        Value::None => Value::Int(ev.len_of(&data_source)?),
        other => other,
    };
    if !matches!(num_samples, Value::Int(n) if n > 0) {
        let text = ev.repr(&num_samples)?;
        return Err(ScriptError::Value(format!(
            "num_samples should be a positive integer value, but got num_samples={text}"
        )));
    }
    set_attr(o, "data_source", data_source);
    set_attr(o, "replacement", replacement);
    set_attr(o, "num_samples", num_samples);
    set_attr(o, "generator", arg(&args, "generator"));
    Ok(())
}

impl Evaluator {
    /// `len(value)` as an int.
    pub(crate) fn len_of(&mut self, value: &Value) -> R<i64> {
        match self.call_builtin("len", vec![value.clone()], vec![])? {
            Value::Int(n) => Ok(n),
            _ => Ok(0),
        }
    }

    /// A `list_iterator` over `items`.
    pub(crate) fn list_iterator(&mut self, items: Vec<Value>) -> R<Value> {
        let class = self
            .nn_class("list_iterator")
            .ok_or_else(|| ScriptError::Runtime("list_iterator is missing".into()))?;
        Ok(Value::Instance(Rc::new(Instance {
            class,
            attrs: std::cell::RefCell::new(vec![
                ("_items".into(), Value::List(items)),
                ("_at".into(), Value::Int(0)),
            ]),
            module: std::cell::RefCell::new(None),
        })))
    }

    /// The indices one iteration of a `RandomSampler` gives.
    fn random_sampler_indices(&mut self, o: &Rc<Instance>) -> R<Vec<Value>> {
        let n = self.len_of(&attr(o, "data_source"))?;
        let Value::Int(num_samples) = attr(o, "num_samples") else {
            return Ok(Vec::new());
        };
        self.check_work(num_samples.max(n), "RandomSampler")?;
        let seed = self.draw_int64_seed()?;
        let mut generator = CpuGenerator::new(seed);
        let mut out = Vec::new();
        if matches!(attr(o, "replacement"), Value::Bool(true)) {
            let dist = Distribution::RandomFromTo {
                from: 0,
                to_exclusive: n,
            };
            let mut chunk = |size: usize, out: &mut Vec<Value>| -> R<()> {
                let drawn = random::sample(&mut generator, &dist, DType::Int64, size, true)?;
                out.extend(drawn.into_iter().map(|v| match v {
                    Scalar::Int(i) => Value::Int(i),
                    other => Value::Int(other.to_f64() as i64),
                }));
                Ok(())
            };
            for _ in 0..num_samples / 32 {
                chunk(32, &mut out)?;
            }
            chunk((num_samples % 32) as usize, &mut out)?;
            return Ok(out);
        }
        if n <= 0 {
            return Ok(out);
        }
        for _ in 0..num_samples / n {
            let perm = random::randperm(&mut generator, n)?;
            out.extend(perm.into_iter().map(Value::Int));
        }
        let perm = random::randperm(&mut generator, n)?;
        out.extend(
            perm.into_iter()
                .take((num_samples % n) as usize)
                .map(Value::Int),
        );
        Ok(out)
    }
}
