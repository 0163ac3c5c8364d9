//! Recording a step: the values of tensors and storages (within the trace's budget,
//! `Limits::max_recorded_elements` and `max_recorded_total`) and the state after a statement.

use crate::interp::*;

impl Evaluator {
    /// Whether `n` more values may be recorded (and counts them when they may).
    pub(crate) fn may_record(&mut self, n: usize) -> bool {
        if n > self.limits.max_recorded_elements {
            return false;
        }
        let total = self.recorded_values.saturating_add(n);
        if n > ALWAYS_RECORDED && total > self.limits.max_recorded_total {
            return false;
        }
        self.recorded_values = total;
        true
    }

    pub(crate) fn record_values(&mut self, view: &Tensor) -> Option<Vec<TraceScalar>> {
        if !self.may_record(view.numel().max(0) as usize) {
            return None;
        }
        Some(
            self.engine
                .values(view)
                .into_iter()
                .map(TraceScalar)
                .collect(),
        )
    }

    pub(crate) fn finish_step(
        &mut self,
        mut step: Step,
        before: &[(String, Option<TensorRef>)],
    ) -> Step {
        let vars: Vec<(String, TensorRef)> = self
            .vars
            .iter()
            .filter_map(|(n, v)| {
                if let Value::Tensor(t) = v {
                    Some((n.clone(), t.clone()))
                } else {
                    None
                }
            })
            .collect();
        for (name, t) in &vars {
            let storage = t.borrow().tensor.storage;
            self.owners.entry(storage).or_insert_with(|| name.clone());
        }
        self.owners.retain(|id, _| self.storages.contains_key(id));
        step.explain = self.step_explain.take();
        self.record_arrays(&mut step);
        for (name, t) in &vars {
            let obj = t.borrow().clone();
            let tensor = &obj.tensor;
            let info = self.storages.get(&tensor.storage).cloned();
            let values = self.record_values(tensor);
            step.tensors.push(TensorRecord {
                name: name.clone(),
                dtype: tensor.dtype.name().to_string(),
                shape: tensor.layout.shape.clone(),
                stride: tensor.layout.strides.clone(),
                storage_offset: tensor.layout.offset,
                storage: self.storage_key(tensor.storage),
                storage_nbytes: info.map(|i| i.nbytes).unwrap_or(0),
                contiguous: tensor.layout.is_contiguous(),
                channels_last: tensor.layout.is_channels_last_contiguous(),
                element_size: tensor.dtype.item_size(),
                values,
                ndarray_strides: None,
                requires_grad: obj.requires_grad && obj.grad_fn.is_none(),
                grad_fn: obj.grad_fn.as_ref().map(|node| node.name().to_string()),
            });
            let previous = before
                .iter()
                .find(|(n, _)| n == name)
                .and_then(|(_, t)| t.clone());
            let is_new = previous.map(|p| !Rc::ptr_eq(&p, t)).unwrap_or(true);
            if is_new && step.error.is_none() {
                let fresh = self.step_new_storages.contains(&tensor.storage);
                let (kind, of) = if !fresh {
                    let sharers: Vec<String> = before
                        .iter()
                        .filter_map(|(n, bt)| bt.as_ref().map(|bt| (n, bt)))
                        .filter(|(_, bt)| {
                            self.memory_root(bt.borrow().tensor.storage)
                                == self.memory_root(tensor.storage)
                        })
                        .map(|(n, _)| n.clone())
                        .collect();
                    ("view", sharers)
                } else if let Some(src) = obj.copied_from {
                    ("copy", vec![src.to_string()])
                } else {
                    ("new", Vec::new())
                };
                step.created.push(Creation {
                    name: name.clone(),
                    op: obj.made_by.clone(),
                    kind: kind.to_string(),
                    storage: self.storage_key(tensor.storage),
                    of,
                });
            }
        }
        let ids: Vec<(StorageId, StorageInfo)> =
            self.storages.iter().map(|(k, v)| (*k, v.clone())).collect();
        for (id, info) in ids {
            if !self.has_storage_record(id) {
                continue;
            }
            let n = info.nbytes / info.dtype.item_size();
            let values = if !self.may_record(n) {
                None
            } else {
                let bytes = self.engine.read_storage(id);
                Some(
                    (0..n)
                        .map(|i| TraceScalar(info.dtype.read(&bytes, i)))
                        .collect(),
                )
            };
            step.storages.push(StorageRecord {
                owner: self.owners.get(&id).cloned(),
                id: self.storage_key(id),
                dtype: info.dtype.name().to_string(),
                nbytes: info.nbytes,
                values,
                uninitialized: info.uninitialized,
            });
        }
        let writes = std::mem::take(&mut self.step_writes);
        for (id, size, offsets) in writes {
            if self.storages.contains_key(&id) {
                step.writes.push(WriteRecord {
                    storage: self.storage_key(id),
                    element_size: size,
                    offsets,
                });
            }
        }
        step.allocated_bytes = self.step_allocated;
        step.live_bytes = self.live_bytes();
        step
    }
}
