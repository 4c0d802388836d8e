//! `${…}` expressions in scenario values, so one file serves a 2-CPU VM
//! and a 64-CPU workstation: `"0-${ncpu/2-1}"`, `"${20000*scale}"`,
//! `"${max(1, ncpu*60/64)}"`, `"${kernel_tree}"`.
//!
//! Numbers support + − × ÷ (÷ rounds down when both sides are whole),
//! parentheses, unary minus, `min`, `max`, `floor`, `ceil`, `round`.
//! String variables may only stand alone.  Whole results print without a
//! decimal point.  Every number and every intermediate result must stay
//! within ±2^53, where an `f64` still holds every whole number exactly: a
//! result beyond it (`${9223372036854775807 * 9223372036854775807}`) is
//! refused, never clamped.

use std::collections::BTreeMap;

/// A variable's value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Num(f64),
    Str(String),
}

pub type Vars = BTreeMap<String, Value>;

/// Replace every `${…}` in `s`.
pub fn expand(s: &str, vars: &Vars) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let j = after
            .find('}')
            .ok_or_else(|| format!("unclosed ${{ in \"{s}\""))?;
        let e = after[..j].trim();
        match vars.get(e) {
            Some(Value::Str(v)) => out.push_str(v),
            _ => out.push_str(&format_num(eval(e, vars)?)),
        }
        rest = &after[j + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Whole numbers without a decimal point.
pub fn format_num(v: f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{}", v.round() as i64)
    } else {
        format!("{v}")
    }
}

/// The largest magnitude an expression may reach: 2^53.
const MAX_MAGNITUDE: f64 = 9_007_199_254_740_992.0;

/// `v`, if it is a number the evaluator can hold exactly.
fn in_range(v: f64, src: &str) -> Result<f64, String> {
    if v.is_finite() && v.abs() <= MAX_MAGNITUDE {
        Ok(v)
    } else {
        Err(format!(
            "${{{src}}} reaches {v}, beyond ±2^53 (9007199254740992)"
        ))
    }
}

/// Longest expression accepted, and deepest nesting of parentheses: the
/// parser recurses, so a hostile file must not be able to exhaust the stack.
const MAX_LEN: usize = 1000;
const MAX_DEPTH: usize = 32;

/// Evaluate a numeric expression.
pub fn eval(e: &str, vars: &Vars) -> Result<f64, String> {
    if e.len() > MAX_LEN {
        return Err(format!(
            "expression of {} characters: at most {MAX_LEN}",
            e.len()
        ));
    }
    let mut depth = 0usize;
    for c in e.chars() {
        match c {
            '(' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(format!(
                        "expression nests parentheses deeper than {MAX_DEPTH}"
                    ));
                }
            }
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    let toks = lex(e)?;
    let mut p = Parser {
        toks: &toks,
        pos: 0,
        vars,
        src: e,
    };
    let v = p.sum()?;
    if p.pos != toks.len() {
        return Err(format!("unexpected '{}' in ${{{e}}}", p.toks[p.pos]));
    }
    Ok(v)
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(f64),
    Ident(String),
    Op(char),
}

impl std::fmt::Display for Tok {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Tok::Num(n) => write!(f, "{n}"),
            Tok::Ident(s) => f.write_str(s),
            Tok::Op(c) => write!(f, "{c}"),
        }
    }
}

fn lex(e: &str) -> Result<Vec<Tok>, String> {
    let mut out = Vec::new();
    let cs: Vec<char> = e.chars().collect();
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() || c == '.' {
            let s = i;
            while i < cs.len() && (cs[i].is_ascii_digit() || cs[i] == '.') {
                i += 1;
            }
            let t: String = cs[s..i].iter().collect();
            out.push(Tok::Num(
                t.parse()
                    .map_err(|_| format!("bad number '{t}' in ${{{e}}}"))?,
            ));
        } else if c.is_ascii_alphabetic() || c == '_' {
            let s = i;
            while i < cs.len() && (cs[i].is_ascii_alphanumeric() || cs[i] == '_') {
                i += 1;
            }
            out.push(Tok::Ident(cs[s..i].iter().collect()));
        } else if "+-*/(),".contains(c) {
            out.push(Tok::Op(c));
            i += 1;
        } else {
            return Err(format!("unexpected '{c}' in ${{{e}}}"));
        }
    }
    Ok(out)
}

