//! `paracrowd models [status]` and `paracrowd models install paper`: which scorer the Check would
//! use and why, and installing the APT paper's own models into the model cache.
use std::time::Instant;

use crate::ml::paper::install::{self, human_duration, InstallOptions};
use crate::ml::paper::Manifest;
use crate::ml::{MlConfig, Scorer};

/// Loads the scorer as `serve` would and says what it chose and passed over.
pub fn status(ml: &MlConfig) -> anyhow::Result<()> {
    let root = &ml.models.paper_root;
    match Manifest::read(root) {
        Ok(Some(m)) => {
            println!("the paper's models are installed in {}:", root.display());
            for s in &m.sources {
                println!("  {}: {} at revision {}", s.role, s.repo, s.revision);
            }
            println!(
                "  int8 copy: MI decisions agree on {:.1}% of {} pairs, largest BLEURT difference {:.4}: {}",
                m.int8_check.mi_agreement * 100.0,
                m.int8_check.pairs,
                m.int8_check.max_bleurt_difference,
                if m.int8_check.usable { "usable" } else { "not used" }
            );
        }
        Ok(None) => println!(
            "the paper's models are not installed ({}); `paracrowd models install paper` installs them",
            root.display()
        ),
        Err(e) => println!("the paper's models in {}: {e:#}", root.display()),
    }
    let (scorer, resolution) = Scorer::resolve(ml)?;
    for line in resolution.lines() {
        println!("{line}");
    }
    let v = scorer.versions();
    println!("versions: {} and {}", v.mi, v.bleurt);
    Ok(())
}

/// `models install paper`, with the options the command line gave.
pub fn install_paper(options: InstallOptions) -> anyhow::Result<()> {
    let started = Instant::now();
    println!(
        "installing the APT paper's models into {}: the MI judge {} and BLEURT {}",
        options.root().display(),
        options.nli,
        options.bleurt
    );
    let manifest = install::install(&options, &mut |line| println!("  {line}"))
        .map_err(|e| anyhow::anyhow!("{}", crate::ml::source::one_line(&e)))?;
    println!(
        "done in {}: {}",
        human_duration(started.elapsed().as_secs_f64()),
        if manifest.int8_check.usable {
            "Checks will use the int8 copy on the CPU (PARACROWD_PAPER_VARIANT=fp32 for the full models)"
        } else {
            "Checks will use the full models"
        }
    );
    Ok(())
}
