//! A client of Prometheus' HTTP query API: instant queries (`GET /api/v1/query`) decoded into
//! typed samples, each within a timeout, every failure a typed error naming the query.
//!
//! Why our own few lines on hyper and not a Prometheus crate: the fleet needs one endpoint,
//! and hyper, hyper-util, http-body-util and hyper-rustls are already in the build (kube's
//! HTTP stack). `https://` is verified against the system's CA certificates.
//! The same API is served by Thanos, Mimir and VictoriaMetrics.

use crate::domain::fleet::from_metrics::Sample;
use bytes::Bytes;
use http_body_util::{BodyExt, Empty, Limited};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::time::Duration;

/// The largest answer read (50 clusters × 30 DaemonSets × 9 states is about 2 MB).
const MAX_ANSWER_BYTES: usize = 32 * 1024 * 1024;

/// What went wrong with one query.
#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    /// The request could not be made or the connection failed.
    #[error("cannot reach Prometheus at {url}: {detail}")]
    Unreachable { url: String, detail: String },
    /// No complete answer within the timeout.
    #[error("Prometheus at {url} gave no answer within {timeout:?}")]
    Timeout { url: String, timeout: Duration },
    /// An HTTP error status without Prometheus' JSON error.
    #[error("Prometheus at {url} answered HTTP {status}: {body}")]
    Status {
        url: String,
        status: u16,
        body: String,
    },
    /// Prometheus' own error (`"status": "error"`), with its type and words.
    #[error("Prometheus at {url} refused it (HTTP {status}, {error_type}): {error}")]
    Refused {
        url: String,
        status: u16,
        error_type: String,
        error: String,
    },
    /// The body is not the query API's JSON.
    #[error("Prometheus at {url} answered something that is not its query API's JSON: {detail}")]
    Garbage { url: String, detail: String },
}

/// The query API's envelope.
#[derive(Deserialize)]
struct Answer {
    status: String,
    #[serde(default)]
    data: Option<Data>,
    #[serde(default, rename = "errorType")]
    error_type: Option<String>,
    #[serde(default)]
    error: Option<String>,
}

/// An instant query's data: the result type and, for a vector, its samples.
#[derive(Deserialize)]
struct Data {
    #[serde(rename = "resultType")]
    result_type: String,
    result: serde_json::Value,
}

/// One sample of a vector: `{"metric": {...}, "value": [time, "value"]}`.
#[derive(Deserialize)]
struct VectorSample {
    metric: BTreeMap<String, String>,
    value: (f64, String),
}

/// A Prometheus (or compatible) query API at `base` (`http[s]://host:port[/prefix]`).
#[derive(Clone, Debug)]
pub struct PromClient {
    base: String,
    timeout: Duration,
    transport: Transport,
}

/// Plain HTTP, or TLS (only built for an https URL: it needs the system's CA certificates,
/// which a minimal image may lack).
#[derive(Clone, Debug)]
enum Transport {
    Plain(Client<HttpConnector, Empty<Bytes>>),
    Tls(Client<HttpsConnector<HttpConnector>, Empty<Bytes>>),
}

/// A base URL the client cannot use.
#[derive(Debug, thiserror::Error)]
#[error("--fleet-prometheus {url:?}: {why}")]
pub struct BadPrometheusUrl {
    pub url: String,
    pub why: String,
}

