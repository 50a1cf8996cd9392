//! CONTRACT STUB: k8s-openapi -> domain conversion, the one place the two type families meet.
