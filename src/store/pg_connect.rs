//! Reaching a PostgreSQL server: TLS as libpq's `sslmode` spells it, and
//! name resolution that leaves no thread behind.
//!
//! Why its own module: the `postgres` client resolves host names on a
//! helper thread that lingers for about ten seconds, and kbench forks its
//! measured workers only from a single-threaded process; so the name is
//! resolved here, on the calling thread, and the client is given the
//! address (`hostaddr`) with the name kept for TLS.  And the client knows
//! only `disable`, `prefer` and `require`, so `verify-ca` and
//! `verify-full` (and `sslrootcert`) are read here and turned into a
//! rustls configuration (pure Rust: the static build needs no OpenSSL).
//!
//! The modes, as libpq documents them (PostgreSQL manual, "SSL Support",
//! table "SSL Mode Descriptions"): `disable` never encrypts; `prefer` (the
//! default) encrypts when the server offers it, without checking who the
//! server is; `require` always encrypts, without checking; `verify-ca`
//! also checks that a trusted CA signed the server's certificate;
//! `verify-full` also checks that the certificate names the host.  Roots
//! come from `sslrootcert=PATH` (PEM), else `~/.postgresql/root.crt`, or
//! the system's bundle with `sslrootcert=system`.

use crate::error::input;
use anyhow::Result;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};
use std::sync::Arc;

/// libpq's `sslmode` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SslMode {
    Disable,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

impl SslMode {
    fn parse(s: &str) -> Option<SslMode> {
        Some(match s {
            "disable" => SslMode::Disable,
            "prefer" => SslMode::Prefer,
            "require" => SslMode::Require,
            "verify-ca" => SslMode::VerifyCa,
            "verify-full" => SslMode::VerifyFull,
            _ => return None,
        })
    }

    fn verifies(self) -> bool {
        matches!(self, SslMode::VerifyCa | SslMode::VerifyFull)
    }
}

/// The TLS settings taken out of a URL.
#[derive(Debug, PartialEq, Eq)]
pub struct Tls {
    pub mode: SslMode,
    pub rootcert: Option<String>,
}

/// Split the URL's `sslmode` and `sslrootcert` off its query string: the
/// URL without them (for the client's parser) and what they said.
pub fn take_tls(url: &str, shown: &str) -> Result<(String, Tls)> {
    let mut tls = Tls {
        mode: SslMode::Prefer,
        rootcert: None,
    };
    let Some((base, query)) = url.split_once('?') else {
        return Ok((url.to_string(), tls));
    };
    let mut kept = Vec::new();
    for kv in query.split('&').filter(|kv| !kv.is_empty()) {
        let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
        match k {
            "sslmode" => {
                tls.mode = SslMode::parse(v).ok_or_else(|| {
                    input(format!(
                        "--db {shown}: sslmode={v} is not one of disable, prefer, require, verify-ca, verify-full"
                    ))
                })?
            }
            "sslrootcert" => tls.rootcert = Some(percent_decode(v)),
            _ => kept.push(kv),
        }
    }
    let url = match kept.is_empty() {
        true => base.to_string(),
        false => format!("{base}?{}", kept.join("&")),
    };
    Ok((url, tls))
}

