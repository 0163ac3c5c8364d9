//! Classes a notebook defines: methods, attributes, inheritance with `super()`, the special
//! methods the builtins call, tensors held by instances, the refusals of what is not
//! supported yet, and the limits. The pure-Python scripts of `tests/fixtures/classes/` print
//! what CPython 3.11 printed for them (the `.out` beside each, recorded with `python3`).

use stridescope::core::trace::{Step, Trace};
use stridescope::engines::CpuEngine;
use stridescope::interp::{trace_script, Evaluator, Limits};

/// Everything the script printed, and each top-level step's error, in order.
fn printed(trace: &Trace) -> String {
    let mut out = String::new();
    for step in &trace.steps {
        out.push_str(step.stdout.as_deref().unwrap_or(""));
        if let Some(error) = &step.error {
            out.push_str(&format!("line {}: {error}\n", step.line));
        }
    }
    out
}

fn errors(trace: &Trace) -> Vec<Option<&str>> {
    trace.steps.iter().map(|s| s.error.as_deref()).collect()
}

fn step_at(trace: &Trace, line: usize) -> &Step {
    trace
        .steps
        .iter()
        .find(|s| s.line == line)
        .unwrap_or_else(|| panic!("no step at line {line}"))
}

#[test]
fn a_counter_class_prints_what_cpython_prints() {
    let trace = trace_script(include_str!("fixtures/classes/counter.py"));
    assert_eq!(
        printed(&trace),
        include_str!("fixtures/classes/counter.out")
    );
}

#[test]
fn inheritance_and_super_print_what_cpython_prints() {
    let trace = trace_script(include_str!("fixtures/classes/inheritance.py"));
    assert_eq!(
        printed(&trace),
        include_str!("fixtures/classes/inheritance.out")
    );
}

#[test]
fn static_and_class_methods_and_special_methods_print_what_cpython_prints() {
    let trace = trace_script(include_str!("fixtures/classes/protocols.py"));
    assert_eq!(
        printed(&trace),
        include_str!("fixtures/classes/protocols.out")
    );
}

#[test]
fn a_dataset_class_is_indexed_measured_and_iterated() {
    let trace = trace_script(
        "class Squares:
    def __init__(self, n):
        self.x = torch.arange(n * 2).reshape(n, 2)

    def __len__(self):
        return self.x.shape[0]

    def __getitem__(self, i):
        return self.x[i] ** 2

ds = Squares(3)
len(ds)
ds[1]
for row in ds:
    print(row.tolist())
batch = [ds[i] for i in range(len(ds))]
ds[3]",
    );
    assert_eq!(errors(&trace)[..6], [None; 6]);
    assert_eq!(step_at(&trace, 12).output.as_deref(), Some("3"));
    assert_eq!(
        step_at(&trace, 13).output.as_deref(),
        Some("tensor([4, 9])")
    );
    // Iteration calls `__getitem__` with 0, 1, 2, ... until it raises IndexError.
    assert_eq!(
        step_at(&trace, 14).output.as_deref(),
        Some("[0, 1]\n[4, 9]\n[16, 25]")
    );
    assert_eq!(
        step_at(&trace, 17).error.as_deref(),
        Some("IndexError: index 3 is out of bounds for dimension 0 with size 3")
    );
}

#[test]
fn each_statement_a_method_runs_is_a_sub_step() {
    let trace = trace_script(
        "class Model:
    def __init__(self, n):
        self.w = torch.ones(n)
        self.steps = 0

    def __call__(self, x):
        self.steps += 1
        y = x * self.w
        return y.sum()

m = Model(3)
out = m(torch.arange(3.0))",
    );
    let class = step_at(&trace, 1);
    let lines: Vec<usize> = class.substeps.iter().map(|s| s.line).collect();
    assert_eq!(lines, [2, 6], "the class body runs its two `def`s");
    let init = step_at(&trace, 11);
    let lines: Vec<usize> = init.substeps.iter().map(|s| s.line).collect();
    assert_eq!(lines, [3, 4]);
    let call = step_at(&trace, 12);
    let sources: Vec<&str> = call.substeps.iter().map(|s| s.source.as_str()).collect();
    assert_eq!(
        sources,
        ["self.steps += 1", "y = x * self.w", "return y.sum()"]
    );
    assert_eq!(call.error, None);
    let out = call.tensors.iter().find(|t| t.name == "out").unwrap();
    assert_eq!(out.shape, Vec::<i64>::new());
}

