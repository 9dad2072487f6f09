//! The `command` protocol: any program, told everything through `SKILLGATE_*` variables,
//! writing its usage as JSON to `SKILLGATE_USAGE_FILE`.

use crate::eval::agent::{Invocation, Usage};

/// The program runs through `sh -c`, so `--agent-cmd` may carry its own arguments.
pub fn argv(inv: &Invocation) -> Vec<String> {
    vec!["sh".to_owned(), "-c".to_owned(), inv.program.clone()]
}

/// Parses the usage file; a program that writes none reports zero usage.
pub fn usage(file: Option<&[u8]>) -> Result<Usage, String> {
    match file {
        None => Ok(Usage::default()),
        Some(bytes) if bytes.iter().all(u8::is_ascii_whitespace) => Ok(Usage::default()),
        Some(bytes) => serde_json::from_slice(bytes).map_err(|e| format!("usage file: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_file_is_parsed_and_optional() {
        let u = usage(Some(br#"{"input_tokens": 12, "output_tokens": 3, "cache_read_tokens": 4, "cache_write_tokens": 1, "cost_usd": 0.25}"#)).unwrap();
        assert_eq!(
            (
                u.input_tokens,
                u.output_tokens,
                u.cache_read_tokens,
                u.cache_write_tokens
            ),
            (12, 3, 4, 1)
        );
        assert_eq!(u.cost_usd, Some(0.25));
        assert_eq!(usage(None).unwrap(), Usage::default());
        assert!(usage(Some(b"{nope")).is_err());
    }
}
