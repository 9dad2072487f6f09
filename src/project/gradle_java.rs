//! The Java release a Gradle build compiles its sources for, from the few ways a
//! `build.gradle` or `build.gradle.kts` writes it as a literal: `options.release`,
//! `sourceCompatibility`, a Java toolchain's `languageVersion`, and Kotlin's `jvmToolchain`.
//!
//! No Groovy or Kotlin parser: comments are blanked out, then the text is searched for these
//! names followed by `=`, `.set(` or `(` and a literal. A value the build computes
//! (`JavaLanguageVersion.of(javaVersion)` with `javaVersion` from `gradle.properties`) is
//! not read.

use std::collections::HashMap;
use std::path::Path;

use super::RuntimeKind;
use super::locate::{LineIndex, at};
use super::sink::Sink;

/// How a build states its Java release, strongest first: javac's `--release`
/// (`options.release`) overrides `sourceCompatibility`, which overrides the default a
/// toolchain gives (the toolchain's own release).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Setting {
    Release,
    Source,
    Toolchain,
}

/// The names searched for, what each sets, and whether it may stand without a receiver
/// (`release` only as `options.release`, or as `release.set(..)` inside `with(options)`).
const NAMES: &[(&str, Setting)] = &[
    ("release", Setting::Release),
    ("sourceCompatibility", Setting::Source),
    ("languageVersion", Setting::Toolchain),
    ("jvmToolchain", Setting::Toolchain),
];

/// Directories whose build files build the build itself (convention plugins): their Java
/// release is not the project's.
const BUILD_LOGIC: &[&str] = &["buildSrc", "build-logic"];

/// Records the Java release of one Gradle build file as a `java` pin, where the strongest
/// setting is first written; `variables` are the file's string assignments
/// (`val javaVersion = "17"`).
pub(crate) fn read_java_release(
    sink: &mut Sink,
    rel: &Path,
    text: &str,
    variables: &HashMap<String, String>,
) {
    if rel
        .components()
        .any(|c| BUILD_LOGIC.iter().any(|dir| c.as_os_str() == *dir))
    {
        return;
    }
    let Some((value, offset)) = java_release(text, variables) else {
        return;
    };
    let position = LineIndex::new(text).position(offset);
    sink.runtime("java", RuntimeKind::Pin, at(value, rel, position));
}

/// The release the strongest setting of `text` names, as written (`1.8`, `17`), and the byte
/// offset of its value.
fn java_release(text: &str, variables: &HashMap<String, String>) -> Option<(String, usize)> {
    let code = blanked(text, false);
    // Names are looked for outside strings too; values are read where strings are kept.
    let skeleton = blanked(text, true);
    let mut best: Option<(Setting, usize, String)> = None;
    for (name, setting) in NAMES {
        for (start, _) in skeleton.match_indices(name) {
            let Some((value, offset)) = setting_value(&code, start, name, *setting, variables)
            else {
                continue;
            };
            let stronger = best
                .as_ref()
                .is_none_or(|(s, at, _)| (*setting, offset) < (*s, *at));
            if stronger {
                best = Some((*setting, offset, value));
            }
        }
    }
    best.map(|(_, offset, value)| (value, offset))
}

/// The value assigned to the name found at `start`, and the byte offset where it begins.
fn setting_value(
    code: &str,
    start: usize,
    name: &str,
    setting: Setting,
    variables: &HashMap<String, String>,
) -> Option<(String, usize)> {
    let before = code[..start].chars().next_back();
    let after = code[start + name.len()..].chars().next();
    if before.is_some_and(is_ident) || after.is_some_and(is_ident) {
        return None;
    }
    let receiver_is_options = code[..start].ends_with("options.");
    let rest = &code[start + name.len()..];
    let trimmed = rest.trim_start();
    let (assigned, value_from) = if name == "jvmToolchain" {
        (false, trimmed.strip_prefix('(')?)
    } else if let Some(args) = trimmed.strip_prefix(".set(") {
        (false, args)
    } else {
        let value = trimmed.strip_prefix('=').filter(|v| !v.starts_with('='))?;
        (true, value)
    };
    // A bare `release = ..` is some other property (an Android build type is `release { }`).
    if setting == Setting::Release && assigned && !receiver_is_options {
        return None;
    }
    let offset = code.len() - value_from.len();
    let (value, skipped) = literal(value_from, setting, name, variables)?;
    is_release(&value).then_some((value, offset + skipped))
}