#[test]
fn tensors_held_by_an_instance_live_as_long_as_it_does() {
    let trace = trace_script(
        "class Holder:
    scale = torch.ones(2)

    def __init__(self, n):
        self.w = torch.zeros(n)
        self.cache = [torch.arange(3)]

    def bump(self):
        self.w += 1
        return self.w.sum()

h = Holder(4)
w = h.w
del w
h.bump()
del h
del Holder",
    );
    assert!(errors(&trace).iter().all(Option::is_none), "{trace:?}");
    let live: Vec<usize> = trace.steps.iter().map(|s| s.live_bytes).collect();
    // The class attribute's 8 bytes; then the instance's 16 + 24; `del w` keeps the storage
    // the instance holds; `del h` frees the instance's; `del Holder` the class's.
    assert_eq!(live, [8, 48, 48, 48, 48, 8, 0]);
    // Only variables bound to tensors are the trace's tensors; what an instance holds is
    // in its storages.
    let made = step_at(&trace, 12);
    assert!(made.tensors.is_empty());
    assert_eq!(made.storages.len(), 3);
    assert_eq!(
        step_at(&trace, 13)
            .tensors
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>(),
        ["w"]
    );
    let bumped = step_at(&trace, 15);
    assert_eq!(bumped.output.as_deref(), Some("tensor(4.)"));
    // `self.w += 1` wrote the instance's storage in place.
    let w = bumped.storages.iter().find(|s| s.nbytes == 16).unwrap();
    let values: Vec<f64> = w
        .values
        .as_ref()
        .unwrap()
        .iter()
        .map(|v| v.0.to_f64())
        .collect();
    assert_eq!(values, [1.0; 4]);
}

#[test]
fn an_instance_that_holds_itself_is_freed_with_its_tensors() {
    let trace = trace_script(
        "class Node:
    def __init__(self, data, parent=None):
        self.data = data
        self.parent = parent
        self.me = self

root = Node(torch.zeros(2))
leaf = Node(torch.zeros(3), root)
del root
del leaf",
    );
    let live: Vec<usize> = trace.steps.iter().map(|s| s.live_bytes).collect();
    assert_eq!(live, [0, 8, 20, 20, 0]);
}

#[test]
fn a_list_attribute_changed_in_a_method_stays_changed() {
    let trace = trace_script(
        "class Log:
    def __init__(self):
        self.items = []
        self.grid = [[0, 0], [0, 0]]

    def add(self, x):
        self.items.append(x)
        self.grid[1][0] = x

log = Log()
log.add(1)
log.add(2)
print(log.items, log.grid)",
    );
    assert_eq!(printed(&trace), "[1, 2] [[0, 0], [2, 0]]\n");
}

#[test]
fn errors_have_python_s_text_and_the_script_goes_on() {
    let trace = trace_script(
        "class Foo:
    def __init__(self, x):
        self.x = x

Foo()
Foo(1, 2)
Foo(1).y
Foo(1)()
len(Foo(1))
Foo(1)[0]
Foo(2).x",
    );
    assert_eq!(
        errors(&trace),
        [
            None,
            Some("TypeError: Foo.__init__() missing 1 required positional argument: 'x'"),
            Some("TypeError: Foo.__init__() takes 2 positional arguments but 3 were given"),
            Some("AttributeError: 'Foo' object has no attribute 'y'"),
            Some("TypeError: 'Foo' object is not callable"),
            Some("TypeError: object of type 'Foo' has no len()"),
            Some("TypeError: 'Foo' object is not subscriptable"),
            None,
        ]
    );
    assert_eq!(trace.steps[7].output.as_deref(), Some("2"));
}

