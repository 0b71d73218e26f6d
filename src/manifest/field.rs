//! Field errors in the API server's format (`k8s.io/apimachinery/pkg/util/validation/field`).

use std::fmt;

/// One field error: `spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldError {
    /// Path as the API server prints it.
    pub path: String,
    /// Everything after `path: `, e.g. `Invalid value: 2: must be 1`.
    pub body: String,
}

impl FieldError {
    /// `Invalid value: <value>: <detail>`; `value` is already formatted (`2`, `"web"`).
    pub fn invalid(path: impl Into<String>, value: impl fmt::Display, detail: &str) -> Self {
        FieldError { path: path.into(), body: format!("Invalid value: {value}: {detail}") }
    }
    /// `Required value` or `Required value: <detail>`.
    pub fn required(path: impl Into<String>, detail: &str) -> Self {
        let body = if detail.is_empty() { "Required value".to_string() } else { format!("Required value: {detail}") };
        FieldError { path: path.into(), body }
    }
    /// `Forbidden: <detail>`.
    pub fn forbidden(path: impl Into<String>, detail: &str) -> Self {
        FieldError { path: path.into(), body: format!("Forbidden: {detail}") }
    }
    /// `Duplicate value: "<value>"`.
    pub fn duplicate(path: impl Into<String>, value: &str) -> Self {
        FieldError { path: path.into(), body: format!("Duplicate value: {value:?}") }
    }
    /// `Duplicate value: <value>`; `value` is already formatted (`30080`, a Go struct).
    pub fn duplicate_value(path: impl Into<String>, value: impl fmt::Display) -> Self {
        FieldError { path: path.into(), body: format!("Duplicate value: {value}") }
    }
    /// `Unsupported value: "<value>": supported values: "A", "B"` (in the order given).
    pub fn not_supported(path: impl Into<String>, value: &str, supported: &[&str]) -> Self {
        let list: Vec<String> = supported.iter().map(|s| format!("{s:?}")).collect();
        FieldError {
            path: path.into(),
            body: format!("Unsupported value: {value:?}: supported values: {}", list.join(", ")),
        }
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.body)
    }
}

/// Go's `%#v` of a `[]string`: `[]string{"a", "b"}`, or `[]string(nil)` for a nil slice.
pub fn go_strings(values: Option<&[String]>) -> String {
    match values {
        None => "[]string(nil)".to_string(),
        Some(v) => {
            let items: Vec<String> = v.iter().map(|s| format!("{s:?}")).collect();
            format!("[]string{{{}}}", items.join(", "))
        }
    }
}
