//! Exceptions as a script handles them: `try`/`except`/`else`/`finally`, `raise`, `assert`,
//! and exception objects (`except RuntimeError as e: print(e)`). An error of PyTorch or of
//! the script is a [`ScriptError`]; catching one binds it as a value, and Python's class
//! hierarchy decides which `except` clause takes it. The step limit is never caught.

use crate::core::tensor::error::is_exception_subclass;
use crate::core::tensor::ScriptError;
use crate::interp::python::statements::Flow;
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};
use crate::lang::ast::{ExceptHandler, Expr, Statement};

impl Evaluator {
    /// Runs a `try` statement.
    pub(crate) fn exec_try(
        &mut self,
        body: &[Statement],
        handlers: &[ExceptHandler],
        orelse: &[Statement],
        finalbody: &[Statement],
    ) -> R<Flow> {
        let error_line = self.recorder.error_line;
        let first_substep = self.recorder.substeps.len();
        let result = match self.exec_block(body) {
            Err(error) if !self.stopped => match self.handler_for(handlers, &error) {
                Ok(Some(handler)) => {
                    self.recorder.error_line = error_line;
                    // The sub-steps that raised it show where it was caught.
                    let text = error.to_string();
                    for step in self.recorder.substeps.iter_mut().skip(first_substep) {
                        if step.error.as_deref() == Some(text.as_str()) && step.caught_by.is_none()
                        {
                            step.caught_by = Some(handler.line);
                        }
                    }
                    self.handle(handler, error)
                }
                Ok(None) => Err(error),
                Err(e) => Err(e),
            },
            Ok(Flow::Next(_)) => self.exec_block(orelse),
            other => other,
        };
        if finalbody.is_empty() || self.stopped {
            return result;
        }
        // `finally` always runs; a `return` or an exception in it replaces the result.
        let pending_line = self.recorder.error_line;
        self.recorder.error_line = error_line;
        match self.exec_block(finalbody)? {
            Flow::Next(_) => {
                if result.is_err() {
                    self.recorder.error_line = pending_line;
                }
                result
            }
            other => Ok(other),
        }
    }

    /// The first handler whose class matches `error` (a bare `except` matches all).
    fn handler_for<'h>(
        &mut self,
        handlers: &'h [ExceptHandler],
        error: &ScriptError,
    ) -> R<Option<&'h ExceptHandler>> {
        for handler in handlers {
            let Some(kind) = &handler.kind else {
                return Ok(Some(handler));
            };
            let classes = match self.eval(kind)? {
                Value::Tuple(items) => items,
                one => vec![one],
            };
            for class in classes {
                let Value::ExceptionType(name) = class else {
                    return Err(ScriptError::Type(
                        "catching classes that do not inherit from BaseException is not allowed"
                            .into(),
                    ));
                };
                if is_exception_subclass(error.class_name(), &name) {
                    return Ok(Some(handler));
                }
            }
        }
        Ok(None)
    }

    /// Runs `handler` for `error`: the exception is bound to the handler's name while it runs
    /// (and unbound after, as Python does).
    fn handle(&mut self, handler: &ExceptHandler, error: ScriptError) -> R<Flow> {
        if let Some(name) = &handler.name {
            self.scope.bind(name, Value::Exception(error.clone()));
        }
        self.handling.push(error);
        let result = self.exec_block(&handler.body);
        self.handling.pop();
        if let Some(name) = &handler.name {
            self.scope.unbind(name);
        }
        result
    }

    /// The exception `raise` or `raise value` raises.
    pub(crate) fn raise(&mut self, value: Option<&Expr>) -> R<ScriptError> {
        let Some(expr) = value else {
            return Ok(self
                .handling
                .last()
                .cloned()
                .unwrap_or_else(|| ScriptError::Runtime("No active exception to reraise".into())));
        };
        match self.eval(expr)? {
            Value::Exception(e) => Ok(e),
            Value::ExceptionType(class) => Ok(ScriptError::from_class(&class, String::new())),
            _ => Err(ScriptError::Type(
                "exceptions must derive from BaseException".into(),
            )),
        }
    }

    /// `assert test, message`.
    pub(crate) fn assert(&mut self, test: &Expr, message: Option<&Expr>) -> R<()> {
        let value = self.eval(test)?;
        if self.truthy(&value)? {
            return Ok(());
        }
        let message = match message {
            Some(expr) => {
                let v = self.eval(expr)?;
                self.str_of(&v)?
            }
            None => String::new(),
        };
        Err(ScriptError::Other {
            class: "AssertionError".into(),
            message,
        })
    }

    /// `RuntimeError("message")`: a new exception object.
    pub(crate) fn new_exception(&mut self, class: &str, args: &[Value]) -> R<Value> {
        let message = match args {
            [] => String::new(),
            [one] => self.str_of(one)?,
            many => self.repr(&Value::Tuple(many.to_vec()))?,
        };
        Ok(Value::Exception(ScriptError::from_class(class, message)))
    }

    /// `e.args`, `e.__class__`, and a class's `__name__`.
    pub(crate) fn exception_attribute(&mut self, object: &Value, name: &str) -> R<Value> {
        match (object, name) {
            (Value::Exception(e), "args") => Ok(Value::Tuple(if e.message().is_empty() {
                vec![]
            } else {
                vec![Value::Str(e.message().to_string())]
            })),
            (Value::Exception(e), "__class__") => {
                Ok(Value::ExceptionType(e.class_name().to_string()))
            }
            (Value::ExceptionType(class), "__name__" | "__qualname__") => {
                Ok(Value::Str(class.clone()))
            }
            _ => Err(ScriptError::Attribute(format!(
                "'{}' object has no attribute '{name}'",
                object.type_name()
            ))),
        }
    }
}
