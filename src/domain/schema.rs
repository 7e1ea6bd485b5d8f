//! Checking data against a JSON Schema (resume data, suspend payloads, edited arguments), with the
//! error naming every failing JSON path (S8).

use super::{Error, PathError};
use serde_json::Value;

/// Validates resume data against a JSON Schema; the error names every failing JSON path (S8).
pub fn validate(schema: &Value, data: &Value) -> Result<(), Error> {
    let validator = jsonschema::validator_for(schema)
        .map_err(|e| Error::Engine(format!("the tool's resume schema is not a valid JSON Schema: {e}")))?;
    let errors: Vec<PathError> = validator
        .iter_errors(data)
        .map(|e| {
            let mut path = e.instance_path.to_string();
            // A missing property is reported at its parent; point at the property itself.
            if let jsonschema::error::ValidationErrorKind::Required { property: Value::String(name) } = &e.kind {
                path = format!("{path}/{}", name.replace('~', "~0").replace('/', "~1"));
            }
            PathError { path, message: e.to_string() }
        })
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(Error::InvalidResumeData { errors })
    }
}