struct Parser<'a> {
    toks: &'a [Tok],
    pos: usize,
    vars: &'a Vars,
    src: &'a str,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(&Tok::Op(c)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn sum(&mut self) -> Result<f64, String> {
        let mut v = self.product()?;
        loop {
            if self.eat('+') {
                v = in_range(v + self.product()?, self.src)?;
            } else if self.eat('-') {
                v = in_range(v - self.product()?, self.src)?;
            } else {
                return Ok(v);
            }
        }
    }

    fn product(&mut self) -> Result<f64, String> {
        let mut v = self.unary()?;
        loop {
            if self.eat('*') {
                v = in_range(v * self.unary()?, self.src)?;
            } else if self.eat('/') {
                let d = self.unary()?;
                if d == 0.0 {
                    return Err(format!("division by zero in ${{{}}}", self.src));
                }
                let whole = v.fract() == 0.0 && d.fract() == 0.0;
                v = in_range(if whole { (v / d).floor() } else { v / d }, self.src)?;
            } else {
                return Ok(v);
            }
        }
    }

    fn unary(&mut self) -> Result<f64, String> {
        if self.eat('-') {
            return Ok(-self.unary()?);
        }
        self.atom()
    }

    fn atom(&mut self) -> Result<f64, String> {
        match self.peek().cloned() {
            Some(Tok::Num(n)) => {
                self.pos += 1;
                in_range(n, self.src)
            }
            Some(Tok::Op('(')) => {
                self.pos += 1;
                let v = self.sum()?;
                if !self.eat(')') {
                    return Err(format!("missing ')' in ${{{}}}", self.src));
                }
                Ok(v)
            }
            Some(Tok::Ident(name)) => {
                self.pos += 1;
                if self.eat('(') {
                    let mut args = vec![self.sum()?];
                    while self.eat(',') {
                        args.push(self.sum()?);
                    }
                    if !self.eat(')') {
                        return Err(format!("missing ')' after {name}( in ${{{}}}", self.src));
                    }
                    return call(&name, &args).ok_or_else(|| {
                        format!(
                            "unknown function {name}/{} in ${{{}}}",
                            args.len(),
                            self.src
                        )
                    });
                }
                match self.vars.get(&name) {
                    Some(Value::Num(v)) => in_range(*v, self.src),
                    Some(Value::Str(_)) => Err(format!(
                        "{name} is text and cannot be used in arithmetic in ${{{}}}",
                        self.src
                    )),
                    None => Err(format!(
                        "unknown variable '{name}' in ${{{}}} (known: {})",
                        self.src,
                        self.vars.keys().cloned().collect::<Vec<_>>().join(", ")
                    )),
                }
            }
            Some(t) => Err(format!("unexpected '{t}' in ${{{}}}", self.src)),
            None => Err(format!("incomplete expression ${{{}}}", self.src)),
        }
    }
}

fn call(name: &str, a: &[f64]) -> Option<f64> {
    Some(match (name, a) {
        ("min", [x, y]) => x.min(*y),
        ("max", [x, y]) => x.max(*y),
        ("floor", [x]) => x.floor(),
        ("ceil", [x]) => x.ceil(),
        ("round", [x]) => x.round(),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(ncpu: f64, scale: f64) -> Vars {
        let mut v = Vars::new();
        v.insert("ncpu".into(), Value::Num(ncpu));
        v.insert("scale".into(), Value::Num(scale));
        v.insert("tree".into(), Value::Str("/src/linux".into()));
        v
    }

    #[test]
    fn cpu_halves_on_small_and_large_machines() {
        for (n, lo, hi) in [
            (2.0, "0-0", "1-1"),
            (64.0, "0-31", "32-63"),
            (3.0, "0-0", "1-2"),
        ] {
            let v = vars(n, 1.0);
            assert_eq!(expand("0-${ncpu/2-1}", &v).unwrap(), lo);
            assert_eq!(expand("${ncpu/2}-${ncpu-1}", &v).unwrap(), hi);
        }
    }

    #[test]
    fn scaling_and_functions() {
        let v = vars(2.0, 0.05);
        assert_eq!(expand("${2000000*scale}", &v).unwrap(), "100000");
        assert_eq!(expand("${max(10, 20*scale)}s", &v).unwrap(), "10s");
        assert_eq!(expand("${max(1, ncpu*60/64)}", &v).unwrap(), "1");
        assert_eq!(
            expand("${7/2}", &v).unwrap(),
            "3",
            "whole ÷ whole rounds down"
        );
        assert_eq!(expand("${round(0.5*7)}", &v).unwrap(), "4");
        assert_eq!(expand("${-(1+2)*3}", &v).unwrap(), "-9");
        assert_eq!(expand("${0.1*3}", &v).unwrap(), format!("{}", 0.1 * 3.0));
        assert_eq!(expand("${tree}/kernel", &v).unwrap(), "/src/linux/kernel");
        assert_eq!(expand("plain", &v).unwrap(), "plain");
    }

    #[test]
    fn hostile_expressions_are_refused_not_followed() {
        let v = vars(2.0, 1.0);
        let deep = format!("{}1{}", "(".repeat(100_000), ")".repeat(100_000));
        assert!(eval(&deep, &v).unwrap_err().contains("at most"));
        let nested = format!("{}1{}", "(".repeat(40), ")".repeat(40));
        assert!(eval(&nested, &v).unwrap_err().contains("deeper than"));
        let minus = format!("{}1", "-".repeat(900));
        assert_eq!(
            eval(&minus, &v),
            Ok(1.0),
            "900 unary minuses still evaluate"
        );
    }

    #[test]
    fn errors_say_what() {
        let v = vars(2.0, 1.0);
        assert!(expand("${ncpus}", &v)
            .unwrap_err()
            .contains("unknown variable 'ncpus'"));
        assert!(expand("${ncpu/0}", &v)
            .unwrap_err()
            .contains("division by zero"));
        assert!(expand("${ncpu", &v).unwrap_err().contains("unclosed"));
        assert!(expand("${tree*2}", &v).unwrap_err().contains("text"));
        assert!(expand("${(1+2}", &v).unwrap_err().contains("missing ')'"));
        assert!(expand("${pow(2)}", &v)
            .unwrap_err()
            .contains("unknown function"));
        assert!(expand("${1 $ 2}", &v).unwrap_err().contains("unexpected"));
    }

    #[test]
    fn results_beyond_exact_integers_are_refused_not_clamped() {
        let v = vars(2.0, 1.0);
        for e in [
            "${9223372036854775807 * 9223372036854775807}",
            "${9223372036854775807}",
            "${9007199254740992 + 2}",
            "${-9007199254740992 - 2}",
            "${4503599627370496 * 3}",
        ] {
            let err = expand(e, &v).unwrap_err();
            assert!(err.contains("beyond"), "{e}: {err}");
        }
        assert_eq!(
            expand("${9007199254740992}", &v).unwrap(),
            "9007199254740992"
        );
        assert_eq!(
            expand("${-9007199254740992}", &v).unwrap(),
            "-9007199254740992"
        );
    }
}
