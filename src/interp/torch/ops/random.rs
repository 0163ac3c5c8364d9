//! Random numbers, bit for bit as PyTorch's CPU generator draws them ([`crate::core::tensor::random`]):
//! `torch.manual_seed`/`initial_seed`, the factories `rand`, `randn`, `randint`, `randperm`, the
//! `_like` functions and the in-place `uniform_`, `normal_`, `random_`.
//!
//! The values are drawn on the host (the generator is sequential) and uploaded into the
//! tensor's storage with one engine copy, in the order ATen's kernel writes them.

use crate::core::tensor::random::{self, Distribution};
use crate::core::tensor::{DType, Layout, Scalar, Tensor};
use crate::interp::torch::autograd::Grad;
use crate::interp::torch::registry::{Forms, OpCall, OpDef};
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// Keyword arguments every factory takes (PyTorch's `TensorOptions`).
macro_rules! factory_kwargs {
    () => {
        "*, Any? generator=None, Tensor? out=None, ScalarType? dtype=None, Any? layout=None, Device? device=None, bool pin_memory=False, bool requires_grad=False"
    };
}

/// Keyword arguments of the `_like` functions.
macro_rules! like_kwargs {
    () => {
        "*, ScalarType? dtype=None, Any? layout=None, Device? device=None, bool pin_memory=False, bool requires_grad=False, MemoryFormat? memory_format=None"
    };
}

/// The table of this family.
pub(crate) static OPS: &[OpDef] = &[
    OpDef {
        names: &["bernoulli"],
        schemas: &[
            "Tensor self, *, Any? generator=None, Tensor? out=None",
            "Tensor self, float p, *, Any? generator=None",
        ],
        forms: Forms::Both,
        rule: bernoulli,
        grad: Grad::UNTRACKED,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["manual_seed"],
        schemas: &["int seed"],
        forms: Forms::Function,
        rule: manual_seed,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["initial_seed"],
        schemas: &[""],
        forms: Forms::Function,
        rule: initial_seed,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["rand"],
        schemas: &[concat!("int[] size, ", factory_kwargs!())],
        forms: Forms::Function,
        rule: rand,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["randn"],
        schemas: &[concat!("int[] size, ", factory_kwargs!())],
        forms: Forms::Function,
        rule: randn,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["randint"],
        schemas: &[
            concat!("int high, int[] size, ", factory_kwargs!()),
            concat!("int low, int high, int[] size, ", factory_kwargs!()),
        ],
        forms: Forms::Function,
        rule: randint,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["randperm"],
        schemas: &[concat!("int n, ", factory_kwargs!())],
        forms: Forms::Function,
        rule: randperm,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["rand_like"],
        schemas: &[concat!("Tensor self, ", like_kwargs!())],
        forms: Forms::Function,
        rule: rand_like,
        grad: Grad::UNTRACKED,
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["randn_like"],
        schemas: &[concat!("Tensor self, ", like_kwargs!())],
        forms: Forms::Function,
        rule: randn_like,
        grad: Grad::UNTRACKED,
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["randint_like"],
        schemas: &[
            concat!("Tensor self, int high, ", like_kwargs!()),
            concat!("Tensor self, int low, int high, ", like_kwargs!()),
        ],
        forms: Forms::Function,
        rule: randint_like,
        grad: Grad::UNTRACKED,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["uniform_"],
        schemas: &["Tensor self, float from=0, float to=1, *, Any? generator=None"],
        forms: Forms::Method,
        rule: uniform_,
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["normal_"],
        schemas: &["Tensor self, float mean=0, float std=1, *, Any? generator=None"],
        forms: Forms::Method,
        rule: normal_,
        complex: true,
        ..OpDef::PLAIN
    },
    OpDef {
        names: &["random_"],
        schemas: &[
            "Tensor self, *, Any? generator=None",
            "Tensor self, int to, *, Any? generator=None",
            "Tensor self, int from, int? to, *, Any? generator=None",
        ],
        forms: Forms::Method,
        rule: random_,
        ..OpDef::PLAIN
    },
];

/// `torch.manual_seed(s)`: reseeds the default generator (the value shown is the generator).
fn manual_seed(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let seed = ev.arg_int(call, "seed", 0)?;
    // PyTorch takes the seed as a uint64 (a negative one wraps).
    ev.torch.generator.manual_seed(seed as u64);
    Ok(Value::Generator)
}

fn initial_seed(ev: &mut Evaluator, _call: &OpCall) -> R<Value> {
    Ok(Value::Int(ev.torch.generator.initial_seed() as i64))
}

fn rand(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let dist = Distribution::Uniform { from: 0.0, to: 1.0 };
    ev.random_factory(call, "rand", &dist, DType::Float32)
}

fn randn(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let dist = Distribution::Normal {
        mean: 0.0,
        std: 1.0,
    };
    ev.random_factory(call, "randn", &dist, DType::Float32)
}

