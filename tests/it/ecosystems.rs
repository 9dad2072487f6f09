//! SG402 on Rails, Laravel, ASP.NET Core and Go module projects: a removed or deprecated API
//! in a skill's Ruby, PHP, C# or Go block is reported with the project's version and the
//! manifest line it comes from; the replacement is clean; an older project is silent.

use super::support::{manifest, run_in, tree};

/// The SG402 lines of a concise check of `skill/SKILL.md` (holding `block`) against a
/// project made of `files`.
fn removed_api_lines(files: &[(&str, &str)], block: &str) -> Vec<String> {
    let skill = manifest("ecosystem-check", block);
    let mut all: Vec<(&str, &str)> = files.to_vec();
    all.push((".claude/skills/ecosystem-check/SKILL.md", &skill));
    let dir = tree(&all);
    let (_, out, stderr) = run_in(
        dir.path(),
        &[
            "check",
            ".claude/skills/ecosystem-check",
            "--repo",
            ".",
            "--format",
            "concise",
            "--select",
            "SG402",
        ],
    );
    assert!(stderr.is_empty(), "{stderr}");
    out.lines()
        .filter(|line| line.contains(" SG402 "))
        .map(str::to_owned)
        .collect()
}

/// Asserts that there are `count` lines and every expected fragment is in one of them.
fn assert_hits(lines: &[String], count: usize, expected: &[&str]) {
    assert_eq!(lines.len(), count, "{lines:#?}");
    for fragment in expected {
        assert!(
            lines.iter().any(|line| line.contains(fragment)),
            "missing {fragment:?} in {lines:#?}"
        );
    }
}

fn gemfile_lock(rails: &str) -> String {
    format!(
        "GEM\n  remote: https://rubygems.org/\n  specs:\n    pg (1.5.6)\n    rails ({rails})\n      \
         railties (= {rails})\n    railties ({rails})\n\nPLATFORMS\n  ruby\n\nDEPENDENCIES\n  pg\n  rails\n\n\
         BUNDLED WITH\n   2.5.11\n"
    )
}

const GEMFILE: &str = "source \"https://rubygems.org\"\n\ngem \"rails\"\ngem \"pg\"\n";

const RAILS_OLD_API: &str = "```ruby\nclass PostsController < ApplicationController\n  \
    before_filter :authenticate_user!\n\n  def update\n    @post.update_attributes(post_params)\n    \
    ActiveSupport::Deprecation.warn(\"going away\")\n  end\nend\n```\n";

const RAILS_CURRENT_API: &str = "```ruby\nclass PostsController < ApplicationController\n  \
    before_action :authenticate_user!\n\n  def update\n    @post.update(post_params)\n    \
    Rails.application.deprecators[:app].warn(\"going away\")\n  end\nend\n```\n";

#[test]
fn rails_removals_name_the_gemfile_lock_version() {
    let lock = gemfile_lock("7.2.1");
    let files = [("Gemfile", GEMFILE), ("Gemfile.lock", lock.as_str())];
    let lines = removed_api_lines(&files, RAILS_OLD_API);
    assert_hits(
        &lines,
        3,
        &[
            "SKILL.md:7:3: SG402 `before_filter` is removed since rails 5.1.0, and the project uses rails 7.2.1 (Gemfile.lock:5)",
            "SKILL.md:10:5: SG402 `.update_attributes()`",
            "removed since rails 6.1.0, and the project uses rails 7.2.1 (Gemfile.lock:5)",
            "SKILL.md:11:5: SG402 `ActiveSupport.Deprecation.warn` is removed since rails 7.2.0",
        ],
    );
    assert!(removed_api_lines(&files, RAILS_CURRENT_API).is_empty());
}

#[test]
fn rails_changes_after_the_project_version_are_silent() {
    // Rails 5.0: before_filter is still there (removed in 5.1), and so is update_attributes.
    let lock = gemfile_lock("5.0.7");
    let files = [("Gemfile", GEMFILE), ("Gemfile.lock", lock.as_str())];
    assert!(removed_api_lines(&files, RAILS_OLD_API).is_empty());
    // Rails 7.1 deprecates the Deprecation singleton without removing it.
    let lock = gemfile_lock("7.1.3");
    let files = [("Gemfile", GEMFILE), ("Gemfile.lock", lock.as_str())];
    let lines = removed_api_lines(&files, RAILS_OLD_API);
    assert_eq!(lines.len(), 3, "{lines:#?}");
    assert!(
        lines.iter().any(|l| l.contains(
            "`ActiveSupport.Deprecation.warn` is deprecated since rails 7.1.0, and the project uses rails 7.1.3"
        )),
        "{lines:#?}"
    );
}

