// placeholder
@compute @workgroup_size(64)
fn main() {}
