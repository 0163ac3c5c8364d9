//! `torch.utils.data.DataLoader` (`torch/utils/data/dataloader.py`, `sampler.py`) in its
//! single-process form: the sampler (`SequentialSampler`, or with `shuffle=True` a
//! `RandomSampler`; or the script's `sampler=` / `batch_sampler=`), the `BatchSampler`
//! (`batch_size`, `drop_last`), `len()`, and the iterator, which yields the collated batches.
//!
//! The generator is drawn from as PyTorch draws from it: `iter(loader)` draws the iterator's
//! base seed (`torch.empty((), dtype=torch.int64).random_()`), then the `RandomSampler`
//! draws its seed the same way and permutes with `randperm(n)` of a new generator seeded with
//! it. (PyTorch draws the sampler's seed at the first `next()`; here the permutation is
//! taken when the iterator is made, which draws the same numbers when nothing draws in
//! between.) The batches are collated (`dataset[i]` for each index, then `collate_fn`) at each
//! `next()`.

use std::rc::Rc;

use crate::core::tensor::random::{self, CpuGenerator};
use crate::core::tensor::ScriptError;
use crate::interp::torch::nn::module::{arg, bind_python, ModuleDef};
use crate::interp::torch::optim::{attr, set_attr};
use crate::interp::torch::utils::iterators::stop_iteration;
use crate::interp::value::{Instance, Value};
use crate::interp::{Evaluator, R};

/// `DataLoader.__init__`'s parameters.
const SIGNATURE: &str = "dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None, multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False, pin_memory_device='', in_order=True";

/// `DataLoader` and its iterator.
pub(crate) static CLASSES: &[ModuleDef] = &[
    ModuleDef {
        name: "DataLoader",
        path: "torch.utils.data.dataloader",
        base: None,
        init: Some(init),
        forward: None,
        extra_repr: None,
        methods: &[
            ("__iter__", |ev, o, pos, kw| {
                bind_python("", "DataLoader.__iter__", &pos, &kw)?;
                ev.loader_iterator(o)
            }),
            ("__len__", |ev, o, pos, kw| {
                bind_python("", "DataLoader.__len__", &pos, &kw)?;
                ev.loader_len(o)
            }),
        ],
        class_methods: &[],
    },
    ModuleDef {
        name: "_SingleProcessDataLoaderIter",
        path: "torch.utils.data.dataloader",
        base: None,
        init: None,
        forward: None,
        extra_repr: None,
        methods: &[
            ("__iter__", |_, o, _, _| Ok(Value::Instance(Rc::clone(o)))),
            ("__next__", |ev, o, _, _| ev.loader_next(o)),
            ("__len__", |ev, o, _, _| match attr(o, "_loader") {
                Value::Instance(loader) => ev.loader_len(&loader),
                _ => Ok(Value::Int(0)),
            }),
        ],
        class_methods: &[],
    },
];

/// A non-negative integer argument, or PyTorch's `ValueError`.
fn int_of(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        Value::Bool(b) => Some(i64::from(*b)),
        _ => None,
    }
}

