//! Which ops of the table have a backward: every entry whose outputs autograd tracks has a
//! formula (its own, or its out-of-place op's for an in-place op), unless it is listed
//! here as never giving a differentiable output or as not modelled yet (with PyTorch's
//! formula, so a new differentiable op without a backward fails the test below).

/// Entries whose outputs are never differentiable: integer or bool results, factories (no
/// tensor inputs), queries that return no tensor, the generator, storages.
#[cfg(test)]
const NOT_DIFFERENTIABLE: &[&str] = &[
    // Process state, files and storage surgery: no tensor of theirs carries a gradient.
    "set_default_device",
    "get_default_device",
    "save",
    "load",
    "set_",
    "resize_",
    "argmax",
    "argmin",
    "argsort",
    "nonzero",
    "argwhere",
    "all",
    "any",
    "equal",
    "allclose",
    "int",
    "long",
    "bool",
    "byte",
    "char",
    "short",
    "is_floating_point",
    "is_complex",
    "is_tensor",
    "is_conj",
    "is_neg",
    "can_cast",
    "promote_types",
    "result_type",
    "device",
    "stride",
    "size",
    "dim",
    "ndimension",
    "numel",
    "nelement",
    "element_size",
    "storage_offset",
    "is_contiguous",
    "data_ptr",
    "item",
    "tolist",
    "is_set_to",
    "numpy",
    "from_numpy",
    "count_nonzero",
    "isclose",
    "logical_and",
    "logical_or",
    "logical_xor",
    "logical_and_",
    "logical_or_",
    "logical_xor_",
    "logical_not",
    "logical_not_",
    "eq",
    "ne",
    "gt",
    "lt",
    "ge",
    "le",
    "greater",
    "less",
    "greater_equal",
    "less_equal",
    "not_equal",
    "floor_divide",
    "floor_divide_",
    "unique",
    "unique_consecutive",
    "storage",
    "untyped_storage",
    "manual_seed",
    "initial_seed",
    "rand",
    "randn",
    "randint",
    "randperm",
    "arange",
    "zeros",
    "ones",
    "empty",
    "full",
    "empty_strided",
    "linspace",
    "logspace",
    "scalar_tensor",
    "eye",
    "one_hot",
    "cpu",
    // PyTorch: "derivative for aten::heaviside is not implemented".
    "heaviside",
    "heaviside_",
];

