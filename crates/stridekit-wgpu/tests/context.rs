//! The device context: a primary-backend adapter (never GL), described, with the adapter's own limits.

mod common;

#[test]
fn the_context_opens_a_primary_backend_and_says_which() {
    let Some(ctx) = common::gpu() else { return };
    let adapter = ctx.adapter();
    eprintln!("adapter: {adapter}");
    assert!(["Vulkan", "Metal", "Dx12"].contains(&adapter.backend.as_str()), "{adapter}");
    assert!(!adapter.name.is_empty());
    // The adapter's own limits, not the conservative defaults.
    assert!(
        ctx.limits().max_storage_buffer_binding_size
            >= wgpu::Limits::downlevel_defaults().max_storage_buffer_binding_size
    );
    ctx.check_lost().unwrap();
}
