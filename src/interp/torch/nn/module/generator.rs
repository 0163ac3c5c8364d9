//! The generators `Module`'s walks return (`model.parameters()`, `named_modules()`, ...):
//! `next(model.parameters())` gives the first parameter, a loop or `list()` takes what is
//! left, and a second `list()` of the same generator is empty; `len()` and indexing are
//! refused as Python refuses them for a generator. The items are taken when the walk is
//! called.

use std::cell::RefCell;
use std::rc::Rc;

use crate::interp::torch::nn::module::ModuleDef;
use crate::interp::torch::utils::iterators::stop_iteration;
use crate::interp::value::{Instance, Value};
use crate::interp::{Evaluator, R};

/// Where a generator keeps its items, the next one's place and its function's name.
const ITEMS: &str = "\0items";
const AT: &str = "\0at";
const QUALNAME: &str = "\0qualname";

/// The `generator` class.
pub(crate) static CLASSES: &[ModuleDef] = &[ModuleDef {
    name: "generator",
    path: "builtins",
    base: None,
    init: None,
    forward: None,
    extra_repr: None,
    methods: &[
        ("__iter__", |_, o, _, _| Ok(Value::Instance(Rc::clone(o)))),
        ("__next__", |_, o, _, _| next(o)),
        ("__repr__", |_, o, _, _| {
            let name = match get(o, QUALNAME) {
                Value::Str(name) => name,
                _ => String::new(),
            };
            let address = 0x7f2c_0000_0000_u64 + (Rc::as_ptr(o) as usize as u64 & 0xff_fff0);
            Ok(Value::Str(format!(
                "<generator object {name} at 0x{address:x}>"
            )))
        }),
    ],
    class_methods: &[],
}];

fn get(o: &Rc<Instance>, name: &str) -> Value {
    o.attrs
        .borrow()
        .iter()
        .find(|(n, _)| n == name)
        .map_or(Value::None, |(_, v)| v.clone())
}

/// `next(generator)`: the next item, or `StopIteration` once all were given.
fn next(o: &Rc<Instance>) -> R<Value> {
    let Value::Int(at) = get(o, AT) else {
        return Err(stop_iteration());
    };
    let mut attrs = o.attrs.borrow_mut();
    let item = attrs
        .iter()
        .find(|(n, _)| n == ITEMS)
        .and_then(|(_, v)| match v {
            Value::List(items) => items.get(at as usize).cloned(),
            _ => None,
        });
    let Some(item) = item else {
        // An exhausted generator lets its items go.
        if let Some(slot) = attrs.iter_mut().find(|(n, _)| n == ITEMS) {
            slot.1 = Value::List(Vec::new());
        }
        return Err(stop_iteration());
    };
    if let Some(slot) = attrs.iter_mut().find(|(n, _)| n == AT) {
        slot.1 = Value::Int(at + 1);
    }
    Ok(item)
}

impl Evaluator {
    /// A generator over `items` (a list; anything else is returned as it is), as the
    /// function `qualname` (`Module.parameters`) returns it.
    pub(crate) fn module_generator(&mut self, items: Value, qualname: &str) -> Value {
        let Value::List(items) = items else {
            return items;
        };
        let Some(class) = self.nn_class("generator") else {
            return Value::List(items);
        };
        Value::Instance(Rc::new(Instance {
            class,
            attrs: RefCell::new(vec![
                (ITEMS.to_string(), Value::List(items)),
                (AT.to_string(), Value::Int(0)),
                (QUALNAME.to_string(), Value::Str(qualname.to_string())),
            ]),
            module: RefCell::new(None),
        }))
    }
}
