//! The render family's layouts, shader modules and pipelines (made once per engine, and
//! per specialization: `shaders/cells.wgsl`'s dtype, row dims and wrapping, and
//! `shaders/render.wgsl`'s mode and COARSE, LINES, MARKS and HIGHLIGHT flags, so that a CPU
//! rasterizer, which runs every branch under a mask, only runs those that matter).

use crate::engines::gpu::wgsl;
use std::collections::HashMap;

use wgpu::util::DeviceExt;

use crate::engines::gpu::GpuEngine;
use crate::painters::render::GpuView;
use crate::painters::GpuPainter;
use crate::present::render::{colormap_words, Frame, Grid, Mode};

const COMMON_WGSL: &str = wgsl!("common");
const CELLS_WGSL: &str = wgsl!("cells");
const RENDER_WGSL: &str = wgsl!("render");
const MINMAX_WGSL: &str = wgsl!("minmax");

/// Layouts, modules and pipelines of the render family, made once per engine.
#[derive(Default)]
pub(crate) struct RenderCache {
    layouts: Option<Layouts>,
    frame_pipelines: HashMap<FrameKey, wgpu::RenderPipeline>,
    cell_pipelines: HashMap<CellKey, wgpu::ComputePipeline>,
}

/// The specialization of cells.wgsl: dtype code, row dims, wrapped.
type CellKey = (u32, u32, bool);

/// The specialization of a frame pipeline: target format, cells, mode, and the COARSE,
/// LINES, MARKS and HIGHLIGHT flags of render.wgsl.
type FrameKey = (wgpu::TextureFormat, CellKey, u32, [bool; 4]);

#[derive(Clone)]
pub(crate) struct Layouts {
    pub(crate) render_bgl: wgpu::BindGroupLayout,
    pub(crate) render_layout: wgpu::PipelineLayout,
    pub(crate) render_module: wgpu::ShaderModule,
    pub(crate) minmax_bgl: wgpu::BindGroupLayout,
    pub(crate) minmax_layout: wgpu::PipelineLayout,
    pub(crate) minmax_module: wgpu::ShaderModule,
    /// The colormap (`render::colormap_words`), bound at 5 by every frame.
    pub(crate) colormap: wgpu::Buffer,
    pub(crate) build_level: wgpu::ComputePipeline,
    pub(crate) finalize: wgpu::ComputePipeline,
}

fn cell_key(grid: &Grid) -> CellKey {
    (
        crate::engines::gpu::kernels::dtype_code(grid.dtype),
        grid.row_shape.len() as u32,
        grid.wrap_len.is_some(),
    )
}

fn cell_constants((dtype, row_dims, wrapped): CellKey) -> Vec<(&'static str, f64)> {
    vec![
        ("DTYPE", f64::from(dtype)),
        ("ROW_DIMS", f64::from(row_dims)),
        ("WRAPPED", f64::from(u8::from(wrapped))),
    ]
}

pub(crate) fn mode_code(mode: Mode) -> u32 {
    match mode {
        Mode::Heat => 0,
        Mode::Rgb(_) => 1,
        Mode::Tint(_) => 2,
    }
}

