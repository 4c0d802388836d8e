# Sourced by the scripts in bench/: build kbench in release mode and print
# the binary's path.  Cargo puts it under target/<host tuple>/release, since
# .cargo/config.toml names the build target (to link it statically).
kbench_release() {
    (cd "$1" && cargo build --release --quiet) >&2 || return 1
    local tuple
    tuple=$(rustc -vV | sed -n 's/^host: //p')
    echo "${CARGO_TARGET_DIR:-$1/target}/$tuple/release/kbench"
}
