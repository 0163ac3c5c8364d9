//! The pieces of one split as one node. PyTorch records a single `SplitBackward0` (or
//! `SplitWithSizesBackward0`, `UnbindBackward0`...) for all the outputs of a `split`,
//! `chunk` or `unbind`: it waits in the engine until every piece's gradient is in its input
//! buffer, then concatenates them once (zeros where no gradient reached a piece). Here each
//! piece has a node of its own, so that a tensor finds its `grad_fn`; the pieces of one call
//! share a group (their [`GROUP_ARG`]), and the engine holds their gradients as that buffer
//! does and joins them at the group's last piece.

use std::collections::HashMap;
use std::rc::Rc;

use crate::interp::torch::autograd::formulas::Backward;
use crate::interp::torch::autograd::formulas_index::{join_pieces, piece_place, PIECE};
use crate::interp::torch::autograd::GradNode;
use crate::interp::value::Value;
use crate::interp::{Evaluator, R};

/// The argument naming a piece's group: the sequence number of the call's first piece.
pub(crate) const GROUP_ARG: &str = "pieces";

/// The group of a piece's node, if it is one.
pub(crate) fn group_of(node: &GradNode) -> Option<i64> {
    if !node.formula.is_some_and(|f| std::ptr::eq(f, &PIECE)) {
        return None;
    }
    node.args.iter().find_map(|(name, v)| match v {
        Value::Int(g) if name == GROUP_ARG => Some(*g),
        _ => None,
    })
}

/// The groups of one run of the engine: each group's pieces (by item) and how many of them
/// still wait for a gradient (the group is ready, as PyTorch's one node is, when none
/// does), how many it has still to visit, and the gradients that arrived.
#[derive(Default)]
pub(crate) struct PieceGroups {
    members: HashMap<i64, Vec<usize>>,
    waiting: HashMap<i64, usize>,
    released: std::collections::HashSet<i64>,
    remaining: HashMap<i64, usize>,
    arrived: HashMap<i64, Vec<(Rc<GradNode>, Value)>>,
}

impl PieceGroups {
    /// Counts a piece the run will visit: item `key`, waiting for `deps` gradients.
    pub(crate) fn expect(&mut self, group: i64, key: usize, deps: usize) {
        *self.remaining.entry(group).or_default() += 1;
        self.members.entry(group).or_default().push(key);
        let waiting = self.waiting.entry(group).or_default();
        if deps > 0 {
            *waiting += 1;
        }
    }

    /// Notes that a piece of `group` has all its gradients (`now`: it just got its last);
    /// returns the group's pieces, to run one after the other, once none waits.
    pub(crate) fn ready(&mut self, group: i64, now: bool) -> Option<Vec<usize>> {
        let waiting = self.waiting.entry(group).or_default();
        if now {
            *waiting = waiting.saturating_sub(1);
        }
        if *waiting > 0 || !self.released.insert(group) {
            return None;
        }
        let mut members = self.members.get(&group).cloned().unwrap_or_default();
        members.sort_unstable();
        Some(members)
    }

    /// Notes the visit of a piece of `group`, with its gradient if one arrived; returns the
    /// group's gradients once its last piece was visited.
    pub(crate) fn arrive(
        &mut self,
        group: i64,
        piece: Option<(Rc<GradNode>, Value)>,
    ) -> Option<Vec<(Rc<GradNode>, Value)>> {
        if let Some(piece) = piece {
            self.arrived.entry(group).or_default().push(piece);
        }
        let left = self.remaining.entry(group).or_insert(1);
        *left = left.saturating_sub(1);
        if *left > 0 {
            return None;
        }
        self.remaining.remove(&group);
        self.arrived.remove(&group)
    }
}

impl Evaluator {
    /// The gradient of the pieces' input, from the gradients that reached them.
    pub(crate) fn join_piece_grads(
        &mut self,
        pieces: &[(Rc<GradNode>, Value)],
    ) -> R<Option<Value>> {
        let Some(shape) = pieces
            .first()
            .and_then(|(node, _)| node.operands.first())
            .map(|o| o.shape.clone())
        else {
            return Ok(None);
        };
        let mut placed = Vec::with_capacity(pieces.len());
        for (node, grad) in pieces {
            placed.push(piece_place(self, &Backward { node, grad })?);
        }
        join_pieces(self, &shape, placed)
    }
}
