//! Frames presented on a surface: in the browser, a canvas's WebGPU context configured on the
//! engine's device. A frame is one render pass of [`GpuPainter::encode_frame`] into the
//! surface's current texture: no copy, no read-back. The surface comes from the engine's own
//! instance ([`GpuEngine::instance`]); the shell that owns the canvas makes it, this module
//! knows no page.

use crate::engines::gpu::GpuEngine;
use crate::painters::render::{FrameTarget, GpuView};
use crate::painters::GpuPainter;
use crate::present::render::Frame;

/// Why a frame was not presented.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PresentIssue {
    /// The surface cannot give textures (its configuration was refused, or it is lost): draw
    /// elsewhere from now on.
    #[error("the canvas's WebGPU context gives no texture ({0})")]
    Lost(&'static str),
    /// No texture this time (the surface is occluded or busy): try the next frame.
    #[error("the canvas's WebGPU context skipped a frame ({0})")]
    Skipped(&'static str),
}

/// A surface configured on the engine's device, presenting frames of one view.
pub struct Presenter {
    surface: wgpu::Surface<'static>,
    format: wgpu::TextureFormat,
    alpha_mode: wgpu::CompositeAlphaMode,
    /// The size it is configured for (device pixels); None before the first frame.
    size: Option<(u32, u32)>,
}

impl Presenter {
    /// A presenter drawing into `surface` (made with [`GpuEngine::instance`]): 8-bit RGBA or
    /// BGRA without sRGB encoding (the colours are the canvas-2D painter's bytes), alpha
    /// premultiplied where it can be (outside the grid a frame is transparent).
    pub fn new(gpu: &GpuEngine, surface: wgpu::Surface<'static>) -> Presenter {
        let caps = surface.get_capabilities(gpu.adapter());
        let format = caps
            .formats
            .iter()
            .copied()
            .find(|f| {
                matches!(
                    f,
                    wgpu::TextureFormat::Rgba8Unorm | wgpu::TextureFormat::Bgra8Unorm
                )
            })
            .unwrap_or(wgpu::TextureFormat::Rgba8Unorm);
        // A WebGPU canvas takes "premultiplied" although wgpu lists only "opaque" for it
        // (its configure maps both).
        let alpha_mode = if cfg!(target_arch = "wasm32")
            || caps
                .alpha_modes
                .contains(&wgpu::CompositeAlphaMode::PreMultiplied)
        {
            wgpu::CompositeAlphaMode::PreMultiplied
        } else {
            caps.alpha_modes
                .first()
                .copied()
                .unwrap_or(wgpu::CompositeAlphaMode::Auto)
        };
        Presenter {
            surface,
            format,
            alpha_mode,
            size: None,
        }
    }

    /// The format frames are drawn in.
    pub fn format(&self) -> wgpu::TextureFormat {
        self.format
    }

    /// Configures the surface for `size` device pixels (in the browser this also sizes the
    /// canvas's drawing buffer).
    fn configure(&mut self, gpu: &GpuEngine, size: (u32, u32)) {
        self.surface.configure(
            gpu.device(),
            &wgpu::SurfaceConfiguration {
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
                format: self.format,
                width: size.0.max(1),
                height: size.1.max(1),
                present_mode: wgpu::PresentMode::Fifo,
                desired_maximum_frame_latency: 2,
                alpha_mode: self.alpha_mode,
                view_formats: vec![],
                color_space: wgpu::SurfaceColorSpace::Auto,
            },
        );
        self.size = Some(size);
    }

    /// Draws `frame` of `view` into the surface's current texture and presents it: one
    /// render pass, submitted. The first frame (and a frame of another size) configures the
    /// surface first.
    pub fn present(
        &mut self,
        gpu: &GpuEngine,
        painter: &mut GpuPainter,
        view: &mut GpuView,
        frame: &Frame,
    ) -> Result<(), PresentIssue> {
        if self.size != Some(frame.size) {
            self.configure(gpu, frame.size);
        }
        let texture = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t)
            | wgpu::CurrentSurfaceTexture::Suboptimal(t) => t,
            wgpu::CurrentSurfaceTexture::Timeout => return Err(PresentIssue::Skipped("timeout")),
            wgpu::CurrentSurfaceTexture::Occluded => return Err(PresentIssue::Skipped("occluded")),
            wgpu::CurrentSurfaceTexture::Outdated => {
                // Configured again for the next frame.
                self.size = None;
                return Err(PresentIssue::Skipped("outdated"));
            }
            wgpu::CurrentSurfaceTexture::Lost => return Err(PresentIssue::Lost("lost")),
            wgpu::CurrentSurfaceTexture::Validation => {
                return Err(PresentIssue::Lost("validation error"))
            }
        };
        let target = texture
            .texture
            .create_view(&wgpu::TextureViewDescriptor::default());
        painter.draw_frame(
            gpu,
            view,
            frame,
            FrameTarget {
                view: &target,
                format: self.format,
            },
        );
        gpu.queue().present(texture);
        Ok(())
    }
}

/// Resolves once the GPU has finished the work submitted before the call (no read-back:
/// the queue's own signal). Natively it waits.
pub fn work_done(gpu: &GpuEngine) -> impl std::future::Future<Output = ()> + 'static {
    let (future, resolve) = crate::engines::gpu::kernels::oneshot();
    gpu.queue().on_submitted_work_done(move || resolve(()));
    #[cfg(not(target_arch = "wasm32"))]
    let _ = gpu.device().poll(wgpu::PollType::wait_indefinitely());
    future
}
