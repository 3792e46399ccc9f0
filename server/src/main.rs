//! `paracrowd`: see `paracrowd help`.
#[tokio::main]
async fn main() -> std::process::ExitCode {
    server::memory::return_large_blocks();
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().is_some_and(|a| a == "models") {
        server::telemetry::init_at("warn");
    } else {
        server::telemetry::init();
    }
    match server::cli::run(args).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
