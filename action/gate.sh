#!/usr/bin/env bash
# Run `skillgate gate --github` with the action's inputs, which arrive as INPUT_* environment
# variables (never through expressions inside the script), and set the step's outputs.
set -euo pipefail

args=(gate --github --repo "${INPUT_REPO:-.}" --fail-on "${INPUT_FAIL_ON:-error}")
if [ -n "${INPUT_CONFIG:-}" ]; then
  args+=(--config "$INPUT_CONFIG")
fi
if [ "${INPUT_COMMENT:-false}" = "true" ]; then
  args+=(--comment)
fi
verdicts="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/skillgate-verdicts.json"
args+=(--json "$verdicts")
if [ -n "${INPUT_SARIF:-}" ]; then
  args+=(--sarif "$INPUT_SARIF")
fi

if [ "${INPUT_EVAL:-false}" = "true" ]; then
  args+=(--eval --tasks "${INPUT_TASKS:-tasks}")
  if [ -n "${INPUT_AGENT:-}" ]; then
    args+=(--agent "$INPUT_AGENT")
  fi
  if [ -n "${INPUT_MODELS:-}" ]; then
    args+=(--models "$INPUT_MODELS")
  elif [ -n "${INPUT_MODEL:-}" ]; then
    args+=(--model "$INPUT_MODEL")
  fi
fi

# Skills: paths or globs separated by white space; each must match something.
if [ -n "${INPUT_SKILLS:-}" ]; then
  shopt -s globstar
  set -f
  # shellcheck disable=SC2206 # split on white space, globs expanded one by one below
  words=($INPUT_SKILLS)
  set +f
  for word in "${words[@]}"; do
    matched=0
    while IFS= read -r path; do
      args+=("$path")
      matched=1
    done < <(compgen -G "$word" || true)
    if [ "$matched" = 0 ]; then
      echo "::error title=skillgate::skills: '$word' matches no file or folder"
      exit 2
    fi
  done
fi

# SARIF links each rule to its section of docs/rules.md at the action's own ref; an action
# used from the checked-out repository itself (`uses: ./`) documents its rules at this commit.
if [ -z "${SKILLGATE_RULES_DOC:-}" ]; then
  server="${GITHUB_SERVER_URL:-https://github.com}"
  if [ -n "${ACTION_REPOSITORY:-}" ] && [ -n "${ACTION_REF:-}" ]; then
    export SKILLGATE_RULES_DOC="$server/$ACTION_REPOSITORY/blob/$ACTION_REF/docs/rules.md"
  elif [ -n "${GITHUB_REPOSITORY:-}" ] && [ -n "${GITHUB_SHA:-}" ]; then
    export SKILLGATE_RULES_DOC="$server/$GITHUB_REPOSITORY/blob/$GITHUB_SHA/docs/rules.md"
  fi
fi

status=0
skillgate "${args[@]}" || status=$?
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  if [ -f "$verdicts" ]; then
    echo "verdicts=$verdicts" >>"$GITHUB_OUTPUT"
  fi
  if [ -n "${INPUT_SARIF:-}" ] && [ -f "$INPUT_SARIF" ]; then
    echo "sarif=$INPUT_SARIF" >>"$GITHUB_OUTPUT"
  fi
fi
exit "$status"
