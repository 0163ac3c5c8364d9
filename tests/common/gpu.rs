//! One GPU device per test binary, shared by the tests that need one (`gpu.rs`,
//! `render_gpu.rs`). Natively Mesa's lavapipe is enough; without an adapter the tests FAIL:
//! they never skip.

use std::sync::{Mutex, MutexGuard, OnceLock};

use stridescope::engines::gpu::GpuEngine;

/// The binary's device, locked for the calling test (a poisoned lock is taken over: a
/// failed test leaves the device usable).
pub fn gpu() -> MutexGuard<'static, GpuEngine> {
    static ENGINE: OnceLock<Mutex<GpuEngine>> = OnceLock::new();
    let engine = ENGINE.get_or_init(|| {
        // Vulkan loaders want a private runtime dir; CI's containers may not set one.
        if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
            let dir = std::env::temp_dir().join("stridescope-xdg");
            let _ = std::fs::create_dir_all(&dir);
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700));
            }
            std::env::set_var("XDG_RUNTIME_DIR", dir);
        }
        match GpuEngine::new_blocking() {
            Ok(engine) => Mutex::new(engine),
            Err(e) => panic!("the GPU tests need an adapter and found none: {e}"),
        }
    });
    engine
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
