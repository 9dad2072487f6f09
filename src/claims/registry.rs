//! Registry names of imports: the npm package, PyPI distribution, Go module path or crate an
//! import in a code block comes from, and the imports that name no registry package at all
//! (relative paths, built-in and standard-library modules, path aliases, placeholders).
//!
//! Precision first: an import whose package cannot be named with confidence gives `None`,
//! so a rule that reports undeclared packages stays silent on it.

use super::Subject;
use crate::knowledge::stack;
use crate::project::{Ecosystem, canonical_name};
use crate::skill::code::Lang;

/// The registry package an import of `module` in a block of `lang` comes from.
pub fn imported_package(lang: Lang, module: &str) -> Option<Subject> {
    let (ecosystem, package) = match lang {
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => (Ecosystem::Npm, npm_package(module)?),
        Lang::Python => (Ecosystem::Pypi, pypi_distribution(module)?),
        Lang::Go => (Ecosystem::Go, go_import(module)?),
        Lang::Rust => (Ecosystem::Cargo, crate_name(module)?),
        // A PHP namespace names no package by itself: only the table's roots are read.
        Lang::Php => (
            Ecosystem::Composer,
            stack().imported(Ecosystem::Composer, module)?.to_owned(),
        ),
        _ => return None,
    };
    Some(Subject { ecosystem, package })
}

/// Node.js built-in modules, as `require('node:module').builtinModules` lists them on Node
/// 20 (https://nodejs.org/api/modules.html#built-in-modules); subpaths (`fs/promises`) are
/// read by their first segment.
const NODE_BUILTINS: &[&str] = &[
    "assert",
    "async_hooks",
    "buffer",
    "child_process",
    "cluster",
    "console",
    "constants",
    "crypto",
    "dgram",
    "diagnostics_channel",
    "dns",
    "domain",
    "events",
    "fs",
    "http",
    "http2",
    "https",
    "inspector",
    "module",
    "net",
    "os",
    "path",
    "perf_hooks",
    "process",
    "punycode",
    "querystring",
    "readline",
    "repl",
    "stream",
    "string_decoder",
    "sys",
    "timers",
    "tls",
    "trace_events",
    "tty",
    "url",
    "util",
    "v8",
    "vm",
    "wasi",
    "worker_threads",
    "zlib",
];

/// First path segments that example code uses for the example project's own folders
/// (`import { db } from 'lib/db'` through a `baseUrl`), not for registry packages.
const NPM_LOCAL_ROOTS: &[&str] = &[
    "app",
    "src",
    "lib",
    "utils",
    "components",
    "pages",
    "hooks",
    "types",
    "config",
    "services",
    "store",
    "stores",
    "api",
    "styles",
    "models",
    "server",
    "features",
    "shared",
    "helpers",
    "constants",
    "context",
    "contexts",
    "layouts",
    "routes",
    "actions",
    "db",
    "test",
    "tests",
];

/// Scopes that stand for a placeholder organisation or a path alias in examples
/// (`@repo/ui` in Turborepo's templates, `@acme/…`, `@app/…`), never a package to install.
const NPM_PLACEHOLDER_SCOPES: &[&str] = &[
    "@repo",
    "@acme",
    "@app",
    "@company",
    "@components",
    "@core",
    "@features",
    "@hooks",
    "@internal",
    "@lib",
    "@my-org",
    "@myorg",
    "@my-app",
    "@myapp",
    "@org",
    "@project",
    "@shared",
    "@src",
    "@utils",
    "@workspace",
    "@your-org",
    "@yourorg",
    "@scope",
    "@ui",
];

/// Modules a JavaScript runtime other than Node provides, not npm packages: k6's
/// (`k6/http`, https://grafana.com/docs/k6/latest/javascript-api/) and the VS Code
/// extension host's `vscode` (https://code.visualstudio.com/api/references/vscode-api).
const JS_RUNTIME_MODULES: &[&str] = &["k6", "vscode"];

/// File extensions of assets imported for a bundler (`import './app.css'`, `logo.svg`).
const ASSET_EXTENSIONS: &[&str] = &[
    ".css", ".scss", ".sass", ".less", ".svg", ".png", ".jpg", ".jpeg", ".gif", ".webp", ".json",
    ".md", ".mdx", ".html", ".vue", ".svelte", ".wasm",
];

