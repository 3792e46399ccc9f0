//! Generates the Open Inference Protocol client (`ml::remote`) from `proto/open_inference.proto`.
//! protox parses the file in Rust, so building needs no `protoc`.
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let proto = "proto/open_inference.proto";
    println!("cargo:rerun-if-changed={proto}");
    let descriptors = protox::compile([proto], ["proto"])?;
    tonic_prost_build::configure()
        .build_server(false)
        .compile_fds(descriptors)?;
    Ok(())
}