fn randint(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let low = ev.arg_int(call, "low", 0)?;
    let high = ev.arg_int(call, "high", 0)?;
    let dist = Distribution::RandomFromTo {
        from: low,
        to_exclusive: high,
    };
    ev.random_factory(call, "randint", &dist, DType::Int64)
}

fn randperm(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let n = ev.arg_int(call, "n", 0)?;
    let dtype = call.dtype("dtype").unwrap_or(DType::Int64);
    random::check_randperm_dtype(n, dtype)?;
    ev.check_shape(&[n])?;
    ev.check_work(n, "randperm")?;
    let values: Vec<Scalar> = random::randperm(&mut ev.torch.generator, n)?
        .into_iter()
        .map(|v| dtype.round(Scalar::Int(v)))
        .collect();
    let t = ev.tensor_from_values(&[n], dtype, &values, "randperm")?;
    // ATen's randperm makes a 0-d scalar tensor of the result dtype (its bound) after the
    // result and frees it before returning.
    ev.note_kernel_events(&[dtype.item_size() as i64]);
    Ok(Value::tensor(t, "randperm", None))
}

fn rand_like(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let dist = Distribution::Uniform { from: 0.0, to: 1.0 };
    ev.random_like(call, "rand_like", &dist)
}

fn randn_like(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let dist = Distribution::Normal {
        mean: 0.0,
        std: 1.0,
    };
    ev.random_like(call, "randn_like", &dist)
}

fn randint_like(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let low = ev.arg_int(call, "low", 0)?;
    let high = ev.arg_int(call, "high", 0)?;
    let dist = Distribution::RandomFromTo {
        from: low,
        to_exclusive: high,
    };
    ev.random_like(call, "randint_like", &dist)
}

/// `torch.bernoulli(p)`: zeros and ones drawn with the probabilities `p` (a floating tensor),
/// into a new contiguous tensor of `p`'s dtype, as ATen's CPU kernel draws them (one uniform
/// per element, in the output's order). A float `p` goes through MKL's vectorized generator
/// in PyTorch, which Stridescope does not reproduce.
fn bernoulli(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    if call.overload() == 1 {
        return Err(crate::core::tensor::ScriptError::NotImplemented(
            "bernoulli(input, p) with a float p draws with MKL's generator in PyTorch, which Stridescope does not reproduce; use torch.bernoulli(torch.full_like(input, p))".into(),
        ));
    }
    let p = call.self_tensor()?;
    if !p.dtype.is_floating() {
        return Err(crate::core::tensor::ScriptError::NotImplemented(format!(
            "\"bernoulli_tensor_cpu_p_\" not implemented for '{}'",
            p.dtype.scalar_type_name()
        )));
    }
    ev.check_work(p.numel(), "bernoulli")?;
    let probabilities: Vec<f64> = ev.engine.values(&p).iter().map(|v| v.to_f64()).collect();
    let draws = random::bernoulli(
        &mut ev.torch.generator,
        &probabilities,
        p.dtype == DType::Float64,
    );
    let values: Vec<Scalar> = draws
        .into_iter()
        .map(|b| Scalar::Float(f64::from(u8::from(b))))
        .collect();
    let t = ev.tensor_from_values(p.shape(), p.dtype, &values, "bernoulli")?;
    Ok(Value::tensor(t, "bernoulli", None))
}

fn uniform_(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let from = ev.arg_float(call, "from", 0.0)?;
    let to = ev.arg_float(call, "to", 1.0)?;
    ev.random_in_place(call, &Distribution::Uniform { from, to })
}

fn normal_(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let mean = ev.arg_float(call, "mean", 0.0)?;
    let std = ev.arg_float(call, "std", 1.0)?;
    ev.random_in_place(call, &Distribution::Normal { mean, std })
}

fn random_(ev: &mut Evaluator, call: &OpCall) -> R<Value> {
    let dist = match call.overload() {
        0 => Distribution::RandomDefault,
        1 => Distribution::RandomFromTo {
            from: 0,
            to_exclusive: ev.arg_int(call, "to", 0)?,
        },
        _ => {
            let from = ev.arg_int(call, "from", 0)?;
            match ev.arg_opt_int(call, "to")? {
                Some(to) => Distribution::RandomFromTo {
                    from,
                    to_exclusive: to,
                },
                None => Distribution::RandomFrom { from },
            }
        }
    };
    ev.random_in_place(call, &dist)
}

