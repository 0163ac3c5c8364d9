//! Asking questions of a running evaluator: the value of one expression on the current
//! state, the variables bound so far, Python's `==` and `repr`. The lesson player and
//! `stridescope lesson check` use these between the code blocks of a lesson; running more
//! code is [`Evaluator::run`], which keeps the state of earlier calls.
//!
//! Nothing here changes how statements run: an expression evaluated here records no step,
//! and what it allocates is freed by the next statement's garbage collection.

use std::rc::Rc;

use crate::interp::{Evaluator, Value};
use crate::lang::parser::parse_expression;

/// Why an expression gave no value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    /// The text is not one Python expression (`SyntaxError: ...` as the app prints it).
    #[error("{0}")]
    Syntax(String),
    /// Evaluating it raised (`RuntimeError: ...`, PyTorch's text).
    #[error("{0}")]
    Raised(String),
}

impl Evaluator {
    /// The value of the Python expression `source` on the current state (after every
    /// statement run so far). Records no step.
    pub fn evaluate(&mut self, source: &str) -> Result<Value, EvalError> {
        let expr = parse_expression(source).map_err(|e| EvalError::Syntax(e.to_string()))?;
        self.eval(&expr)
            .map_err(|e| EvalError::Raised(e.to_string()))
    }

    /// Every variable bound so far, in first-assignment order.
    pub fn variables(&self) -> Vec<(String, Value)> {
        self.scope.globals().to_vec()
    }

    /// Python's `repr` of `value`, as the notebook prints it.
    pub fn repr_value(&mut self, value: &Value) -> Result<String, EvalError> {
        self.repr(value)
            .map_err(|e| EvalError::Raised(e.to_string()))
    }
}

/// Python's `==` on plain values: numbers by value (`1 == 1.0 == True`), sequences item by
/// item with tuples never equal to lists, `torch.Size` equal to the tuple of its ints,
/// dtypes, strings and `None` by value, tensors and storages by identity (a tensor's `==`
/// is elementwise in PyTorch; callers compare plain values).
pub fn python_eq(a: &Value, b: &Value) -> bool {
    use Value::*;
    let number = |v: &Value| -> Option<f64> {
        match v {
            Bool(b) => Some(f64::from(u8::from(*b))),
            Int(i) => Some(*i as f64),
            Float(f) => Some(*f),
            _ => Option::None,
        }
    };
    if let (Int(x), Int(y)) = (a, b) {
        return x == y;
    }
    if let (Some(x), Some(y)) = (number(a), number(b)) {
        return x == y;
    }
    let ints = |v: &[i64]| v.iter().map(|&i| Int(i)).collect::<Vec<_>>();
    match (a, b) {
        (Size(x), Size(y)) => x == y,
        // Autograd nodes compare by identity.
        (GradFn(x), GradFn(y)) => x.same(y),
        (Size(x), Tuple(y)) | (Tuple(y), Size(x)) => seq_eq(&ints(x), y),
        (Tuple(x), Tuple(y)) | (List(x), List(y)) => seq_eq(x, y),
        (Dict(x), Dict(y)) => {
            x.len() == y.len()
                && x.iter().all(|(k, v)| {
                    y.iter()
                        .any(|(k2, v2)| python_eq(k, k2) && python_eq(v, v2))
                })
        }
        (DType(x), DType(y)) => x == y,
        (ReadMode(x), ReadMode(y)) => x == y,
        (Device(x), Device(y)) => x == y,
        (MemoryFormat(x), MemoryFormat(y)) => x == y,
        (Str(x), Str(y)) | (Printed(x), Printed(y)) => x == y,
        (None, None) | (Ellipsis, Ellipsis) => true,
        (Storage(x, dx), Storage(y, dy)) => x == y && dx == dy,
        (Tensor(x), Tensor(y)) => Rc::ptr_eq(x, y),
        (Instance(x), Instance(y)) => Rc::ptr_eq(x, y),
        (Class(x), Class(y)) => Rc::ptr_eq(x, y),
        _ => false,
    }
}

fn seq_eq(x: &[Value], y: &[Value]) -> bool {
    x.len() == y.len() && x.iter().zip(y).all(|(p, q)| python_eq(p, q))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::CpuEngine;
    use crate::interp::Limits;

    #[test]
    fn evaluates_on_the_state_and_compares_as_python() {
        let mut ev = Evaluator::new(Box::new(CpuEngine::new()), Limits::default());
        ev.run("a = torch.arange(6).reshape(2, 3)\nb = a.t()");
        let stride = ev.evaluate("b.stride()").unwrap();
        assert!(python_eq(
            &stride,
            &Value::Tuple(vec![Value::Int(1), Value::Int(3)])
        ));
        assert!(!python_eq(
            &stride,
            &Value::List(vec![Value::Int(1), Value::Int(3)])
        ));
        assert!(python_eq(&Value::Size(vec![1, 3]), &stride));
        assert!(python_eq(&Value::Float(1.0), &Value::Bool(true)));
        assert_eq!(ev.repr_value(&stride).unwrap(), "(1, 3)");
        assert!(matches!(ev.evaluate("c"), Err(EvalError::Raised(m)) if m.contains("NameError")));
        assert!(matches!(ev.evaluate("b."), Err(EvalError::Syntax(_))));
        assert_eq!(ev.variables().len(), 2);
        // Python's `==` inside the language too: items of sequences compare as numbers.
        for (expr, want) in [
            ("b.stride() == (1, 3)", true),
            ("[1.0, 2] == [1, 2.0]", true),
            ("(1, 2) == [1, 2]", false),
            ("a.tolist() == [[0, 1, 2], [3, 4, 5]]", true),
        ] {
            assert!(
                matches!(ev.evaluate(expr), Ok(Value::Bool(b)) if b == want),
                "{expr}"
            );
        }
    }
}
