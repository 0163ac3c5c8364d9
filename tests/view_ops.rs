//! The view ops of PyTorch's "Tensor Views" page never panic on hostile arguments: every
//! call gives a value or a Python error, and the script goes on.

use proptest::prelude::*;
use stridescope::interp::trace_script;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    #[test]
    fn random_view_calls_never_panic(
        input in prop::sample::select(vec![
            "torch.arange(24, dtype=torch.float32).reshape(2, 3, 4)",
            "torch.arange(24, dtype=torch.int16).reshape(4, 6)[1:, ::2]",
            "torch.arange(12, dtype=torch.int64).reshape(3, 4).t()",
            "torch.tensor(3.5)",
            "torch.zeros(0, 3)",
        ]),
        method in prop::sample::select(vec![
            "view", "view_as", "reshape_as", "unflatten", "squeeze", "squeeze_", "tensor_split",
            "hsplit", "vsplit", "dsplit", "split", "split_with_sizes", "swapaxes_", "swapdims_",
            "movedim", "narrow_copy", "as_strided_", "t_", "unsqueeze_", "expand_as", "detach",
            "chunk", "unbind", "diagonal", "unfold",
        ]),
        args in prop::collection::vec(prop::sample::select(vec![
            "-3", "-1", "0", "1", "2", "5", "(2, 3)", "(2, -1)", "(-1, -1)", "[0, 0]", "[3, 1]",
            "torch.float16", "torch.int64", "torch.uint8", "torch.bool", "a", "None", "2.5",
            "torch.tensor(2)", "torch.tensor([1, 2])", "torch.tensor([[1]])", "torch.tensor([1.])",
            "9223372036854775807", "-9223372036854775807", "(4611686018427387904, 4)", "()",
            "(0, 1)", "dim=1", "sizes=(1, -1)",
        ]), 0..4),
    ) {
        let script = format!("a = {input}\nb = a.{method}({})\nc = torch.{method}(a, {})\n",
            args.join(", "), args.join(", "));
        let trace = trace_script(&script);
        prop_assert_eq!(trace.steps.len(), 3);
    }
}
