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

#[test]
fn a_lost_device_is_an_error_not_a_panic() {
    if common::gpu().is_none() {
        return;
    }
    // A context of its own: destroying its device must not disturb the shared one.
    let ctx = stridekit_wgpu::GpuContext::open().unwrap();
    let case = stridekit_testkit::cases::slice1_ex1();
    let plan = case.desc.validate().unwrap();
    let op = stridekit_wgpu::PreparedSlice1Gpu::new(&ctx, &plan).unwrap();
    ctx.device().destroy();
    let _ = ctx.device().poll(wgpu::PollType::wait_indefinitely());
    let mut output = vec![0u8; case.desc.output.total_tensor_size_in_bytes as usize];
    let err = op.execute(&ctx, &case.input, &mut output).unwrap_err();
    assert!(matches!(err, stridekit_wgpu::GpuError::DeviceLost { .. }), "{err}");
    assert!(err.to_string().starts_with("error[gpu]: the device was lost"), "{err}");
    assert!(matches!(ctx.check_lost(), Err(stridekit_wgpu::GpuError::DeviceLost { .. })));
    let err = stridekit_wgpu::PreparedSlice1Gpu::new(&ctx, &plan).unwrap_err();
    assert!(matches!(err, stridekit_wgpu::GpuError::DeviceLost { .. }), "{err}");
}