/// The literal at the start of `text` for a setting, normalised to how the JDK writes the
/// release (`JavaVersion.VERSION_1_8` is `1.8`), with the count of leading bytes skipped.
fn literal(
    text: &str,
    setting: Setting,
    name: &str,
    variables: &HashMap<String, String>,
) -> Option<(String, usize)> {
    let skipped = text.len() - text.trim_start().len();
    let text = text.trim_start();
    let value = match setting {
        // `JavaLanguageVersion.of(21)`; Kotlin's own `languageVersion` ("1.9") is not Java's.
        Setting::Toolchain if name == "languageVersion" => {
            let inner = text.strip_prefix("JavaLanguageVersion.of(")?;
            plain(inner, variables)?
        }
        Setting::Source => match text.strip_prefix("JavaVersion.") {
            Some(rest) => java_version_constant(rest, variables)?,
            None => plain(text, variables)?,
        },
        Setting::Release | Setting::Toolchain => plain(text, variables)?,
    };
    Some((value, skipped))
}

/// `VERSION_1_8`, `VERSION_17` or `toVersion(17)` after `JavaVersion.`.
fn java_version_constant(text: &str, variables: &HashMap<String, String>) -> Option<String> {
    if let Some(digits) = text.strip_prefix("VERSION_") {
        let end = digits
            .find(|c: char| !c.is_ascii_digit() && c != '_')
            .unwrap_or(digits.len());
        return Some(digits[..end].trim_end_matches('_').replace('_', "."));
    }
    plain(text.strip_prefix("toVersion(")?, variables)
}

/// A number (`17`, `1.8`), a quoted string (`'17'`, `"1.8"`, `"$javaVersion"`) or a variable
/// the file assigns a string to.
fn plain(text: &str, variables: &HashMap<String, String>) -> Option<String> {
    let text = text.trim_start();
    if let Some(quote) = text.chars().next().filter(|c| *c == '"' || *c == '\'') {
        let inner = &text[1..];
        let value = &inner[..inner.find(quote)?];
        let name = value
            .strip_prefix("${")
            .and_then(|v| v.strip_suffix('}'))
            .or_else(|| value.strip_prefix('$'));
        return match name {
            Some(name) => variables.get(name).cloned(),
            None => Some(value.to_owned()),
        };
    }
    let end = text
        .find(|c: char| !(is_ident(c) || c == '.'))
        .unwrap_or(text.len());
    let word = &text[..end];
    if word.starts_with(|c: char| c.is_ascii_digit()) {
        Some(word.to_owned())
    } else {
        variables.get(word).cloned()
    }
}

