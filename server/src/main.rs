//! `paracrowd`: see `paracrowd help`.
#[tokio::main]
async fn main() -> std::process::ExitCode {
    server::memory::return_large_blocks();
    let cli = <server::cli::Cli as clap::Parser>::parse();
    if cli.is_models() {
        server::telemetry::init_at("warn");
    } else {
        server::telemetry::init();
    }
    match server::cli::run(cli).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
