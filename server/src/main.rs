//! `paracrowd`: see `paracrowd help`.
#[tokio::main]
async fn main() -> std::process::ExitCode {
    server::telemetry::init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    match server::cli::run(args).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
