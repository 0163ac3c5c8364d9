//! Pure presentation (no DOM, no wgpu): what the views draw, computed from a trace. Cell
//! plans and markup, render plans for large views, the frame cache, exports, share links,
//! the message catalogs and the lesson view.

pub mod cells;
pub mod export;
pub mod frame_cache;
pub mod i18n;
pub mod lesson_view;
pub mod memory_changes;
pub mod memory_timeline;
pub mod memory_units;
pub mod render;
pub mod share;