/// Differentiable entries whose backward is not modelled yet (`backward()` through one
/// raises `NotImplementedError`), with what PyTorch computes.
#[cfg(test)]
const NOT_MODELLED: &[(&str, &str)] = &[
    (
        "remainder",
        "self: grad; other: -grad * self.div(other, rounding_mode='floor')",
    ),
    (
        "aminmax",
        "min/max: scale_grad_by_count over the picked elements",
    ),
    ("hstack", "CatBackward0 of the inputs made at least 1-d"),
    ("vstack", "CatBackward0 of the inputs made at least 2-d"),
    ("dstack", "CatBackward0 of the inputs made at least 3-d"),
    ("row_stack", "CatBackward0 of the inputs made at least 2-d"),
    ("column_stack", "CatBackward0 of the columns"),
    (
        "linalg_norm",
        "linalg_vector_norm_backward, or the matrix norm's",
    ),
    (
        "linalg_matrix_norm",
        "frobenius: grad * self / norm; nuclear/2-norm through svd",
    ),
    ("conj", "grad.conj()"),
    ("conj_physical", "grad.conj_physical()"),
    ("resolve_conj", "grad"),
    ("resolve_neg", "grad"),
    ("angle", "angle_backward(grad, self)"),
    ("polar", "polar_backward(grad, result)"),
    ("reciprocal", "-grad * (result * result).conj()"),
    ("reciprocal_", "-grad * (result * result).conj()"),
    ("outer", "self: grad @ vec2; vec2: grad.t() @ self"),
    ("ger", "self: grad @ vec2; vec2: grad.t() @ self"),
    ("trace", "trace_backward: grad on the diagonal"),
    ("diag", "diagonal_backward / diag_embed"),
    ("cross", "other.cross(grad), grad.cross(self)"),
    ("linalg_cross", "other.cross(grad), grad.cross(self)"),
    ("dist", "norm_backward of self - other"),
    ("cdist", "_cdist_backward"),
    ("einsum", "the gradients of its permutes, products and sums"),
    ("fliplr", "FlipBackward0: grad.flip(1)"),
    ("flipud", "FlipBackward0: grad.flip(0)"),
    ("rot90", "grad.rot90(-k, dims)"),
    (
        "repeat_interleave",
        "the repeats summed back (IndexSelectBackward0)",
    ),
    (
        "put",
        "self: accumulate ? grad : grad.put(index, zeros_like(source)); source: grad.take(index)",
    ),
    (
        "put_",
        "self: accumulate ? grad : grad.put(index, zeros_like(source)); source: grad.take(index)",
    ),
    ("take_along_dim", "GatherBackward0 of the broadcast indices"),
    (
        "squeeze_",
        "the gradient unsqueezed back (needs the shape before the in-place view)",
    ),
    (
        "unsqueeze_",
        "the gradient squeezed back (needs the shape before the in-place view)",
    ),
    ("narrow_copy", "slice_backward"),
    ("unfold", "unfold_backward"),
    ("as_strided", "as_strided_backward"),
    ("as_strided_", "as_strided_backward"),
    ("view_as_real", "view_as_complex(grad)"),
    ("view_as_complex", "view_as_real(grad)"),
    ("real", "at::real(grad)"),
    ("imag", "at::imag(grad)"),
    ("complex", "real: at::real(grad); imag: at::imag(grad)"),
    ("broadcast_tensors", "ExpandBackward0 of each input"),
    ("atleast_1d", "the view's ViewBackward0/UnsqueezeBackward0"),
    ("atleast_2d", "the view's ViewBackward0/UnsqueezeBackward0"),
    ("atleast_3d", "the view's ViewBackward0/UnsqueezeBackward0"),
    ("meshgrid", "ExpandBackward0 of each view"),
    ("uniform_", "zeros_like(grad)"),
    ("normal_", "zeros_like(grad)"),
    ("random_", "zeros_like(grad)"),
    (
        "index_put",
        "self: grad.index_put(indices, 0); values: grad[indices] summed back",
    ),
    (
        "index_put_",
        "self: grad.index_put(indices, 0); values: grad[indices] summed back",
    ),
    ("leaky_relu_", "leaky_relu_backward on the result"),
    ("elu_", "elu_backward on the result"),
    ("hardtanh_", "hardtanh_backward on self.clone()"),
    ("pad", "the gradient narrowed back (ConstantPadNdBackward0)"),
    (
        "normalize",
        "DivBackward0 of input / norm.clamp_min(eps).expand_as(input)",
    ),
    ("clamp_min_", "clamp_min's mask on self.clone()"),
    (
        "adjoint",
        "the gradient's adjoint (TransposeBackward0, conjugated)",
    ),
    (
        "type_as",
        "ToCopyBackward0: the gradient converted back to self's dtype",
    ),
    (
        "cuda",
        "ToCopyBackward0 (no CUDA device here: the op always raises)",
    ),
    ("clamp_max_", "clamp_max's mask on self.clone()"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_differentiable_op_of_the_table_has_a_backward() {
        let mut missing = Vec::new();
        for family in crate::interp::torch::ops::FAMILIES {
            for def in family.iter() {
                if !def.grad.tracked || def.grad.formula.is_some() {
                    continue;
                }
                let covered = def.names.iter().all(|n| {
                    crate::interp::torch::autograd::in_place_formula(n).is_some()
                        || NOT_DIFFERENTIABLE.contains(n)
                        || NOT_MODELLED.iter().any(|(m, _)| m == n)
                });
                if !covered {
                    missing.push(format!("{:?}", def.names));
                }
            }
        }
        assert!(
            missing.is_empty(),
            "{} ops of the table are differentiable but have no backward formula:\n{}",
            missing.len(),
            missing.join("\n")
        );
    }
}