#[test]
fn what_is_not_supported_yet_is_refused_at_the_class_line() {
    let trace = trace_script(
        "import torch.nn as nn
class Meta(metaclass=type):
    pass
class Slots:
    __slots__ = ('a',)
class Lazy:
    def __getattr__(self, name):
        return 0
class Prop:
    @property
    def size(self):
        return 1
class A:
    pass
class B:
    pass
class AB(A, B):
    pass
class Num(int):
    pass
class Later(Undefined):
    pass
print('still running')",
    );
    let refusals: Vec<(usize, &str)> = trace
        .steps
        .iter()
        .filter_map(|s| s.error.as_deref().map(|e| (s.line, e)))
        .collect();
    assert_eq!(
        refusals,
        [
            (
                2,
                "NotImplementedError: a metaclass (metaclass=) is not supported here yet"
            ),
            (
                4,
                "NotImplementedError: '__slots__' in a class is not supported here yet"
            ),
            (
                6,
                "NotImplementedError: '__getattr__' in a class is not supported here yet"
            ),
            (
                9,
                "NotImplementedError: '@property' in a class is not supported here yet"
            ),
            (
                17,
                "NotImplementedError: a class with several base classes is not supported here yet"
            ),
            (
                19,
                "NotImplementedError: a class derived from int is not supported here yet"
            ),
            (21, "NameError: name 'Undefined' is not defined"),
        ]
    );
    // A refused class binds nothing, and the script goes on.
    let last = trace.steps.last().unwrap();
    assert_eq!(last.output.as_deref(), Some("still running"));
    assert!(step_at(&trace, 2).substeps.is_empty(), "its body never ran");
}

#[test]
fn endless_recursion_through_methods_is_python_s_recursion_error() {
    let trace = trace_script(
        "class Loop:
    def again(self):
        return self.again()

    def __call__(self):
        return self()

    def __repr__(self):
        return repr(self)

    def __getitem__(self, i):
        return self[i]

class Forever:
    def __init__(self):
        self.child = Forever()

Loop().again()
Loop()()
repr(Loop())
Loop()[0]
Forever()
print('after')",
    );
    let recursion = Some("RecursionError: maximum recursion depth exceeded");
    assert_eq!(
        errors(&trace),
        [None, None, recursion, recursion, recursion, recursion, recursion, None]
    );
}

#[test]
fn methods_count_against_the_step_limit() {
    let limits = Limits {
        max_statements: 200,
        ..Limits::default()
    };
    let mut evaluator = Evaluator::new(Box::new(CpuEngine::new()), limits);
    let trace = evaluator.run(
        "class Spin:
    def run(self):
        n = 0
        while True:
            n += 1

Spin().run()
print('not reached')",
    );
    assert_eq!(trace.steps.len(), 2, "the script stops at the limit");
    assert!(trace.steps[1]
        .error
        .as_deref()
        .unwrap()
        .starts_with("RuntimeError: Stridescope stops after 200 executed statements"));
}

#[test]
fn a_long_chain_of_instances_is_walked_and_freed_without_a_deep_stack() {
    let trace = trace_script(
        "class Node:
    def __init__(self, nxt):
        self.next = nxt

head = Node(torch.zeros(1))
for i in range(20000):
    head = Node(head)
del head
print('done')",
    );
    let live: Vec<usize> = trace.steps.iter().map(|s| s.live_bytes).collect();
    assert_eq!(live, [0, 4, 4, 0, 0]);
    assert_eq!(trace.steps[4].output.as_deref(), Some("done"));
}

#[test]
fn decorators_apply_to_functions_and_classes() {
    let trace = trace_script(
        "registry = []

def register(f):
    registry.append(f.__name__)
    return f

@register
def inc(x):
    return x + 1

def tag(cls):
    cls.tagged = True
    return cls

@tag
class T:
    pass

print(inc(1), T.tagged, registry)",
    );
    assert_eq!(printed(&trace), "2 True ['inc']\n");
}

#[test]
fn super_outside_a_method_is_python_s_runtime_error() {
    let trace = trace_script(
        "def f():
    return super()

f()
class A:
    @staticmethod
    def s():
        return super()

A.s()",
    );
    let no_arguments = Some("RuntimeError: super(): no arguments");
    assert_eq!(errors(&trace), [None, no_arguments, None, no_arguments]);
}