const COMPOSER_JSON: &str = "{\n  \"name\": \"acme/shop\",\n  \"require\": {\n    \"php\": \"^8.2\",\n    \
    \"laravel/framework\": \"^11.0\"\n  }\n}\n";

fn composer_lock(laravel: &str) -> String {
    format!(
        "{{\n  \"packages\": [\n    {{\n      \"name\": \"laravel/framework\",\n      \"version\": \"v{laravel}\"\n    }}\n  ],\n  \
         \"packages-dev\": []\n}}\n"
    )
}

const LARAVEL_OLD_API: &str = "```php\n<?php\n\nuse Illuminate\\Support\\Facades\\Input;\nuse Illuminate\\Support\\Facades\\Bus;\n\n\
    $slug = 'posts/'.str_slug(Input::get('title'));\nBus::dispatchNow(new PublishPost($slug));\n```\n";

const LARAVEL_CURRENT_API: &str = "```php\n<?php\n\nuse Illuminate\\Support\\Facades\\Bus;\nuse Illuminate\\Support\\Facades\\Request;\nuse Illuminate\\Support\\Str;\n\n\
    $slug = 'posts/'.Str::slug(Request::input('title'));\nBus::dispatchSync(new PublishPost($slug));\n```\n";

#[test]
fn laravel_removals_name_the_composer_lock_version() {
    let lock = composer_lock("11.9.2");
    let files = [
        ("composer.json", COMPOSER_JSON),
        ("composer.lock", lock.as_str()),
    ];
    let lines = removed_api_lines(&files, LARAVEL_OLD_API);
    assert_hits(
        &lines,
        4,
        &[
            "SKILL.md:8:1: SG402 `Illuminate.Support.Facades.Input` is removed since laravel/framework 6.0.0, and the project uses laravel/framework 11.9.2 (composer.lock:4)",
            "SKILL.md:11:18: SG402 `.str_slug()`",
            "SKILL.md:11:27: SG402 `Illuminate.Support.Facades.Input.get` is removed",
            "SKILL.md:12:1: SG402 `Illuminate.Support.Facades.Bus.dispatchNow` is removed since laravel/framework 10.0.0",
        ],
    );
    assert!(removed_api_lines(&files, LARAVEL_CURRENT_API).is_empty());
}

#[test]
fn laravel_before_the_removal_is_silent() {
    // Laravel 5.8 still ships the Input facade, the str_ helpers and Bus::dispatchNow.
    let lock = composer_lock("5.8.38");
    let json = COMPOSER_JSON.replace("^11.0", "5.8.*");
    let files = [
        ("composer.json", json.as_str()),
        ("composer.lock", lock.as_str()),
    ];
    assert!(removed_api_lines(&files, LARAVEL_OLD_API).is_empty());
}

fn csproj(version: &str) -> String {
    format!(
        "<Project Sdk=\"Microsoft.NET.Sdk.Web\">\n  <PropertyGroup>\n    <TargetFramework>net{major}.0</TargetFramework>\n  </PropertyGroup>\n  \
         <ItemGroup>\n    <PackageReference Include=\"Microsoft.AspNetCore.Authentication.JwtBearer\" Version=\"{version}\" />\n  </ItemGroup>\n</Project>\n",
        major = version.split('.').next().unwrap_or("8")
    )
}

const ASPNET_OLD_API: &str = "```csharp\nusing Microsoft.AspNetCore;\nusing Microsoft.AspNetCore.Authentication;\n\n\
    var host = WebHost.CreateDefaultBuilder(args).UseStartup<Startup>().Build();\n\n\
    public class ApiKeyHandler(IOptionsMonitor<ApiKeyOptions> options, ILoggerFactory logger, UrlEncoder encoder, ISystemClock clock)\n    \
    : AuthenticationHandler<ApiKeyOptions>(options, logger, encoder, clock)\n{\n}\n```\n";