/// `%XX` escapes of a URL parameter (a path may hold spaces or `&`).
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match (
            b[i],
            b.get(i + 1).and_then(|c| hex(*c)),
            b.get(i + 2).and_then(|c| hex(*c)),
        ) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (c, _, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Give every TCP host its address, resolved here on this thread
/// (`getaddrinfo`), so the client starts no resolver thread.  A name with
/// several addresses (`localhost` is `::1` and `127.0.0.1`) gets the first
/// that accepts a TCP connection, as libpq tries each in turn.
pub fn resolve_hosts(config: &mut postgres::Config, shown: &str) -> Result<()> {
    use std::net::ToSocketAddrs;
    if !config.get_hostaddrs().is_empty() {
        return Ok(());
    }
    let ports = config.get_ports().to_vec();
    let mut addrs = Vec::new();
    for (i, host) in config.get_hosts().iter().enumerate() {
        let postgres::config::Host::Tcp(name) = host else {
            // A Unix socket: nothing to resolve, and hostaddr cannot be
            // given for some hosts only.
            return Ok(());
        };
        let port = ports.get(i).or(ports.first()).copied().unwrap_or(5432);
        let all: Vec<std::net::SocketAddr> = (name.as_str(), port)
            .to_socket_addrs()
            .map(|a| a.collect())
            .unwrap_or_default();
        let timeout = config
            .get_connect_timeout()
            .copied()
            .unwrap_or(std::time::Duration::from_secs(10));
        let addr = all
            .iter()
            .find(|a| all.len() == 1 || std::net::TcpStream::connect_timeout(a, timeout).is_ok())
            .or(all.first())
            .ok_or_else(|| {
                input(format!(
                    "cannot connect to result store {shown}: host name {name} does not resolve"
                ))
            })?;
        addrs.push(addr.ip());
    }
    for a in addrs {
        config.hostaddr(a);
    }
    Ok(())
}

/// The client-side TLS connector for a mode.
pub fn connector(tls: &Tls, shown: &str) -> Result<tokio_postgres_rustls::MakeRustlsConnect> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| anyhow::anyhow!("TLS set-up: {e}"))?;
    let (webpki, roots) = if tls.mode.verifies() {
        let certs = roots(tls, shown)?;
        let mut store = rustls::RootCertStore::empty();
        for c in &certs {
            // A certificate webpki cannot take as a trust anchor may still
            // be the server's own (pinned, see `Verifier`).
            let _ = store.add(c.clone());
        }
        let webpki = rustls::client::WebPkiServerVerifier::builder_with_provider(
            Arc::new(store),
            provider.clone(),
        )
        .build()
        .map_err(|e| anyhow::anyhow!("TLS set-up: {e}"))?;
        (Some(webpki), certs)
    } else {
        (None, Vec::new())
    };
    let config = builder
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(Verifier {
            provider,
            webpki,
            roots,
            check_name: tls.mode == SslMode::VerifyFull,
        }))
        .with_no_client_auth();
    Ok(tokio_postgres_rustls::MakeRustlsConnect::new(config))
}

/// The client's own `sslmode` for ours: the verifying modes require TLS.
pub fn client_mode(mode: SslMode) -> postgres::config::SslMode {
    match mode {
        SslMode::Disable => postgres::config::SslMode::Disable,
        SslMode::Prefer => postgres::config::SslMode::Prefer,
        _ => postgres::config::SslMode::Require,
    }
}

/// The trusted roots for the verifying modes, as PEM certificates.
fn roots(tls: &Tls, shown: &str) -> Result<Vec<CertificateDer<'static>>> {
    use rustls::pki_types::pem::PemObject;
    let path = match tls.rootcert.as_deref() {
        Some("system") => std::env::var_os("SSL_CERT_FILE")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| "/etc/ssl/certs/ca-certificates.crt".into()),
        Some(p) => p.into(),
        None => std::env::var_os("HOME")
            .map(|h| std::path::PathBuf::from(h).join(".postgresql/root.crt"))
            .unwrap_or_default(),
    };
    let what = |why: String| {
        input(format!(
            "--db {shown}: sslmode={} needs the CA that signed the server's certificate: {why} (give sslrootcert=PATH to a PEM file, or sslrootcert=system)",
            match tls.mode {
                SslMode::VerifyCa => "verify-ca",
                _ => "verify-full",
            }
        ))
    };
    let text = std::fs::read(&path).map_err(|e| what(format!("{}: {e}", path.display())))?;
    let certs = CertificateDer::pem_slice_iter(&text)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| what(format!("{}: {e:?}", path.display())))?;
    if certs.is_empty() {
        return Err(what(format!("{} holds no certificate", path.display())));
    }
    Ok(certs)
}