fn storage_entry(
    binding: u32,
    stage: wgpu::ShaderStages,
    read_only: bool,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: stage,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

fn uniform_entry(binding: u32, stage: wgpu::ShaderStages) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: stage,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

impl GpuPainter {
    /// The render family's layouts and compute pipelines (made on first use; handles are
    /// cheap clones).
    pub(crate) fn render_layouts(&mut self, gpu: &GpuEngine) -> Layouts {
        if let Some(l) = &self.cache.layouts {
            return l.clone();
        }
        let layouts = self.make_layouts(gpu);
        self.cache.layouts = Some(layouts.clone());
        layouts
    }

    fn make_layouts(&self, gpu: &GpuEngine) -> Layouts {
        let device = &gpu.device();
        let frag = wgpu::ShaderStages::FRAGMENT;
        let comp = wgpu::ShaderStages::COMPUTE;
        let render_bgl = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("stridescope render"),
            entries: &[
                uniform_entry(0, frag),
                storage_entry(1, frag, true),
                uniform_entry(2, frag),
                storage_entry(3, frag, true),
                storage_entry(4, frag, true),
                uniform_entry(5, frag),
            ],
        });
        let minmax_bgl = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("stridescope minmax"),
            entries: &[
                uniform_entry(0, comp),
                storage_entry(1, comp, true),
                uniform_entry(2, comp),
                storage_entry(3, comp, false),
                storage_entry(4, comp, false),
            ],
        });
        let layout = |bgl: &wgpu::BindGroupLayout| {
            device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: None,
                bind_group_layouts: &[Some(bgl)],
                immediate_size: 0,
            })
        };
        let render_layout = layout(&render_bgl);
        let minmax_layout = layout(&minmax_bgl);
        let module = |label: &str, source: String| {
            device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(label),
                source: wgpu::ShaderSource::Wgsl(source.into()),
            })
        };
        let render_module = module(
            "render",
            format!("{COMMON_WGSL}\n{CELLS_WGSL}\n{RENDER_WGSL}"),
        );
        let minmax_module = module(
            "minmax",
            format!("{COMMON_WGSL}\n{CELLS_WGSL}\n{MINMAX_WGSL}"),
        );
        let compute = |entry: &str| {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry),
                layout: Some(&minmax_layout),
                module: &minmax_module,
                entry_point: Some(entry),
                compilation_options: wgpu::PipelineCompilationOptions::default(),
                cache: None,
            })
        };
        let colormap = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("stridescope colormap"),
            contents: bytemuck::cast_slice(&colormap_words()),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        Layouts {
            colormap,
            build_level: compute("build_level"),
            finalize: compute("finalize"),
            render_bgl,
            render_layout,
            render_module,
            minmax_bgl,
            minmax_layout,
            minmax_module,
        }
    }

    /// The pyramid's first-level pipeline for `grid`'s cells (cached per specialization).
    pub(crate) fn cell_pipeline(&mut self, gpu: &GpuEngine, grid: &Grid) -> wgpu::ComputePipeline {
        let key = cell_key(grid);
        if let Some(p) = self.cache.cell_pipelines.get(&key) {
            return p.clone();
        }
        let layouts = self.render_layouts(gpu);
        let constants = cell_constants(key);
        let pipeline = gpu
            .device()
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some("build_cells"),
                layout: Some(&layouts.minmax_layout),
                module: &layouts.minmax_module,
                entry_point: Some("build_cells"),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants: &constants,
                    zero_initialize_workgroup_memory: false,
                },
                cache: None,
            });
        self.cache.cell_pipelines.insert(key, pipeline.clone());
        pipeline
    }

    /// The frame pipeline for `view` and `frame` into targets of `format` (cached per
    /// specialization). Use a non-sRGB format (`Rgba8Unorm`, `Bgra8Unorm`) for the exact
    /// colours.
    pub(crate) fn frame_pipeline(
        &mut self,
        gpu: &GpuEngine,
        format: wgpu::TextureFormat,
        view: &GpuView,
        frame: &Frame,
    ) -> wgpu::RenderPipeline {
        let flags = [
            frame.map.level > 0,
            frame.grid_lines || (frame.separators && view.grid().slice_rows > 0),
            !frame.marks.is_empty(),
            frame.highlight.is_some_and(|h| i32::try_from(h).is_ok()),
        ];
        let cells = cell_key(view.grid());
        let key: FrameKey = (format, cells, mode_code(view.mode()), flags);
        if let Some(p) = self.cache.frame_pipelines.get(&key) {
            return p.clone();
        }
        let layouts = self.render_layouts(gpu);
        let mut constants = cell_constants(cells);
        constants.push(("MODE", f64::from(mode_code(view.mode()))));
        for (name, on) in ["COARSE", "LINES", "MARKS", "HIGHLIGHT"]
            .into_iter()
            .zip(flags)
        {
            constants.push((name, f64::from(u8::from(on))));
        }
        let options = wgpu::PipelineCompilationOptions {
            constants: &constants,
            zero_initialize_workgroup_memory: false,
        };
        let pipeline = gpu
            .device()
            .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some("stridescope frame"),
                layout: Some(&layouts.render_layout),
                vertex: wgpu::VertexState {
                    module: &layouts.render_module,
                    entry_point: Some("vs_main"),
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                    buffers: &[],
                },
                primitive: wgpu::PrimitiveState::default(),
                depth_stencil: None,
                multisample: wgpu::MultisampleState::default(),
                fragment: Some(wgpu::FragmentState {
                    module: &layouts.render_module,
                    entry_point: Some("fs_main"),
                    compilation_options: options,
                    targets: &[Some(wgpu::ColorTargetState {
                        format,
                        blend: None,
                        write_mask: wgpu::ColorWrites::ALL,
                    })],
                }),
                multiview_mask: None,
                cache: None,
            });
        self.cache.frame_pipelines.insert(key, pipeline.clone());
        pipeline
    }
}