fn init(ev: &mut Evaluator, o: &Rc<Instance>, pos: Vec<Value>, kw: Vec<(String, Value)>) -> R<()> {
    let args = bind_python(SIGNATURE, "DataLoader.__init__", &pos, &kw)?;
    let get = |name: &str| arg(&args, name);
    let num_workers = int_of(&get("num_workers")).unwrap_or(0);
    if num_workers < 0 {
        return Err(ScriptError::Value(
            "num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.".into(),
        ));
    }
    let timeout = match get("timeout") {
        Value::Float(f) => f,
        v => int_of(&v).unwrap_or(0) as f64,
    };
    if timeout < 0.0 {
        return Err(ScriptError::Value(
            "timeout option should be non-negative".into(),
        ));
    }
    let prefetch = get("prefetch_factor");
    if num_workers == 0 && !matches!(prefetch, Value::None) {
        return Err(ScriptError::Value(
            "prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None.".into(),
        ));
    }
    let persistent = ev.truthy(&get("persistent_workers"))?;
    if persistent && num_workers == 0 {
        return Err(ScriptError::Value(
            "persistent_workers option needs num_workers > 0".into(),
        ));
    }
    let shuffle = ev.truthy(&get("shuffle"))?;
    let sampler = get("sampler");
    let batch_sampler = get("batch_sampler");
    let mut batch_size = get("batch_size");
    let mut drop_last = get("drop_last");
    if !matches!(sampler, Value::None) && shuffle {
        return Err(ScriptError::Value(
            "sampler option is mutually exclusive with shuffle".into(),
        ));
    }
    if !matches!(batch_sampler, Value::None) {
        let one = matches!(batch_size, Value::Int(1));
        if !one || shuffle || !matches!(sampler, Value::None) || ev.truthy(&drop_last)? {
            return Err(ScriptError::Value(
                "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last".into(),
            ));
        }
        batch_size = Value::None;
        drop_last = Value::Bool(false);
    } else if matches!(batch_size, Value::None) && ev.truthy(&drop_last)? {
        return Err(ScriptError::Value(
            "batch_size=None option disables auto-batching and is mutually exclusive with drop_last".into(),
        ));
    }
    let dataset = get("dataset");
    if shuffle && matches!(sampler, Value::None) {
        // RandomSampler's checks.
        let n = ev.dataset_len(&dataset)?;
        if n <= 0 {
            return Err(ScriptError::Value(format!(
                "num_samples should be a positive integer value, but got num_samples={n}"
            )));
        }
    }
    if !matches!(batch_size, Value::None) && matches!(batch_sampler, Value::None) {
        let valid = matches!(batch_size, Value::Int(b) if b > 0);
        if !valid {
            let text = ev.repr(&batch_size)?;
            return Err(ScriptError::Value(format!(
                "batch_size should be a positive integer value, but got batch_size={text}"
            )));
        }
        if !matches!(drop_last, Value::Bool(_)) {
            let text = ev.repr(&drop_last)?;
            return Err(ScriptError::Value(format!(
                "drop_last should be a boolean value, but got drop_last={text}"
            )));
        }
    }
    for (name, value) in [
        ("dataset", dataset),
        ("num_workers", get("num_workers")),
        ("prefetch_factor", prefetch),
        ("pin_memory", get("pin_memory")),
        ("pin_memory_device", get("pin_memory_device")),
        ("timeout", get("timeout")),
        ("worker_init_fn", get("worker_init_fn")),
        ("multiprocessing_context", get("multiprocessing_context")),
        ("in_order", get("in_order")),
        ("batch_size", batch_size),
        ("drop_last", drop_last),
        ("generator", get("generator")),
        ("collate_fn", get("collate_fn")),
        ("persistent_workers", get("persistent_workers")),
        ("_shuffle", Value::Bool(shuffle)),
        ("_sampler", sampler),
        ("_batch_sampler", batch_sampler),
    ] {
        set_attr(o, name, value);
    }
    Ok(())
}

impl Evaluator {
    /// `len(dataset)`.
    fn dataset_len(&mut self, dataset: &Value) -> R<i64> {
        match self.call_builtin("len", vec![dataset.clone()], vec![])? {
            Value::Int(n) => Ok(n),
            _ => Ok(0),
        }
    }

    /// `len(loader)`: the number of batches (`len(sampler)` without auto-batching).
    fn loader_len(&mut self, o: &Rc<Instance>) -> R<Value> {
        let batch_sampler = attr(o, "_batch_sampler");
        if !matches!(batch_sampler, Value::None) {
            return self.call_builtin("len", vec![batch_sampler], vec![]);
        }
        let n = match attr(o, "_sampler") {
            Value::None => self.dataset_len(&attr(o, "dataset"))?,
            sampler => match self.call_builtin("len", vec![sampler], vec![])? {
                Value::Int(n) => n,
                _ => 0,
            },
        };
        Ok(Value::Int(match attr(o, "batch_size") {
            Value::Int(b) if b > 0 => {
                if matches!(attr(o, "drop_last"), Value::Bool(true)) {
                    n / b
                } else {
                    (n + b - 1) / b
                }
            }
            _ => n,
        }))
    }

