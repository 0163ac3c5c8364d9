//! A module's repr, exactly as `Module.__repr__` writes it: its name, its `extra_repr`
//! lines and each submodule's repr indented by two spaces.

use std::rc::Rc;

use crate::interp::value::{Instance, Value};
use crate::interp::{Evaluator, R};

/// Indents every line but the first by `spaces` (PyTorch's `_addindent`).
fn add_indent(text: &str, spaces: usize) -> String {
    let mut lines = text.split('\n');
    let first = lines.next().unwrap_or("");
    let rest: Vec<String> = lines
        .map(|l| format!("{}{l}", " ".repeat(spaces)))
        .collect();
    if rest.is_empty() {
        first.to_string()
    } else {
        format!("{first}\n{}", rest.join("\n"))
    }
}

impl Evaluator {
    /// `repr(module)`.
    pub(crate) fn module_repr(&mut self, object: &Rc<Instance>) -> R<String> {
        self.check_depth()?;
        let extra = {
            let method = self.instance_attribute(object, "extra_repr")?;
            match self.call(method, vec![], vec![])? {
                Value::Str(s) => s,
                other => self.str_of(&other)?,
            }
        };
        let name = {
            let method = self.instance_attribute(object, "_get_name")?;
            match self.call(method, vec![], vec![])? {
                Value::Str(s) => s,
                other => self.str_of(&other)?,
            }
        };
        let extra_lines: Vec<String> = if extra.is_empty() {
            Vec::new()
        } else {
            extra.split('\n').map(str::to_string).collect()
        };
        let children: Vec<(String, Option<Rc<Instance>>)> = object
            .module
            .borrow()
            .as_ref()
            .map(|s| s.modules.clone())
            .unwrap_or_default();
        let mut child_lines = Vec::with_capacity(children.len());
        for (key, module) in children {
            let text = match module {
                Some(m) => {
                    self.count_step()?;
                    self.scope.push_frame(Vec::new());
                    let text = self.instance_repr(&m);
                    self.scope.pop_frame();
                    text?
                }
                None => "None".to_string(),
            };
            child_lines.push(format!("({key}): {}", add_indent(&text, 2)));
        }
        let mut out = format!("{name}(");
        if extra_lines.len() == 1 && child_lines.is_empty() {
            out.push_str(&extra_lines[0]);
        } else if !extra_lines.is_empty() || !child_lines.is_empty() {
            let lines: Vec<String> = extra_lines.into_iter().chain(child_lines).collect();
            out.push_str("\n  ");
            out.push_str(&lines.join("\n  "));
            out.push('\n');
        }
        out.push(')');
        Ok(out)
    }
}
