//! `wasm-split INPUT.wasm PKG_DIR MAIN_OUT.wasm OUTPUT_NAME`: splits the module cargo built
//! (linked with `--emit-relocs`) at its `#[lazy]` split points, as cargo-leptos does.
//!
//! Writes into PKG_DIR one `.wasm` per lazily loaded chunk, the loader
//! `__wasm_split.______________________.js` (the main module imports it; it fetches the chunks
//! relative to itself and takes `initSync` from `./OUTPUT_NAME.js`) and
//! `__wasm_split_manifest.json` (split → chunk files; leptos' `HydrationScripts` reads it to
//! preload a lazy route's chunks in the page that renders it). MAIN_OUT.wasm is the main module,
//! for `wasm-bindgen --keep-lld-exports`.
//!
//! The chunks keep the input's function names (88% of a wasm-dev chunk), which nothing
//! downstream drops in a debug build (wasm-bindgen sees only the main module; wasm-opt runs
//! for releases only): they are stripped here, unless `WASM_SPLIT_KEEP_NAMES` is set (for
//! `tools/wasm-breakdown.py`).
use std::path::Path;
use std::process::ExitCode;

/// The names leptos 0.8 (`HydrationScripts`) and cargo-leptos use without file hashing.
const LINK_NAME: &str = "./__wasm_split.______________________.js";
const MANIFEST: &str = "__wasm_split_manifest.json";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, pkg_dir, main_out, output_name] = args.as_slice() else {
        eprintln!("usage: wasm-split INPUT.wasm PKG_DIR MAIN_OUT.wasm OUTPUT_NAME");
        return ExitCode::from(2);
    };
    match run(
        Path::new(input),
        Path::new(pkg_dir),
        Path::new(main_out),
        output_name,
    ) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("wasm-split: {err:?}");
            ExitCode::FAILURE
        }
    }
}

fn run(input: &Path, pkg_dir: &Path, main_out: &Path, output_name: &str) -> Result<(), String> {
    let wasm = std::fs::read(input).map_err(|e| format!("{}: {e}", input.display()))?;
    let main_module = format!("./{output_name}.js");
    let split = wasm_split_cli_support::transform({
        let mut opts = wasm_split_cli_support::Options::new(&wasm);
        opts.output_dir = pkg_dir;
        opts.main_out_path = main_out;
        opts.main_module = &main_module;
        opts.link_name = LINK_NAME;
        opts
    })
    .map_err(|e| format!("{e:?}"))?;
    // Sorted, so the manifest only changes when the split does.
    let manifest: std::collections::BTreeMap<_, _> = split.prefetch_map.into_iter().collect();
    let json = serde_json::to_string_pretty(&manifest).map_err(|e| e.to_string())?;
    let path = pkg_dir.join(MANIFEST);
    std::fs::write(&path, json).map_err(|e| format!("{}: {e}", path.display()))?;
    let keep_names = std::env::var_os("WASM_SPLIT_KEEP_NAMES").is_some_and(|v| !v.is_empty());
    for module in &split.split_modules {
        if !keep_names {
            let bytes = std::fs::read(module).map_err(|e| format!("{}: {e}", module.display()))?;
            let stripped = strip_names(&bytes)
                .ok_or_else(|| format!("{}: not a wasm module", module.display()))?;
            std::fs::write(module, stripped).map_err(|e| format!("{}: {e}", module.display()))?;
        }
        let size = std::fs::metadata(module).map(|m| m.len()).unwrap_or(0);
        println!("wasm-split: {} ({size} bytes)", module.display());
    }
    Ok(())
}

/// The module without its custom `name` section and DWARF (`.debug_*`) sections; None if the
/// bytes are not a well-formed sequence of sections.
fn strip_names(wasm: &[u8]) -> Option<Vec<u8>> {
    let mut out = wasm.get(..8)?.to_vec();
    let mut pos = 8;
    while pos < wasm.len() {
        let id = wasm[pos];
        let (size, body) = leb128(wasm, pos + 1)?;
        let end = body.checked_add(size)?;
        let section = wasm.get(pos..end)?;
        let drop = id == 0 && {
            let (len, name_at) = leb128(wasm, body)?;
            let name = wasm.get(name_at..name_at.checked_add(len)?)?;
            name == b"name" || name.starts_with(b".debug_")
        };
        if !drop {
            out.extend_from_slice(section);
        }
        pos = end;
    }
    Some(out)
}

/// An unsigned LEB128 at `pos`: its value and the position after it.
fn leb128(buf: &[u8], mut pos: usize) -> Option<(usize, usize)> {
    let (mut value, mut shift) = (0usize, 0u32);
    loop {
        let byte = *buf.get(pos)?;
        pos += 1;
        value |= usize::from(byte & 0x7f).checked_shl(shift)?;
        if byte < 0x80 {
            return Some((value, pos));
        }
        shift += 7;
    }
}
