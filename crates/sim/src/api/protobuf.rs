//! The little protobuf the sim must read: client-go's typed clients (e.g. `kubectl create
//! namespace`) send bodies as `application/vnd.kubernetes.protobuf`. The sim answers in
//! JSON only, but decodes the request envelope and an object's `metadata` (name,
//! generateName, namespace, labels, annotations) for Namespaces, the one kind kubectl
//! creates this way that the sim serves. Anything else is a clear 415.
use serde_json::{json, Map, Value};

const MAGIC: &[u8] = b"k8s\0";

/// Why a protobuf body could not be read; the API server answers 415 with this text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProtobufError {
    /// The body does not start with `k8s\0`.
    #[error("missing the k8s protobuf magic prefix")]
    NoMagic,
    /// The body ends inside a varint.
    #[error("truncated varint")]
    TruncatedVarint,
    /// A varint longer than ten bytes.
    #[error("varint too long")]
    LongVarint,
    /// A field number that does not fit 32 bits.
    #[error("field number out of range")]
    FieldNumber,
    /// A length that does not fit the address space.
    #[error("length out of range")]
    Length,
    /// A length-delimited field that runs past the body.
    #[error("truncated field")]
    TruncatedField,
    /// A wire type protobuf 3 does not use.
    #[error("unsupported wire type {0}")]
    WireType(u64),
    /// A string field with bytes that are not UTF-8.
    #[error("a string field is not UTF-8")]
    NotUtf8,
    /// The envelope holds a kind other than Namespace.
    #[error("protobuf bodies are decoded for Namespaces only, not {0:?}; send JSON")]
    Kind(String),
}

/// One decoded protobuf field: number and payload.
enum Field<'a> {
    Scalar,
    Bytes(u32, &'a [u8]),
}

fn varint(buf: &[u8], pos: &mut usize) -> Result<u64, ProtobufError> {
    let mut out = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *buf.get(*pos).ok_or(ProtobufError::TruncatedVarint)?;
        *pos += 1;
        out |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Ok(out);
        }
    }
    Err(ProtobufError::LongVarint)
}

fn fields(buf: &[u8]) -> Result<Vec<Field<'_>>, ProtobufError> {
    let mut pos = 0;
    let mut out = Vec::new();
    while pos < buf.len() {
        let tag = varint(buf, &mut pos)?;
        let number = u32::try_from(tag >> 3).map_err(|_| ProtobufError::FieldNumber)?;
        match tag & 7 {
            0 => {
                varint(buf, &mut pos)?;
                out.push(Field::Scalar);
            }
            2 => {
                let len =
                    usize::try_from(varint(buf, &mut pos)?).map_err(|_| ProtobufError::Length)?;
                let end = pos
                    .checked_add(len)
                    .filter(|e| *e <= buf.len())
                    .ok_or(ProtobufError::TruncatedField)?;
                out.push(Field::Bytes(number, &buf[pos..end]));
                pos = end;
            }
            1 => {
                pos += 8;
                out.push(Field::Scalar);
            }
            5 => {
                pos += 4;
                out.push(Field::Scalar);
            }
            w => return Err(ProtobufError::WireType(w)),
        }
    }
    Ok(out)
}

fn text(b: &[u8]) -> Result<String, ProtobufError> {
    String::from_utf8(b.to_vec()).map_err(|_| ProtobufError::NotUtf8)
}

fn string_map(entry: &[u8]) -> Result<(String, String), ProtobufError> {
    let mut k = String::new();
    let mut v = String::new();
    for f in fields(entry)? {
        match f {
            Field::Bytes(1, b) => k = text(b)?,
            Field::Bytes(2, b) => v = text(b)?,
            _ => {}
        }
    }
    Ok((k, v))
}

fn object_meta(buf: &[u8]) -> Result<Value, ProtobufError> {
    let mut meta = Map::new();
    let mut labels = Map::new();
    let mut annotations = Map::new();
    for f in fields(buf)? {
        match f {
            Field::Bytes(1, b) => {
                meta.insert("name".into(), json!(text(b)?));
            }
            Field::Bytes(2, b) => {
                meta.insert("generateName".into(), json!(text(b)?));
            }
            Field::Bytes(3, b) => {
                meta.insert("namespace".into(), json!(text(b)?));
            }
            Field::Bytes(11, b) => {
                let (k, v) = string_map(b)?;
                labels.insert(k, json!(v));
            }
            Field::Bytes(12, b) => {
                let (k, v) = string_map(b)?;
                annotations.insert(k, json!(v));
            }
            _ => {}
        }
    }
    if !labels.is_empty() {
        meta.insert("labels".into(), Value::Object(labels));
    }
    if !annotations.is_empty() {
        meta.insert("annotations".into(), Value::Object(annotations));
    }
    Ok(Value::Object(meta))
}

/// Decode a protobuf-encoded Namespace into its JSON form (metadata only: a Namespace's
/// spec holds only finalizers, which the server sets).
pub fn decode_namespace(body: &[u8]) -> Result<Value, ProtobufError> {
    let envelope = body.strip_prefix(MAGIC).ok_or(ProtobufError::NoMagic)?;
    let mut kind = String::new();
    let mut raw: &[u8] = &[];
    for f in fields(envelope)? {
        match f {
            Field::Bytes(1, type_meta) => {
                for tf in fields(type_meta)? {
                    if let Field::Bytes(2, k) = tf {
                        kind = text(k)?;
                    }
                }
            }
            Field::Bytes(2, r) => raw = r,
            Field::Scalar | Field::Bytes(..) => {}
        }
    }
    if kind != "Namespace" {
        return Err(ProtobufError::Kind(kind));
    }
    let mut metadata = json!({});
    for f in fields(raw)? {
        if let Field::Bytes(1, m) = f {
            metadata = object_meta(m)?;
        }
    }
    Ok(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": metadata}))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(number: u8, payload: &[u8]) -> Vec<u8> {
        let mut out = vec![(number << 3) | 2, payload.len() as u8];
        out.extend_from_slice(payload);
        out
    }

    #[test]
    fn a_protobuf_namespace_from_client_go_decodes_to_its_name_and_labels() {
        let type_meta = [field(1, b"v1"), field(2, b"Namespace")].concat();
        let label = [field(1, b"team"), field(2, b"obs")].concat();
        let meta = [field(1, b"monitoring"), field(11, &label)].concat();
        let ns = field(1, &meta);
        let body = [MAGIC.to_vec(), field(1, &type_meta), field(2, &ns)].concat();
        let v = decode_namespace(&body).expect("decodes");
        assert_eq!(
            v["metadata"],
            json!({"name": "monitoring", "labels": {"team": "obs"}})
        );
    }

    #[test]
    fn other_kinds_and_garbage_are_refused() {
        let type_meta = field(2, b"Pod");
        let body = [MAGIC.to_vec(), field(1, &type_meta)].concat();
        assert!(decode_namespace(&body).is_err());
        assert!(decode_namespace(b"k8s\0\x0a\xff").is_err());
        assert!(decode_namespace(b"{}").is_err());
    }
}