impl PromClient {
    /// A client of the API at `base` (`http://` or `https://`); every query gives up after
    /// `timeout`.
    pub fn new(base: &str, timeout: Duration) -> Result<PromClient, BadPrometheusUrl> {
        let bad = |why: String| BadPrometheusUrl {
            url: base.to_string(),
            why,
        };
        let uri: http::Uri = base.parse().map_err(|_| bad("not a URL".into()))?;
        let tls = match uri.scheme_str() {
            Some("http") => false,
            Some("https") => true,
            _ => return Err(bad("must start with http:// or https://".into())),
        };
        if uri.host().is_none() {
            return Err(bad("has no host".into()));
        }
        if uri.query().is_some() {
            return Err(bad("must not carry a query string".into()));
        }
        let mut connector = HttpConnector::new();
        connector.set_connect_timeout(Some(timeout));
        let builder = Client::builder(TokioExecutor::new());
        let transport = if tls {
            connector.enforce_http(false);
            let https = hyper_rustls::HttpsConnectorBuilder::new()
                .with_native_roots()
                .map_err(|e| {
                    bad(format!(
                        "cannot load the system's CA certificates for https: {e}"
                    ))
                })?
                .https_only()
                .enable_http1()
                .wrap_connector(connector);
            Transport::Tls(builder.build(https))
        } else {
            Transport::Plain(builder.build(connector))
        };
        Ok(PromClient {
            base: base.trim_end_matches('/').to_string(),
            timeout,
            transport,
        })
    }

    /// The base URL, for logs and the page.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// The samples of the instant query `promql` (a vector; a scalar or anything else is an
    /// error, since every fleet query is a vector).
    pub async fn query(&self, promql: &str) -> Result<Vec<Sample>, QueryError> {
        let query: String = form_urlencoded::Serializer::new(String::new())
            .append_pair("query", promql)
            .finish();
        let url = format!("{}/api/v1/query?{query}", self.base);
        let shown = self.base.clone();
        let (status, body) = tokio::time::timeout(self.timeout, self.get(&url))
            .await
            .map_err(|_| QueryError::Timeout {
                url: shown.clone(),
                timeout: self.timeout,
            })??;
        decode(&shown, status, &body)
    }

    /// GET `url`: the status and the whole body (bounded).
    async fn get(&self, url: &str) -> Result<(u16, Bytes), QueryError> {
        let unreachable = |detail: String| QueryError::Unreachable {
            url: self.base.clone(),
            detail,
        };
        let uri: http::Uri = url.parse().map_err(|e| unreachable(format!("{e}")))?;
        let response = match &self.transport {
            Transport::Plain(client) => client.get(uri).await,
            Transport::Tls(client) => client.get(uri).await,
        }
        .map_err(|e| unreachable(describe(&e)))?;
        let status = response.status().as_u16();
        let body = Limited::new(response.into_body(), MAX_ANSWER_BYTES)
            .collect()
            .await
            .map_err(|e| unreachable(format!("reading the answer: {e}")))?
            .to_bytes();
        Ok((status, body))
    }
}

