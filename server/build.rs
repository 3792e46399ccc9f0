//! Generates the Open Inference Protocol client (`ml::remote`) from `proto/open_inference.proto`.
//! protox parses the file in Rust, so building needs no `protoc`.
//!
//! It also names the migrations folder: `sqlx::migrate!` (in `startup.rs`) embeds the migration
//! files it finds when the crate is compiled, and without this a new file in the folder would not
//! make cargo compile the crate again, so an incremental build would serve a binary that never
//! runs it.
fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=../migrations");
    let proto = "proto/open_inference.proto";
    println!("cargo:rerun-if-changed={proto}");
    let descriptors = protox::compile([proto], ["proto"])?;
    tonic_prost_build::configure()
        .build_server(false)
        .compile_fds(descriptors)?;
    Ok(())
}