/// `8`, `17`, `1.8`: a Java release as builds write it, not `true`, `1.9.0-rc` or `KOTLIN_2_0`.
fn is_release(value: &str) -> bool {
    let mut parts = value.split('.');
    let major = parts.next().unwrap_or_default();
    let minor = parts.next();
    let number = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    let release = match minor {
        None => number(major) && major != "0" && major != "1",
        Some(minor) => major == "1" && number(minor),
    };
    release && parts.next().is_none()
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

/// `text` with the bytes of `//` and `/* */` comments, and with `strings` the contents of
/// quoted strings too, replaced by spaces (newlines kept), so that offsets still point into
/// `text`. A `//` inside a string (a URL) is no comment.
fn blanked(text: &str, strings: bool) -> String {
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    let mut i = 0;
    while i < bytes.len() {
        let rest = &bytes[i..];
        if rest.starts_with(b"\"\"\"") || rest.starts_with(b"'''") {
            let fence = &rest[..3];
            let len = find(&rest[3..], fence).map_or(rest.len(), |end| end + 6);
            if strings {
                blank(&mut out[i + 3..i + len]);
            }
            i += len;
        } else if rest[0] == b'"' || rest[0] == b'\'' {
            let len = quoted_len(rest);
            if strings {
                blank(&mut out[i + 1..i + len]);
            }
            i += len;
        } else if rest.starts_with(b"//") {
            let len = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
            blank(&mut out[i..i + len]);
            i += len;
        } else if rest.starts_with(b"/*") {
            let len = find(&rest[2..], b"*/").map_or(rest.len(), |end| end + 4);
            blank(&mut out[i..i + len]);
            i += len;
        } else {
            i += 1;
        }
    }
    // Only whole comments and string contents were blanked, each bounded by ASCII bytes.
    String::from_utf8(out).unwrap_or_default()
}

/// The length of the one-line string literal opening `text`, quotes included.
fn quoted_len(text: &[u8]) -> usize {
    let quote = text[0];
    let mut i = 1;
    while i < text.len() {
        match text[i] {
            b'\\' => i += 2,
            b'\n' => return i,
            b if b == quote => return i + 1,
            _ => i += 1,
        }
    }
    text.len()
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn blank(bytes: &mut [u8]) {
    for byte in bytes.iter_mut().filter(|b| **b != b'\n') {
        *byte = b' ';
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The release `text` states, and the text from its value to the end of that line.
    fn release(text: &str) -> Option<(String, &str)> {
        let variables = super::super::jvm::gradle_variables(text);
        java_release(text, &variables).map(|(value, offset)| {
            let line = text[offset..].lines().next().unwrap_or_default();
            (value, line)
        })
    }

    fn value(text: &str) -> Option<String> {
        release(text).map(|(value, _)| value)
    }

    #[test]
    fn source_compatibility_forms() {
        assert_eq!(value("sourceCompatibility = '17'"), Some("17".into()));
        assert_eq!(value("sourceCompatibility = \"1.8\""), Some("1.8".into()));
        assert_eq!(value("sourceCompatibility = 17"), Some("17".into()));
        assert_eq!(value("sourceCompatibility = 1.8"), Some("1.8".into()));
        assert_eq!(
            value("java {\n  sourceCompatibility = JavaVersion.VERSION_17\n}"),
            Some("17".into())
        );
        assert_eq!(
            value("compileOptions {\n    sourceCompatibility = JavaVersion.VERSION_1_8\n}"),
            Some("1.8".into())
        );
        assert_eq!(
            value("java.sourceCompatibility = JavaVersion.VERSION_11"),
            Some("11".into())
        );
        assert_eq!(
            value("sourceCompatibility = JavaVersion.VERSION_1_8.toString()"),
            Some("1.8".into())
        );
        assert_eq!(
            value("java { sourceCompatibility = JavaVersion.toVersion(\"21\") }"),
            Some("21".into())
        );
        assert_eq!(
            value("sourceCompatibility.set(JavaVersion.VERSION_21)"),
            Some("21".into())
        );
    }

    #[test]
    fn toolchain_forms() {
        let groovy = "java {\n    toolchain {\n        languageVersion = JavaLanguageVersion.of(21)\n    }\n}\n";
        assert_eq!(
            release(groovy),
            Some(("21".into(), "JavaLanguageVersion.of(21)"))
        );
        assert_eq!(
            value("java { toolchain { languageVersion.set(JavaLanguageVersion.of(21)) } }"),
            Some("21".into())
        );
        assert_eq!(
            value("java.toolchain.languageVersion.set(JavaLanguageVersion.of(\"17\"))"),
            Some("17".into())
        );
        assert_eq!(
            value("kotlin {\n    jvmToolchain(17)\n}"),
            Some("17".into())
        );
        assert_eq!(
            value("kotlin { jvmToolchain( 21 ) // of 20\n}"),
            Some("21".into())
        );
    }

    #[test]
    fn release_forms() {
        assert_eq!(
            value("compileJava {\n    options.release = 11\n}"),
            Some("11".into())
        );
        assert_eq!(
            value("tasks.withType<JavaCompile>().configureEach { options.release.set(11) }"),
            Some("11".into())
        );
        assert_eq!(
            value(
                "tasks.withType<JavaCompile>().configureEach {\n  with(options) {\n    release.set(11)\n  }\n}"
            ),
            Some("11".into())
        );
    }

    /// `--release` overrides `sourceCompatibility`, which overrides the toolchain, wherever
    /// each is written.
    #[test]
    fn the_strongest_setting_wins() {
        let text = "java {\n  toolchain {\n    languageVersion = JavaLanguageVersion.of(25)\n  }\n}\n\
                    kotlin { jvmToolchain(25) }\n\
                    sourceCompatibility = '21'\n\
                    tasks.withType(JavaCompile).configureEach {\n  options.release = 17\n}\n";
        assert_eq!(release(text), Some(("17".into(), "17")));
        let text = "java {\n  toolchain { languageVersion = JavaLanguageVersion.of(25) }\n  sourceCompatibility = JavaVersion.VERSION_1_8\n}\n";
        assert_eq!(value(text), Some("1.8".into()));
        let text = "sourceCompatibility = '11'\nsourceCompatibility = '17'\n";
        assert_eq!(value(text), Some("11".into()));
    }

    #[test]
    fn variables_the_file_assigns() {
        let text = "val javaVersion = \"17\"\njava { sourceCompatibility = javaVersion }\n";
        assert_eq!(value(text), Some("17".into()));
        let text = "def jdk = '11'\ncompileJava { options.release = \"$jdk\" }\n";
        assert_eq!(value(text), Some("11".into()));
    }

    /// Comments, computed values, other projects' versions (Kotlin's `languageVersion`,
    /// `jvmTarget`), `targetCompatibility` alone and names that only contain a setting's
    /// name are not the release.
    #[test]
    fn what_is_not_the_release() {
        for text in [
            "// sourceCompatibility = 17\n",
            "/* java { toolchain { languageVersion = JavaLanguageVersion.of(21) } } */\n",
            "//kotlin {\n//    jvmToolchain(11)\n//}\n",
            "val javaVersion: String by project\nsourceCompatibility = javaVersion\n",
            "languageVersion.set(JavaLanguageVersion.of(javaVersion))\n",
            "kotlinOptions {\n    languageVersion = \"1.9\"\n    jvmTarget = \"1.8\"\n}\n",
            "compilerOptions { languageVersion.set(KotlinVersion.KOTLIN_2_0) }\n",
            "java { targetCompatibility = JavaVersion.VERSION_11 }\n",
            "def releaseTag = System.getenv(\"BUILD_TAG\")\n",
            "buildTypes {\n    release {\n        minifyEnabled = false\n    }\n}\n",
            "release = 11\n",
            "ext.javaCompatibility = JavaVersion.VERSION_1_8\n",
            "sourceCompatibility = JavaVersion.VERSION_HIGHER\n",
            "options.release.set(null as Int?)\n",
            "jvmToolchain(libs.versions.java.get().toInt())\n",
            "url = \"https://example.com/sourceCompatibility = 17\"\n",
        ] {
            assert_eq!(value(text), None, "{text}");
        }
    }

    #[test]
    fn a_url_is_not_a_comment() {
        let text = "maven { url = \"https://repo.example.com/\" } ; sourceCompatibility = '17'\n";
        assert_eq!(value(text), Some("17".into()));
    }

    #[test]
    fn releases_as_builds_write_them() {
        for ok in ["8", "17", "1.8", "25"] {
            assert!(is_release(ok), "{ok}");
        }
        for bad in ["", "0", "1", "1.9.0", "17.0.2", "x", "1.", "KOTLIN_2_0"] {
            assert!(!is_release(bad), "{bad}");
        }
    }
}
