//! The generated C project: the default timed job when no kernel tree is
//! given.  Many translation units with shared headers and real function
//! bodies (loops, branches, arithmetic on structs), built with the
//! system's `make` and `cc` at -O2, so the job exercises the same kernel
//! paths as a real build: fork/exec of compiler processes, many small file
//! reads and writes, and CPU-bound optimisation.

use anyhow::{Context, Result};
use std::fmt::Write as _;
use std::path::Path;

/// How big the project is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Size {
    Tiny,
    Small,
    Medium,
    Large,
}

impl Size {
    pub fn parse(s: &str) -> Result<Size> {
        Ok(match s {
            "tiny" => Size::Tiny,
            "small" => Size::Small,
            "medium" => Size::Medium,
            "large" => Size::Large,
            _ => {
                return Err(crate::error::input(format!(
                    "unknown --job-size '{s}' (tiny, small, medium or large)"
                )))
            }
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Size::Tiny => "tiny",
            Size::Small => "small",
            Size::Medium => "medium",
            Size::Large => "large",
        }
    }

    /// (translation units, functions per unit).
    fn shape(self) -> (usize, usize) {
        match self {
            Size::Tiny => (4, 6),
            Size::Small => (UNITS_SMALL, FUNCS),
            Size::Medium => (UNITS_SMALL * 6, FUNCS),
            Size::Large => (UNITS_SMALL * 24, FUNCS),
        }
    }
}

/// Calibrated so `small` takes about 10 s on 2 CPUs here.
const UNITS_SMALL: usize = 64;
const FUNCS: usize = 24;
const HEADERS: usize = 8;

/// Write the project into `dir`.
pub fn write(dir: &Path, size: Size) -> Result<()> {
    let (units, funcs) = size.shape();
    let w = |name: &str, text: &str| {
        std::fs::write(dir.join(name), text).with_context(|| format!("writing {name}"))
    };
    for h in 0..HEADERS {
        let mut s =
            format!("#ifndef KB_H{h}\n#define KB_H{h}\n#include <stddef.h>\n#include <stdint.h>\n");
        let _ = write!(
            s,
            "struct kb_rec{h} {{ uint64_t key; int64_t val[8]; double w; struct kb_rec{h} *next; }};\n\
             static inline uint64_t kb_mix{h}(uint64_t x) {{ x ^= x >> 33; x *= 0xff51afd7ed558ccdULL; x ^= x >> 29; return x + {h}; }}\n\
             #define KB_STEP{h}(a, b) ((a) * 31 + (b) * {} + ((a) >> 3))\n#endif\n",
            h + 7
        );
        w(&format!("kb{h}.h"), &s)?;
    }
    let mut objs = Vec::new();
    for u in 0..units {
        let mut s = String::new();
        for h in 0..HEADERS {
            let _ = writeln!(s, "#include \"kb{h}.h\"");
        }
        for f in 0..funcs {
            let h = (u + f) % HEADERS;
            let _ = write!(
                s,
                "int64_t kb_u{u}_f{f}(struct kb_rec{h} *r, size_t n, int64_t seed) {{\n\
                 \tint64_t acc = seed;\n\
                 \tfor (size_t i = 0; i < n; i++) {{\n\
                 \t\tfor (int j = 0; j < 8; j++) {{\n\
                 \t\t\tif ((r[i].val[j] ^ acc) & {m}) acc = KB_STEP{h}(acc, r[i].val[j]);\n\
                 \t\t\telse acc -= (int64_t)kb_mix{h}((uint64_t)r[i].val[j] + j);\n\
                 \t\t\tr[i].val[j] = acc % {p};\n\
                 \t\t}}\n\
                 \t\tr[i].w = r[i].w * 0.5 + (double)acc / {p}.0;\n\
                 \t\tswitch (acc & 7) {{\n\
                 \t\tcase 0: acc += {f}; break;\n\
                 \t\tcase 1: acc ^= (int64_t)r[i].key; break;\n\
                 \t\tcase 2: acc = acc * 3 + 1; break;\n\
                 \t\tcase 3: if (r[i].next) acc += r[i].next->val[{j}]; break;\n\
                 \t\tdefault: acc -= {u};\n\
                 \t\t}}\n\
                 \t}}\n\
                 \treturn acc;\n}}\n\n",
                m = (f * 2 + 1) & 0xff,
                p = 1_000_003 + f * 2,
                j = f % 8,
            );
        }
        w(&format!("u{u}.c"), &s)?;
        objs.push(format!("u{u}.o"));
    }
    let mut main = String::from("#include <stdio.h>\n");
    for h in 0..HEADERS {
        let _ = writeln!(main, "#include \"kb{h}.h\"");
    }
    for u in 0..units {
        let _ = writeln!(
            main,
            "int64_t kb_u{u}_f0(struct kb_rec{} *r, size_t n, int64_t seed);",
            u % HEADERS
        );
    }
    main.push_str("int main(void) {\n\tint64_t t = 0;\n");
    for u in 0..units {
        let _ = writeln!(
            main,
            "\t{{ struct kb_rec{h} r[4] = {{0}}; t += kb_u{u}_f0(r, 4, {u}); }}",
            h = u % HEADERS
        );
    }
    main.push_str("\tprintf(\"%lld\\n\", (long long)t);\n\treturn 0;\n}\n");
    w("main.c", &main)?;
    objs.push("main.o".into());
    let mk = format!(
        "CC ?= cc\nCFLAGS ?= -O2 -Wall\nOBJS = {}\n\nkbench-project: $(OBJS)\n\t$(CC) -o $@ $(OBJS)\n\n%.o: %.c $(wildcard *.h)\n\t$(CC) $(CFLAGS) -c -o $@ $<\n\nclean:\n\trm -f $(OBJS) kbench-project\n\n.PHONY: clean\n",
        objs.join(" ")
    );
    w("Makefile", &mk)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse() {
        assert_eq!(Size::parse("small").unwrap(), Size::Small);
        assert!(Size::parse("huge").is_err());
    }

    #[test]
    fn tiny_project_is_written() {
        let d = tempfile::tempdir().unwrap();
        write(d.path(), Size::Tiny).unwrap();
        assert!(d.path().join("Makefile").is_file());
        assert!(d.path().join("u3.c").is_file());
        assert!(d.path().join("kb7.h").is_file());
    }
}