/// A hyper-util error with its cause (its own text is only "client error (Connect)").
fn describe(err: &hyper_util::client::legacy::Error) -> String {
    let mut text = err.to_string();
    let mut source = std::error::Error::source(err);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// The first 200 characters of a body, for an error message.
fn snippet(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let mut cut: String = text.chars().take(200).collect();
    if text.chars().count() > 200 {
        cut.push('…');
    }
    cut
}

/// An answer's samples, or what is wrong with it.
fn decode(url: &str, status: u16, body: &[u8]) -> Result<Vec<Sample>, QueryError> {
    let garbage = |detail: String| QueryError::Garbage {
        url: url.to_string(),
        detail,
    };
    let answer: Answer = match serde_json::from_slice(body) {
        Ok(answer) => answer,
        Err(_) if !(200..300).contains(&status) => {
            return Err(QueryError::Status {
                url: url.to_string(),
                status,
                body: snippet(body),
            })
        }
        Err(e) => return Err(garbage(format!("{e} in {:?}", snippet(body)))),
    };
    if answer.status != "success" {
        return Err(QueryError::Refused {
            url: url.to_string(),
            status,
            error_type: answer.error_type.unwrap_or_else(|| "no errorType".into()),
            error: answer.error.unwrap_or_else(|| "no error text".into()),
        });
    }
    let data = answer
        .data
        .ok_or_else(|| garbage("\"success\" without \"data\"".into()))?;
    if data.result_type != "vector" {
        return Err(garbage(format!(
            "resultType {:?}, not a vector",
            data.result_type
        )));
    }
    let samples: Vec<VectorSample> =
        serde_json::from_value(data.result).map_err(|e| garbage(format!("a sample: {e}")))?;
    samples
        .into_iter()
        .map(|s| {
            let value = s
                .value
                .1
                .parse::<f64>()
                .map_err(|_| garbage(format!("the value {:?} is not a number", s.value.1)))?;
            Ok(Sample {
                labels: s.metric,
                value,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_vector_is_decoded_with_its_labels_and_values() {
        let body = br#"{"status":"success","data":{"resultType":"vector","result":[
            {"metric":{"cluster":"a","state":"ready"},"value":[1700000000.5,"11"]},
            {"metric":{"cluster":"b"},"value":[1700000000.5,"NaN"]}]}}"#;
        let samples = decode("http://p", 200, body).expect("decodes");
        assert_eq!(samples.len(), 2);
        assert_eq!(samples[0].labels["state"], "ready");
        assert_eq!(samples[0].value, 11.0);
        assert!(samples[1].value.is_nan());
    }

    #[test]
    fn prometheus_errors_garbage_and_bare_statuses_say_what_they_are() {
        let refused =
            br#"{"status":"error","errorType":"bad_data","error":"parse error at char 3"}"#;
        let err = decode("http://p", 400, refused).expect_err("refused");
        assert_eq!(
            err.to_string(),
            "Prometheus at http://p refused it (HTTP 400, bad_data): parse error at char 3"
        );
        let err = decode("http://p", 502, b"<html>bad gateway</html>").expect_err("status");
        assert_eq!(
            err.to_string(),
            "Prometheus at http://p answered HTTP 502: <html>bad gateway</html>"
        );
        let err = decode("http://p", 200, b"hello").expect_err("garbage");
        assert!(err.to_string().starts_with("Prometheus at http://p answered something that is not its query API's JSON: expected value"), "{err}");
        let scalar = br#"{"status":"success","data":{"resultType":"scalar","result":[1,"2"]}}"#;
        let err = decode("http://p", 200, scalar).expect_err("scalar");
        assert!(
            err.to_string()
                .ends_with("resultType \"scalar\", not a vector"),
            "{err}"
        );
        let text = br#"{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"many"]}]}}"#;
        let err = decode("http://p", 200, text).expect_err("value");
        assert!(
            err.to_string()
                .ends_with("the value \"many\" is not a number"),
            "{err}"
        );
    }

    #[test]
    fn only_http_and_https_base_urls_are_taken() {
        let timeout = Duration::from_secs(1);
        assert_eq!(
            PromClient::new("http://prometheus:9090/", timeout)
                .expect("valid")
                .base(),
            "http://prometheus:9090"
        );
        for (url, why) in [
            ("prometheus:9090", "must start with http:// or https://"),
            ("ftp://p.example.com", "must start with http:// or https://"),
            ("http://p:9090/?x=1", "must not carry a query string"),
            ("not a url", "not a URL"),
        ] {
            let err = PromClient::new(url, timeout).expect_err(url);
            assert!(err.why.starts_with(why), "{url}: {err}");
        }
    }

    /// An https URL to a server that speaks plain HTTP: the TLS handshake fails, and the
    /// query says it could not reach Prometheus (no panic, no hang). Skipped where the
    /// machine has no CA certificates (then `new` says so, which is checked instead).
    #[tokio::test]
    async fn an_https_url_speaks_tls_and_a_failed_handshake_is_unreachable() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let port = listener.local_addr().expect("addr").port();
        tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            while let Ok((mut socket, _)) = listener.accept().await {
                let _ = socket
                    .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}")
                    .await;
            }
        });
        let client =
            match PromClient::new(&format!("https://127.0.0.1:{port}"), Duration::from_secs(5)) {
                Ok(client) => client,
                Err(err) => {
                    assert!(err.why.contains("CA certificates"), "{err}");
                    return;
                }
            };
        let err = client.query("up").await.expect_err("no TLS there");
        assert!(matches!(err, QueryError::Unreachable { .. }), "{err}");
        assert!(
            err.to_string().starts_with(&format!(
                "cannot reach Prometheus at https://127.0.0.1:{port}: "
            )),
            "{err}"
        );
    }
}