/// The server's certificate, as the mode asks: `prefer`/`require` take any
/// (encrypted, the server not authenticated, as libpq); `verify-ca` wants a
/// chain to a trusted root; `verify-full` also the host's name.  A server
/// certificate that is itself in `sslrootcert` (a self-signed certificate
/// given as its own root, as libpq with OpenSSL accepts) is trusted as
/// such; webpki alone refuses a CA used as a server certificate.  The
/// handshake's signatures are checked in every mode.
#[derive(Debug)]
struct Verifier {
    provider: Arc<CryptoProvider>,
    /// `None` for the modes that do not authenticate the server.
    webpki: Option<Arc<rustls::client::WebPkiServerVerifier>>,
    roots: Vec<CertificateDer<'static>>,
    check_name: bool,
}

impl ServerCertVerifier for Verifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        use rustls::{CertificateError, Error};
        let Some(webpki) = &self.webpki else {
            return Ok(ServerCertVerified::assertion());
        };
        let name_error = |e: &Error| {
            matches!(
                e,
                Error::InvalidCertificate(
                    CertificateError::NotValidForName
                        | CertificateError::NotValidForNameContext { .. }
                )
            )
        };
        let r = match webpki.verify_server_cert(end_entity, intermediates, server_name, ocsp, now) {
            Err(_) if self.roots.iter().any(|r| r.as_ref() == end_entity.as_ref()) => {
                match self.check_name {
                    true => rustls::server::ParsedCertificate::try_from(end_entity)
                        .and_then(|c| rustls::client::verify_server_name(&c, server_name))
                        .map(|()| ServerCertVerified::assertion()),
                    false => Ok(ServerCertVerified::assertion()),
                }
            }
            other => other,
        };
        match r {
            Err(e) if !self.check_name && name_error(&e) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tls_options_are_taken_out_of_the_url() {
        let (u, t) = take_tls(
            "postgres://kb@db/k?sslmode=verify-full&application_name=x&sslrootcert=%2Fetc%2Fca%20x.pem",
            "",
        )
        .unwrap();
        assert_eq!(u, "postgres://kb@db/k?application_name=x");
        assert_eq!(t.mode, SslMode::VerifyFull);
        assert_eq!(t.rootcert.as_deref(), Some("/etc/ca x.pem"));
        let (u, t) = take_tls("postgres://kb@db/k", "").unwrap();
        assert_eq!(
            (u.as_str(), t.mode),
            ("postgres://kb@db/k", SslMode::Prefer)
        );
        let (u, _) = take_tls("postgres://kb@db/k?sslmode=disable", "").unwrap();
        assert_eq!(u, "postgres://kb@db/k");
        let e = take_tls("postgres://kb@db/k?sslmode=allowed", "shown").unwrap_err();
        assert!(
            e.to_string().contains("sslmode=allowed is not one of"),
            "{e}"
        );
    }

    #[test]
    fn verifying_modes_need_a_root() {
        let t = Tls {
            mode: SslMode::VerifyFull,
            rootcert: Some("/nonexistent/root.pem".into()),
        };
        let e = connector(&t, "db").err().unwrap().to_string();
        assert!(
            e.contains("needs the CA") && e.contains("/nonexistent/root.pem"),
            "{e}"
        );
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("empty.pem");
        std::fs::write(&f, "not a certificate\n").unwrap();
        let t = Tls {
            mode: SslMode::VerifyCa,
            rootcert: Some(f.display().to_string()),
        };
        let e = connector(&t, "db").err().unwrap().to_string();
        assert!(e.contains("holds no certificate"), "{e}");
        for mode in [SslMode::Disable, SslMode::Prefer, SslMode::Require] {
            let t = Tls {
                mode,
                rootcert: None,
            };
            assert!(connector(&t, "db").is_ok());
        }
    }
}