/// The npm package of an import specifier: `@scope/name/sub` -> `@scope/name`, `name/sub` ->
/// `name`; `None` for relative and absolute paths, `node:` and built-in modules, path
/// aliases (`@/`, `~/`, `#x`, `$lib`), virtual modules (`virtual:x`, `astro:content`),
/// assets, placeholders and names npm would not accept.
pub fn npm_package(specifier: &str) -> Option<String> {
    let specifier = specifier.trim();
    if specifier.starts_with(['.', '/', '~', '#', '$', '\\'])
        || specifier.contains(':')
        || specifier.starts_with("@/")
    {
        return None;
    }
    let mut parts = specifier.split('/');
    let first = parts.next()?;
    let name = if first.starts_with('@') {
        if NPM_PLACEHOLDER_SCOPES.contains(&first) {
            return None;
        }
        format!("{first}/{}", parts.next().filter(|n| !n.is_empty())?)
    } else {
        if NODE_BUILTINS.contains(&first)
            || NPM_LOCAL_ROOTS.contains(&first)
            || JS_RUNTIME_MODULES.contains(&first)
        {
            return None;
        }
        first.to_owned()
    };
    let lower = name.to_ascii_lowercase();
    let valid = name == lower
        && !ASSET_EXTENSIONS.iter().any(|ext| lower.ends_with(ext))
        && name
            .trim_start_matches('@')
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'));
    valid.then_some(name)
}

/// Python's standard-library modules: `sys.stdlib_module_names` of CPython 3.11 (which still
/// holds the modules 3.12 and 3.13 removed, such as `distutils`, `imp` and `cgi`), without
/// its private `_` modules, plus `__future__` and the modules 3.14 added (`annotationlib`,
/// `compression`), checked against the module index https://docs.python.org/3/py-modindex.html
/// and the 3.14 What's New ("New modules").
const PYTHON_STDLIB: &[&str] = &[
    "__future__",
    "abc",
    "aifc",
    "annotationlib",
    "antigravity",
    "argparse",
    "array",
    "ast",
    "asynchat",
    "asyncio",
    "asyncore",
    "atexit",
    "audioop",
    "base64",
    "bdb",
    "binascii",
    "bisect",
    "builtins",
    "bz2",
    "cProfile",
    "calendar",
    "cgi",
    "cgitb",
    "chunk",
    "cmath",
    "cmd",
    "code",
    "codecs",
    "codeop",
    "collections",
    "colorsys",
    "compileall",
    "compression",
    "concurrent",
    "configparser",
    "contextlib",
    "contextvars",
    "copy",
    "copyreg",
    "crypt",
    "csv",
    "ctypes",
    "curses",
    "dataclasses",
    "datetime",
    "dbm",
    "decimal",
    "difflib",
    "dis",
    "distutils",
    "doctest",
    "email",
    "encodings",
    "ensurepip",
    "enum",
    "errno",
    "faulthandler",
    "fcntl",
    "filecmp",
    "fileinput",
    "fnmatch",
    "fractions",
    "ftplib",
    "functools",
    "gc",
    "genericpath",
    "getopt",
    "getpass",
    "gettext",
    "glob",
    "graphlib",
    "grp",
    "gzip",
    "hashlib",
    "heapq",
    "hmac",
    "html",
    "http",
    "idlelib",
    "imaplib",
    "imghdr",
    "imp",
    "importlib",
    "inspect",
    "io",
    "ipaddress",
    "itertools",
    "json",
    "keyword",
    "lib2to3",
    "linecache",
    "locale",
    "logging",
    "lzma",
    "mailbox",
    "mailcap",
    "marshal",
    "math",
    "mimetypes",
    "mmap",
    "modulefinder",
    "msilib",
    "msvcrt",
    "multiprocessing",
    "netrc",
    "nis",
    "nntplib",
    "nt",
    "ntpath",
    "nturl2path",
    "numbers",
    "opcode",
    "operator",
    "optparse",
    "os",
    "ossaudiodev",
    "pathlib",
    "pdb",
    "pickle",
    "pickletools",
    "pipes",
    "pkgutil",
    "platform",
    "plistlib",
    "poplib",
    "posix",
    "posixpath",
    "pprint",
    "profile",
    "pstats",
    "pty",
    "pwd",
    "py_compile",
    "pyclbr",
    "pydoc",
    "pydoc_data",
    "pyexpat",
    "queue",
    "quopri",
    "random",
    "re",
    "readline",
    "reprlib",
    "resource",
    "rlcompleter",
    "runpy",
    "sched",
    "secrets",
    "select",
    "selectors",
    "shelve",
    "shlex",
    "shutil",
    "signal",
    "site",
    "smtpd",
    "smtplib",
    "sndhdr",
    "socket",
    "socketserver",
    "spwd",
    "sqlite3",
    "sre_compile",
    "sre_constants",
    "sre_parse",
    "ssl",
    "stat",
    "statistics",
    "string",
    "stringprep",
    "struct",
    "subprocess",
    "sunau",
    "symtable",
    "sys",
    "sysconfig",
    "syslog",
    "tabnanny",
    "tarfile",
    "telnetlib",
    "tempfile",
    "termios",
    "textwrap",
    "this",
    "threading",
    "time",
    "timeit",
    "tkinter",
    "token",
    "tokenize",
    "tomllib",
    "trace",
    "traceback",
    "tracemalloc",
    "tty",
    "turtle",
    "turtledemo",
    "types",
    "typing",
    "unicodedata",
    "unittest",
    "urllib",
    "uu",
    "uuid",
    "venv",
    "warnings",
    "wave",
    "weakref",
    "webbrowser",
    "winreg",
    "winsound",
    "wsgiref",
    "xdrlib",
    "xml",
    "xmlrpc",
    "zipapp",
    "zipfile",
    "zipimport",
    "zlib",
    "zoneinfo",
];

