//! Invariants of views and copies, checked on random shapes, strides and ops.

use proptest::prelude::*;
use stridescope::core::tensor::layout::{compute_view_strides, Layout};
use stridescope::core::trace::{Step, TensorRecord};
use stridescope::interp::trace_script;

fn tensor<'a>(step: &'a Step, name: &str) -> &'a TensorRecord {
    step.tensors
        .iter()
        .find(|t| t.name == name)
        .expect("variable in trace")
}

fn ints(values: &[i64]) -> String {
    let parts: Vec<String> = values.iter().map(|v| v.to_string()).collect();
    format!("({},)", parts.join(", "))
}

/// A shape of rank 1 to 4 with small dims.
fn shape() -> impl Strategy<Value = Vec<i64>> {
    prop::collection::vec(1i64..5, 1..5)
}

/// A view-producing statement on `a`, given its rank.
fn view_op(rank: usize) -> impl Strategy<Value = String> {
    let r = rank as i64;
    prop_oneof![
        (0..r, 0..r).prop_map(|(x, y)| format!("a.transpose({x}, {y})")),
        Just("a.T".to_string()),
        (0..=r).prop_map(|d| format!("a.unsqueeze({d})")),
        Just("a.squeeze()".to_string()),
        (0..r, 0i64..2, 1i64..3).prop_map(|(d, s, st)| {
            let mut idx = vec![":".to_string(); d as usize];
            idx.push(format!("{s}::{st}"));
            format!("a[{}]", idx.join(", "))
        }),
        (0..r).prop_map(|d| format!("a.select({d}, 0)")),
        Just("a.flatten(0, 0)".to_string()),
        Just(if rank >= 2 {
            "a.diagonal()".to_string()
        } else {
            "a[None]".to_string()
        }),
        (0..r).prop_map(|d| format!("a.unfold({d}, 1, 1)")),
        Just("a[..., None]".to_string()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A view op allocates nothing and shares the storage.
    #[test]
    fn a_view_never_copies((s, op) in shape().prop_flat_map(|s| { let n = s.len(); (Just(s), view_op(n)) })) {
        let n: i64 = s.iter().product();
        let script = format!("a = torch.arange({n}).reshape{}\nb = {op}\n", ints(&s));
        let trace = trace_script(&script);
        let step = &trace.steps[1];
        prop_assert_eq!(&step.error, &None, "{}", script);
        prop_assert_eq!(step.allocated_bytes, 0);
        prop_assert_eq!(&tensor(step, "b").storage, &tensor(step, "a").storage);
    }

    /// The element at a logical index is at `offset + Σ i_k·stride_k` of the storage.
    #[test]
    fn elements_sit_at_offset_plus_index_dot_strides(
        sizes in prop::collection::vec(1i64..4, 1..4),
        strides in prop::collection::vec(0i64..5, 3),
        offset in 0i64..6,
        dtype in prop::sample::select(vec!["int64", "int8", "float16", "bfloat16", "float32", "uint8", "bool", "int32", "float64"]),
    ) {
        let strides = &strides[..sizes.len()];
        let script = format!(
            "s = torch.arange(200).to(torch.{dtype})\nv = s.as_strided({}, {}, {offset})\n",
            ints(&sizes),
            ints(strides)
        );
        let trace = trace_script(&script);
        let step = &trace.steps[1];
        prop_assert_eq!(&step.error, &None);
        let storage = step.storages.iter().find(|st| st.id == tensor(step, "v").storage).expect("storage");
        let cells = storage.values.clone().expect("values");
        let layout = Layout { shape: sizes.clone(), strides: strides.to_vec(), offset };
        let values = tensor(step, "v").values.clone().expect("values");
        for (i, at) in layout.offsets().enumerate() {
            prop_assert_eq!(values[i], cells[at as usize]);
        }
    }

    /// A copy has fresh storage with standard strides and offset 0.
    #[test]
    fn a_copy_has_fresh_storage_and_standard_strides(s in shape(), perm_seed in any::<u64>(), fmt in 0usize..3) {
        let rank = s.len();
        let mut perm: Vec<i64> = (0..rank as i64).collect();
        let mut x = perm_seed;
        for i in (1..rank).rev() {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            perm.swap(i, (x >> 33) as usize % (i + 1));
        }
        let n: i64 = s.iter().product();
        let copy = match fmt {
            0 => "b.contiguous()".to_string(),
            1 => "b.clone(memory_format=torch.contiguous_format)".to_string(),
            _ => "b.to(torch.int32, memory_format=torch.contiguous_format)".to_string(),
        };
        let script = format!(
            "a = torch.arange({n}).reshape{}\nb = a.permute{}[..., 1:]\nc = {copy}\n",
            ints(&s),
            ints(&perm)
        );
        let trace = trace_script(&script);
        let step = &trace.steps[2];
        prop_assert_eq!(&step.error, &None);
        let b = tensor(step, "b");
        let c = tensor(step, "c");
        prop_assert_eq!(&c.values, &b.values);
        let numel: i64 = c.shape.iter().product();
        if b.contiguous && fmt == 0 {
            // contiguous() of a contiguous tensor is the tensor itself.
            prop_assert_eq!(&c.storage, &b.storage);
        } else {
            prop_assert_ne!(&c.storage, &b.storage);
            prop_assert_eq!(c.storage_offset, 0);
            prop_assert!(c.contiguous);
            prop_assert_eq!(c.storage_nbytes as i64, numel * c.element_size as i64);
        }
    }

    /// `reshape` is a view exactly when `view` succeeds.
    #[test]
    fn reshape_views_exactly_when_view_succeeds(s in shape(), perm_seed in any::<u64>(), split in any::<u64>()) {
        let rank = s.len();
        let mut perm: Vec<i64> = (0..rank as i64).collect();
        let mut x = perm_seed;
        for i in (1..rank).rev() {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            perm.swap(i, (x >> 33) as usize % (i + 1));
        }
        let n: i64 = s.iter().product();
        // A target shape: n factored into two parts.
        let divisors: Vec<i64> = (1..=n).filter(|d| n % d == 0).collect();
        let d = divisors[(split % divisors.len() as u64) as usize];
        let target = [d, n / d];
        let script = format!(
            "a = torch.arange({n}).reshape{}\nb = a.permute{}\nv = b.view{}\nr = b.reshape{}\n",
            ints(&s),
            ints(&perm),
            ints(&target),
            ints(&target)
        );
        let trace = trace_script(&script);
        let viewed = trace.steps[2].error.is_none();
        let step = &trace.steps[3];
        prop_assert_eq!(&step.error, &None);
        let shares = tensor(step, "r").storage == tensor(step, "b").storage;
        prop_assert_eq!(viewed, shares, "{}", script);
        let b = tensor(step, "b");
        prop_assert_eq!(viewed, compute_view_strides(&b.shape, &b.stride, &target).is_some());
        prop_assert_eq!(&tensor(step, "r").values, &b.values);
    }
}
