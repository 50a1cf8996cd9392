//! The JSON encoding of every server function's answer: the wire format of leptos' `Json`,
//! decoded through `serde_json::from_str` instead of `from_slice`.
//!
//! Why: the browser decodes each answer type twice over. A page's `Resource` hydrates from the
//! JSON the server wrote into the HTML with `serde_json::from_str`, while a server function
//! called from the browser decoded its response with `from_slice` (leptos' `JsonEncoding`).
//! serde_json instantiates every `Deserialize` impl once per reader, so each DTO's decoder was
//! compiled twice into the WASM. Reading both through `from_str` keeps one copy (the release
//! WASM figures are in README.md, Performance). The bytes on the wire do not change.

use leptos::server_fn::codec::Post;
use leptos::server_fn::{Bytes, ContentType, Decodes, Encodes, Format, FormatType};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// JSON as leptos' `JsonEncoding` writes it, read with `serde_json::from_str`.
pub struct JsonTextEncoding;

/// The output codec of the dashboard's server functions (`#[server(output = JsonText)]`).
pub type JsonText = Post<JsonTextEncoding>;

impl ContentType for JsonTextEncoding {
    const CONTENT_TYPE: &'static str = "application/json";
}

impl FormatType for JsonTextEncoding {
    const FORMAT_TYPE: Format = Format::Text;
}

impl<T: Serialize> Encodes<T> for JsonTextEncoding {
    type Error = serde_json::Error;

    fn encode(output: &T) -> Result<Bytes, Self::Error> {
        serde_json::to_vec(output).map(Bytes::from)
    }
}

/// Why decoding can fail: the body is not UTF-8 (which JSON always is) or not the JSON of `T`.
#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    /// The response body is not UTF-8.
    #[error("the response is not UTF-8: {0}")]
    Utf8(#[from] std::str::Utf8Error),
    /// The response is not the JSON of the expected type.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

impl<T: DeserializeOwned> Decodes<T> for JsonTextEncoding {
    type Error = DecodeError;

    fn decode(bytes: Bytes) -> Result<T, Self::Error> {
        Ok(serde_json::from_str(std::str::from_utf8(&bytes)?)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use leptos::server_fn::codec::JsonEncoding;

    #[test]
    fn reads_and_writes_the_same_bytes_as_leptos_json() {
        let value = vec![("node-a".to_string(), "kind=gpu \"quoted\" ü".to_string())];
        let ours = <JsonTextEncoding as Encodes<_>>::encode(&value).unwrap();
        let theirs = <JsonEncoding as Encodes<_>>::encode(&value).unwrap();
        assert_eq!(ours, theirs);
        let back: Vec<(String, String)> = JsonTextEncoding::decode(theirs).unwrap();
        assert_eq!(back, value);
        assert_eq!(
            <JsonTextEncoding as ContentType>::CONTENT_TYPE,
            <JsonEncoding as ContentType>::CONTENT_TYPE
        );
    }

    #[test]
    fn a_body_that_is_not_utf8_or_not_json_is_an_error() {
        let bad_utf8 = Bytes::from_static(&[b'"', 0xff, b'"']);
        assert!(matches!(
            <JsonTextEncoding as Decodes<String>>::decode(bad_utf8),
            Err(DecodeError::Utf8(_))
        ));
        let not_json = Bytes::from_static(b"{\"a\":");
        assert!(matches!(
            <JsonTextEncoding as Decodes<String>>::decode(not_json),
            Err(DecodeError::Json(_))
        ));
    }
}