/// Top-level names that example code uses for the example project's own packages
/// (`from app.models import User`, `from myproject.settings import …`).
const PYTHON_LOCAL_ROOTS: &[&str] = &[
    "app",
    "apps",
    "src",
    "api",
    "core",
    "config",
    "settings",
    "models",
    "schemas",
    "services",
    "utils",
    "helpers",
    "lib",
    "db",
    "database",
    "crud",
    "deps",
    "dependencies",
    "routers",
    "routes",
    "views",
    "main",
    "tests",
    "test",
    "project",
    "package",
    "module",
    "example",
    "examples",
    "common",
    "internal",
    "scripts",
    "tasks",
    "auth",
    "users",
    "conftest",
    "server",
    "client",
    "domain",
    "application",
    "infrastructure",
    "adapters",
    "handlers",
    "backend",
    "frontend",
    "mysite",
    "manage",
];

/// The PyPI distribution (PEP 503-normalised) an import of `module` comes from; `None` for
/// relative imports, the standard library and the example project's own packages.
pub fn pypi_distribution(module: &str) -> Option<String> {
    let module = module.trim();
    if module.starts_with('.') {
        return None;
    }
    let root = module.split('.').next()?;
    if root.is_empty()
        || PYTHON_STDLIB.contains(&root)
        || PYTHON_LOCAL_ROOTS.contains(&root)
        || PYTHON_HOST_MODULES.contains(&root)
        || root.starts_with("ida_")
        || root.starts_with("test_")
        || is_placeholder(root)
        || !root.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return None;
    }
    // An import named otherwise than its distribution (`yaml` -> PyYAML) is in the stack table.
    let name = stack().imported(Ecosystem::Pypi, module).unwrap_or(root);
    Some(canonical_name(Ecosystem::Pypi, name))
}

/// Owners and hosts that stand for "your module here" in Go examples.
const GO_PLACEHOLDERS: &[&str] = &[
    "example.com",
    "example.org",
    "example.net",
    "user",
    "username",
    "owner",
    "org",
    "company",
    "acme",
    "me",
    "you",
    "foo",
    "project",
    "app",
];

/// The Go import path of a non-standard import: the standard library has no dot in its first
/// element; placeholder module paths (`github.com/yourorg/app/...`, `example.com/...`) are
/// the example's own code.
pub fn go_import(path: &str) -> Option<String> {
    let path = path.trim().trim_matches('"');
    let mut elements = path.split('/');
    let host = elements.next()?;
    if !host.contains('.') || path.contains(char::is_whitespace) {
        return None;
    }
    let placeholder = std::iter::once(host)
        .chain(elements.take(2))
        .any(|e| GO_PLACEHOLDERS.contains(&e) || is_placeholder(e));
    (!placeholder).then(|| path.to_owned())
}

/// A stable key for one Go module among its packages: `github.com/o/r/sub` -> `github.com/o/r`.
pub fn go_module_key(path: &str) -> String {
    let elements: Vec<&str> = path.split('/').collect();
    let keep = match elements.first() {
        Some(&("github.com" | "gitlab.com" | "bitbucket.org" | "golang.org")) => 3,
        _ => 2,
    };
    elements[..keep.min(elements.len())].join("/")
}

/// Roots of `use` paths that are not crates of a registry.
const RUST_NOT_CRATES: &[&str] = &[
    "std",
    "core",
    "alloc",
    "crate",
    "self",
    "super",
    "proc_macro",
    "test",
];