const ASPNET_CURRENT_API: &str = "```csharp\nusing Microsoft.AspNetCore.Authentication;\n\n\
    var builder = WebApplication.CreateBuilder(args);\nvar app = builder.Build();\n\n\
    public class ApiKeyHandler(IOptionsMonitor<ApiKeyOptions> options, ILoggerFactory logger, UrlEncoder encoder)\n    \
    : AuthenticationHandler<ApiKeyOptions>(options, logger, encoder)\n{\n}\n```\n";

#[test]
fn aspnet_core_obsoletions_name_the_csproj_package_version() {
    let project = csproj("10.0.1");
    let files = [("src/Api/Api.csproj", project.as_str())];
    let lines = removed_api_lines(&files, ASPNET_OLD_API);
    assert_hits(
        &lines,
        2,
        &[
            "SKILL.md:9:12: SG402 `WebHost.CreateDefaultBuilder` is deprecated since Microsoft.AspNetCore.App 10.0.0, and the project uses Microsoft.AspNetCore.App 10.0.1 (src/Api/Api.csproj:6)",
            "SKILL.md:11:111: SG402 `ISystemClock` is deprecated since Microsoft.AspNetCore.App 8.0.0",
        ],
    );
    assert!(removed_api_lines(&files, ASPNET_CURRENT_API).is_empty());
}

#[test]
fn aspnet_core_before_the_obsoletion_is_silent() {
    // ASP.NET Core 7 neither obsoletes ISystemClock (8.0) nor WebHost (10.0).
    let project = csproj("7.0.20");
    let files = [("src/Api/Api.csproj", project.as_str())];
    assert!(removed_api_lines(&files, ASPNET_OLD_API).is_empty());
}

fn go_mod(client: &str) -> String {
    format!(
        "module example.com/metrics\n\ngo 1.22\n\nrequire github.com/prometheus/client_golang v{client}\n"
    )
}

fn go_sum(client: &str) -> String {
    format!(
        "github.com/prometheus/client_golang v{client} h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n\
         github.com/prometheus/client_golang v{client}/go.mod h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n"
    )
}

const GO_OLD_API: &str = "```go\npackage main\n\nimport (\n\t\"net/http\"\n\n\t\"github.com/prometheus/client_golang/prometheus\"\n)\n\n\
    func main() {\n\tprometheus.MustRegister(prometheus.NewGoCollector())\n\thttp.Handle(\"/metrics\", prometheus.Handler())\n}\n```\n";

const GO_CURRENT_API: &str = "```go\npackage main\n\nimport (\n\t\"net/http\"\n\n\t\"github.com/prometheus/client_golang/prometheus\"\n\t\
    \"github.com/prometheus/client_golang/prometheus/collectors\"\n\t\"github.com/prometheus/client_golang/prometheus/promhttp\"\n)\n\n\
    func main() {\n\tprometheus.MustRegister(collectors.NewGoCollector())\n\thttp.Handle(\"/metrics\", promhttp.Handler())\n}\n```\n";

#[test]
fn go_module_changes_name_the_go_mod_version() {
    let (module, sum) = (go_mod("1.19.1"), go_sum("1.19.1"));
    let files = [("go.mod", module.as_str()), ("go.sum", sum.as_str())];
    let lines = removed_api_lines(&files, GO_OLD_API);
    assert_hits(
        &lines,
        2,
        &[
            "SKILL.md:15:26: SG402 `github.com/prometheus/client_golang/prometheus.NewGoCollector` is deprecated since github.com/prometheus/client_golang 1.11.0, and the project uses github.com/prometheus/client_golang v1.19.1 (go.mod:5)",
            "SKILL.md:16:26: SG402 `github.com/prometheus/client_golang/prometheus.Handler` is removed since github.com/prometheus/client_golang 1.0.0",
        ],
    );
    assert!(removed_api_lines(&files, GO_CURRENT_API).is_empty());
}

#[test]
fn go_module_before_the_change_is_silent() {
    // client_golang 0.9.4 still has prometheus.Handler and the collectors in place.
    let (module, sum) = (go_mod("0.9.4"), go_sum("0.9.4"));
    let files = [("go.mod", module.as_str()), ("go.sum", sum.as_str())];
    assert!(removed_api_lines(&files, GO_OLD_API).is_empty());
}