impl Evaluator {
    /// `torch.rand(*size, dtype=...)` and friends: a new contiguous tensor of drawn values.
    fn random_factory(
        &mut self,
        call: &OpCall,
        name: &str,
        dist: &Distribution,
        default_dtype: DType,
    ) -> R<Value> {
        let shape = self.arg_ints(call, "size")?.unwrap_or_default();
        let dtype = call.dtype("dtype").unwrap_or(default_dtype);
        self.check_shape(&shape)?;
        let numel = crate::core::tensor::layout::numel_of(&shape);
        self.check_work(numel, name)?;
        // On the meta device nothing is drawn (and the generator does not move).
        let t = if self.torch.device.meta_op {
            let format = crate::core::tensor::MemoryFormat::Contiguous;
            self.empty(&shape, dtype, format, name)?
        } else if dtype.is_complex() {
            // ATen draws a complex tensor as its `view_as_real`.
            let dist = crate::interp::torch::ops::complex::real_distribution(dist, name)?;
            let mut halves = shape.clone();
            halves.push(2);
            let n = numel as usize * 2;
            let values =
                random::sample(&mut self.torch.generator, &dist, dtype.real_part(), n, true)?;
            let f = self.tensor_from_values(&halves, dtype.real_part(), &values, name)?;
            Tensor {
                storage: f.storage,
                dtype,
                layout: Layout::contiguous(&shape),
            }
        } else {
            let values =
                random::sample(&mut self.torch.generator, dist, dtype, numel as usize, true)?;
            self.tensor_from_values(&shape, dtype, &values, name)?
        };
        if let Some(out) = call.tensor("out") {
            self.copy_into(&out, &t, false)?;
            return Ok(call.value("out").cloned().unwrap_or(Value::None));
        }
        Ok(crate::interp::torch::ops::factory::with_requires_grad(
            Value::tensor(t, name, None),
            call,
        ))
    }

    /// `torch.rand_like(t)`: `empty_like(t)` (which keeps a dense input's strides), filled
    /// as the in-place method would.
    fn random_like(&mut self, call: &OpCall, name: &str, dist: &Distribution) -> R<Value> {
        let like = call.self_tensor()?;
        let dtype = call.dtype("dtype").unwrap_or(like.dtype);
        let layout = if like.layout.is_non_overlapping_and_dense() {
            Layout {
                shape: like.layout.shape.clone(),
                strides: like.layout.strides.clone(),
                offset: 0,
            }
        } else {
            Layout::contiguous(&like.layout.shape)
        };
        self.check_work(like.numel(), name)?;
        let t = self.empty_strided(&layout.shape, &layout.strides, dtype, name)?;
        if self.torch.device.meta_op {
            return Ok(Value::tensor(t, name, None));
        }
        // A complex tensor is drawn as its `view_as_real`, as ATen does.
        let (drawn, dist) = if dtype.is_complex() {
            (
                t.as_real(),
                crate::interp::torch::ops::complex::real_distribution(dist, name)?,
            )
        } else {
            (t.clone(), *dist)
        };
        let values = random::sample(
            &mut self.torch.generator,
            &dist,
            drawn.dtype,
            drawn.numel() as usize,
            drawn.layout.is_contiguous(),
        )?;
        self.upload_in_kernel_order(&drawn, &values, true);
        Ok(Value::tensor(t, name, None))
    }

    /// `t.uniform_()`, `t.normal_()`, `t.random_()`: drawn into `t`'s own cells.
    fn random_in_place(&mut self, call: &OpCall, dist: &Distribution) -> R<Value> {
        let this = call.self_ref()?;
        let t = this.borrow().tensor.clone();
        self.check_no_internal_overlap(&t)?;
        self.check_work(t.numel(), "random")?;
        if self.torch.device.meta_op {
            return Ok(Value::Tensor(this));
        }
        // A complex tensor is drawn as its `view_as_real`, as ATen does.
        let (t, dist) = if t.dtype.is_complex() {
            (
                t.as_real(),
                crate::interp::torch::ops::complex::real_distribution(dist, "random")?,
            )
        } else {
            (t, *dist)
        };
        let values = random::sample(
            &mut self.torch.generator,
            &dist,
            t.dtype,
            t.numel() as usize,
            t.layout.is_contiguous(),
        )?;
        self.upload_in_kernel_order(&t, &values, false);
        Ok(Value::Tensor(this))
    }

    /// Writes `values` into `dst` in the order ATen's kernel writes them: storage order
    /// (TensorIterator sorts dims by stride), which for a contiguous tensor is row-major. The
    /// values go up as one host buffer copied into `dst` by the engine (not a user allocation).
    fn upload_in_kernel_order(&mut self, dst: &Tensor, values: &[Scalar], fresh: bool) {
        let offsets: Vec<i64> = dst.layout.offsets().collect();
        let mut by_offset: Vec<usize> = (0..offsets.len()).collect();
        crate::core::tensor::stable_sort::sort_by_key(&mut by_offset, |&i| offsets[i]);
        let mut logical = vec![Scalar::Int(0); offsets.len()];
        for (rank, &i) in by_offset.iter().enumerate() {
            if let Some(v) = values.get(rank) {
                logical[i] = *v;
            }
        }
        let item = dst.dtype.item_size();
        let mut bytes = vec![0u8; logical.len() * item];
        for (i, v) in logical.iter().enumerate() {
            dst.dtype.write(&mut bytes, i, *v);
        }
        let staging = self.engine.allocate_with(bytes);
        let src = Tensor {
            storage: staging,
            dtype: dst.dtype,
            layout: Layout::contiguous(&dst.layout.shape),
        };
        self.engine.copy(dst, &src);
        self.engine.free(staging);
        if !fresh {
            self.note_write(dst);
        }
    }
}