/// Crate names that example code uses for the example's own crate or modules.
const RUST_LOCAL_ROOTS: &[&str] = &[
    "app", "lib", "models", "utils", "config", "handlers", "routes", "error", "errors", "db",
    "api", "domain", "services", "tests", "common", "types", "state",
];

/// The crate a `use` path starts with, spelt with hyphens as most crates are published
/// (`foo_bar::x` -> `foo-bar`; [`crate_spellings`] gives both); `None` for `std`, `core`,
/// `alloc`, `crate`, `self`, `super` and the example's own modules.
pub fn crate_name(path: &str) -> Option<String> {
    let path = path.trim().trim_start_matches("::");
    let root = path.split("::").next()?.trim();
    let valid = !root.is_empty()
        && root
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !RUST_NOT_CRATES.contains(&root)
        && !RUST_LOCAL_ROOTS.contains(&root)
        && !is_placeholder(root);
    valid.then(|| root.replace('_', "-"))
}

/// The two spellings Cargo accepts for one crate: a crate `foo-bar` is imported as `foo_bar`,
/// and a crate may also be published with the underscore.
pub fn crate_spellings(name: &str) -> [String; 2] {
    [name.replace('_', "-"), name.replace('-', "_")]
}

/// Modules that a host application provides to the Python it embeds (IDA Pro, Blender, GDB,
/// LLDB, Maya, Houdini, Nuke, Unreal, ArcGIS, Sublime Text, Ghidra, Binary Ninja): not on PyPI.
const PYTHON_HOST_MODULES: &[&str] = &[
    "idaapi",
    "idautils",
    "idc",
    "bpy",
    "bmesh",
    "mathutils",
    "gdb",
    "lldb",
    "maya",
    "hou",
    "nuke",
    "unreal",
    "arcpy",
    "sublime",
    "sublime_plugin",
    "ghidra",
    "binaryninja",
];

/// Package names that stand for "a package" in examples (`uv add package`, `npm i
/// my-package`, `pip install package1 package2`), and version-looking words.
pub fn placeholder_package(name: &str) -> bool {
    let bare = name.rsplit('/').next().unwrap_or(name).to_ascii_lowercase();
    let stem = bare.trim_end_matches(|c: char| c.is_ascii_digit());
    matches!(
        stem,
        "package"
            | "packages"
            | "pkg"
            | "package-name"
            | "package_name"
            | "pkg-name"
            | "new-package"
            | "some-package"
            | "other-package"
            | "another-package"
            | "foo"
            | "bar"
            | "baz"
            | "library"
            | "name"
            | "dependency"
            | "dep"
            | ""
    ) || is_placeholder(&bare)
        || bare.starts_with('<')
}

