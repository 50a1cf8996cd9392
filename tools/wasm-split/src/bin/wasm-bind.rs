//! `wasm-bind INPUT.wasm OUT_DIR OUT_NAME [--remove-name-section] [--keep-debug]`: wasm-bindgen's JS glue for
//! the main module the splitter wrote, through wasm-bindgen's own library
//! (`wasm-bindgen-cli-support`, the crate the `wasm-bindgen` CLI is a front end of) at the
//! version of the `wasm-bindgen` crate the dashboard links (the schema must match exactly).
//!
//! Why not `cargo install wasm-bindgen-cli`: the CLI package also builds its test runner (an
//! HTTP server, an HTTP client with brotli, clap) that `make build` never runs, and on a fresh
//! 2-core machine that install was the longest Rust build after the WASM itself. Built here,
//! beside the splitter, the two share one small dependency build.
//!
//! The options are the ones the Makefile passed to the CLI, fixed: `--target web
//! --no-typescript --keep-lld-exports --no-demangle` (the chunks import the linker's exports
//! from the main module; names stay as the splitter left them), and `--remove-name-section`
//! when asked (the debug build: names would add 27 MB to a 4 MB module), `--keep-debug` for
//! `tools/wasm-breakdown.py` (README, Performance). Every other option is
//! the CLI's default, which is not always the library's (`omit_default_module_path`).
use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut flag = |name: &str| match args.iter().position(|a| a == name) {
        Some(at) => {
            args.remove(at);
            true
        }
        None => false,
    };
    let remove_name_section = flag("--remove-name-section");
    let keep_debug = flag("--keep-debug");
    let [input, out_dir, out_name] = args.as_slice() else {
        eprintln!(
            "usage: wasm-bind INPUT.wasm OUT_DIR OUT_NAME [--remove-name-section] [--keep-debug]"
        );
        return ExitCode::from(2);
    };
    let options = Options {
        remove_name_section,
        keep_debug,
    };
    match bind(Path::new(input), Path::new(out_dir), out_name, options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("wasm-bind: binding {input} into {out_dir}: {err:#}");
            ExitCode::FAILURE
        }
    }
}

/// The options a build may choose; the rest are fixed (see the top of this file).
struct Options {
    remove_name_section: bool,
    keep_debug: bool,
}

fn bind(input: &Path, out_dir: &Path, out_name: &str, options: Options) -> anyhow::Result<()> {
    let mut bindgen = wasm_bindgen_cli_support::Bindgen::new();
    bindgen
        .web(true)?
        .input_path(input)
        .typescript(false)
        .keep_lld_exports(true)
        .demangle(false)
        // The CLI's default, not the library's: the glue finds `OUT_NAME_bg.wasm` beside itself.
        .omit_default_module_path(false)
        .remove_name_section(options.remove_name_section)
        .keep_debug(options.keep_debug)
        .out_name(out_name);
    bindgen.generate(out_dir)
}