    /// `iter(loader)`: the base seed, the sampler's indices in batches, and the iterator.
    fn loader_iterator(&mut self, o: &Rc<Instance>) -> R<Value> {
        let dataset = attr(o, "dataset");
        // `_BaseDataLoaderIter.__init__` draws its base seed first (from a 0-d int64
        // tensor, allocated and freed).
        self.draw_int64_seed()?;
        self.note_kernel_events(&[8, -8]);
        let mut permuted = 0;
        let indices: Vec<Value> = match attr(o, "_sampler") {
            Value::None if matches!(attr(o, "_shuffle"), Value::Bool(true)) => {
                let n = self.dataset_len(&dataset)?;
                permuted = n;
                let seed = self.draw_int64_seed()?;
                self.check_work(n, "randperm")?;
                let mut generator = CpuGenerator::new(seed);
                random::randperm(&mut generator, n)?
                    .into_iter()
                    .map(Value::Int)
                    .collect()
            }
            Value::None => {
                let n = self.dataset_len(&dataset)?;
                self.check_work(n, "SequentialSampler")?;
                (0..n).map(Value::Int).collect()
            }
            sampler => self.iterate(&sampler)?,
        };
        let batches: Vec<Value> = match (attr(o, "_batch_sampler"), attr(o, "batch_size")) {
            (Value::None, Value::Int(b)) if b > 0 => {
                let drop_last = matches!(attr(o, "drop_last"), Value::Bool(true));
                indices
                    .chunks(b as usize)
                    .filter(|c| !drop_last || c.len() == b as usize)
                    .map(|c| Value::List(c.to_vec()))
                    .collect()
            }
            (Value::None, _) => indices,
            (batch_sampler, _) => self.iterate(&batch_sampler)?,
        };
        let class = self
            .nn_class("_SingleProcessDataLoaderIter")
            .ok_or_else(|| ScriptError::Runtime("the loader's iterator is missing".into()))?;
        let it = Rc::new(Instance {
            class,
            attrs: std::cell::RefCell::new(vec![
                ("_loader".into(), Value::Instance(Rc::clone(o))),
                ("_batches".into(), Value::List(batches)),
                ("_num_yielded".into(), Value::Int(0)),
                ("_permuted".into(), Value::Int(permuted)),
            ]),
            module: std::cell::RefCell::new(None),
        });
        Ok(Value::Instance(it))
    }

    /// `next(iterator)`: the next batch, fetched and collated.
    fn loader_next(&mut self, it: &Rc<Instance>) -> R<Value> {
        let Value::Int(at) = attr(it, "_num_yielded") else {
            return Err(stop_iteration());
        };
        let batch = match attr(it, "_batches") {
            Value::List(batches) => batches.get(at as usize).cloned(),
            _ => None,
        };
        let Some(batch) = batch else {
            return Err(stop_iteration());
        };
        set_attr(it, "_num_yielded", Value::Int(at + 1));
        if let (0, Value::Int(n)) = (at, attr(it, "_permuted")) {
            if n > 0 {
                // The `RandomSampler` starts at the first `next()`: its seed's 0-d int64
                // tensor, then `randperm(n)` (with its 0-d bound) until `.tolist()` is taken.
                self.note_kernel_events(&[8, -8, 8 * n, 8, -8, -8 * n]);
            }
        }
        let Value::Instance(loader) = attr(it, "_loader") else {
            return Err(stop_iteration());
        };
        let dataset = attr(&loader, "dataset");
        let collate_fn = attr(&loader, "collate_fn");
        let auto_collation = !matches!(attr(&loader, "batch_size"), Value::None)
            || !matches!(attr(&loader, "_batch_sampler"), Value::None);
        if !auto_collation {
            let item = self.dataset_item(dataset, &batch)?;
            return match collate_fn {
                Value::None => Ok(item),
                f => self.call(f, vec![item], vec![]),
            };
        }
        let indices = self.iterate(&batch)?;
        let mut samples = Vec::with_capacity(indices.len());
        for i in &indices {
            samples.push(self.dataset_item(dataset.clone(), i)?);
        }
        match collate_fn {
            Value::None => self.default_collate(&Value::List(samples)),
            f => self.call(f, vec![Value::List(samples)], vec![]),
        }
    }
}