/// `my_app`, `myproject`, `your_module`, `yourorg`, `example-lib`: names written to be
/// replaced. `my` counts only before a word such names are made of, so `mysql`, `mypy` and
/// `myst-parser` stay packages.
fn is_placeholder(name: &str) -> bool {
    const NOUNS: &[&str] = &[
        "app",
        "application",
        "project",
        "package",
        "pkg",
        "lib",
        "library",
        "module",
        "mod",
        "crate",
        "org",
        "company",
        "service",
        "site",
        "api",
        "plugin",
        "component",
        "tool",
        "cli",
        "server",
        "client",
        "repo",
        "name",
        "code",
        "utils",
        "thing",
        "domain",
        "team",
    ];
    let lower = name.to_ascii_lowercase();
    let placeholder_after = |prefix: &str| {
        lower.strip_prefix(prefix).is_some_and(|rest| {
            let rest = rest.trim_start_matches(['_', '-', '.']);
            NOUNS.iter().any(|noun| rest.starts_with(noun))
        })
    };
    // `some-chart-library`, `third-party-carousel`: a stand-in for whichever package.
    let stand_in = [
        "some-",
        "some_",
        "any-",
        "third-party",
        "third_party",
        "thirdparty",
    ]
    .iter()
    .any(|prefix| lower.starts_with(prefix));
    placeholder_after("my") || lower.starts_with("your") || lower.starts_with("example") || stand_in
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn npm_specifiers_name_their_package() {
        let cases = [
            ("@testing-library/react", Some("@testing-library/react")),
            (
                "@tanstack/react-query/devtools",
                Some("@tanstack/react-query"),
            ),
            ("axios", Some("axios")),
            ("swr/infinite", Some("swr")),
            ("next/link", Some("next")),
            ("chart.js", Some("chart.js")),
            ("./Button", None),
            ("../lib/db", None),
            ("/abs/path", None),
            ("node:fs", None),
            ("fs/promises", None),
            ("path", None),
            ("@/components/ui/button", None),
            ("~/utils", None),
            ("#internal", None),
            ("$lib/stores", None),
            ("virtual:pwa-register", None),
            ("astro:content", None),
            ("./styles.css", None),
            ("styles.css", None),
            ("@repo/ui", None),
            ("@scope", None),
            ("lib/db", None),
            ("components/Button", None),
            ("React", None),
            ("k6/http", None),
            ("k6", None),
            ("vscode", None),
        ];
        for (specifier, expected) in cases {
            assert_eq!(npm_package(specifier).as_deref(), expected, "{specifier}");
        }
    }

    #[test]
    fn python_imports_name_their_distribution() {
        let cases = [
            ("yaml", Some("pyyaml")),
            ("PIL.Image", Some("pillow")),
            ("sklearn.model_selection", Some("scikit-learn")),
            ("cv2", Some("opencv-python")),
            ("bs4", Some("beautifulsoup4")),
            ("rest_framework.views", Some("djangorestframework")),
            ("pydantic_settings", Some("pydantic-settings")),
            ("fastapi.testclient", Some("fastapi")),
            ("os.path", None),
            ("typing", None),
            ("__future__", None),
            ("tomllib", None),
            ("annotationlib", None),
            ("distutils.core", None),
            (".models", None),
            ("app.models", None),
            ("myproject.settings", None),
            ("your_package", None),
            ("idautils", None),
            ("ida_bytes", None),
            ("test_calculator", None),
            ("django_filters.rest_framework", Some("django-filter")),
            (
                "rest_framework_simplejwt.tokens",
                Some("djangorestframework-simplejwt"),
            ),
            ("debug_toolbar", Some("django-debug-toolbar")),
            ("decouple", Some("python-decouple")),
            ("jose.jwt", Some("python-jose")),
        ];
        for (module, expected) in cases {
            assert_eq!(pypi_distribution(module).as_deref(), expected, "{module}");
        }
    }

    #[test]
    fn placeholders_are_not_packages() {
        for name in [
            "package",
            "package1",
            "pkg",
            "new-package",
            "my-package",
            "my_lib",
            "4",
            "foo",
            "some-chart-library",
            "third-party-carousel",
        ] {
            assert!(placeholder_package(name), "{name}");
        }
        for name in [
            "vitest",
            "django",
            "@testing-library/react",
            "packaging",
            "mypy",
            "mysql",
            "mysqlclient",
            "mysql2",
            "myst-parser",
            "something",
            "anyio",
        ] {
            assert!(!placeholder_package(name), "{name}");
        }
        for name in [
            "myapp",
            "my_project",
            "myorg",
            "my-company-lib",
            "your_module",
        ] {
            assert!(is_placeholder(name), "{name}");
        }
    }

    #[test]
    fn go_paths_and_crates() {
        assert_eq!(go_import("fmt"), None);
        assert_eq!(go_import("net/http"), None);
        assert_eq!(
            go_import("github.com/gin-gonic/gin/binding").as_deref(),
            Some("github.com/gin-gonic/gin/binding")
        );
        assert_eq!(go_import("github.com/yourorg/app/internal"), None);
        assert_eq!(go_import("example.com/m/pkg"), None);
        assert_eq!(go_import("github.com/user/project/pkg"), None);
        assert_eq!(
            go_import("github.com/go-sql-driver/mysql").as_deref(),
            Some("github.com/go-sql-driver/mysql")
        );
        assert_eq!(
            go_module_key("github.com/gin-gonic/gin/binding"),
            "github.com/gin-gonic/gin"
        );
        assert_eq!(go_module_key("go.uber.org/zap/zapcore"), "go.uber.org/zap");

        assert_eq!(
            crate_name("serde_json::Value").as_deref(),
            Some("serde-json")
        );
        assert_eq!(crate_name("tokio::sync").as_deref(), Some("tokio"));
        for local in [
            "std::fmt",
            "crate::x",
            "self::y",
            "super::z",
            "core::mem",
            "my_crate::a",
        ] {
            assert_eq!(crate_name(local), None, "{local}");
        }
        assert_eq!(
            crate_spellings("serde-json"),
            ["serde-json".to_owned(), "serde_json".to_owned()]
        );
    }

    #[test]
    fn the_standard_library_tables_hold_only_standard_modules() {
        assert!(PYTHON_STDLIB.contains(&"asyncio"));
        assert!(!PYTHON_STDLIB.contains(&"typing_extensions"));
        assert!(NODE_BUILTINS.contains(&"child_process"));
        assert!(!NODE_BUILTINS.contains(&"test"));
    }
}
